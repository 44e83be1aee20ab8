"""The validation table: each quoted number beside ringlet's, each finding true or false.

Every ringlet value is recomputed from the figure's sweep table with the
recipe in the study file, so the table can be checked against the figure CSVs.
A value the data cannot give (no matching rows) is left empty with a note,
rather than failing a long run at its very end.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ..runs.table import early_points
from .extract import ExtractError
from .format import Figure, Finding, Quote, Study

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

COLUMNS = [
    "kind", "figure", "quote_id", "finding_id", "description",
    "seed_value", "seed_unit", "seed_value_si", "ringlet_value", "unit", "difference", "difference_pct",
    "holds", "compared_to", "recipe", "note", "quick", "ringlet_version",
]


def _nan() -> float:
    return math.nan


def _quote_row(fig: Figure, quote: Quote, frame: "pd.DataFrame") -> dict[str, Any]:
    row: dict[str, Any] = {
        "kind": "quote", "figure": fig.id, "quote_id": quote.id, "finding_id": None,
        "description": quote.description, "seed_value": quote.seed_value, "seed_unit": quote.seed_unit,
        "seed_value_si": quote.seed_value_si, "unit": quote.unit, "recipe": quote.value.describe(),
        "ringlet_value": _nan(), "difference": _nan(), "difference_pct": _nan(),
        "holds": None, "compared_to": _nan(), "note": "",
    }
    try:
        value = quote.value.evaluate(frame, fig.plot.x)
    except ExtractError as e:
        row["note"] = str(e)
        return row
    row["ringlet_value"] = value
    row["difference"] = value - quote.seed_value_si
    if quote.seed_value_si:
        row["difference_pct"] = row["difference"] / quote.seed_value_si * 100.0
    return row


def _finding_row(fig: Figure, finding: Finding, frame: "pd.DataFrame") -> dict[str, Any]:
    recipe = f"({finding.left.describe()}) {finding.op} "
    recipe += f"{finding.factor:g} x ({finding.right.describe()})" if finding.factor != 1 else f"({finding.right.describe()})"
    row: dict[str, Any] = {
        "kind": "finding", "figure": fig.id, "quote_id": None, "finding_id": finding.id,
        "description": finding.description, "seed_value": _nan(), "seed_unit": None, "seed_value_si": _nan(),
        "unit": finding.left.unit, "recipe": recipe, "ringlet_value": _nan(), "difference": _nan(),
        "difference_pct": _nan(), "holds": None, "compared_to": _nan(), "note": "",
    }
    try:
        left = finding.left.evaluate(frame, fig.plot.x)
        right = finding.right.evaluate(frame, fig.plot.x)
    except ExtractError as e:
        row["note"] = str(e)
        return row
    row["ringlet_value"] = left
    row["compared_to"] = finding.factor * right
    row["holds"] = finding.holds(left, right)
    return row


def validation_table(
    figures: Sequence[Figure], frames: Mapping[str, "pd.DataFrame"], quick: bool, version: str
) -> "pd.DataFrame":
    """One row per quote and per finding of ``figures``; ``frames`` maps figure id to its data."""
    import pandas as pd

    rows = []
    for fig in figures:
        frame = frames[fig.data_id]
        rows += [_quote_row(fig, q, frame) for q in fig.quotes]
        rows += [_finding_row(fig, f, frame) for f in fig.findings]
    for row in rows:
        row["quick"] = quick
        row["ringlet_version"] = version
    table = pd.DataFrame(rows, columns=COLUMNS)
    table["holds"] = table["holds"].astype("object")
    return table


EARLY_COLUMNS = ["figure", "point", "settings", "stopped_by", "transactions", "target_transactions"]


def early_stops(
    study: Study, figures: Sequence[Figure], frames: Mapping[str, "pd.DataFrame"], quick: bool
) -> "pd.DataFrame":
    """The points of ``figures`` that stopped before measuring their transactions
    (at the time cap or the backlog cap): one row per point, each figure's data
    looked at once. Their figures rest on fewer transactions than the study says."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for data_id in dict.fromkeys(fig.data_id for fig in figures):
        owner = study.figure(data_id)
        target = study.scenario(owner, quick).get("run.measure_transactions")
        rows += [{"figure": data_id, **point, "target_transactions": target}
                 for point in early_points(frames[data_id], list(owner.grid))]
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


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(table: "pd.DataFrame", study: Study, quick: bool, version: str, early: "pd.DataFrame") -> str:
    """The validation table as Markdown: quotes first, then findings, then the
    points that stopped early (``early``, from :func:`early_stops`)."""
    lines = [f"# Validation: {study.title}", ""]
    if study.source:
        lines += [f"Source: {study.source}", ""]
    lines += [
        f"ringlet {version}, study `{study.name}`"
        + (" — **quick run** (fewer transactions per point: a smoke test, not a result)" if quick else "")
        + ". The seed's MB/s is 2^20 B/s and is converted to ringlet's SI MB/s (x 1.048576); "
        "µs become ns. difference = ringlet − seed (SI).",
        "",
    ]
    quotes = table[table["kind"] == "quote"]
    if len(quotes):
        lines += ["## Quoted numbers", "",
                  "| figure | quote | what the seed says | seed | seed (SI) | ringlet | difference |",
                  "|---|---|---|---:|---:|---:|---:|"]
        for r in quotes.itertuples():
            diff = "–" if math.isnan(r.difference_pct) else f"{r.difference:+.4g} ({r.difference_pct:+.1f}%)"
            ringlet = f"{short_number(r.ringlet_value)} {r.unit}" if not r.note else f"– ({_cell(r.note)})"
            lines.append(
                f"| {r.figure} | {r.quote_id} | {_cell(r.description)} | {r.seed_value:g} {r.seed_unit} "
                f"| {short_number(r.seed_value_si)} {r.unit} | {ringlet} | {diff} |"
            )
        lines.append("")
    findings = table[table["kind"] == "finding"]
    if len(findings):
        lines += ["## Findings", "", "| figure | finding | claim | holds | ringlet | compared to |",
                  "|---|---|---|:---:|---:|---:|"]
        for r in findings.itertuples():
            holds = {True: "yes", False: "**no**"}.get(r.holds, f"– ({_cell(r.note)})")
            lines.append(
                f"| {r.figure} | {r.finding_id} | {_cell(r.description)} | {holds} "
                f"| {short_number(r.ringlet_value)} {r.unit} | {short_number(r.compared_to)} {r.unit} |"
            )
        lines.append("")
    lines += ["## Points that stopped early", ""]
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
