"""A ``ringlet sweep`` folder's sections of the report: summary, plots, table, provenance."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence

from ..runs.store import FILENAME
from ..api import schema, units
from ..runs.table import OPTIONAL_FIELDS, PROVENANCE_FIELDS, TEXT_FIELDS
from .channels import TABLES as CHANNEL_TABLES, channel_section
from .fairness import fairness_section
from .html import Page, Section, escape, html_table, img, number
from .provenance import provenance_table
from .store import family_of, store_for
from .switches import TABLES as SWITCH_TABLES, switch_section
from .tables import check_sweep_table, is_numeric, read_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Lines drawn per sweep plot at most; the table has every row.
MAX_LINES = 10


def _label_value(x: Any) -> str:
    return number(x) if isinstance(x, (int, float)) or hasattr(x, "dtype") else str(x)


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
    numeric_keys = [k for k in keys if is_numeric(frame[k])]
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
    "traffic.load_mbps_per_node": units.LOAD_LABELS["either"],
    "throughput_mbps": "Effective throughput, payload (MB/s)",
    "latency_ns_mean": "Mean one-way packet latency (ns)",
    "latency_ns_p99": "p99 one-way packet latency (ns)",
    "bus_utilization_max": "Busiest B-Link utilisation",
    "bus_utilization_mean": "Mean B-Link utilisation",
    "channel_latency_ns_mean": "Mean channel latency (ns)",
    "channel_latency_ns_p99": "p99 channel latency (ns)",
    "transaction_latency_ns_mean": "Mean transaction latency (ns)",
    "transaction_latency_ns_p99": "p99 transaction latency (ns)",
    "total_fairness_index": "Jain's fairness index",
    "total_min_carried_share": "Smallest carried share",
    "node_latency_ns_p99_max": "Worst node's p99 one-way latency (ns)",
}


def sweep_plot_svg(frame: "pd.DataFrame", pp: PlotPlan, column: str, title: str, kind: Optional[str] = None) -> bytes:
    """One sweep plot (y = ``column`` or its point total) as SVG bytes; ``kind``:
    the sweep's network family, when known (it says what the load key measures)."""
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
    if column.startswith(("latency", "node_latency")) and positive and max(positive) / min(positive) > 30:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_xlabel(units.load_label(kind) if pp.x == "traffic.load_mbps_per_node" else PLOT_LABELS.get(pp.x, pp.x))
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


def _load_note(kind: Optional[str]) -> str:
    """What the load key measured, for the table's caption."""
    raw = units.load_is_raw(kind)
    if raw is False:
        return ""
    what = "is" if raw else "is, on a switch or Banyan,"
    return (f"; <code>traffic.load_mbps_per_node</code> {what} the raw input per processor, headers and idles "
            "included (84 bytes for 64 of payload), while <code>offered_mbps</code> is payload")


def sweep_sections(folder: Path, page: Page) -> None:
    """Adds a sweep folder's plots, table and provenance to ``page``."""
    path = folder / "sweep.csv"
    if not path.is_file():
        path = folder / "sweep.parquet"
    frame = read_table(path)
    keys = check_sweep_table(frame, path)
    page.sources.append(path)
    store = store_for(folder, [frame], tables=[*SWITCH_TABLES, *CHANNEL_TABLES, "per_node"])
    if store is not None:
        page.sources.append(folder / FILENAME)
    n_points = frame["point"].nunique()
    versions = ", ".join(sorted({str(v) for v in frame["ringlet_version"]}))
    seeds = ", ".join(number(s) for s in sorted(set(frame["seed"].tolist())))
    axes = "".join(
        f"<li><code>{escape(k)}</code>: "
        f"{escape(', '.join(_label_value(v) for v in dict.fromkeys(frame[k].tolist())))}</li>"
        for k in keys)
    summary = [
        f"<p>{n_points} points, {len(frame)} rows (one per point and priority), from "
        f"<code>{escape(path.name)}</code>. ringlet {escape(versions)}; seed {escape(seeds)}.</p>",
        f"<p>Swept keys:</p><ul>{axes}</ul>" if keys else "<p>No swept keys.</p>",
    ]
    if "stopped_by" in frame.columns:
        counts = frame.drop_duplicates("point")["stopped_by"].astype(str).value_counts()
        summary.append("<p>Runs stopped by: " + escape(", ".join(f"{k} ({v})" for k, v in counts.items())) + "</p>")
    page.sections.append(Section("sweep", "Sweep", "".join(summary)))

    pp = plan_plots(frame, keys)
    kind = family_of(frame, store)
    if pp is None:
        plots = "<p>One point: nothing to plot.</p>"
    else:
        lines = f"One line per {' and '.join(pp.group_by)}" if pp.group_by else "One line"
        caption = f"{lines}{', point totals' if pp.totals else ''}. {pp.note}"
        plots = ""
        shown = [("throughput_mbps", "Throughput"), ("latency_ns_mean", "Mean latency"),
                 ("latency_ns_p99", "p99 latency")]
        # The figures only some families report (a GigaRing's channel and transaction latencies), when
        # the sweep has them: those with a unit (a count such as window decreases stays in the table).
        units = {c["name"]: c["unit"] for c in schema.optional_summary()}
        shown += [(c, PLOT_LABELS.get(c, c).split(" (")[0]) for c in OPTIONAL_FIELDS
                  if units.get(c) and c in frame.columns and frame[c].notna().any()]
        for column, title in shown:
            if column not in frame.columns:
                continue
            svg = sweep_plot_svg(frame, pp, column, f"{title} vs {pp.x}", kind)
            plots += (f'<figure class="plot">{img(svg, "image/svg+xml", f"{title} vs {pp.x}")}'
                      f"<figcaption>{escape(title)} vs <code>{escape(pp.x)}</code>. {escape(caption.strip())}"
                      "</figcaption></figure>")
        plots = f'<div class="plots">{plots}</div>'
    page.sections.append(Section("sweep-plots", "Plots", plots))

    shown = [c for c in frame.columns if c not in PROVENANCE_FIELDS]
    numeric = [c not in TEXT_FIELDS and (c not in keys or is_numeric(frame[c])) for c in shown]
    rows = ([escape(number(v)) for v in r] for r in frame[shown].itertuples(index=False, name=None))
    page.sections.append(Section(
        "sweep-table", "Results",
        "<p>Every row of the sweep table (throughput, offered load and loss in MB/s of payload; latency in ns, "
        "per packet)" + _load_note(kind) + "; each point's provenance "
        'is in the <a href="#sweep-provenance">next section</a>.</p>'
        f'<div class="scroll">{html_table(shown, rows, numeric)}</div>'))

    fairness = fairness_section(frame, keys, store)
    if fairness is not None:
        page.sections.append(Section("sweep-fairness", "Fairness", fairness))
    switches = switch_section(frame, keys, store)
    if switches is not None:
        page.sections.append(Section("sweep-switches", "Switches", switches))
    channels = channel_section(frame, keys, store)
    if channels is not None:
        page.sections.append(Section("sweep-channels", "Virtual channels and rings", channels))

    note = ("Each point's full scenario (every default filled in) comes from the results store "
            f"<code>{FILENAME}</code>, opened read-only: it re-runs the point exactly "
            "(<code>ringlet run</code> on the TOML)." if store is not None else
            f"No results store (<code>{FILENAME}</code>) in the folder: the scenario hash and seed "
            "identify each point; re-running the sweep's command gives the same hashes.")
    page.sections.append(Section(
        "sweep-provenance", "Points and provenance",
        f"<p>{note}</p>" f'<div class="scroll">{provenance_table(frame, keys, store)}</div>'))
