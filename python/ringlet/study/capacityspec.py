"""A figure of capacity searches (``[figure.capacity]``): :class:`CapacitySpec`, the
table such a figure draws, and the parser."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ..api.errors import ScenarioError
from ..api.overrides import check_key
from .extract import is_finite_number
from .fields import StudyError, as_table, check_fields


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
#: (NaN when met nowhere), the lowest value found to miss, the points probed, and the
#: payload per switch port at the capacity (NaN without switches or a capacity).
CAPACITY_NUMERIC = ("deadline_value", "capacity", "fails_at", "probes", "throughput_mbps_per_port")
CAPACITY_COLUMNS = ("deadline", "verdict", *CAPACITY_NUMERIC)


def parse_capacity(spec: Any, context: str) -> CapacitySpec:
    from ..runs.capacity import CapacityError, parse_deadlines

    spec = as_table(spec, context)
    check_fields(spec, {"deadlines", "key", "range", "tolerance", "priority", "replications"}, context)
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
