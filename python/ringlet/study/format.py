"""The study format: a published paper's figures, described as data (``study.toml``).

A study is a folder with a ``study.toml`` and the base scenario it names. The
file lists figures: what to sweep, how to plot it, and the numbers the paper
quotes, each with a recipe (see :mod:`ringlet.study.extract`) for reading ringlet's
own value off the figure's data. Nothing here runs a simulation;
:mod:`ringlet.study.reproduce` does. The format is documented in docs/studies.md.

Studies shipped with ringlet live in ``ringlet/studies/<name>/`` inside the
package, so they install with it; any other folder can be given by path.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from ..api import schema
from ..api.errors import ScenarioError
from ..api.literal import to_literal
from ..api.overrides import check_key
from ..api.scenario import Override, Scenario
from ..runs.grid import is_axis, parse_axis
from ..runs.table import NUMERIC_FIELDS
from .extract import TABLE_UNITS, Bound, Value, is_finite_number, is_number, parse_value, parse_where, same_value, unit_of

#: Where the studies shipped with ringlet are (installed with the package).
STUDIES_DIR = Path(__file__).resolve().parent.parent / "studies"
STUDY_FILE = "study.toml"

#: The ``--quick`` reduction when a study does not give its own ``[study.quick]``.
DEFAULT_QUICK = {"run.measure_transactions": 10000}

#: Units a seed may quote a number in: unit -> (ringlet's unit, factor to it).
#: The seed's "MB/s" is 2^20 bytes per second (64 B / 0.1 us = 610 "MB/s"); ringlet's is 10^6.
SEED_UNITS: dict[str, tuple[str, float]] = {
    "MiB/s": ("MB/s", 1.048576),
    "MB/s": ("MB/s", 1.0),
    "us": ("ns", 1000.0),
    "ns": ("ns", 1.0),
    "%": ("%", 1.0),
    "ratio": ("ratio", 1.0),
}

COMPARISONS = (">", ">=", "<", "<=", "between")

#: A finding's three verdicts: the claim holds, it does not, or the runs cannot tell
#: (the margin to a bound is inside the 95% confidence half-width of the difference).
YES, NO, WITHIN_NOISE = "yes", "no", "within noise"

#: How ``plot.reduce`` folds the swept ``over`` key away: a statistic over its
#: values, or the value at its lowest or highest one.
REDUCE_STATS = ("max", "min", "mean", "at_min", "at_max")

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")


class StudyError(ValueError):
    """A study cannot be found, or its file is invalid (one line, names the place)."""


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


@dataclass(frozen=True)
class Quote:
    """A number the paper quotes, and how to read ringlet's counterpart off the data."""

    id: str
    description: str
    seed_value: float
    seed_unit: str
    value: Value
    #: A calibration target, not a validation: a parameter the seed does not give was
    #: chosen so that ringlet hits this number (the agreement is by construction).
    calibrated: bool = False

    @property
    def unit(self) -> str:
        return SEED_UNITS[self.seed_unit][0]

    @property
    def seed_value_si(self) -> float:
        return self.seed_value * SEED_UNITS[self.seed_unit][1]


@dataclass(frozen=True)
class Finding:
    """A qualitative claim, checked as ``left OP factor * right``, or, for
    ``op = "between"``, as ``low * right <= left <= high * right`` with
    ``factor = (low, high)`` (a two-sided claim such as "close to, and below")."""

    id: str
    description: str
    left: Value
    op: str
    right: Value
    factor: "float | tuple[float, float]" = 1.0

    @property
    def factors(self) -> tuple[float, ...]:
        """The factor of each bound: one, or (low, high) for ``between``."""
        return tuple(self.factor) if isinstance(self.factor, tuple) else (self.factor,)

    def holds(self, left: float, right: float) -> bool:
        """The comparison itself, noise aside."""
        if self.op == "between":
            low, high = self.factors
            return low * right <= left <= high * right
        bound = self.factor * right
        return {">": left > bound, ">=": left >= bound, "<": left < bound, "<=": left <= bound}[self.op]

    def noise(self, left_ci: float, right_ci: float) -> tuple[float, ...]:
        """The 95% half-width of ``left - f * right`` for each bound's factor ``f``
        (the two sides' estimates taken as independent); NaN where a side has none."""
        return tuple(math.hypot(left_ci, f * right_ci) for f in self.factors)

    def verdict(self, left: float, right: float, left_ci: float = math.nan, right_ci: float = math.nan) -> str:
        """``yes`` or ``no`` when every bound is further from ``left`` than the noise
        of the difference; ``within noise`` when ``left`` is within it of a bound, so
        the runs cannot tell. Without confidence intervals, the plain comparison."""
        for f, h in zip(self.factors, self.noise(left_ci, right_ci)):
            if math.isfinite(h) and abs(left - f * right) <= h:
                return WITHIN_NOISE
        return YES if self.holds(left, right) else NO


@dataclass(frozen=True)
class CapacitySpec:
    """A figure of capacity searches (``[figure.capacity]``): at each grid point and each
    deadline, the highest ``key`` meeting it (:func:`ringlet.runs.capacity.capacity`)."""

    deadlines: tuple[str, ...]
    key: str = "traffic.load_mbps_per_node"
    range: Optional[tuple[float, float]] = None
    tolerance: float = 0.05
    priority: Optional[int] = None
    replications: int = 3


#: The table a capacity figure draws (``table = "capacity"`` is implied): one row per grid
#: point and deadline.
CAPACITY_TABLE = "capacity"
#: Its numeric columns: the deadline's limit (ns, MB/s or plain), the capacity found
#: (NaN when met nowhere), the lowest value found to miss, the points probed.
CAPACITY_NUMERIC = ("deadline_value", "capacity", "fails_at", "probes")
CAPACITY_COLUMNS = ("deadline", "verdict", *CAPACITY_NUMERIC)


@dataclass(frozen=True)
class Figure:
    """One figure: its own sweep (``fixed`` + ``grid``), or another figure's data (``data``)."""

    id: str
    title: str
    description: str
    plot: PlotSpec
    fixed: tuple[Override, ...] = ()
    grid: Mapping[str, list[Any]] = field(default_factory=dict)
    data: Optional[str] = None
    quotes: tuple[Quote, ...] = ()
    findings: tuple[Finding, ...] = ()
    #: A report table of the runs (``per_vc``, ``per_ringlet``, ...) that the figure draws
    #: instead of the sweep table: one row per point and table row.
    table: Optional[str] = None
    #: Capacity searches instead of a sweep (its table: ``CAPACITY_TABLE``).
    capacity: Optional[CapacitySpec] = None

    @property
    def data_id(self) -> str:
        """The figure whose sweep this figure draws (itself unless ``data`` names another)."""
        return self.data or self.id

    @property
    def frame_key(self) -> str:
        """The key of the figure's data among a reproduction's frames: its data figure's id,
        and ``/<table>`` for a figure that draws a report table."""
        return self.data_id if self.table is None else f"{self.data_id}/{self.table}"


@dataclass(frozen=True)
class Study:
    name: str
    title: str
    source: str
    folder: Path
    base: Scenario
    figures: tuple[Figure, ...]
    quick: tuple[Override, ...]
    description: str = ""

    def figure(self, fig_id: str) -> Figure:
        for fig in self.figures:
            if fig.id == fig_id:
                return fig
        raise StudyError(f"unknown figure {fig_id!r} in study {self.name}; available: {', '.join(self.ids)}")

    @property
    def ids(self) -> list[str]:
        return [f.id for f in self.figures]

    def scenario(self, fig: Figure, quick: bool = False) -> Scenario:
        """The scenario the figure's grid sweeps over: base + fixed (+ the quick reduction)."""
        owner = self.figure(fig.data_id)
        try:
            return self.base.with_overrides(owner.fixed + (self.quick if quick else ()))
        except ScenarioError as e:
            raise StudyError(f"{self.name}: {owner.id}: {e}") from None

    def select(self, only: Optional[Sequence[str]]) -> list[Figure]:
        """The figures named in ``only`` (all if None), in study order; unknown ids raise."""
        if not only:
            return list(self.figures)
        unknown = [i for i in only if i not in self.ids]
        if unknown:
            raise StudyError(
                f"--only {','.join(unknown)}: unknown figure in study {self.name}; available: {', '.join(self.ids)}"
            )
        return [f for f in self.figures if f.id in only]


# -- finding studies -------------------------------------------------------------


def available_studies() -> list[str]:
    """Names of the studies shipped with ringlet."""
    if not STUDIES_DIR.is_dir():
        return []
    return sorted(p.name for p in STUDIES_DIR.iterdir() if (p / STUDY_FILE).is_file())


def find_study(study: "str | os.PathLike[str]") -> Path:
    """The folder of a study given by shipped name, by folder path, or by path to its study.toml."""
    path = Path(study)
    if path.is_file() and path.name == STUDY_FILE:
        return path.parent
    if path.is_dir() and (path / STUDY_FILE).is_file():
        return path
    name = os.fspath(study)
    # A shipped name wins over a folder of that name without a study in it
    # (an earlier run's --out folder, say).
    if name in available_studies():
        return STUDIES_DIR / name
    if path.is_dir():
        raise StudyError(f"{study}: not a study folder (no {STUDY_FILE})")
    shipped = ", ".join(available_studies()) or "none"
    raise StudyError(f"unknown study {name!r}: give a study folder or one of: {shipped}")


# -- parsing ---------------------------------------------------------------------


def _table(spec: Any, context: str) -> Mapping[str, Any]:
    if spec is None:
        return {}
    if not isinstance(spec, Mapping):
        raise StudyError(f"{context}: expected a table")
    return spec


def _text(spec: Mapping[str, Any], key: str, context: str, default: Optional[str] = None) -> str:
    value = spec.get(key, default)
    if not isinstance(value, str) or (default is None and not value):
        raise StudyError(f"{context}: {key} must be a non-empty string")
    return value


def _check_fields(spec: Mapping[str, Any], allowed: set[str], context: str) -> None:
    unknown = set(spec) - allowed
    if unknown:
        raise StudyError(f"{context}: unknown field(s) {', '.join(sorted(unknown))}")


def _overrides(spec: Mapping[str, Any], context: str) -> tuple[Override, ...]:
    try:
        return tuple((check_key(k), to_literal(k, v)) for k, v in spec.items())
    except ScenarioError as e:
        raise StudyError(f"{context}: {e}") from None


def _axis(key: str, values: Any, context: str) -> list[Any]:
    """A grid axis: a list of values, or a string with several (a ``"START:STOP:STEP"``
    range, STOP included on the grid, or a comma list), read as ``--set`` reads them."""
    if not (isinstance(values, list) and values) and not (isinstance(values, str) and is_axis(values)):
        raise StudyError(
            f"{context}: {key} must be a non-empty list or a \"START:STOP:STEP\" range "
            f"(a single value belongs in fixed)"
        )
    try:
        axis = parse_axis(key, values)
    except ScenarioError as e:
        raise StudyError(f"{context}: {e}") from None
    for value in axis:  # each a scenario value (NaN refused now, not when the points are planned)
        _overrides({key: value}, context)
    return axis


def _values_tuple(spec: Any, context: str, what: str) -> Optional[tuple[Any, ...]]:
    if spec is None:
        return None
    if not isinstance(spec, list) or not spec:
        raise StudyError(f"{context}: {what} must be a non-empty list")
    if any(is_number(v) and not is_finite_number(v) for v in spec):
        raise StudyError(f"{context}: {what} must hold finite numbers")
    return tuple(spec)


def _labels(spec: Any, context: str) -> dict[str, str]:
    return {str(k): str(v) for k, v in _table(spec, context).items()}


PLOT_FIELDS = {"x", "y", "series", "series_values", "series_labels", "series_title", "panel", "panel_values",
               "panel_labels", "where", "xlabel", "ylabel", "logx", "logy", "ylim", "reduce", "mark_default",
               "derived_x", "seed_lines", "x_scale", "y_scale"}


def _plot(spec: Any, context: str) -> PlotSpec:
    spec = _table(spec, context)
    _check_fields(spec, PLOT_FIELDS, context)
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
        x=_text(spec, "x", context),
        y=_text(spec, "y", context),
        series=spec.get("series"),
        series_values=_values_tuple(spec.get("series_values"), context, "series_values"),
        series_labels=_labels(spec.get("series_labels"), context),
        series_title=spec.get("series_title"),
        panel=spec.get("panel"),
        panel_values=_values_tuple(spec.get("panel_values"), context, "panel_values"),
        panel_labels=_labels(spec.get("panel_labels"), context),
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


def _value(spec: Any, context: str) -> Value:
    try:
        return parse_value(spec, context)
    except ValueError as e:
        raise StudyError(str(e)) from None


def _quote(spec: Any, context: str) -> Quote:
    spec = _table(spec, context)
    _check_fields(spec, {"id", "description", "seed_value", "seed_unit", "value", "calibrated"}, context)
    qid = _text(spec, "id", context)
    context = f"{context} {qid}"
    unit = spec.get("seed_unit")
    if unit not in SEED_UNITS:
        raise StudyError(f"{context}: seed_unit must be one of {', '.join(SEED_UNITS)}, got {unit!r}")
    if not is_finite_number(spec.get("seed_value")):
        raise StudyError(f"{context}: seed_value must be a finite number")
    value = _value(spec.get("value"), f"{context}: value")
    if isinstance(value, Bound):
        raise StudyError(f"{context}: value must be read off the data, not a bound")
    if value.unit != SEED_UNITS[unit][0]:
        raise StudyError(
            f"{context}: seed_unit {unit} is {SEED_UNITS[unit][0]} but the value is in {value.unit or 'counts'}"
        )
    calibrated = spec.get("calibrated", False)
    if not isinstance(calibrated, bool):
        raise StudyError(f"{context}: calibrated must be true or false")
    return Quote(qid, _text(spec, "description", context), float(spec["seed_value"]), unit, value, calibrated)


def _finding(spec: Any, context: str) -> Finding:
    spec = _table(spec, context)
    _check_fields(spec, {"id", "description", "left", "op", "right", "factor"}, context)
    fid = _text(spec, "id", context)
    context = f"{context} {fid}"
    op = spec.get("op")
    if op not in COMPARISONS:
        raise StudyError(f"{context}: op must be one of {', '.join(COMPARISONS)}, got {op!r}")
    factor = spec.get("factor", 1.0)
    if op == "between":
        if (not isinstance(factor, list) or len(factor) != 2 or not all(map(is_finite_number, factor))
                or factor[0] > factor[1]):
            raise StudyError(f"{context}: op = \"between\" needs factor = [low, high], two finite numbers, low <= high")
        factor = (float(factor[0]), float(factor[1]))
    elif not is_finite_number(factor):
        raise StudyError(f"{context}: factor must be a finite number")
    else:
        factor = float(factor)
    left = _value(spec.get("left"), f"{context}: left")
    right = _value(spec.get("right"), f"{context}: right")
    if isinstance(left, Bound):
        raise StudyError(f"{context}: left must be read off the data; a bound goes on the right")
    if isinstance(right, Bound):
        # A stated margin: in the unit of what it bounds.
        right = Bound(right.number, left.unit)
    if left.unit != right.unit:
        raise StudyError(f"{context}: left is in {left.unit or 'counts'} but right in {right.unit or 'counts'}")
    return Finding(fid, _text(spec, "description", context), left, op, right, factor)


FIGURE_FIELDS = {"id", "title", "description", "fixed", "grid", "data", "plot", "quote", "finding", "table",
                 "capacity"}


def _capacity(spec: Any, context: str) -> CapacitySpec:
    from ..runs.capacity import CapacityError, parse_deadlines

    spec = _table(spec, context)
    _check_fields(spec, {"deadlines", "key", "range", "tolerance", "priority", "replications"}, context)
    deadlines = spec.get("deadlines")
    if not (isinstance(deadlines, list) and deadlines and all(isinstance(d, str) for d in deadlines)):
        raise StudyError(f"{context}: deadlines must be a non-empty list of strings such as \"p99<=2us\"")
    for d in deadlines:
        try:
            parse_deadlines(d)
        except CapacityError as e:
            raise StudyError(f"{context}: {e}") from None
    key = spec.get("key", "traffic.load_mbps_per_node")
    try:
        check_key(key)
    except ScenarioError as e:
        raise StudyError(f"{context}: key: {e}") from None
    rng = spec.get("range")
    if rng is not None:
        if not (isinstance(rng, list) and len(rng) == 2 and all(map(is_finite_number, rng)) and 0 <= rng[0] < rng[1]):
            raise StudyError(f"{context}: range must be [lo, hi], two numbers with 0 <= lo < hi")
        rng = (float(rng[0]), float(rng[1]))
    tolerance = spec.get("tolerance", 0.05)
    if not (is_finite_number(tolerance) and 0 < tolerance < 1):
        raise StudyError(f"{context}: tolerance must be a fraction between 0 and 1")
    priority = spec.get("priority")
    if priority is not None and (isinstance(priority, bool) or not isinstance(priority, int) or priority < 0):
        raise StudyError(f"{context}: priority must be an integer >= 0")
    reps = spec.get("replications", 3)
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
        raise StudyError(f"{context}: replications must be an integer >= 1")
    return CapacitySpec(tuple(deadlines), key, rng, float(tolerance), priority, reps)

def drawable_tables() -> list[str]:
    """Report tables a figure may draw (``table = ...``): every table of the core's report
    but per_priority, whose figures the sweep table already holds."""
    return [t for t in schema.report_schema()["tables"] if t != "per_priority"]


def _figure(spec: Any, index: int, where: str) -> Figure:
    spec = _table(spec, f"{where}: figure {index + 1}")
    fig_id = spec.get("id")
    if not isinstance(fig_id, str) or not _ID.match(fig_id):
        raise StudyError(f"{where}: figure {index + 1}: id must be letters, digits, '-', '_' or '.', got {fig_id!r}")
    context = f"{where}: {fig_id}"
    _check_fields(spec, FIGURE_FIELDS, context)
    data = spec.get("data")
    if data is not None and ("grid" in spec or "fixed" in spec):
        raise StudyError(f"{context}: a figure with data = {data!r} reuses that figure's sweep; drop fixed/grid")
    grid_spec = _table(spec.get("grid"), f"{context}: grid")
    if data is None and not grid_spec:
        raise StudyError(f"{context}: needs a grid (or data = \"<figure id>\" to reuse another figure's sweep)")
    fixed = _overrides(_table(spec.get("fixed"), f"{context}: fixed"), f"{context}: fixed")
    grid: dict[str, list[Any]] = {}
    for key, values in grid_spec.items():
        try:
            check_key(key)
        except ScenarioError as e:
            raise StudyError(f"{context}: grid: {e}") from None
        if any(k == key for k, _ in fixed):
            raise StudyError(f"{context}: {key} is both fixed and swept")
        grid[key] = _axis(key, values, f"{context}: grid")
    quotes = tuple(_quote(q, f"{context}: quote") for q in spec.get("quote", []))
    findings = tuple(_finding(f, f"{context}: finding") for f in spec.get("finding", []))
    ids = [q.id for q in quotes] + [f.id for f in findings]
    if len(set(ids)) != len(ids):
        raise StudyError(f"{context}: quote and finding ids must be unique within a figure")
    table = spec.get("table")
    if table is not None and table not in drawable_tables():
        raise StudyError(f"{context}: table must be one of {', '.join(drawable_tables())}, got {table!r}")
    capacity = None
    if "capacity" in spec:
        if data is not None or table is not None:
            raise StudyError(f"{context}: a capacity figure runs its own searches: no data or table")
        capacity, table = _capacity(spec["capacity"], f"{context}: capacity"), CAPACITY_TABLE
    return Figure(
        id=fig_id,
        title=_text(spec, "title", context),
        description=_text(spec, "description", context, default=""),
        plot=_plot(spec.get("plot"), f"{context}: plot"),
        fixed=fixed,
        grid=grid,
        data=data,
        quotes=quotes,
        findings=findings,
        table=table,
        capacity=capacity,
    )


def _check_columns(fig: Figure, owner: Figure, where: str) -> None:
    """Every column the figure plots, filters or reads exists in its data, and filtered values are swept."""
    context = f"{where}: {fig.id}"
    keys = list(owner.grid)
    plot = fig.plot
    if fig.table is None:
        selectable, numeric, what = keys + ["priority"], list(NUMERIC_FIELDS), "a swept key or priority"
    elif fig.table == CAPACITY_TABLE:
        selectable, numeric = keys + list(CAPACITY_COLUMNS), list(CAPACITY_NUMERIC)
        what = f"a swept key or a column of the capacity table ({', '.join(CAPACITY_COLUMNS)})"
    else:
        columns = schema.names(schema.table(fig.table) or [])
        selectable, what = keys + columns, f"a swept key or a column of {fig.table}"
        numeric = [c for c in columns if c in TABLE_UNITS]
    # A table's figure may also run along one of the table's numeric columns (x = "node").
    if plot.x not in keys and not (fig.table is not None and plot.x in numeric):
        raise StudyError(f"{context}: plot.x {plot.x!r} is not {'a swept key' if fig.table is None else what} "
                         f"({', '.join(keys if fig.table is None else keys + numeric)})")
    if plot.y not in numeric:
        raise StudyError(f"{context}: plot.y {plot.y!r} is not a result column ({', '.join(numeric)})")
    for item in (*fig.quotes, *fig.findings):
        values = (item.value,) if isinstance(item, Quote) else (item.left, item.right)
        for pick in (p for v in values for p in v.picks()):
            if pick.column not in numeric:
                raise StudyError(f"{context}: {item.id}: column {pick.column!r} is not a column of the figure's "
                                 f"data ({', '.join(numeric)})")
    for role in ("series", "panel"):
        column = getattr(plot, role)
        if column is not None and column not in selectable:
            raise StudyError(f"{context}: plot.{role} {column!r} is not {what}")
        if column is None and getattr(plot, f"{role}_values") is not None:
            raise StudyError(f"{context}: plot.{role}_values without plot.{role}")
    wheres = [("plot.where", plot.where)]
    for item in (*fig.quotes, *fig.findings):
        values = (item.value,) if isinstance(item, Quote) else (item.left, item.right)
        wheres += [(f"{item.id}", p.where) for v in values for p in v.picks()]
    for label, entries in wheres:
        for column, wanted in entries:
            if column not in selectable:
                raise StudyError(f"{context}: {label}: where {column!r} is not {what}")
            if column in owner.grid:
                missing = [w for w in wanted if not any(same_value(w, v) for v in owner.grid[column])]
                if missing:
                    raise StudyError(f"{context}: {label}: where {column} = {missing[0]!r} is not in the grid")


def parse_study(text: str, folder: Path, name: Optional[str] = None) -> Study:
    """A :class:`Study` from the text of a study.toml in ``folder``; raises :class:`StudyError`."""
    where = str(folder / STUDY_FILE)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise StudyError(f"{where}: malformed TOML: {e}") from None
    _check_fields(doc, {"study", "figure"}, where)
    head = _table(doc.get("study"), f"{where}: [study]")
    _check_fields(head, {"name", "title", "source", "description", "base", "quick"}, f"{where}: [study]")
    base_path = folder / _text(head, "base", f"{where}: [study]")
    try:
        base = Scenario.load(base_path)
    except ScenarioError as e:
        raise StudyError(str(e)) from None
    quick = _overrides(_table(head.get("quick", DEFAULT_QUICK), f"{where}: [study.quick]"), f"{where}: [study.quick]")
    figures = tuple(_figure(spec, i, where) for i, spec in enumerate(doc.get("figure", [])))
    if not figures:
        raise StudyError(f"{where}: no [[figure]]")
    ids = [f.id for f in figures]
    duplicate = next((i for i in ids if ids.count(i) > 1), None)
    if duplicate:
        raise StudyError(f"{where}: figure id {duplicate!r} is used twice")
    by_id = {f.id: f for f in figures}
    for fig in figures:
        owner = by_id.get(fig.data_id)
        if owner is None or owner.data is not None:
            raise StudyError(f"{where}: {fig.id}: data = {fig.data!r} must name a figure that has its own grid")
        _check_columns(fig, owner, where)
    study = Study(
        name=head.get("name") or name or folder.name,
        title=_text(head, "title", f"{where}: [study]"),
        source=_text(head, "source", f"{where}: [study]", default=""),
        description=_text(head, "description", f"{where}: [study]", default=""),
        folder=folder,
        base=base,
        figures=figures,
        quick=quick,
    )
    for fig in figures:
        _check_sensitivity(study, fig, by_id[fig.data_id], where)
    return study


def default_x(study: Study, fig: Figure) -> Any:
    """The value of ``fig``'s x that ringlet uses: the base scenario's, after the figure's ``fixed``;
    for a key ringlet derives from the ring (0 in the scenario), the figure's ``plot.derived_x``."""
    value = study.scenario(fig).get(fig.plot.x)
    if fig.plot.derived_x is not None and same_value(value, 0):
        return fig.plot.derived_x
    return value


def _check_sensitivity(study: Study, fig: Figure, owner: Figure, where: str) -> None:
    """``reduce``, ``mark_default`` and ``seed_lines``: the keys are swept, ringlet's own
    value of x is on the grid, and each referenced quote exists, in the plotted unit."""
    context = f"{where}: {fig.id}: plot"
    plot = fig.plot
    if plot.reduce is not None:
        over = plot.reduce[0]
        if over not in owner.grid or over in (plot.x, plot.series, plot.panel):
            raise StudyError(f"{context}: reduce.over {over!r} must be a swept key other than x, series and panel")
    if plot.derived_x is not None and not same_value(study.scenario(fig).get(plot.x), 0):
        raise StudyError(f"{context}: derived_x: {plot.x} is set to {study.scenario(fig).get(plot.x)!r} "
                         "for this figure, not derived (0)")
    if plot.mark_default:
        value = default_x(study, fig)
        if not any(same_value(value, v) for v in owner.grid[plot.x]):
            raise StudyError(f"{context}: mark_default: ringlet's value of {plot.x} ({value!r}) is not on the grid")
    for fig_id, quote_id in plot.seed_lines:
        quote = next((q for f in study.figures if f.id == fig_id for q in f.quotes if q.id == quote_id), None)
        if quote is None:
            raise StudyError(f"{context}: seed_lines: no quote {quote_id!r} in a figure {fig_id!r}")
        if quote.unit != unit_of(plot.y):
            raise StudyError(f"{context}: seed_lines: {fig_id}:{quote_id} is in {quote.unit}, "
                             f"plot.y in {unit_of(plot.y) or 'counts'}")


def load_study(study: "str | os.PathLike[str] | Study") -> Study:
    """Loads a study by shipped name (``"sci-rt"``) or by folder; raises :class:`StudyError`."""
    if isinstance(study, Study):
        return study
    folder = find_study(study)
    path = folder / STUDY_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise StudyError(f"{path}: cannot read study file: {getattr(e, 'strerror', None) or e}") from None
    return parse_study(text, folder, name=folder.name)


def max_priorities(study: Study, fig: Figure, quick: bool = False) -> int:
    """The largest ``traffic.priorities`` among the points of a figure's sweep (without running it)."""
    owner = study.figure(fig.data_id)
    if "traffic.priorities" in owner.grid:
        return max(int(v) for v in owner.grid["traffic.priorities"])
    return int(study.scenario(owner, quick).get("traffic.priorities"))

