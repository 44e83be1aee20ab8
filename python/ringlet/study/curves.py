"""The lines a figure draws, as data: y against x for one panel and series value,
with the points a ``plot.reduce`` folds (e.g. the peak over a load sweep)
folded into one value per x. The plots draw them, and the sensitivity table
reads them, so the table says exactly what the figure shows.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional, Sequence

from ..runs.table import POINT_FIELDS
from . import draws
from .extract import CI_COLUMNS, filter_rows, mean_ci, same_value, unit_of
from .format import Figure, PlotSpec, Study, default_x

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def ordered_values(frame: "pd.DataFrame", column: Optional[str], wanted: Optional[Sequence[Any]]) -> list[Any]:
    """The values to draw for a series/panel column: the study's list, else the data's, in order."""
    if column is None:
        return [None]
    if wanted is not None:
        return list(wanted)
    return list(dict.fromkeys(frame[column].tolist()))


def curve(frame: "pd.DataFrame", plot: PlotSpec, panel: Any, series: Any) -> "pd.DataFrame":
    """Columns ``x``, ``y`` and ``ci95`` (the y's 95% half-width, NaN if the runs give
    none), sorted by x: the rows of one panel and series, reduced if the plot says so,
    x and y (and its half-width) as drawn (``plot.x_scale``, ``plot.y_scale``).

    Data with draws (:mod:`.draws`) gives each draw's line, reduced within the draw,
    and at each x their mean, its half-width Student t over the draws' values."""
    if draws.is_drawn(frame):
        return draws.curve_over_draws([(d, _curve(rows, plot, panel, series)) for d, rows in draws.split(frame)])
    return _curve(frame, plot, panel, series)


def _curve(frame: "pd.DataFrame", plot: PlotSpec, panel: Any, series: Any) -> "pd.DataFrame":
    """:func:`curve` of data without draws (or of one draw's rows)."""
    import pandas as pd

    where = list(plot.where)
    if plot.panel is not None:
        where.append((plot.panel, (panel,)))
    if plot.series is not None:
        where.append((plot.series, (series,)))
    rows = filter_rows(frame, tuple(where))
    if plot.y not in rows.columns:  # an optional figure these runs do not report
        return pd.DataFrame(columns=["x", "y", "ci95"])
    if plot.y in POINT_FIELDS:
        rows = rows.drop_duplicates("point")
    rows = rows[rows[plot.y].notna()]
    ci_column = CI_COLUMNS.get(plot.y)
    out = pd.DataFrame({
        "x": rows[plot.x].astype(float) * plot.x_scale,
        "y": rows[plot.y].astype(float) * plot.y_scale,
        "ci95": rows[ci_column].astype(float) * plot.y_scale if ci_column in rows else math.nan,
        "over": rows[plot.reduce[0]].astype(float) if plot.reduce else 0.0,
    })
    if plot.reduce:
        stat = plot.reduce[1]
        picked = []
        for _, group in out.groupby("x", sort=True):
            if stat == "mean":
                picked.append({"x": group["x"].iloc[0], "y": group["y"].mean(), "ci95": mean_ci(group["ci95"]),
                               "over": math.nan})
                continue
            at = {"max": group["y"].idxmax, "min": group["y"].idxmin,
                  "at_min": group["over"].idxmin, "at_max": group["over"].idxmax}[stat]()
            picked.append(group.loc[at].to_dict())
        out = pd.DataFrame(picked, columns=["x", "y", "ci95", "over"])
    return out.sort_values("x", kind="stable").reset_index(drop=True)[["x", "y", "ci95"]]


SENSITIVITY_COLUMNS = ["figure", "parameter", "quantity", "unit", "panel", "series", "ringlet_x", "at_ringlet_x",
                       "at_ringlet_x_ci95", "min", "min_at", "max", "max_at", "low_pct", "high_pct"]


def quantity(fig: Figure) -> str:
    """What a figure's y is, in words: the column, and the reduction if any."""
    plot = fig.plot
    y = plot.y if plot.y_scale == 1 else f"{plot.y_scale:g} x {plot.y}"
    if not plot.reduce:
        return y
    over, stat = plot.reduce
    what = {"at_min": "at the lowest", "at_max": "at the highest"}.get(stat, stat)
    return f"{y}, {what} over {over}"


def sensitivity_table(study: Study, figures: Sequence[Figure], frames: dict[str, "pd.DataFrame"]) -> "pd.DataFrame":
    """For each figure with ``plot.mark_default`` and each of its lines: the value at the
    x ringlet uses, the lowest and highest values over the swept range (and where),
    and how far they are from the value at ringlet's x, in percent of it."""
    import pandas as pd

    rows = []
    for fig in figures:
        plot = fig.plot
        if not plot.mark_default:
            continue
        frame = frames[fig.frame_key]
        ours = float(default_x(study, fig))
        for panel in ordered_values(frame, plot.panel, plot.panel_values):
            for series in ordered_values(frame, plot.series, plot.series_values):
                line = curve(frame, plot, panel, series)
                if line.empty:
                    continue
                at = line[line["x"].map(lambda v: same_value(v, ours))]
                base = float(at["y"].iloc[0]) if len(at) else math.nan
                lo, hi = line["y"].idxmin(), line["y"].idxmax()

                def pct(v: float) -> float:
                    return (v - base) / base * 100.0 if base else math.nan

                rows.append({
                    "figure": fig.id, "parameter": plot.x, "quantity": quantity(fig), "unit": unit_of(plot.y),
                    "panel": None if plot.panel is None else plot.label("panel", panel),
                    "series": None if plot.series is None else plot.label("series", series),
                    "ringlet_x": ours, "at_ringlet_x": base,
                    "at_ringlet_x_ci95": float(at["ci95"].iloc[0]) if len(at) else math.nan,
                    "min": float(line["y"][lo]), "min_at": float(line["x"][lo]),
                    "max": float(line["y"][hi]), "max_at": float(line["x"][hi]),
                    "low_pct": pct(float(line["y"][lo])), "high_pct": pct(float(line["y"][hi])),
                })
    return pd.DataFrame(rows, columns=SENSITIVITY_COLUMNS)
