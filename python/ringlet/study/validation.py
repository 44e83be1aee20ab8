"""The validation table: each quoted number beside ringlet's, each finding true or false.

Every ringlet value is recomputed from the figure's sweep table with the
recipe in the study file, so the table can be checked against the figure CSVs.
A value the data cannot give (no matching rows) is left empty with a note,
rather than failing a long run at its very end.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from ..runs.table import early_points
from . import draws
from .extract import ExtractError, Pick, model_column
from .format import Figure, Finding, Quote, Study

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

COLUMNS = [
    "kind", "figure", "quote_id", "finding_id", "description", "calibrated",
    "seed_value", "seed_unit", "seed_value_si", "ringlet_value", "ringlet_ci95", "model_value", "unit", "difference",
    "difference_pct", "holds", "verdict", "compared_to", "compared_to_high", "compared_to_ci95", "noise",
    "recipe", "note", "quick", "ringlet_version", "draws", "held_in_draws",
]


def _nan() -> float:
    return math.nan


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _model_value(fig: Figure, quote: Quote, frame: "pd.DataFrame") -> float:
    """The analytic model's value of a quote that is one statistic of a throughput or
    latency (docs/analytic.md): the same pick of the model's column; NaN for others."""
    pick = quote.value
    if not isinstance(pick, Pick):
        return _nan()
    column = model_column(pick.column, frame)
    if column is None:
        return _nan()
    try:
        return draws.estimate(dataclasses.replace(pick, column=column), frame, fig.plot.x).value
    except ExtractError:
        return _nan()


def _draws(frame: "pd.DataFrame") -> dict[str, Any]:
    """A row's ``draws`` (how many; None without draws) and ``held_in_draws`` (filled in
    for a finding over draws)."""
    return {"draws": draws.count(frame) if draws.is_drawn(frame) else None, "held_in_draws": None}


def _quote_row(fig: Figure, quote: Quote, frame: "pd.DataFrame") -> dict[str, Any]:
    row: dict[str, Any] = {
        "kind": "quote", "figure": fig.id, "quote_id": quote.id, "finding_id": None,
        "description": quote.description, "calibrated": quote.calibrated, "seed_value": quote.seed_value,
        "seed_unit": quote.seed_unit,
        "seed_value_si": quote.seed_value_si, "unit": quote.unit, "recipe": quote.value.describe(),
        "ringlet_value": _nan(), "ringlet_ci95": _nan(), "model_value": _model_value(fig, quote, frame),
        "difference": _nan(), "difference_pct": _nan(), "holds": None, "verdict": None, "compared_to": _nan(), "compared_to_high": _nan(),
        "compared_to_ci95": _nan(), "noise": _nan(), "note": "", **_draws(frame),
    }
    try:
        estimate = draws.estimate(quote.value, frame, fig.plot.x)
    except ExtractError as e:
        row["note"] = str(e)
        return row
    value = estimate.value
    row["ringlet_value"] = value
    row["ringlet_ci95"] = estimate.ci95
    row["difference"] = value - quote.seed_value_si
    if quote.seed_value_si:
        row["difference_pct"] = row["difference"] / quote.seed_value_si * 100.0
    return row


def finding_recipe(finding: Finding) -> str:
    """The finding's check in words."""
    right = f"({finding.right.describe()})"
    if finding.op == "between":
        low, high = finding.factors
        return f"{low:g} x {right} <= ({finding.left.describe()}) <= {high:g} x {right}"
    scaled = f"{finding.factor:g} x {right}" if finding.factor != 1 else right
    return f"({finding.left.describe()}) {finding.op} {scaled}"


def _finding_row(fig: Figure, finding: Finding, frame: "pd.DataFrame") -> dict[str, Any]:
    row: dict[str, Any] = {
        "kind": "finding", "figure": fig.id, "quote_id": None, "finding_id": finding.id,
        "description": finding.description, "calibrated": None, "seed_value": _nan(), "seed_unit": None,
        "seed_value_si": _nan(),
        "unit": finding.left.unit, "recipe": finding_recipe(finding), "ringlet_value": _nan(),
        "ringlet_ci95": _nan(), "difference": _nan(), "difference_pct": _nan(), "holds": None, "verdict": None,
        "compared_to": _nan(), "compared_to_high": _nan(), "compared_to_ci95": _nan(), "noise": _nan(), "note": "",
        **_draws(frame),
    }
    try:
        if draws.is_drawn(frame):
            judged = draws.judge(finding, frame, fig.plot.x)
            left, right, noise = judged.left, judged.right, judged.noise
            row["held_in_draws"] = judged.held
        else:
            left = finding.left.estimate(frame, fig.plot.x)
            right = finding.right.estimate(frame, fig.plot.x)
            noise = finding.noise(left.ci95, right.ci95)
    except ExtractError as e:
        row["note"] = str(e)
        return row
    factors = finding.factors
    row["ringlet_value"] = left.value
    row["ringlet_ci95"] = left.ci95
    row["compared_to"] = factors[0] * right.value
    if len(factors) == 2:
        row["compared_to_high"] = factors[1] * right.value
    row["compared_to_ci95"] = abs(factors[0]) * right.ci95
    # The half-width of the difference to the nearest bound, which decides "within noise".
    nearest = min(range(len(factors)), key=lambda i: abs(left.value - factors[i] * right.value))
    row["noise"] = noise[nearest]
    row["holds"] = finding.holds(left.value, right.value)
    row["verdict"] = finding.decide(left.value, right.value, noise)
    return row


def validation_table(
    figures: Sequence[Figure], frames: Mapping[str, "pd.DataFrame"], quick: bool, version: str
) -> "pd.DataFrame":
    """One row per quote and per finding of ``figures``; ``frames`` maps figure id to its data."""
    import pandas as pd

    rows = []
    for fig in figures:
        frame = frames[fig.frame_key]
        rows += [_quote_row(fig, q, frame) for q in fig.quotes]
        rows += [_finding_row(fig, f, frame) for f in fig.findings]
    for row in rows:
        row["quick"] = quick
        row["ringlet_version"] = version
    table = pd.DataFrame(rows, columns=COLUMNS)
    table["holds"] = table["holds"].astype("object")
    table["calibrated"] = table["calibrated"].astype("object")
    for column in ("draws", "held_in_draws"):  # counts, empty where there are no draws
        table[column] = table[column].astype("Int64")
    return table


def is_calibrated(value: Any) -> bool:
    """A validation table's ``calibrated`` cell (a bool, or its text from a CSV) is true."""
    return value is True or str(value).strip().lower() in ("true", "1", "1.0")


#: What a calibration quote is, for the pages that show one.
CALIBRATION_NOTE = ("A **calibration** quote is a number that a parameter the seed does not give was "
                    "chosen to hit: it agrees by construction and is no evidence; a **validation** quote "
                    "is one no parameter was tuned to.")


EARLY_COLUMNS = ["figure", "point", "settings", "stopped_by", "transactions", "target_transactions"]


def early_stops(
    study: Study, figures: Sequence[Figure], frames: Mapping[str, "pd.DataFrame"], quick: bool
) -> "pd.DataFrame":
    """The points of ``figures`` that stopped before measuring their transactions
    (at the time cap or the backlog cap): one row per point, each figure's data
    looked at once. Their figures rest on fewer transactions than the study says."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for data_id in dict.fromkeys(fig.data_id for fig in figures if fig.capacity is None):
        owner = study.figure(data_id)
        target = study.scenario(owner, quick).get("run.measure_transactions")
        rows += [{"figure": data_id, **point, "target_transactions": target}
                 for point in early_points(frames[data_id], study.frame_keys(owner))]
    return pd.DataFrame(rows, columns=EARLY_COLUMNS)


def early_stops_message(early: "pd.DataFrame") -> str:
    """One line naming each point of :func:`early_stops` (for the CLI and a warning)."""
    listed = ", ".join(f"{r.figure} point {r.point} ({r.stopped_by}, {r.transactions:,} of "
                       f"{r.target_transactions:,})" for r in early.itertuples())
    return f"{len(early)} point(s) stopped before measuring their transactions: {listed}; listed in validation.md"


def short_number(x: Any, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits; a dash when there is none."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}g}"


def signed_difference(difference: float, seed: float, digits: int = 4) -> str:
    """``difference`` signed, rounded at the precision the seed's value is shown
    to (``digits`` significant digits of ``seed``): float noise reads as ``+0``,
    not ``+5.684e-14``."""
    if math.isnan(difference):
        return "–"
    scale = abs(seed) if seed and math.isfinite(seed) else abs(difference)
    if scale:
        quantum = 10.0 ** (math.floor(math.log10(scale)) - (digits - 1))
        difference = round(difference / quantum) * quantum
    text = f"{difference:+.{digits}g}"
    return "+0" if float(text) == 0 else text


def signed_pct(pct: float) -> str:
    """A difference in percent to one decimal, ``+0.0%`` for float noise (never ``-0.0%``)."""
    text = f"{pct:+.1f}"
    return ("+0.0" if float(text) == 0 else text) + "%"


def with_ci(x: Any, ci: Any, unit: str = "") -> str:
    """``x ± ci unit``, the half-width left out when there is none."""
    text = short_number(x)
    if text != "–" and ci is not None and isinstance(ci, float) and math.isfinite(ci):
        text += f" ± {short_number(ci, 2)}"
    return f"{text} {unit}".rstrip()


VERDICT_MARKDOWN = {"yes": "yes", "no": "**no**", "within noise": "within noise"}


def _count(x: Any) -> Optional[int]:
    """A count cell (``draws``, ``held_in_draws``) as an int; None when empty (None, NaN, NA)."""
    try:
        return None if x is None or x != x else int(x)
    except TypeError:  # pandas' NA, whose comparisons are NA
        return None


def _over_draws(draws: Any) -> str:
    """`` (mean of N draws)`` after a value read over draws; nothing without draws."""
    return "" if _count(draws) is None else f" (mean of {_count(draws)} draws)"


def _holds(r: Mapping[str, Any]) -> str:
    return VERDICT_MARKDOWN.get(r["verdict"], f"– ({_cell(r['note'])})")


def _held(r: Mapping[str, Any]) -> str:
    """``3 of 5 draws`` for a finding over draws; a dash otherwise."""
    draws, held = _count(r.get("draws")), _count(r.get("held_in_draws"))
    if draws is None or held is None:
        return "–"
    return f"{held} of {draws} draws"


def _bound(r: Mapping[str, Any]) -> str:
    """What ``left`` is compared to: ``factor x right`` and its half-width, or the two bounds."""
    if not math.isnan(r["compared_to_high"]):
        return f"{short_number(r['compared_to'])} to {short_number(r['compared_to_high'])} {r['unit']}"
    return f"{with_ci(r['compared_to'], r['compared_to_ci95'])} {r['unit']}"


def depends_on_the_draw(findings: "pd.DataFrame") -> "pd.DataFrame":
    """The findings over draws whose comparison held in some draws and not in others."""
    if "held_in_draws" not in findings:
        return findings.iloc[:0]
    held, draws = findings["held_in_draws"], findings["draws"]
    some = held.notna() & draws.notna()
    return findings[some & (held.fillna(0) > 0) & (held.fillna(0) < draws.fillna(0))]


def _depends_on_the_draw(findings: "pd.DataFrame", h2: str) -> list[str]:
    """The section that lists the findings over draws whose comparison depends on the draw."""
    lines = [f"{h2} Findings that depend on the draw", ""]
    mixed = depends_on_the_draw(findings)
    every = findings["draws"].notna() & (findings["held_in_draws"] == findings["draws"])
    none = findings["draws"].notna() & (findings["held_in_draws"] == 0)
    lines.append(f"Of the {int(findings['draws'].notna().sum())} findings read over draws, the comparison "
                 f"held in every draw for {int(every.sum())}, in none for {int(none.sum())}, and in some "
                 f"draws but not in others for {len(mixed)}"
                 + (": those, whose conclusion rests on the random draw, are below." if len(mixed) else "."))
    lines.append("")
    if len(mixed):
        lines += ["| figure | finding | holds | held in | ringlet | compared to |", "|---|---|:---:|:---:|---:|---:|"]
        for r in mixed.to_dict("records"):
            lines.append(f"| {r['figure']} | {r['finding_id']} | {_holds(r)} | {_held(r)} "
                         f"| {with_ci(r['ringlet_value'], r['ringlet_ci95'], r['unit'])} | {_bound(r)} |")
        lines.append("")
    return lines


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _units_sentence(table: "pd.DataFrame") -> str:
    """How the seed's units become ringlet's, for the units its quotes use."""
    units = set(table.loc[table["kind"] == "quote", "seed_unit"]) if "seed_unit" in table else set()
    parts = []
    if "MiB/s" in units:
        parts.append("The seed's MB/s is 2^20 B/s and is converted to ringlet's SI MB/s (x 1.048576); ")
    if "us" in units:
        parts.append("µs become ns. ")
    if not parts:
        parts.append("The seed's numbers are in ringlet's units (SI MB/s, ns) and compared as printed. ")
    return "".join(parts)


def to_markdown(table: "pd.DataFrame", study: Study, quick: bool, version: str, early: "pd.DataFrame",
                sensitivity: "pd.DataFrame | None" = None, level: int = 1) -> str:
    """The validation table as Markdown: quotes first, then findings, then the
    sensitivity of the quoted numbers to unknown parameters (``sensitivity``, from
    :func:`ringlet.study.curves.sensitivity_table`), then the points that stopped
    early (``early``, from :func:`early_stops`). ``level`` is the title's heading
    level (the sections are one below it), so the text can sit inside a longer document."""
    h1, h2 = "#" * level, "#" * (level + 1)
    lines = [f"{h1} Validation: {study.title}", ""]
    if study.source:
        lines += [f"Source: {study.source}", ""]
    drawn = "draws" in table and table["draws"].notna().any()
    lines += [
        f"ringlet {version}, study `{study.name}`"
        + (" — **quick run** (fewer transactions per point: a smoke test, not a result)" if quick else "")
        + ". " + _units_sentence(table) + "difference = ringlet − seed (SI). ± is the 95% confidence half-width "
        + ("of ringlet's value: batch means within a run; for a figure run over several draws (each point "
           "run with N seeds, each drawing its own random traffic), the value is the mean over the draws and "
           "± Student t over the draws' values." if drawn else "(batch means) of ringlet's value."),
        "",
    ]
    quotes = table[table["kind"] == "quote"]
    if len(quotes):
        # A role column only when some quote is a calibration target (a study without any keeps its table).
        roles = "calibrated" in quotes and any(is_calibrated(v) for v in quotes["calibrated"])
        lines += [f"{h2} Quoted numbers", ""]
        if roles:
            lines += [CALIBRATION_NOTE, "",
                      "| figure | quote | role | what the seed says | seed | seed (SI) | ringlet | difference | model |",
                      "|---|---|---|---|---:|---:|---:|---:|---:|"]
        else:
            lines += ["| figure | quote | what the seed says | seed | seed (SI) | ringlet | difference | model |",
                      "|---|---|---|---:|---:|---:|---:|---:|"]
        for r in quotes.to_dict("records"):
            diff = ("–" if math.isnan(r["difference_pct"])
                    else f"{signed_difference(r['difference'], r['seed_value_si'])} ({signed_pct(r['difference_pct'])})")
            ringlet = (with_ci(r["ringlet_value"], r["ringlet_ci95"], r["unit"]) + _over_draws(r.get("draws"))
                       if not r["note"] else f"– ({_cell(r['note'])})")
            model = "–" if _missing(r.get("model_value")) else f"{short_number(r['model_value'])} {r['unit']}"
            role = ("| **calibration** " if is_calibrated(r.get("calibrated")) else "| validation ") if roles else ""
            lines.append(
                f"| {r['figure']} | {r['quote_id']} {role}| {_cell(r['description'])} | {r['seed_value']:g} "
                f"{r['seed_unit']} | {short_number(r['seed_value_si'])} {r['unit']} | {ringlet} | {diff} | {model} |"
            )
        lines.append("")
    findings = table[table["kind"] == "finding"]
    if len(findings):
        lines += [f"{h2} Findings", "",
                  "A claim holds (yes) or not (**no**) only when ringlet's value is further from the "
                  "bound than the 95% half-width of the difference; nearer, the runs cannot tell "
                  "(within noise)."
                  + (" Over draws, the difference is taken in each draw and its half-width is Student t "
                     "over the draws' differences; *held in* counts the draws in which the comparison "
                     "itself held." if drawn else ""), ""]
        if drawn:
            lines += ["| figure | finding | claim | holds | held in | ringlet | compared to |",
                      "|---|---|---|:---:|:---:|---:|---:|"]
        else:
            lines += ["| figure | finding | claim | holds | ringlet | compared to |",
                      "|---|---|---|:---:|---:|---:|"]
        for r in findings.to_dict("records"):
            held = f"| {_held(r)} " if drawn else ""
            lines.append(
                f"| {r['figure']} | {r['finding_id']} | {_cell(r['description'])} | {_holds(r)} {held}"
                f"| {with_ci(r['ringlet_value'], r['ringlet_ci95'], r['unit'])} | {_bound(r)} |"
            )
        lines.append("")
        lines += _depends_on_the_draw(findings, h2) if drawn else []
    if sensitivity is not None and len(sensitivity):
        lines += [f"{h2} Sensitivity to parameters the seed does not give", "",
                  "Each line of a sensitivity figure: the quantity at the value ringlet uses, and its "
                  "lowest and highest values over the parameter's swept range (where), in % of the value "
                  "at ringlet's.", "",
                  "| figure | parameter | quantity | line | at ringlet's value | lowest (at) | highest (at) "
                  "| range |",
                  "|---|---|---|---|---:|---:|---:|---:|"]
        for r in sensitivity.itertuples():
            line = " / ".join(str(v) for v in (r.panel, r.series) if v is not None) or "–"
            at = with_ci(r.at_ringlet_x, r.at_ringlet_x_ci95, r.unit)
            span = ("–" if math.isnan(r.low_pct) else f"{r.low_pct:+.1f}% to {r.high_pct:+.1f}%")
            lines.append(
                f"| {r.figure} | `{r.parameter}` | {_cell(r.quantity)} | {_cell(line)} | {at} (at {r.ringlet_x:g}) "
                f"| {short_number(r.min)} ({r.min_at:g}) | {short_number(r.max)} ({r.max_at:g}) | {span} |"
            )
        lines.append("")
    lines += [f"{h2} Points that stopped early", ""]
    if early.empty:
        lines += ["None: every point measured its transactions (none stopped at the time cap "
                  "or the backlog cap).", ""]
    else:
        lines += [f"{len(early)} point(s) stopped before measuring their transactions; "
                  "the numbers drawn from them rest on fewer.", "",
                  "| figure | point | settings | stopped by | transactions | asked for |",
                  "|---|---:|---|---|---:|---:|"]
        for r in early.itertuples():
            lines.append(f"| {r.figure} | {r.point} | {_cell(r.settings)} | {r.stopped_by} "
                         f"| {r.transactions:,} | {r.target_transactions:,} |")
        lines.append("")
    return "\n".join(lines)
