"""What a figure claims: the numbers the paper quotes (``[[figure.quote]]``) and its
qualitative findings (``[[figure.finding]]``), their verdicts, and their parsers."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .extract import Bound, Value, is_finite_number
from .fields import StudyError, as_table, as_text, as_value, check_fields

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
        return self.decide(left, right, self.noise(left_ci, right_ci))

    def decide(self, left: float, right: float, noise: tuple[float, ...]) -> str:
        """The verdict given the 95% half-width of ``left - f * right`` for each bound's
        factor ``f`` (``noise``, in the order of :attr:`factors`; NaN: none known)."""
        for f, h in zip(self.factors, noise):
            if math.isfinite(h) and abs(left - f * right) <= h:
                return WITHIN_NOISE
        return YES if self.holds(left, right) else NO


def _claim(spec: Any, fields: set[str], context: str) -> tuple[Any, str, str]:
    """A quote's or finding's table checked for its ``fields``: (the table, its id, the
    context its errors name, the id included)."""
    spec = as_table(spec, context)
    check_fields(spec, fields, context)
    cid = as_text(spec, "id", context)
    return spec, cid, f"{context} {cid}"


def parse_quote(spec: Any, context: str) -> Quote:
    spec, qid, context = _claim(spec, {"id", "description", "seed_value", "seed_unit", "value", "calibrated"}, context)
    unit = spec.get("seed_unit")
    if unit not in SEED_UNITS:
        raise StudyError(f"{context}: seed_unit must be one of {', '.join(SEED_UNITS)}, got {unit!r}")
    if not is_finite_number(spec.get("seed_value")):
        raise StudyError(f"{context}: seed_value must be a finite number")
    value = as_value(spec.get("value"), f"{context}: value")
    if isinstance(value, Bound):
        raise StudyError(f"{context}: value must be read off the data, not a bound")
    if value.unit != SEED_UNITS[unit][0]:
        raise StudyError(
            f"{context}: seed_unit {unit} is {SEED_UNITS[unit][0]} but the value is in {value.unit or 'counts'}"
        )
    calibrated = spec.get("calibrated", False)
    if not isinstance(calibrated, bool):
        raise StudyError(f"{context}: calibrated must be true or false")
    return Quote(qid, as_text(spec, "description", context), float(spec["seed_value"]), unit, value, calibrated)


def parse_finding(spec: Any, context: str) -> Finding:
    spec, fid, context = _claim(spec, {"id", "description", "left", "op", "right", "factor"}, context)
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
    left = as_value(spec.get("left"), f"{context}: left")
    right = as_value(spec.get("right"), f"{context}: right")
    if isinstance(left, Bound):
        raise StudyError(f"{context}: left must be read off the data; a bound goes on the right")
    if isinstance(right, Bound):
        # A stated margin: in the unit of what it bounds.
        right = Bound(right.number, left.unit)
    if left.unit != right.unit:
        raise StudyError(f"{context}: left is in {left.unit or 'counts'} but right in {right.unit or 'counts'}")
    return Finding(fid, as_text(spec, "description", context), left, op, right, factor)
