"""Numbers a study reads off a figure's data: a statistic, a ratio, a percent drop.

A study's quotes and findings say *how* to get ringlet's value from the sweep
table of a figure, never the value itself:

- a pick: ``{stat = "max", column = "total_throughput_mbps", where = {"network.protocol" = "dfc"}}``
  (with ``scale = 0.5``, half the value read: e.g. one direction of a full-duplex total)
- a ratio of two values: ``{ratio = [PICK, PICK]}``
- a percent drop from the first value to the second: ``{drop_pct = [PICK, PICK]}``
- the difference of two values, the first minus the second: ``{difference = [PICK, PICK]}``
- a stated bound, for a finding's right side: ``{bound = 0.95}`` (a margin the
  study states, such as a fairness index to reach, never a figure of the paper's
  or ringlet's), in the left side's unit

``stat`` is ``max``, ``min`` or ``mean`` over the matching rows, or the value
at the lowest x (``at_min_x``), the highest x (``at_max_x``), a given x
(``at_x`` with ``x = ...``) or the highest x below saturation
(``below_saturation``: the highest x at which every matching point carries at
least 99% of what it is offered, ``total_throughput_mbps`` against
``offered_mbps``; "the latency jumps in the vicinity of the saturation point
from ..."). When several rows share that x (several series),
``agg`` (``max``, ``min`` or ``mean``) combines them; without it that is an
error, so a spec never silently averages what it did not mean to.

Each value comes with the half-width of its 95% confidence interval
(:class:`Estimate`), from the batch-means half-width the run reports beside
the column (``total_throughput_mbps_ci95`` for ``total_throughput_mbps``,
...): the picked row's for ``max``/``min`` and single rows, combined as for
independent estimates for a ``mean``, a ratio and a drop. A column the runs
give no half-width for has none (NaN).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Optional, Union

from ..api import schema
from ..runs.table import NUMERIC_FIELDS, POINT_FIELDS, UNITS

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

STATS = ("max", "min", "mean", "at_min_x", "at_max_x", "at_x", "below_saturation")
#: ``below_saturation``: a point carries what it is offered when its throughput is at least this share of it.
CARRIED = 0.99
AGGS = ("max", "min", "mean")

Where = tuple[tuple[str, tuple[Any, ...]], ...]

#: Result column -> the column holding its 95% confidence half-width (batch means).
CI_COLUMNS = {c: f"{c}_ci95" for c in NUMERIC_FIELDS if f"{c}_ci95" in NUMERIC_FIELDS}

#: The columns of the core's report tables (``per_vc``, ``per_ringlet``, ...) and their units:
#: what a figure that draws a report table (``table = "per_vc"``) reads. ``name`` is text.
TABLE_UNITS = {c["name"]: c["unit"] for columns in schema.report_schema()["tables"].values() for c in columns
               if c["name"] != "name"}
# A capacity figure's table (``format.CAPACITY_TABLE``): values of the searched key, and the
# deadline's limit, in whatever unit those have.
TABLE_UNITS.update({"deadline_value": "", "capacity": "", "fails_at": "", "probes": "", "throughput_mbps_per_port": "MB/s"})


def unit_of(column: str) -> str:
    """A numeric column's unit: a sweep table column's, else a report table column's."""
    return UNITS[column] if column in UNITS else TABLE_UNITS[column]


@dataclass(frozen=True)
class Estimate:
    """A value read off a figure's data and the half-width of its 95% confidence
    interval (NaN when the runs give none for the column)."""

    value: float
    ci95: float = math.nan


def mean_ci(cis: "pd.Series") -> float:
    """Half-width of the mean of independent estimates with half-widths ``cis``."""
    n = len(cis)
    cis = cis.astype(float)
    if not n or cis.isna().any():  # one estimate without an interval: the mean has none
        return math.nan
    return float(math.sqrt(float((cis ** 2).sum())) / n)


def _relative_ci(value: float, parts: tuple[Estimate, ...]) -> float:
    """Half-width of a product or quotient of independent estimates (first order)."""
    if any(p.value == 0 for p in parts):
        return math.nan
    return abs(value) * math.sqrt(sum((p.ci95 / p.value) ** 2 for p in parts))


class ExtractError(ValueError):
    """A value cannot be read from the data (no matching rows, ambiguous rows)."""


def is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def is_finite_number(value: Any) -> bool:
    """A number that is not NaN or infinite (what a study's numeric fields hold)."""
    return is_number(value) and math.isfinite(value)


def same_value(a: Any, b: Any) -> bool:
    """Equality that treats 1 and 1.0, and floats that differ in the last bit, as equal."""
    if is_number(a) and is_number(b):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def parse_where(spec: Any, context: str) -> Where:
    """``{column = value | [values]}`` as a hashable tuple; raises ValueError."""
    if spec is None:
        return ()
    if not isinstance(spec, Mapping):
        raise ValueError(f"{context}: where must be a table of column = value or [values]")
    out = []
    for column, value in spec.items():
        values = tuple(value) if isinstance(value, list) else (value,)
        if not values:
            raise ValueError(f"{context}: where {column!r} has an empty list")
        if any(is_number(v) and not is_finite_number(v) for v in values):
            raise ValueError(f"{context}: where {column!r} must hold finite numbers")
        out.append((str(column), values))
    return tuple(out)


def filter_rows(frame: "pd.DataFrame", where: Where) -> "pd.DataFrame":
    """The rows of ``frame`` whose columns match every ``where`` entry (any of its values)."""
    mask = None
    for column, values in where:
        col = frame[column]
        match = col.map(lambda v, vs=values: any(same_value(v, w) for w in vs))
        mask = match if mask is None else (mask & match)
    return frame if mask is None else frame[mask.astype(bool)]


def describe_where(where: Where) -> str:
    parts = []
    for column, values in where:
        shown = values[0] if len(values) == 1 else list(values)
        parts.append(f"{column}={shown}")
    return ", ".join(parts)


#: The analytic model's figure beside a measured one (docs/analytic.md).
MODEL_OF = {
    "total_throughput_mbps": "model_throughput_mbps",
    "throughput_mbps": "model_throughput_mbps",
    "total_latency_ns_mean": "model_latency_ns_mean",
    "latency_ns_mean": "model_latency_ns_mean",
}


def model_column(column: str, frame: "pd.DataFrame") -> Optional[str]:
    """The model's column beside ``column`` in ``frame``, or None: the model gives
    totals, so a per-priority figure has one only where the runs have a single priority."""
    model = MODEL_OF.get(column)
    if model is None or model not in frame.columns:
        return None
    if not column.startswith("total_") and "priority" in frame.columns and frame["priority"].nunique() > 1:
        return None
    return model


@dataclass(frozen=True)
class Pick:
    """One statistic of one column over the rows that match ``where``."""

    stat: str
    column: str
    where: Where = ()
    x: Optional[float] = None
    agg: Optional[str] = None
    #: Multiplies the value read and its half-width (e.g. 0.5: one direction of a full-duplex total).
    scale: float = 1.0

    @property
    def unit(self) -> str:
        return unit_of(self.column)  # the schema's: MB/s (SI), ns, or "" for counts

    def picks(self) -> tuple["Pick", ...]:
        return (self,)

    def evaluate(self, frame: "pd.DataFrame", x_column: str) -> float:
        return self.estimate(frame, x_column).value

    def estimate(self, frame: "pd.DataFrame", x_column: str) -> Estimate:
        """The value and its 95% half-width (see the module's doc), times ``scale``."""
        found = self._estimate(frame, x_column)
        if self.scale == 1:
            return found
        return Estimate(found.value * self.scale, found.ci95 * abs(self.scale))

    def _estimate(self, frame: "pd.DataFrame", x_column: str) -> Estimate:
        if self.column not in frame.columns:
            raise ExtractError(f"no {self.column} in the figure's data (its runs report none)")
        rows = filter_rows(frame, self.where)
        if self.column in POINT_FIELDS:  # one value per point, not one per priority row
            rows = rows.drop_duplicates("point")
        rows = rows[rows[self.column].notna()]
        if rows.empty:
            raise ExtractError(f"no data for {self.column} where {describe_where(self.where) or 'any'}")
        ci_column = CI_COLUMNS.get(self.column)

        def ci(selected: "pd.DataFrame") -> "pd.Series":
            if ci_column is None or ci_column not in selected:
                return selected[self.column].astype(float) * math.nan
            return selected[ci_column].astype(float)

        def reduce(selected: "pd.DataFrame", how: str) -> Estimate:
            values = selected[self.column].astype(float)
            if how == "mean":
                return Estimate(float(values.mean()), mean_ci(ci(selected)))
            at = values.idxmax() if how == "max" else values.idxmin()
            return Estimate(float(values[at]), float(ci(selected)[at]))

        if self.stat in ("max", "min", "mean"):
            return reduce(rows, self.stat)
        xs = rows[x_column].astype(float)
        target = self.target_x(rows, x_column)
        at = rows[xs.map(lambda v: same_value(v, target))]
        if at.empty:
            raise ExtractError(f"no data for {self.column} at {x_column}={target:g}")
        if len(at) > 1:
            if self.agg is None:
                raise ExtractError(
                    f"{len(at)} rows for {self.column} at {x_column}={target:g}; "
                    f"narrow 'where' or give agg = max | min | mean"
                )
            return reduce(at, self.agg)
        return reduce(at, "max")

    def target_x(self, rows: "pd.DataFrame", x_column: str) -> float:
        """The x an ``at_*`` or ``below_saturation`` pick reads at, among ``rows`` (its matching rows)."""
        xs = rows[x_column].astype(float)
        if self.stat == "at_min_x":
            return float(xs.min())
        if self.stat == "at_max_x":
            return float(xs.max())
        if self.stat == "below_saturation":
            points = rows.drop_duplicates("point")
            x = points[x_column].astype(float)
            carried = points["total_throughput_mbps"] >= CARRIED * points["offered_mbps"]
            # Below the lowest x at which some point saturates.
            below = x[carried & (x < x[~carried].min())] if (~carried).any() else x
            if below.empty:
                raise ExtractError(f"no point carries what it is offered where {describe_where(self.where) or 'any'}")
            return float(below.max())
        return float(self.x)

    def describe(self) -> str:
        what = {"at_min_x": "at lowest x", "at_max_x": "at highest x",
                "below_saturation": "at the highest x below saturation"}.get(self.stat, self.stat)
        if self.stat == "at_x":
            what = f"at x={self.x:g}"
        agg = f" ({self.agg} over rows)" if self.agg else ""
        where = f" where {describe_where(self.where)}" if self.where else ""
        scale = f"{self.scale:g} x " if self.scale != 1 else ""
        return f"{scale}{self.column} {what}{agg}{where}"


@dataclass(frozen=True)
class Ratio:
    """``numerator / denominator``: a dimensionless ratio."""

    numerator: Pick
    denominator: Pick
    unit = "ratio"

    def picks(self) -> tuple[Pick, ...]:
        return (self.numerator, self.denominator)

    def evaluate(self, frame: "pd.DataFrame", x_column: str) -> float:
        return self.estimate(frame, x_column).value

    def estimate(self, frame: "pd.DataFrame", x_column: str) -> Estimate:
        num = self.numerator.estimate(frame, x_column)
        den = self.denominator.estimate(frame, x_column)
        if not den.value:
            return Estimate(math.nan)
        value = num.value / den.value
        return Estimate(value, _relative_ci(value, (num, den)))

    def describe(self) -> str:
        return f"({self.numerator.describe()}) / ({self.denominator.describe()})"


@dataclass(frozen=True)
class DropPct:
    """How much the second value is below the first, in percent of the first."""

    start: Pick
    end: Pick
    unit = "%"

    def picks(self) -> tuple[Pick, ...]:
        return (self.start, self.end)

    def evaluate(self, frame: "pd.DataFrame", x_column: str) -> float:
        return self.estimate(frame, x_column).value

    def estimate(self, frame: "pd.DataFrame", x_column: str) -> Estimate:
        a = self.start.estimate(frame, x_column)
        b = self.end.estimate(frame, x_column)
        if not a.value:
            return Estimate(math.nan)
        # 100 (1 - b/a): the half-width is 100 x that of b/a.
        return Estimate((a.value - b.value) / a.value * 100.0, 100.0 * _relative_ci(b.value / a.value, (a, b)))

    def describe(self) -> str:
        return f"% drop from ({self.start.describe()}) to ({self.end.describe()})"


@dataclass(frozen=True)
class Difference:
    """``first - second``, in their unit (e.g. how much a latency grows from one x to another)."""

    first: Pick
    second: Pick

    @property
    def unit(self) -> str:
        return self.first.unit

    def picks(self) -> tuple[Pick, ...]:
        return (self.first, self.second)

    def evaluate(self, frame: "pd.DataFrame", x_column: str) -> float:
        return self.estimate(frame, x_column).value

    def estimate(self, frame: "pd.DataFrame", x_column: str) -> Estimate:
        a = self.first.estimate(frame, x_column)
        b = self.second.estimate(frame, x_column)
        return Estimate(a.value - b.value, math.hypot(a.ci95, b.ci95))

    def describe(self) -> str:
        return f"({self.first.describe()}) - ({self.second.describe()})"


@dataclass(frozen=True)
class Bound:
    """A number the study states (a finding's margin, e.g. a fairness index to
    reach): read off no data, exact, in whatever unit the other side has."""

    number: float
    unit: str = ""

    def picks(self) -> tuple[Pick, ...]:
        return ()

    def evaluate(self, frame: "pd.DataFrame", x_column: str) -> float:
        return self.number

    def estimate(self, frame: "pd.DataFrame", x_column: str) -> Estimate:
        return Estimate(self.number, 0.0)

    def describe(self) -> str:
        return f"{self.number:g}"


Value = Union[Pick, Ratio, DropPct, Difference, Bound]

#: The two-value recipes: field name -> class.
PAIRS = {"ratio": Ratio, "drop_pct": DropPct, "difference": Difference}


def _parse_pick(spec: Any, context: str) -> Pick:
    if not isinstance(spec, Mapping):
        raise ValueError(f"{context}: expected a table like {{stat = \"max\", column = \"...\"}}")
    unknown = set(spec) - {"stat", "column", "where", "x", "agg", "scale"}
    if unknown:
        raise ValueError(f"{context}: unknown field(s) {', '.join(sorted(unknown))}")
    stat = spec.get("stat")
    if stat not in STATS:
        raise ValueError(f"{context}: stat must be one of {', '.join(STATS)}, got {stat!r}")
    column = spec.get("column")
    if column not in NUMERIC_FIELDS and column not in TABLE_UNITS:
        raise ValueError(f"{context}: column must be one of {', '.join(NUMERIC_FIELDS)} (or a column of the "
                         f"report table a figure draws), got {column!r}")
    x = spec.get("x")
    if stat == "at_x" and not is_finite_number(x):
        raise ValueError(f"{context}: stat = \"at_x\" needs a finite number x")
    if stat != "at_x" and x is not None:
        raise ValueError(f"{context}: x is only for stat = \"at_x\"")
    agg = spec.get("agg")
    if agg is not None and (agg not in AGGS or stat in ("max", "min", "mean")):
        raise ValueError(f"{context}: agg must be one of {', '.join(AGGS)} and only with an at_* or below_saturation stat")
    scale = spec.get("scale", 1.0)
    if not is_finite_number(scale) or scale == 0:
        raise ValueError(f"{context}: scale must be a finite number other than 0")
    return Pick(stat, column, parse_where(spec.get("where"), context), None if x is None else float(x), agg,
                float(scale))


def parse_value(spec: Any, context: str) -> Value:
    """A value spec from the study file: a pick, ``{ratio = [a, b]}``, ``{drop_pct = [a, b]}``
    or ``{difference = [a, b]}`` (whose two values must share a unit)."""
    if isinstance(spec, Mapping) and set(spec) == {"bound"}:
        number = spec["bound"]
        if not isinstance(number, numbers.Real) or isinstance(number, bool) or not math.isfinite(number):
            raise ValueError(f"{context}: bound must be a finite number")
        return Bound(float(number))
    if isinstance(spec, Mapping) and len(spec) == 1 and next(iter(spec)) in PAIRS:
        kind, pair = next(iter(spec.items()))
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError(f"{context}: {kind} needs a list of two value tables")
        a, b = (_parse_pick(p, f"{context}: {kind}[{i}]") for i, p in enumerate(pair))
        if kind == "difference" and a.unit != b.unit:
            raise ValueError(f"{context}: difference: the first value is in {a.unit or 'counts'} "
                             f"but the second in {b.unit or 'counts'}")
        return PAIRS[kind](a, b)
    return _parse_pick(spec, context)

