"""Pre-flight checks: what makes a run pointless, said before it starts.

A scenario can be valid and still not mean what its author thinks: a file
with no keys runs every default, a failure scheduled after the run's end
never happens, a load far above what the network carries measures only
saturation (and may run into the time or backlog cap). :func:`checks` finds
these, one line each; :func:`warn` raises them as :class:`PreflightWarning`,
which the ``ringlet`` command prints as ``warning: ...`` lines on stderr.
What cannot run at all (a switch with more ports than the family allows, a
network over the interface limit) is refused by the core's own checks, as a
:class:`~ringlet.api.errors.ScenarioError` naming the key.
"""

from __future__ import annotations

import tomllib
import warnings
from typing import TYPE_CHECKING, Any, Optional

from .. import _core

if TYPE_CHECKING:  # pragma: no cover
    from .scenario import Scenario

#: A load this many times the network's capacity (the analytic model's saturation)
#: is "far above" it: the run may stop at its time or backlog cap. Past the
#: capacity at all, the run measures the peak it carries, not the load it is
#: offered (the shipped saturating scenarios do so on purpose: a GigaRing
#: channel at its peak, 2.2 times; a switch's loss, 3.2 times).
OVERLOAD_FACTOR = 4.0

#: A load more than this many times the network's capacity cannot be meant
#: (a slip of the exponent, ``1e308``): it is refused, naming the key and the
#: capacity, rather than run into its caps. Past a few times the capacity a
#: run measures the same peak, so nothing a user could want lies beyond it.
ABSURD_FACTOR = 1000.0


class PreflightWarning(UserWarning):
    """A run that can run but will not measure what its scenario seems to ask."""


def capacity_mbps_per_node(scenario: "Scenario") -> Optional[float]:
    """What one sending node can have carried, MB/s in the unit of
    ``traffic.load_mbps_per_node`` (all its priorities together); ``None``
    where the model has none (a trace-driven run).

    The analytic model's saturation load (``ringlet::capacity``,
    docs/analytic.md): the network built, not run, and the load at which its
    busiest resource is always busy.
    """
    return _core.capacity_mbps_per_node(scenario.text, list(scenario.overrides))


def _no_keys(text: str) -> bool:
    """Whether scenario ``text`` sets no key (empty, comments, or empty tables)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:  # (the core has already accepted it; be safe)
        return False

    def empty(value: object) -> bool:
        return isinstance(value, dict) and all(empty(v) for v in value.values())

    return empty(doc)


def empty_file(scenario: "Scenario") -> Optional[str]:
    """The warning for a scenario file that sets no key (and no override on top)."""
    if scenario.path is None or scenario.overrides or not _no_keys(scenario.text):
        return None
    return (f"{scenario.path}: the file sets no key: the run uses every default "
            f"({scenario.get('network.nodes')}-node {scenario.get('network.kind')}, "
            f"{scenario.get('traffic.load_mbps_per_node'):g} MB/s per node; see ringlet params)")


class _Values:
    """A scenario's validated values, read once: ``v.get("run.seed")``."""

    def __init__(self, scenario: "Scenario"):
        self.d = scenario.to_dict()

    def get(self, key: str) -> Any:
        section, _, name = key.partition(".")
        return self.d.get(section, {}).get(name)


def _expected_end_ns(scenario: "_Values", carried_per_node: float, senders: int) -> Optional[float]:
    """When a GigaRing run should have measured its transactions, ns: after
    its warm-up, its transactions at the rate its senders offer (or carry,
    if less). ``None`` when it stops on precision or offers nothing."""
    transactions = scenario.get("run.measure_transactions")
    if scenario.get("run.ci_rel_halfwidth") is not None or not transactions or carried_per_node <= 0 or senders <= 0:
        return None
    bytes_per_transaction = 8 * scenario.get("traffic.block_words")
    # MB/s is bytes per microsecond.
    return scenario.get("run.warmup_ns") + transactions * bytes_per_transaction / (carried_per_node * senders) * 1e3


def _offered(scenario: "_Values") -> tuple[float, int, float]:
    """A node's offered load: per priority, the priorities, and all of them together, MB/s."""
    per_priority, priorities = scenario.get("traffic.load_mbps_per_node"), scenario.get("traffic.priorities")
    return per_priority, priorities, per_priority * priorities


def fault_after_end(scenario: "_Values", capacity: Optional[float]) -> Optional[str]:
    """The warning for a GigaRing failure (``faults.*``) scheduled after the run ends."""
    if scenario.get("network.kind") != "gigaring":
        return None
    if scenario.get("faults.fail_node") is None and scenario.get("faults.fail_link") is None:
        return None
    at, cap = scenario.get("faults.at_ns"), scenario.get("run.max_sim_time_ns")
    if at >= cap:
        return (f"faults.at_ns: the failure at {at:,.0f} ns comes after the run's time cap "
                f"(run.max_sim_time_ns = {cap:,.0f} ns): it never happens")
    load = _offered(scenario)[2]
    masters = scenario.get("traffic.masters") or scenario.get("network.nodes")
    carried = min(load, capacity) if capacity is not None else load
    end = _expected_end_ns(scenario, carried, masters)
    if end is not None and at > end:
        return (f"faults.at_ns: the failure at {at:,.0f} ns comes after the run is expected to end "
                f"(about {end:,.0f} ns: run.warmup_ns and run.measure_transactions at the offered load): "
                "it would likely never happen; raise run.measure_transactions or lower faults.at_ns")
    return None


def overload(scenario: "_Values", capacity: Optional[float]) -> Optional[str]:
    """The warning for an offered load above what the network can carry."""
    if capacity is None or capacity <= 0:
        return None
    per_priority, priorities, load = _offered(scenario)
    if load <= capacity:
        return None
    of = f" ({priorities} priorities of {per_priority:g})" if priorities > 1 else ""
    far = ", and may stop at the time or backlog cap" if load > OVERLOAD_FACTOR * capacity else ""
    ratio = load / capacity
    times = f"{ratio:,.0f}" if ratio >= 100 else f"{ratio:.3g}"  # (not 1e+03)
    return (f"traffic.load_mbps_per_node: {load:,.0f} MB/s per node{of} is {times}x what the network "
            f"can carry (about {capacity:,.0f} MB/s per node, the analytic model's saturation): the run measures "
            f"the peak it carries{far}")


def refuse_absurd(scenario: "_Values", capacity: Optional[float]) -> None:
    """Raises :class:`~ringlet.api.errors.ScenarioError` for an offered load
    more than :data:`ABSURD_FACTOR` times what the network can carry."""
    if capacity is None or capacity <= 0:
        return
    per_priority, priorities, load = _offered(scenario)
    if load <= ABSURD_FACTOR * capacity:
        return
    from .errors import ScenarioError

    of = f" ({priorities} priorities of it)" if priorities > 1 else ""
    raise ScenarioError(f"traffic.load_mbps_per_node: {per_priority:g} MB/s per node{of} is more than "
                        f"{ABSURD_FACTOR:,.0f} times what the network can carry (about {capacity:,.4g} MB/s per node, "
                        "the analytic model's saturation); past a few times it a run measures the same peak")


def checks(scenario: "Scenario") -> list[str]:
    """Every pre-flight warning for ``scenario``, one line each (``[]`` when none)."""
    return [m for m in (empty_file(scenario),) if m] + checks_of_point(scenario)


def warn(messages: list[str], stacklevel: int = 2) -> None:
    """Raises each message as a :class:`PreflightWarning`."""
    for message in messages:
        warnings.warn(message, PreflightWarning, stacklevel=stacklevel + 1)


def across(per_point: list[list[str]], unit: str = "points") -> list[str]:
    """The warnings of many points (a sweep's, a study's), one line per kind:
    a kind (the key or file a message starts with) that several points share
    is said once, with how many and the first of them."""
    kinds: dict[str, list[str]] = {}
    for messages in per_point:
        for message in messages:
            kinds.setdefault(message.split(": ", 1)[0], []).append(message)
    return [found[0] if len(found) == 1 else f"{len(found)} of {len(per_point)} {unit}, the first: {found[0]}"
            for found in kinds.values()]


def sweep_checks(base: "Scenario", overrides: list[tuple[tuple[str, str], ...]], unit: str = "points") -> list[str]:
    """The pre-flight warnings of a sweep over ``base``: its file's, and
    each point's (``overrides``: each point's, on top of ``base.text``) once per kind."""
    from .scenario import Scenario

    points = [checks_of_point(Scenario(base.text, ov)) for ov in overrides]
    return [m for m in (empty_file(base),) if m] + across(points, unit)


def checks_of_point(scenario: "Scenario") -> list[str]:
    """A point's own warnings (those :func:`checks` gives but the file's);
    raises :class:`~ringlet.api.errors.ScenarioError` for a load that
    cannot be meant (:func:`refuse_absurd`)."""
    capacity, values = capacity_mbps_per_node(scenario), _Values(scenario)
    refuse_absurd(values, capacity)
    return [m for m in (fault_after_end(values, capacity), overload(values, capacity)) if m]


def study_checks(work: list[tuple[str, tuple[tuple[str, str], ...]]]) -> list[str]:
    """The pre-flight warnings of a study's points (``(text, overrides)``),
    once per kind. A study draws its curves past saturation on purpose, so
    its points get no overload warning: only a failure after the run's end."""
    from .scenario import Scenario

    per_point = []
    for text, overrides in work:
        scenario = Scenario(text, overrides)
        message = fault_after_end(_Values(scenario), capacity_mbps_per_node(scenario))
        per_point.append([message] if message else [])
    return across(per_point)
