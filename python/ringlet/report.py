"""``report``: one self-contained HTML page of a sweep's or a reproduction's results.

The page needs nothing but itself: styles are inline, plots are SVG embedded
as ``data:`` URIs in ``<img>`` elements (an SVG shown as an image can neither
run scripts nor load anything), there are no scripts, fonts or links to other
files, and a Content-Security-Policy meta tag forbids any request the page
might still make. Every text that comes from the results is HTML-escaped.

A folder is read as a **sweep** when it holds ``sweep.csv`` (or
``sweep.parquet``), and as a **reproduction** when it holds
``validation.csv`` or a figure's ``<id>.csv`` beside its ``<id>.svg`` or
``<id>.png``. A folder holding both gets both sections. When the folder also
holds a results store (``results.sqlite``), it is opened read-only and each
point's full scenario TOML is shown beside its provenance.

The same inputs give the same page, byte for byte (no timestamps).
"""

from __future__ import annotations

import base64
import hashlib
import html
import math
import os
import re
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Optional, Sequence
from xml.etree import ElementTree

from . import _core

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: The results store's file name in a sweep folder, and the format it declares.
STORE_NAME = "results.sqlite"
STORE_FORMAT = "ringlet-results/1"

#: A quote agrees with the seed when ringlet is within this many % of the seed's value.
DEFAULT_TOLERANCE_PCT = 10.0

#: Columns every sweep table (and every figure CSV) must have.
REQUIRED_COLUMNS = ("point", "priority", "throughput_mbps", "latency_ns_mean",
                    "scenario_hash", "seed", "ringlet_version")
PROVENANCE = ("scenario_hash", "seed", "ringlet_version")

#: Lines drawn per sweep plot at most; the table has every row.
MAX_LINES = 10

#: Files in a reproduce folder that are not figures.
NOT_FIGURES = {"validation", "sweep", "results"}

SVG_NS = "{http://www.w3.org/2000/svg}"
DC_NS = "{http://purl.org/dc/elements/1.1/}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: Nothing may be fetched: images only from data: URIs, styles only inline, no scripts.
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


class ReportError(ValueError):
    """The folder holds no results, a results file is damaged, or the output cannot be written.

    The message is one line naming the file and the problem.
    """


# -- small HTML helpers ---------------------------------------------------------


def _e(value: Any) -> str:
    """Escapes any value for HTML text or a quoted attribute."""
    return html.escape(str(value), quote=True)


def _missing(x: Any) -> bool:
    if x is None:
        return True
    try:
        return bool(x != x)  # NaN, pandas NA
    except (TypeError, ValueError):
        return False


def _num(x: Any, digits: int = 5) -> str:
    """A number for a table: integers whole, floats to ``digits`` significant digits."""
    if _missing(x):
        return "–"
    if isinstance(x, bool) or getattr(getattr(x, "dtype", None), "kind", "") == "b":
        return str(bool(x))
    if not isinstance(x, (int, float)) and not hasattr(x, "dtype"):
        return str(x)
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    if f.is_integer() and abs(f) < 1e15:
        return str(int(f))
    if 10 ** digits <= abs(f) < 1e15:  # whole units rather than an exponent (latencies in ns)
        return f"{f:.0f}"
    return f"{f:.{digits}g}"


def _anchor(prefix: str, name: str) -> str:
    """An HTML id from any text."""
    return prefix + re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def _table(header: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[bool] = (),
           cls: str = "") -> str:
    """An HTML table; cells are already-escaped HTML."""
    align = list(numeric) + [False] * (len(header) - len(numeric))
    out = [f'<table class="{_e(cls)}">' if cls else "<table>", "<thead><tr>"]
    out += [f'<th{" class=num" if a else ""}>{_e(h)}</th>' for h, a in zip(header, align)]
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>" + "".join(f'<td{" class=num" if a else ""}>{c}</td>' for c, a in zip(row, align))
                   + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _img(data: bytes, mime: str, alt: str) -> str:
    uri = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    return f'<img src="{uri}" alt="{_e(alt)}">'


# -- reading the results ---------------------------------------------------------


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def _read_table(path: Path) -> "pd.DataFrame":
    """A CSV or Parquet file as a DataFrame; a damaged file raises :class:`ReportError`."""
    import pandas as pd

    try:
        if path.suffix == ".parquet":
            return pd.read_parquet(path)
        return pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise ReportError(f"{path}: damaged: the file is empty") from None
    except (ValueError, OSError, UnicodeError, pd.errors.ParserError) as e:  # pyarrow's errors are ValueError/OSError
        raise ReportError(f"{path}: damaged: {_first_line(e)}") from None
    except Exception as e:  # e.g. pyarrow.ArrowException from a corrupt Parquet footer
        raise ReportError(f"{path}: damaged: {_first_line(e)}") from None


def check_sweep_table(frame: "pd.DataFrame", path: Path) -> list[str]:
    """Checks a sweep table (``ringlet sweep``'s, or a figure's CSV); returns its swept keys.

    A missing column, an empty table, a row cut short (no provenance) or text
    in a number column raises :class:`ReportError` naming the file and row.
    """
    import pandas as pd

    for column in REQUIRED_COLUMNS:
        if column not in frame.columns:
            raise ReportError(f"{path}: damaged or not a ringlet sweep table: no column {column!r}")
    if frame.empty:
        raise ReportError(f"{path}: damaged: the table has no rows")
    names = list(frame.columns)
    start, stop = names.index("point"), names.index("priority")
    if stop < start:
        raise ReportError(f"{path}: damaged or not a ringlet sweep table: 'priority' comes before 'point'")
    keys = names[start + 1:stop]
    line = 2 if path.suffix == ".csv" else None  # the header is line 1

    def where(i: int) -> str:
        return f"line {i + line}" if line else f"row {i}"

    for column in ("point", *PROVENANCE):
        bad = frame[column].isna().to_numpy().nonzero()[0]
        if len(bad):
            raise ReportError(f"{path}: damaged: {where(int(bad[0]))} has no {column} (cut short?)")
    numeric = ["point", "priority", "seed", *(c for c in names[stop + 1:] if c not in PROVENANCE
                                              and c != "stopped_by")]
    for column in numeric:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            continue
        converted = pd.to_numeric(values, errors="coerce")
        bad = (converted.isna() & values.notna()).to_numpy().nonzero()[0]
        if len(bad):
            i = int(bad[0])
            raise ReportError(f"{path}: damaged: {where(i)}: {column} is not a number: {values.iloc[i]!r}")
        frame[column] = converted
    return keys


@dataclass
class StoredRun:
    """One row of the results store (without its result JSON)."""

    id: int
    ringlet_version: Optional[str]
    replication: Optional[int]
    scenario: Optional[str]
    finished_at: Optional[str]


def read_store(path: Path, hashes: Iterable[str]) -> dict[tuple[str, int], list[StoredRun]]:
    """The store's runs of the given scenario hashes, keyed by ``(scenario_hash, seed)``.

    The database is opened read-only (``mode=ro``); nothing is written to it.
    """
    wanted = sorted({str(h) for h in hashes})
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise ReportError(f"{path}: cannot open the results store: {_first_line(e)}") from None
    try:
        try:
            row = con.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.Error as e:
            raise ReportError(f"{path}: not a ringlet results store: {_first_line(e)}") from None
        if row is None or row[0] != STORE_FORMAT:
            found = "none" if row is None else repr(row[0])
            raise ReportError(f"{path}: not a ringlet results store: format {found}, expected {STORE_FORMAT!r}")
        runs: dict[tuple[str, int], list[StoredRun]] = {}
        try:
            for i in range(0, len(wanted), 500):
                chunk = wanted[i:i + 500]
                marks = ",".join("?" * len(chunk))
                cursor = con.execute(
                    "SELECT id, scenario_hash, seed, ringlet_version, replication, scenario, finished_at "
                    f"FROM results WHERE scenario_hash IN ({marks}) ORDER BY id", chunk)
                for rid, h, seed, version, replication, scenario, finished in cursor:
                    try:
                        key = (str(h), int(seed))
                    except (TypeError, ValueError):
                        continue
                    runs.setdefault(key, []).append(StoredRun(rid, version, replication, scenario, finished))
        except sqlite3.Error as e:
            raise ReportError(f"{path}: damaged results store: {_first_line(e)}") from None
        return runs
    finally:
        con.close()


def _store_for(folder: Path, frames: Iterable["pd.DataFrame"]) -> Optional[dict[tuple[str, int], list[StoredRun]]]:
    path = folder / STORE_NAME
    if not path.is_file():
        return None
    hashes: set[str] = set()
    for frame in frames:
        hashes.update(frame["scenario_hash"].astype(str))
    return read_store(path, hashes)


def _seed(x: Any) -> Optional[int]:
    try:
        return int(x)
    except (TypeError, ValueError):
        return None


# -- sweep plots ------------------------------------------------------------------


def _is_numeric(values: "pd.Series") -> bool:
    import pandas as pd

    if pd.api.types.is_bool_dtype(values):
        return False
    return bool(pd.to_numeric(values, errors="coerce").notna().all())


def _label_value(x: Any) -> str:
    return _num(x) if isinstance(x, (int, float)) or hasattr(x, "dtype") else str(x)


@dataclass
class PlotPlan:
    """How a sweep is drawn: the x column, the line groups, per priority or totals."""

    x: str
    categorical: bool
    group_by: list[str]
    totals: bool
    lines: list[tuple[Any, ...]]
    note: str = ""


def plan_plots(frame: "pd.DataFrame", keys: Sequence[str]) -> Optional[PlotPlan]:
    """Chooses the x axis and the lines of a sweep's plots; None when there is nothing to plot.

    x is the first swept key with numeric values (else the first key, as
    categories; else the point number). One line per combination of the
    other swept keys, and per priority when a point has several; when that
    gives more than :data:`MAX_LINES` lines, the point totals are drawn
    instead, and past that only the first lines.
    """
    if frame["point"].nunique() < 2:
        return None
    numeric_keys = [k for k in keys if _is_numeric(frame[k])]
    if numeric_keys:
        x, categorical = numeric_keys[0], False
    elif keys:
        x, categorical = keys[0], True
    else:
        x, categorical = "point", False
    others = [k for k in keys if k != x]
    multi = bool(frame.groupby("point")["priority"].nunique().max() > 1)

    def combos(columns: list[str]) -> list[tuple[Any, ...]]:
        if not columns:
            return [()]
        return list(dict.fromkeys(tuple(r) for r in frame[columns].itertuples(index=False, name=None)))

    group_by, totals, note = others + (["priority"] if multi else []), False, ""
    lines = combos(group_by)
    if len(lines) > MAX_LINES and multi:
        group_by, totals = others, True
        lines = combos(group_by)
        note = "Totals over the priorities: one line per priority would be too many. "
    if len(lines) > MAX_LINES:
        note += (f"The first {MAX_LINES} of {len(lines)} combinations of "
                 f"{', '.join(group_by)} are drawn; the table has every point. ")
        lines = lines[:MAX_LINES]
    return PlotPlan(x=x, categorical=categorical, group_by=group_by, totals=totals, lines=lines, note=note)


def _line_label(group_by: Sequence[str], values: Sequence[Any]) -> str:
    parts = []
    for column, value in zip(group_by, values):
        name = column.rsplit(".", 1)[-1]
        parts.append(f"priority {_label_value(value)}" if column == "priority" else f"{name}={_label_value(value)}")
    return ", ".join(parts)


PLOT_LABELS = {
    "traffic.load_mbps_per_node": "Offered load per node (MB/s)",
    "throughput_mbps": "Effective throughput (MB/s)",
    "latency_ns_mean": "Mean one-way latency (ns)",
    "latency_ns_p99": "p99 one-way latency (ns)",
}


def sweep_plot_svg(frame: "pd.DataFrame", pp: PlotPlan, column: str, title: str) -> bytes:
    """One sweep plot (y = ``column`` or its point total) as SVG bytes."""
    import io

    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    y = f"total_{column}" if pp.totals and f"total_{column}" in frame.columns else column
    positions: dict[Any, int] = {}
    if pp.categorical:
        positions = {v: i for i, v in enumerate(dict.fromkeys(frame[pp.x].tolist()))}
    fig = MplFigure(figsize=(7.2, 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    colors = matplotlib.colormaps["tab10"].colors
    positive = []
    for i, values in enumerate(pp.lines):
        rows = frame
        for c, v in zip(pp.group_by, values):
            rows = rows[rows[c] == v]
        if pp.totals:
            rows = rows.drop_duplicates("point")
        rows = rows[rows[y].notna()]
        if rows.empty:
            continue
        xs = rows[pp.x].map(positions) if pp.categorical else rows[pp.x].astype(float)
        order = xs.argsort(kind="stable")
        ys = rows[y].astype(float).to_numpy()[order]
        positive += [v for v in ys if v > 0]
        ax.plot(xs.to_numpy()[order], ys, marker="osD^vPX*<>"[i % 10], markersize=4, linewidth=1.4,
                color=colors[i % len(colors)], label=_line_label(pp.group_by, values) or y)
    if pp.categorical:
        ax.set_xticks(list(positions.values()), [str(v) for v in positions])
    if column.startswith("latency") and positive and max(positive) / min(positive) > 30:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_xlabel(PLOT_LABELS.get(pp.x, pp.x))
    label = PLOT_LABELS.get(column, column)
    ax.set_ylabel(f"Total {label[0].lower()}{label[1:]}" if y != column else label)
    ax.grid(True, alpha=0.3)
    ax.set_title(title, fontsize=11)
    if pp.group_by:
        fig.legend(fontsize=8, loc="outside right center")
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "ringlet", "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None, "Title": title})
    return buf.getvalue()


# -- the page's sections ------------------------------------------------------------


@dataclass
class Section:
    """A part of the page: its heading (for the contents) and its HTML."""

    id: str
    title: str
    html: str


@dataclass
class Page:
    title: str
    intro: list[str] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    sources: list[Path] = field(default_factory=list)


def _toml_details(runs: Optional[list[StoredRun]], version: Any) -> str:
    """The stored scenario of a point, collapsible, with the store's run records."""
    if not runs:
        return '<span class="muted">not in the store</span>'
    same = [r for r in runs if r.ringlet_version == version] or runs
    scenario = next((r.scenario for r in same if r.scenario), None)
    records = "; ".join(
        f"run {r.id}" + (f", replication {r.replication}" if r.replication is not None else "")
        + (f", ringlet {r.ringlet_version}" if r.ringlet_version else "")
        + (f", finished {r.finished_at}" if r.finished_at else "")
        for r in runs)
    body = f"<pre>{_e(scenario)}</pre>" if scenario else '<p class="muted">no scenario stored</p>'
    return (f'<details><summary>scenario TOML</summary><p class="muted">{_e(records)}</p>{body}</details>')


def _provenance_table(frame: "pd.DataFrame", keys: Sequence[str],
                      store: Optional[dict[tuple[str, int], list[StoredRun]]]) -> str:
    """One row per point: its swept values, headline figures and provenance (and stored TOML)."""
    points = frame.drop_duplicates("point")
    header = ["point", *keys]
    extra = [c for c in ("total_throughput_mbps", "total_latency_ns_mean", "stopped_by") if c in frame.columns]
    header += extra + ["scenario_hash", "seed", "ringlet_version"]
    numeric = [True] + [_is_numeric(frame[k]) for k in keys] + [c != "stopped_by" for c in extra]
    numeric += [False, True, False]
    if store is not None:
        header.append("scenario (results store)")
    rows = []
    for _, r in points.iterrows():
        cells = [_e(_num(r["point"]))] + [_e(_num(r[k])) for k in keys] + [_e(_num(r[c])) for c in extra]
        cells += [f"<code>{_e(r['scenario_hash'])}</code>", _e(_num(r["seed"])), _e(r["ringlet_version"])]
        if store is not None:
            cells.append(_toml_details(store.get((str(r["scenario_hash"]), _seed(r["seed"]))), r["ringlet_version"]))
        rows.append(cells)
    return _table(header, rows, numeric, cls="provenance")


def sweep_sections(folder: Path, page: Page) -> None:
    """Adds a sweep folder's plots, table and provenance to ``page``."""
    path = folder / "sweep.csv"
    if not path.is_file():
        path = folder / "sweep.parquet"
    frame = _read_table(path)
    keys = check_sweep_table(frame, path)
    page.sources.append(path)
    store = _store_for(folder, [frame])
    if store is not None:
        page.sources.append(folder / STORE_NAME)
    n_points = frame["point"].nunique()
    versions = ", ".join(sorted({str(v) for v in frame["ringlet_version"]}))
    seeds = ", ".join(_num(s) for s in sorted(set(frame["seed"].tolist())))
    axes = "".join(
        f"<li><code>{_e(k)}</code>: {_e(', '.join(_label_value(v) for v in dict.fromkeys(frame[k].tolist())))}</li>"
        for k in keys)
    summary = [
        f"<p>{n_points} points, {len(frame)} rows (one per point and priority), from "
        f"<code>{_e(path.name)}</code>. ringlet {_e(versions)}; seed {_e(seeds)}.</p>",
        f"<p>Swept keys:</p><ul>{axes}</ul>" if keys else "<p>No swept keys.</p>",
    ]
    if "stopped_by" in frame.columns:
        counts = frame.drop_duplicates("point")["stopped_by"].astype(str).value_counts()
        summary.append("<p>Runs stopped by: " + _e(", ".join(f"{k} ({v})" for k, v in counts.items())) + "</p>")
    page.sections.append(Section("sweep", "Sweep", "".join(summary)))

    pp = plan_plots(frame, keys)
    if pp is None:
        plots = "<p>One point: nothing to plot.</p>"
    else:
        lines = f"One line per {' and '.join(pp.group_by)}" if pp.group_by else "One line"
        caption = f"{lines}{', point totals' if pp.totals else ''}. {pp.note}"
        plots = ""
        for column, title in (("throughput_mbps", "Throughput"), ("latency_ns_mean", "Mean latency"),
                              ("latency_ns_p99", "p99 latency")):
            if column not in frame.columns:
                continue
            svg = sweep_plot_svg(frame, pp, column, f"{title} vs {pp.x}")
            plots += (f'<figure class="plot">{_img(svg, "image/svg+xml", f"{title} vs {pp.x}")}'
                      f"<figcaption>{_e(title)} vs <code>{_e(pp.x)}</code>. {_e(caption.strip())}</figcaption></figure>")
        plots = f'<div class="plots">{plots}</div>'
    page.sections.append(Section("sweep-plots", "Plots", plots))

    shown = [c for c in frame.columns if c not in PROVENANCE]
    numeric = [c != "stopped_by" and (c not in keys or _is_numeric(frame[c])) for c in shown]
    rows = ([_e(_num(v)) for v in r] for r in frame[shown].itertuples(index=False, name=None))
    page.sections.append(Section(
        "sweep-table", "Results",
        "<p>Every row of the sweep table (throughput in MB/s, latency in ns); each point's provenance "
        'is in the <a href="#sweep-provenance">next section</a>.</p>'
        f'<div class="scroll">{_table(shown, rows, numeric)}</div>'))

    note = ("Each point's full scenario (every default filled in) comes from the results store "
            f"<code>{STORE_NAME}</code>, opened read-only: it re-runs the point exactly "
            "(<code>ringlet run</code> on the TOML)." if store is not None else
            f"No results store (<code>{STORE_NAME}</code>) in the folder: the scenario hash and seed "
            "identify each point; re-running the sweep's command gives the same hashes.")
    page.sections.append(Section(
        "sweep-provenance", "Points and provenance",
        f"<p>{note}</p>" f'<div class="scroll">{_provenance_table(frame, keys, store)}</div>'))


# -- reproduce folders ---------------------------------------------------------------


def _figure_ids(folder: Path) -> list[str]:
    """Stems of the folder's figure files: a CSV beside an SVG or PNG, or an image alone."""
    stems: dict[str, set[str]] = {}
    for p in folder.iterdir():
        if p.is_file() and p.suffix in (".csv", ".svg", ".png") and not p.name.startswith("."):
            stems.setdefault(p.stem, set()).add(p.suffix)
    return [s for s, exts in stems.items()
            if s not in NOT_FIGURES and exts & {".svg", ".png"}]


def is_reproduction(folder: Path) -> bool:
    return (folder / "validation.csv").is_file() or any(
        (folder / f"{i}.csv").is_file() for i in _figure_ids(folder))


def _natural(text: str) -> list[Any]:
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", text)]


def _svg_info(data: bytes) -> Optional[tuple[str, str]]:
    """``(title, description)`` of a well-formed SVG (empty when absent); None if it is not SVG."""
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError:
        return None
    if root.tag != f"{SVG_NS}svg":
        return None
    title = root.findtext(f"{SVG_NS}title") or root.findtext(f".//{DC_NS}title") or ""
    description = root.findtext(f".//{DC_NS}description") or ""
    return title.strip(), description.strip()


def _study_info(folder: Path) -> dict[str, str]:
    """What validation.md says of the study: title, source, name, version."""
    info: dict[str, str] = {}
    md = folder / "validation.md"
    if not md.is_file():
        return info
    try:
        text = md.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return info
    for pattern, key in ((r"^# Validation: (.+)$", "title"), (r"^Source: (.+)$", "source"),
                         (r"^ringlet (\S+), study `([^`]+)`", "name")):
        m = re.search(pattern, text, flags=re.M)
        if m:
            info[key] = m.group(m.lastindex or 1)
            if key == "name":
                info["version"] = m.group(1)
    return info


def _shipped_figures(name: Optional[str]) -> dict[str, tuple[str, str]]:
    """Titles and descriptions of a shipped study's figures (for outputs whose SVG has no title)."""
    from .study import StudyError, available_studies, load_study

    if not name or name not in available_studies():
        return {}
    try:
        study = load_study(name)
    except (StudyError, OSError):
        return {}
    return {f.id: (f.title, f.description or "") for f in study.figures}


def _holds(x: Any) -> Optional[bool]:
    if isinstance(x, bool):
        return x
    text = str(x).strip().lower()
    return {"true": True, "false": False, "1": True, "0": False, "1.0": True, "0.0": False}.get(text)


def _verdict(ok: Optional[bool]) -> str:
    if ok is None:
        return '<span class="verdict none">no value</span>'
    return '<span class="verdict agree">agrees</span>' if ok else '<span class="verdict miss">miss</span>'


def validation_html(table: "pd.DataFrame", tolerance_pct: float, known: set[str]) -> str:
    """The validation table: quotes (ours vs the seed's) and findings, each agreeing or missing."""
    def g(r: Any, column: str) -> Any:
        return r.get(column)

    def link(figure: Any) -> str:
        name = str(figure)
        return f'<a href="#{_anchor("fig-", name)}">{_e(name)}</a>' if name in known else _e(name)

    out = []
    kinds = table["kind"].astype(str)
    quotes = table[kinds == "quote"]
    if len(quotes):
        rows, agree = [], 0
        for _, r in quotes.iterrows():
            pct = g(r, "difference_pct")
            ok = None if _missing(pct) or _missing(g(r, "ringlet_value")) else abs(float(pct)) <= tolerance_pct
            agree += ok is True
            unit = "" if _missing(g(r, "unit")) else str(g(r, "unit"))
            ringlet = (_e(f"{_num(g(r, 'ringlet_value'), 4)} {unit}") if not _missing(g(r, "ringlet_value"))
                       else "– " + _e(g(r, "note") or ""))
            diff = "–" if _missing(pct) else _e(f"{float(g(r, 'difference')):+.4g} ({float(pct):+.1f}%)")
            seed = "" if _missing(g(r, "seed_value")) else f"{_num(g(r, 'seed_value'), 4)} {g(r, 'seed_unit')}"
            rows.append([link(g(r, "figure")), _e(g(r, "quote_id")), _e(g(r, "description")), _e(seed),
                         _e(f"{_num(g(r, 'seed_value_si'), 4)} {unit}"), ringlet, diff, _verdict(ok)])
        out.append(f"<h3>Quoted numbers</h3><p>{agree} of {len(quotes)} within ±{_num(tolerance_pct)}% of the "
                   "seed's value (in SI units: the seed's MiB/s × 1.048576, µs × 1000); "
                   "difference = ringlet − seed.</p>")
        out.append(_table(["figure", "quote", "what the seed says", "seed", "seed (SI)", "ringlet", "difference",
                           "verdict"], rows, [False, False, False, True, True, True, True, False], cls="validation"))
    findings = table[kinds == "finding"]
    if len(findings):
        rows, agree = [], 0
        for _, r in findings.iterrows():
            ok = _holds(g(r, "holds"))
            agree += ok is True
            unit = "" if _missing(g(r, "unit")) else str(g(r, "unit"))
            ringlet = (_e(f"{_num(g(r, 'ringlet_value'), 4)} {unit}") if not _missing(g(r, "ringlet_value"))
                       else "– " + _e(g(r, "note") or ""))
            rows.append([link(g(r, "figure")), _e(g(r, "finding_id")), _e(g(r, "description")), ringlet,
                         _e(f"{_num(g(r, 'compared_to'), 4)} {unit}"), _verdict(ok)])
        out.append(f"<h3>Findings</h3><p>{agree} of {len(findings)} of the seed's claims hold in ringlet.</p>")
        out.append(_table(["figure", "finding", "claim", "ringlet", "compared to", "verdict"], rows,
                          [False, False, False, True, True, False], cls="validation"))
    return "".join(out) or "<p>No quotes or findings.</p>"


def reproduce_sections(folder: Path, page: Page, tolerance_pct: float) -> None:
    """Adds a reproduce folder's figures, validation table and provenance to ``page``."""
    import pandas as pd

    info = _study_info(folder)
    validation: Optional[pd.DataFrame] = None
    vpath = folder / "validation.csv"
    if vpath.is_file():
        validation = _read_table(vpath)
        for column in ("kind", "figure", "description"):
            if column not in validation.columns:
                raise ReportError(f"{vpath}: damaged or not a validation table: no column {column!r}")
        page.sources.append(vpath)
    if (folder / "validation.md").is_file():
        page.sources.append(folder / "validation.md")

    shipped = _shipped_figures(info.get("name"))
    ids = _figure_ids(folder)
    order = {fid: i for i, fid in enumerate(shipped)}
    ids.sort(key=lambda i: (order.get(i, len(order)), _natural(i)))

    figures = []  # (id, title, description, image html, frame, keys)
    for fid in ids:
        frame, keys = None, []
        csv = folder / f"{fid}.csv"
        if csv.is_file():
            frame = _read_table(csv)
            keys = check_sweep_table(frame, csv)
            page.sources.append(csv)
        title, description, image = "", "", ""
        svg, png = folder / f"{fid}.svg", folder / f"{fid}.png"
        if svg.is_file():
            data = svg.read_bytes()
            meta = _svg_info(data)
            if meta is not None:
                title, description = meta
                image = _img(data, "image/svg+xml", title or fid)
                page.sources.append(svg)
        if not image and png.is_file():
            data = png.read_bytes()
            if data.startswith(PNG_SIGNATURE):
                image = _img(data, "image/png", fid)
                page.sources.append(png)
        if not image:
            image = f'<p class="miss">{_e(fid)}: the figure\'s SVG/PNG file is damaged; it is not shown.</p>'
        if fid in shipped:
            title = title or shipped[fid][0]
            description = description or shipped[fid][1]
        figures.append((fid, title or fid, description, image, frame, keys))

    quick = validation is not None and "quick" in validation.columns and any(
        _holds(v) for v in validation["quick"].tolist())
    versions: set[str] = set()
    for *_, frame, _ in figures:
        if frame is not None:
            versions.update(str(v) for v in frame["ringlet_version"])
    if validation is not None and "ringlet_version" in validation.columns:
        versions.update(str(v) for v in validation["ringlet_version"].dropna())
    store = _store_for(folder, [f for *_, f, _ in figures if f is not None])
    if store is not None:
        page.sources.append(folder / STORE_NAME)

    head = []
    if info.get("title"):
        head.append(f"<p><strong>{_e(info['title'])}</strong></p>")
    if info.get("name"):
        head.append(f"<p>Study <code>{_e(info['name'])}</code>.</p>")
    if info.get("source"):
        head.append(f"<p>Source: {_e(info['source'])}</p>")
    head.append(f"<p>{len(figures)} figures; ringlet {_e(', '.join(sorted(versions)) or 'unknown')}.</p>")
    if quick:
        head.append('<p class="banner">Quick run: fewer transactions per point, a smoke test, not a result.</p>')
    contents = "".join(f'<li><a href="#{_anchor("fig-", fid)}">{_e(fid)}</a>: {_e(title)}</li>'
                       for fid, title, *_ in figures)
    if contents:
        head.append(f"<ul>{contents}</ul>")
    page.sections.append(Section("reproduction", "Reproduction", "".join(head)))

    if validation is not None:
        page.sections.append(Section("validation", "Validation: ringlet beside the seed",
                                     validation_html(validation, tolerance_pct, {f[0] for f in figures})))

    blocks = []
    for fid, title, description, image, frame, keys in figures:
        block = [f'<section class="figure" id="{_anchor("fig-", fid)}"><h3>{_e(fid)}: {_e(title)}</h3>',
                 f'<figure class="plot">{image}<figcaption>{_e(title)}'
                 + (f": {_e(description)}" if description else "") + "</figcaption></figure>"]
        if frame is not None:
            n = frame["point"].nunique()
            versions_f = ", ".join(sorted({str(v) for v in frame["ringlet_version"]}))
            block.append(f"<details><summary>Points and provenance ({n} points, ringlet {_e(versions_f)}, "
                         f"from {_e(fid)}.csv)</summary>"
                         f'<div class="scroll">{_provenance_table(frame, keys, store)}</div></details>')
        else:
            block.append(f'<p class="muted">No {_e(fid)}.csv: no provenance for this figure.</p>')
        block.append("</section>")
        blocks.append("".join(block))
    page.sections.append(Section("figures", "Figures", "".join(blocks) or "<p>No figures.</p>"))


# -- the page ----------------------------------------------------------------------


STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 2em auto;
       max-width: 78em; padding: 0 1em; color: #1b1b1b; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; } h3 { margin-top: 1.5em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #d0d0d0; padding: 0.2em 0.5em; vertical-align: top; text-align: left; }
th { background: #f2f2f2; position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.plots { display: flex; flex-wrap: wrap; gap: 0 1.5em; } .plots figure.plot { max-width: 46em; }
.scroll { overflow: auto; max-height: 40em; }
figure.plot { margin: 1em 0; } figure.plot img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #444; max-width: 60em; }
pre { background: #f7f7f7; padding: 0.5em; font-size: 0.9em; max-width: 60em; overflow: auto; }
code { font-size: 0.95em; } .muted { color: #666; }
.verdict { font-weight: 600; } .agree { color: #17692b; } .miss { color: #b00020; } .none { color: #666; }
.banner { background: #fff3cd; border: 1px solid #e0c060; padding: 0.5em; }
nav ul { columns: 2; }
"""


def render_page(page: Page) -> str:
    """The page's HTML."""
    nav = "".join(f'<li><a href="#{_e(s.id)}">{_e(s.title)}</a></li>' for s in page.sections)
    body = "".join(f'<section id="{_e(s.id)}"><h2>{_e(s.title)}</h2>{s.html}</section>' for s in page.sections)
    sources = []
    for p in page.sources:
        try:
            digest = hashlib.sha256(p.read_bytes()).hexdigest()[:16]
            size = p.stat().st_size
        except OSError:
            continue
        sources.append([f"<code>{_e(p.name)}</code>", _e(f"{size:,}"), f"<code>{_e(digest)}</code>"])
    files = _table(["file", "bytes", "sha256 (first 16 hex digits)"], sources, [False, True, False])
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="ringlet {_e(_core.version())}">'
        f"<title>{_e(page.title)}</title><style>{STYLE}</style></head>\n<body>"
        f"<h1>{_e(page.title)}</h1>" + "".join(page.intro) + f"<nav><ul>{nav}</ul></nav>\n{body}"
        f'<section id="sources"><h2>Source files</h2><p>The files this page was made from, in the folder '
        f"above; the page itself needs no other file and no network.</p>{files}</section>"
        "</body></html>\n"
    )


def _check_out(out: Path) -> Path:
    """Checks that ``out`` can be written as a file (creates nothing)."""
    if out.is_dir():
        raise ReportError(f"--out {out}: is a directory")
    parent = out.absolute().parent
    if not parent.exists():
        raise ReportError(f"--out {out}: directory {parent} does not exist")
    if not parent.is_dir():
        raise ReportError(f"--out {out}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ReportError(f"--out {out}: directory {parent} is not writable")
    return out


def _write_atomic(out: Path, text: str) -> None:
    """Writes ``text`` to ``out`` through a temporary file in the same folder, then renames it."""
    try:
        fd, tmp = tempfile.mkstemp(dir=out.absolute().parent, prefix=f".{out.name}.", suffix=".tmp")
    except OSError as e:
        raise ReportError(f"--out {out}: cannot write: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a report is an ordinary file
        os.replace(tmp, out)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise ReportError(f"--out {out}: cannot write: {e.strerror or e}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def build(folder: "str | os.PathLike[str]", tolerance_pct: float = DEFAULT_TOLERANCE_PCT) -> tuple[str, str]:
    """The report of ``folder`` as HTML text, and what it is (``"sweep"``, ``"reproduction"`` or both)."""
    d = Path(folder)
    if not d.exists():
        raise ReportError(f"{folder}: no such directory")
    if not d.is_dir():
        raise ReportError(f"{folder}: not a directory")
    if not os.access(d, os.R_OK | os.X_OK):
        raise ReportError(f"{folder}: directory is not readable")
    sweep = (d / "sweep.csv").is_file() or (d / "sweep.parquet").is_file()
    repro = is_reproduction(d)
    if not sweep and not repro:
        raise ReportError(
            f"{folder}: holds no sweep results (sweep.csv, sweep.parquet) or reproduce results "
            f"(validation.csv, <figure>.csv with <figure>.svg)")
    kinds = " and ".join(k for k, present in (("sweep", sweep), ("reproduction", repro)) if present)
    name = d.resolve().name or str(d)
    page = Page(title=f"ringlet {kinds}: {name}")
    page.intro.append(f"<p>Results in <code>{_e(d)}</code>, written by ringlet; this page by ringlet "
                      f"{_e(_core.version())}.</p>")
    if sweep:
        sweep_sections(d, page)
    if repro:
        reproduce_sections(d, page, tolerance_pct)
    return render_page(page), kinds


def report(folder: "str | os.PathLike[str]", out: "str | os.PathLike[str]",
           tolerance_pct: float = DEFAULT_TOLERANCE_PCT) -> Path:
    """Writes one self-contained HTML page of the results in ``folder`` to ``out``.

    ``folder`` is a ``ringlet sweep --out`` folder (plots of throughput and
    latency against the first swept key, the table, each point's provenance,
    and its scenario TOML when the folder holds ``results.sqlite``), or a
    ``ringlet reproduce --out`` folder (every figure, its caption, the
    validation table, each figure's points and provenance). A quote agrees
    with the seed when ringlet is within ``tolerance_pct`` % of it.

    The page loads nothing from anywhere (no network, no other file). It is
    written atomically: a temporary file in ``out``'s folder, then renamed.
    Raises :class:`ReportError` (a ``ValueError``), writing nothing, for a
    folder without results, a damaged results file or an ``out`` that cannot
    be written. Returns ``out`` as a :class:`~pathlib.Path`.
    """
    if isinstance(tolerance_pct, bool) or not isinstance(tolerance_pct, (int, float)) \
            or not math.isfinite(tolerance_pct) or tolerance_pct < 0:
        raise ReportError(f"tolerance: expected a number >= 0, got {tolerance_pct!r}")
    out = _check_out(Path(out))
    text, _ = build(folder, tolerance_pct)
    _write_atomic(out, text)
    return out


__all__ = ["report", "build", "ReportError", "read_store", "check_sweep_table", "plan_plots"]
