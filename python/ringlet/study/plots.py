"""Drawing a study figure (PNG and SVG) from its sweep table, with the seed's numbers on it.

Matplotlib is used through its object API on the Agg canvas: no pyplot, no
global figure state, no display needed. Outputs carry no timestamps, so the
same data gives the same files.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, Optional, Sequence

from ..api import units
from . import draws
from .curves import curve, ordered_values
from .extract import Difference, ExtractError, Pick, filter_rows, model_column, same_value
from .format import Figure, PlotSpec, Quote, Study

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

# Points per line above which it is drawn without markers.
DENSE_LINE = 60

MARKERS = "osD^vPX*<>hp"
#: A light backing so a label stays readable where it crosses a line.
LABEL_BOX = {"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.75}

#: Axis labels for common columns when the study gives none.
DEFAULT_LABELS = {
    "traffic.load_mbps_per_node": units.LOAD_LABELS["either"],
    "throughput_mbps": "Effective throughput, payload (MB/s)",
    "total_throughput_mbps": "Total effective throughput, payload (MB/s)",
    "latency_ns_mean": "Mean one-way packet latency (ns)",
    "total_latency_ns_mean": "Mean one-way packet latency (ns)",
    "latency_ns_p99": "p99 one-way packet latency (ns)",
    "total_latency_ns_p99": "p99 one-way packet latency (ns)",
}


#: How the analytic model (docs/analytic.md) is drawn: a thin line in the series'
#: colour, its dashes finer than the seed's values'.
MODEL_STYLE = {"linestyle": (0, (4, 2)), "linewidth": 0.9, "alpha": 0.75}


def _model_curve(frame: "pd.DataFrame", plot: PlotSpec, panel: Any, series: Any) -> Optional["pd.DataFrame"]:
    """The model's line for one panel and series, or None: the model gives totals,
    so a per-priority figure has one only where the runs have a single priority."""
    import dataclasses

    column = model_column(plot.y, frame)
    if column is None:
        return None
    line = curve(frame, dataclasses.replace(plot, y=column), panel, series)
    line = line[line["y"].notna()]
    return None if line.empty else line


#: A seed line: the quote, and the panel and series values it belongs to (None: any).
SeedLine = tuple[Quote, Any, Any]


def seed_lines(study: Study, fig: Figure) -> list[SeedLine]:
    """The quotes ``fig.plot.seed_lines`` names, each with the panel and series value
    it is about: the quote's own single ``where`` value for that key, else its
    figure's (base + fixed) value when that figure does not sweep the key."""
    plot = fig.plot
    out = []
    for fig_id, quote_id in plot.seed_lines:
        ref = study.figure(fig_id)
        quote = next(q for q in ref.quotes if q.id == quote_id)
        owner = study.figure(ref.data_id)
        where = dict(quote.value.picks()[0].where)

        def about(key: Optional[str]) -> Any:
            if key is None:
                return None
            if key in where and len(where[key]) == 1:
                return where[key][0]
            if key in owner.grid or key == "priority":
                return None
            return study.scenario(owner).get(key)

        out.append((quote, about(plot.panel), about(plot.series)))
    return out


def _quote_marks(quote: Quote, plot: PlotSpec) -> Optional[tuple[Pick, Any, Any]]:
    """``(pick, panel, series)`` if the quote is a plain value of the plotted column (as drawn:
    its recipe's ``scale`` is the plot's ``y_scale``), else None.

    ``panel``/``series`` is the single value the quote is restricted to, or None
    (then it is drawn on every panel, in a neutral colour).
    """
    pick = quote.value
    if not isinstance(pick, Pick) or pick.column != plot.y or not same_value(pick.scale, plot.y_scale):
        return None
    where = dict(pick.where)
    for column, values in plot.where:  # a quote about rows the plot leaves out is not drawn
        if column in where and not any(same_value(v, w) for v in where[column] for w in values):
            return None

    def single(column: Optional[str]) -> Any:
        values = where.get(column) if column else None
        return values[0] if values and len(values) == 1 else None

    return pick, single(plot.panel), single(plot.series)


def _difference_marks(quote: Quote, plot: PlotSpec) -> Optional[tuple[Pick, Pick]]:
    """``(at, base)`` if the quote is the difference of the plotted column at two x
    (``at`` minus ``base``, as drawn), else None: the seed's difference is drawn as
    a star at ``at``'s x, that far above ringlet's value at ``base``."""
    diff = quote.value
    if not isinstance(diff, Difference):
        return None
    at, base = diff.first, diff.second
    for pick in (at, base):
        if pick.column != plot.y or not same_value(pick.scale, plot.y_scale) or pick.stat in ("max", "min", "mean"):
            return None
    if dict(at.where) != dict(base.where):
        return None
    return at, base


#: (axes, x of a star or None for a dashed line, the seed's value, text, colour)
SeedLabel = tuple[Any, Optional[float], float, str, Any]


def _place_labels(labels: list[SeedLabel], dpi: float) -> None:
    """Writes the seed's numbers beside their lines and stars.

    A dashed line is labelled at the left edge, where load sweeps start low
    and leave room; a star just right of it. A label that would overlap the
    one below it (close values, e.g. several protocols' low-load latency) is
    pushed up.
    """
    by_axis: dict[int, list[SeedLabel]] = {}
    for label in labels:
        by_axis.setdefault(id(label[0]), []).append(label)
    for group in by_axis.values():
        top = -float("inf")  # where the previous label ends, in points
        for ax, x, value, text, color in sorted(group, key=lambda s: s[2]):
            at = ax.transData.transform((0.0 if x is None else x, value))[1] * 72.0 / dpi
            placed = max(at + 1.0, top + 1.0) if x is None else max(at - 4.0, top + 1.0)
            if x is None:
                # Under the data (lines are at zorder 2): a point at the left edge
                # near the seed's value stays visible through its label.
                ax.annotate(text, xy=(0.0, value), xycoords=("axes fraction", "data"), xytext=(3, placed - at),
                            textcoords="offset points", ha="left", va="bottom", fontsize=7, color=color,
                            bbox=LABEL_BOX, zorder=1.5)
            else:
                # Under ringlet's lines (zorder 3), as the star is: its points show through the label.
                ax.annotate(text, xy=(x, value), xytext=(9, placed - at), textcoords="offset points",
                            va="bottom", fontsize=7, color=color, bbox=LABEL_BOX, zorder=2.4)
            top = placed + 9.0


def _unit(quote: Quote) -> str:
    return "µs" if quote.seed_unit == "us" else quote.seed_unit


def _star(ax: Any, x: float, value: float, color: Any) -> None:
    """The seed's value at one point: a hollow star, under ringlet's lines (zorder 3)."""
    ax.plot([x], [value], marker="*", markersize=11, markerfacecolor="none", markeredgecolor=color,
            linestyle="none", zorder=2.5)


def _seed_text(quote: Quote) -> str:
    text = f"seed {quote.seed_value:g} {_unit(quote)}"
    if quote.seed_unit != quote.unit:  # show what the line's height is in the axis' unit
        text += f" = {quote.seed_value_si:.4g} {quote.unit}"
    return text


def render(fig_spec: Figure, frame: "pd.DataFrame", footer: str, default: Any = None,
           lines: Sequence[SeedLine] = ()) -> tuple[bytes, bytes]:
    """Draws ``fig_spec`` from ``frame``; returns the PNG and SVG files' bytes (which
    the reproduction writes with its other outputs, all together). ``default``: the
    value of x ringlet uses, marked when the plot asks for it; ``lines``: other
    figures' quotes to draw as dashed lines (from :func:`seed_lines`)."""
    # The Agg canvas is used directly (no pyplot, no matplotlib.use): nothing
    # global changes for a caller that has its own backend, and no display is needed.
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure
    from matplotlib.layout_engine import ConstrainedLayoutEngine
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    plot = fig_spec.plot
    panels = ordered_values(frame, plot.panel, plot.panel_values)
    series = ordered_values(frame, plot.series, plot.series_values)
    colors = matplotlib.colormaps["tab10"].colors
    color_of = {s: colors[i % len(colors)] for i, s in enumerate(series)}
    marker_of = {s: MARKERS[i % len(MARKERS)] for i, s in enumerate(series)}

    width = max(6.4, 4.6 * len(panels))
    mfig = MplFigure(figsize=(width, 4.6), layout=ConstrainedLayoutEngine(rect=(0, 0.04, 1, 0.96)))
    FigureCanvasAgg(mfig)
    axes = mfig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    marks = [(q, m) for q in fig_spec.quotes if (m := _quote_marks(q, plot)) is not None]
    differences = [(q, d) for q in fig_spec.quotes if (d := _difference_marks(q, plot)) is not None]
    drawn = {"dashed": False, "star": False, "model": False, "band": False}  # what was drawn, for the legend
    # Where a quote's at_* x is: read off the first draw (every draw has the same grid).
    first = draws.split(frame)[0][1]

    labels_to_place: list[SeedLabel] = []  # placed once the y scale is final
    for ax, panel in zip(axes, panels):
        for s in series:
            line = curve(frame, plot, panel, s)
            if line.empty:
                continue
            # (One line without series: "ringlet", beside the seed's values; the y label names it.)
            label = plot.label("series", s) if plot.series else (
                "ringlet" + (f" (mean of {draws.count(frame)} draws)" if draws.is_drawn(frame) else ""))
            # A dense line (a run over time) reads better without a marker at every point.
            marker = marker_of[s] if len(line) <= DENSE_LINE else None
            # (Above the seed's stars: a star at ringlet's own point must not hide it.)
            ax.plot(line["x"], line["y"], marker=marker, markersize=4, linewidth=1.4, color=color_of[s],
                    label=label, zorder=3)
            model = _model_curve(frame, plot, panel, s)
            if model is not None:
                ax.plot(model["x"], model["y"], color=color_of[s], zorder=2, gid="analytic-model", **MODEL_STYLE)
                drawn["model"] = True
            if plot.reduce and line["ci95"].notna().any():  # few points: show how sure each is
                ax.errorbar(line["x"], line["y"], yerr=line["ci95"].fillna(0.0), fmt="none", ecolor=color_of[s],
                            elinewidth=0.8, capsize=2)
            elif draws.is_drawn(frame) and line["ci95"].notna().any():  # the spread between the draws
                ci = line["ci95"].fillna(0.0)
                ax.fill_between(line["x"], line["y"] - ci, line["y"] + ci, color=color_of[s], alpha=0.2,
                                linewidth=0, zorder=2.2)
                drawn["band"] = True
        for quote, q_panel, q_series in lines:
            if q_panel is not None and not same_value(q_panel, panel):
                continue
            color = next((color_of[v] for v in series if q_series is not None and same_value(v, q_series)), "0.35")
            ax.axhline(quote.seed_value_si, color=color, linestyle="--", linewidth=1.0, alpha=0.8)
            drawn["dashed"] = True
            labels_to_place.append((ax, None, quote.seed_value_si, _seed_text(quote), color))
        if plot.mark_default and default is not None:
            ax.axvline(float(default), color="0.2", linestyle=":", linewidth=1.2)
            ax.annotate(f"ringlet: {default:g}", xy=(float(default), 1.0), xycoords=("data", "axes fraction"),
                        xytext=(3, -3), textcoords="offset points", ha="left", va="top", fontsize=7,
                        color="0.2", bbox=LABEL_BOX)
        for quote, (pick, q_panel, q_series) in marks:
            if q_panel is not None and not same_value(q_panel, panel):
                continue
            color = color_of.get(q_series, "0.35") if q_series is not None else "0.35"
            value = quote.seed_value_si
            text = _seed_text(quote)
            if pick.stat in ("max", "min", "mean"):
                # Labelled at the left, where load sweeps start low and the lines leave room.
                ax.axhline(value, color=color, linestyle="--", linewidth=1.0, alpha=0.8)
                drawn["dashed"] = True
                labels_to_place.append((ax, None, value, text, color))
            else:
                x = pick.target_x(filter_rows(first, pick.where), plot.x) * plot.x_scale
                _star(ax, x, value, color)
                drawn["star"] = True
                labels_to_place.append((ax, x, value, text, color))
        for quote, (at, base) in differences:
            where = dict(at.where)
            if plot.panel is not None and not any(same_value(v, panel) for v in where.get(plot.panel, ())):
                continue  # (drawn on its own panel only)
            try:
                start = draws.estimate(base, frame, plot.x).value
                x = at.target_x(filter_rows(first, at.where), plot.x) * plot.x_scale
                x0 = base.target_x(filter_rows(first, base.where), plot.x) * plot.x_scale
            except ExtractError:  # (no data there: the validation table says so)
                continue
            value = start + quote.seed_value_si
            _star(ax, x, value, "0.35")
            drawn["star"] = True
            labels_to_place.append((ax, x, value, f"seed {quote.seed_value:+g} {_unit(quote)} over x = {x0:g}",
                                    "0.35"))
        if plot.panel is not None:
            ax.set_title(plot.label("panel", panel), fontsize=10)
        ax.set_xlabel(plot.xlabel or DEFAULT_LABELS.get(plot.x, plot.x))
        ax.grid(True, alpha=0.3)
        if plot.logx:
            ax.set_xscale("log")
        if plot.logy:
            ax.set_yscale("log")
    # The panels share y: limits are set once, after every panel has its data.
    if plot.ylim:
        axes[0].set_ylim(*plot.ylim)
    elif not plot.logy:
        axes[0].set_ylim(bottom=0)
    axes[0].set_ylabel(plot.ylabel or DEFAULT_LABELS.get(plot.y, plot.y))
    _place_labels(labels_to_place, mfig.dpi)

    legend: dict[str, Any] = {}  # one entry per series, whichever panel drew it
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    handles, labels = list(legend.values()), list(legend)
    # The legend shows the seed's values as they are drawn: a dashed line, a star, or each.
    if drawn["dashed"]:
        handles.append(Line2D([], [], color="0.35", linestyle="--"))
        labels.append("seed's quoted value" if not drawn["star"] else "seed's quoted value (a level)")
    if drawn["star"]:
        handles.append(Line2D([], [], color="0.35", linestyle="none", marker="*", markersize=9,
                              markerfacecolor="none"))
        labels.append("seed's quoted value" if not drawn["dashed"] else "seed's quoted value (a point)")
    if drawn["model"]:
        handles.append(Line2D([], [], color="0.35", **MODEL_STYLE))
        labels.append("analytic model")
    if drawn["band"]:
        handles.append(Patch(color="0.35", alpha=0.2, linewidth=0))
        labels.append(f"95% CI over {draws.count(frame)} draws")
    if handles and (plot.series or drawn["dashed"] or drawn["star"] or drawn["model"] or drawn["band"]):
        # Outside the axes: inside, it would hide lines or the seed's labels.
        mfig.legend(handles, labels, fontsize=8, title=plot.series_title, title_fontsize=8,
                    loc="outside right center")
    mfig.suptitle(fig_spec.title, fontsize=12)
    mfig.text(0.005, 0.005, footer, fontsize=7, color="0.4", ha="left", va="bottom")
    # Fixed metadata: the same data gives byte-identical files. The title and
    # description make the files self-describing (`ringlet report` captions them).
    about = {"Title": fig_spec.title, **({"Description": fig_spec.description} if fig_spec.description else {})}
    png, svg = io.BytesIO(), io.BytesIO()
    mfig.savefig(png, format="png", dpi=110, metadata={"Software": None, **about})
    with matplotlib.rc_context({"svg.hashsalt": "ringlet", "svg.fonttype": "none"}):
        mfig.savefig(svg, format="svg", metadata={"Date": None, "Creator": None, **about})
    return png.getvalue(), svg.getvalue()
