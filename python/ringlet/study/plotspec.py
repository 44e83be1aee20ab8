"""How a figure is drawn (``[figure.plot]``): :class:`PlotSpec` and its parser."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from .extract import is_finite_number, parse_where
from .fields import StudyError, as_labels, as_table, as_text, as_values, check_fields

#: How ``plot.reduce`` folds the swept ``over`` key away: a statistic over its
#: values, or the value at its lowest or highest one.
REDUCE_STATS = ("max", "min", "mean", "at_min", "at_max")


@dataclass(frozen=True)
class PlotSpec:
    """How a figure is drawn: y against x, one line per series value, one panel per panel value."""

    x: str
    y: str
    series: Optional[str] = None
    series_values: Optional[tuple[Any, ...]] = None
    series_labels: Mapping[str, str] = field(default_factory=dict)
    series_title: Optional[str] = None
    panel: Optional[str] = None
    panel_values: Optional[tuple[Any, ...]] = None
    panel_labels: Mapping[str, str] = field(default_factory=dict)
    where: tuple = ()
    xlabel: Optional[str] = None
    ylabel: Optional[str] = None
    logx: bool = False
    logy: bool = False
    ylim: Optional[tuple[float, float]] = None
    #: ``(key, stat)``: each drawn value folds the points that differ only in the
    #: swept ``key`` into one (e.g. the peak over the load sweep: ``("traffic.load_mbps_per_node", "max")``).
    reduce: Optional[tuple[str, str]] = None
    #: Mark the value of ``x`` that ringlet uses (the base scenario's, after ``fixed``).
    mark_default: bool = False
    #: ringlet's value of ``x`` when the key's default is derived from the ring (the
    #: scenario holds 0): the value it derives for this figure's scenario, marked instead of 0.
    derived_x: Optional[float] = None
    #: Other figures' quotes, ``(figure id, quote id)``, whose seed value is drawn as a line.
    seed_lines: tuple[tuple[str, str], ...] = ()
    #: Drawing only: x is drawn multiplied by this (e.g. 2 for a processor pair's input when the
    #: grid sweeps a per-processor rate). Recipes (``at_x``) and the CSV keep the grid's values.
    x_scale: float = 1.0
    #: Drawing only: y is drawn multiplied by this (e.g. 0.5 for one direction of a full-duplex
    #: total). Recipes and the CSV keep the runs' values; a quote is drawn when its recipe reads
    #: the plotted column with the same ``scale``.
    y_scale: float = 1.0

    def label(self, kind: str, value: Any) -> str:
        """The display label of a series or panel value (its own text if none is given).

        Labels are keyed by the value as TOML writes it: ``"dfc"``, ``"2"``,
        ``"0.5"``, ``"true"``; an integral float also matches its integer (``"1"`` for 1.0).
        """
        labels = self.series_labels if kind == "series" else self.panel_labels
        for key in _label_keys(value):
            if key in labels:
                return labels[key]
        return _label_keys(value)[0]


def _label_keys(value: Any) -> list[str]:
    if isinstance(value, bool):
        return ["true" if value else "false"]
    keys = [str(value)]
    if isinstance(value, float) and value.is_integer():
        keys.append(str(int(value)))
    return keys


PLOT_FIELDS = {"x", "y", "series", "series_values", "series_labels", "series_title", "panel", "panel_values",
               "panel_labels", "where", "xlabel", "ylabel", "logx", "logy", "ylim", "reduce", "mark_default",
               "derived_x", "seed_lines", "x_scale", "y_scale"}


def parse_plot(spec: Any, context: str) -> PlotSpec:
    spec = as_table(spec, context)
    check_fields(spec, PLOT_FIELDS, context)
    ylim = spec.get("ylim")
    if ylim is not None and (not isinstance(ylim, list) or len(ylim) != 2 or not all(map(is_finite_number, ylim))):
        raise StudyError(f"{context}: ylim must be [low, high], two finite numbers")
    for flag in ("logx", "logy", "mark_default"):
        if not isinstance(spec.get(flag, False), bool):
            raise StudyError(f"{context}: {flag} must be true or false")
    reduce = spec.get("reduce")
    if reduce is not None:
        if (not isinstance(reduce, Mapping) or set(reduce) != {"over", "stat"} or not isinstance(reduce["over"], str)
                or reduce["stat"] not in REDUCE_STATS):
            raise StudyError(f"{context}: reduce must be {{ over = \"<swept key>\", stat = "
                             f"{' | '.join(REDUCE_STATS)} }}")
        reduce = (reduce["over"], reduce["stat"])
    derived_x = spec.get("derived_x")
    if derived_x is not None and (not is_finite_number(derived_x) or not spec.get("mark_default", False)):
        raise StudyError(f"{context}: derived_x must be a finite number, with mark_default = true")
    x_scale = spec.get("x_scale", 1.0)
    if not is_finite_number(x_scale) or x_scale <= 0:
        raise StudyError(f"{context}: x_scale must be a finite number above 0")
    if x_scale != 1 and spec.get("mark_default", False):
        raise StudyError(f"{context}: x_scale cannot be combined with mark_default")
    y_scale = spec.get("y_scale", 1.0)
    if not is_finite_number(y_scale) or y_scale <= 0:
        raise StudyError(f"{context}: y_scale must be a finite number above 0")
    seed_lines = spec.get("seed_lines", [])
    if not isinstance(seed_lines, list) or not all(isinstance(r, str) and r.count(":") == 1 for r in seed_lines):
        raise StudyError(f"{context}: seed_lines must be a list of \"<figure id>:<quote id>\"")
    try:
        where = parse_where(spec.get("where"), context)
    except ValueError as e:
        raise StudyError(str(e)) from None
    return PlotSpec(
        x=as_text(spec, "x", context),
        y=as_text(spec, "y", context),
        series=spec.get("series"),
        series_values=as_values(spec.get("series_values"), context, "series_values"),
        series_labels=as_labels(spec.get("series_labels"), context),
        series_title=spec.get("series_title"),
        panel=spec.get("panel"),
        panel_values=as_values(spec.get("panel_values"), context, "panel_values"),
        panel_labels=as_labels(spec.get("panel_labels"), context),
        where=where,
        xlabel=spec.get("xlabel"),
        ylabel=spec.get("ylabel"),
        logx=spec.get("logx", False),
        logy=spec.get("logy", False),
        ylim=None if ylim is None else (float(ylim[0]), float(ylim[1])),
        reduce=reduce,
        mark_default=spec.get("mark_default", False),
        derived_x=None if derived_x is None else float(derived_x),
        seed_lines=tuple(tuple(r.split(":")) for r in seed_lines),  # type: ignore[misc]
        x_scale=float(x_scale),
        y_scale=float(y_scale),
    )
