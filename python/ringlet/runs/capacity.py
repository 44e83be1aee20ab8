"""Capacity search: the highest value of a key (the load, by default) at which
every deadline holds, e.g. ``p99<=2us`` for priority 2 (docs/capacity.md).

A point meets a deadline only when the bound of its 95% confidence interval
on the deadline's side does: a latency's or a loss's upper bound, the
fairness index's lower bound. The interval comes from independent
replications of the point (Student t over each replication's figure, as
``ringlet sweep --replications``): a p99 has no batch-means interval, and
replications give one for every figure alike. A point that stops before
measuring its transactions (time cap, backlog cap) is saturated: it meets
nothing.

The search assumes the deadline's figure grows with the key (latency and loss
with the load): it brackets the answer (from the given range's ends, or by
doubling and halving from the scenario's value), then bisects until the
bracket is within the tolerance of the answer. Every probe's runs go through
the results store, so the same question asked again runs nothing new and an
interrupted search resumes where it stopped.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from ..api.scenario import Scenario
from ..files.targets import check_out_dir
from .limits import MAX_REPLICATIONS, check_count
from .store import FILENAME, Store
from .table import EARLY_STOPS, PROVENANCE_FIELDS

#: Deadline figures: name -> (sweep column, scope, unit kind). ``priority``
#: figures are read per priority level (each level, or ``priority=K``'s);
#: ``total`` figures are the network's.
METRICS: dict[str, tuple[str, str, str]] = {
    "mean": ("latency_ns_mean", "priority", "time"),
    "p50": ("latency_ns_p50", "priority", "time"),
    "p99": ("latency_ns_p99", "priority", "time"),
    "p99.9": ("latency_ns_p999", "priority", "time"),
    "max": ("latency_ns_max", "priority", "time"),
    "transaction.mean": ("transaction_latency_ns_mean", "total", "time"),
    "transaction.p99": ("transaction_latency_ns_p99", "total", "time"),
    "channel.mean": ("channel_latency_ns_mean", "total", "time"),
    "channel.p99": ("channel_latency_ns_p99", "total", "time"),
    "loss": ("total_loss_mbps", "total", "rate"),
    "fairness": ("total_fairness_index", "total", "index"),
}

#: Units a deadline's number may carry, to ns or MB/s.
UNITS = {
    "time": {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9},
    "rate": {"B/s": 1e-6, "kB/s": 1e-3, "MB/s": 1.0, "GB/s": 1e3},
    "index": {"": 1.0},
}
_CANONICAL = {"time": "ns", "rate": "MB/s", "index": ""}

#: What ``out=`` gets beside its results store.
OUT_FILES = ("capacity.json", "capacity.csv", "capacity.png", "capacity.svg")

#: How far the search doubles (or halves) from the scenario's value looking for a bracket.
MAX_DOUBLINGS = 10

_DEADLINE = re.compile(r"^\s*([a-z][a-z0-9.]*)\s*(<=|>=|<|>|=)\s*([-+0-9.eE]+)\s*([a-zA-Zµ/]*)\s*$")


class CapacityError(ValueError):
    """A capacity question that cannot be asked: a bad deadline, key, range or option."""


@dataclass(frozen=True)
class Deadline:
    """One condition a point must meet: ``figure op limit`` (limit in ns, MB/s or plain)."""

    text: str
    metric: str
    op: str
    limit: float

    @property
    def column(self) -> str:
        return METRICS[self.metric][0]

    @property
    def per_priority(self) -> bool:
        return METRICS[self.metric][1] == "priority"

    @property
    def unit(self) -> str:
        return _CANONICAL[METRICS[self.metric][2]]

    def holds(self, bound: float) -> bool:
        return bound <= self.limit if self.op == "<=" else bound >= self.limit


def parse_deadlines(texts: "str | Sequence[str]") -> list[Deadline]:
    """Deadlines from ``"p99<=2us"``, ``"mean<=500ns, loss<=1MB/s"`` or a list of such."""
    if isinstance(texts, str):
        texts = [texts]
    parts = [p.strip() for t in texts for p in str(t).split(",") if p.strip()]
    if not parts:
        raise CapacityError("deadline: expected at least one, e.g. 'p99<=2us'")
    return [_parse_one(p) for p in parts]


def _parse_one(text: str) -> Deadline:
    m = _DEADLINE.match(text)
    if not m:
        raise CapacityError(f"deadline: expected FIGURE<=NUMBER UNIT (e.g. 'p99<=2us', 'loss<=1MB/s', "
                            f"'fairness>=0.95'), got {text!r}")
    metric, op, number, unit = m.groups()
    if metric not in METRICS:
        raise CapacityError(f"deadline {text!r}: unknown figure {metric!r}; expected one of {', '.join(METRICS)}")
    kind = METRICS[metric][2]
    want = ">=" if kind == "index" else "<="
    if op != want:
        raise CapacityError(f"deadline {text!r}: {metric} takes '{want}' (a {'floor' if want == '>=' else 'ceiling'})")
    try:
        value = float(number)
    except ValueError:
        raise CapacityError(f"deadline {text!r}: {number!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise CapacityError(f"deadline {text!r}: expected a finite number >= 0, got {number}")
    units = UNITS[kind]
    if unit not in units:
        given = f"{unit!r}" if unit else "none"
        raise CapacityError(f"deadline {text!r}: unit {given}; expected one of "
                            f"{', '.join(u for u in units if u) or 'none'}")
    return Deadline(text.strip(), metric, op, value * units[unit])


@dataclass
class Probe:
    """One probed value of the key: each deadline's figure, its CI and whether it holds."""

    value: float
    meets: bool
    stopped_by: str
    #: Per deadline (in order): {"deadline", "figure", "ci95", "bound", "holds"}; with several
    #: priority levels and no ``priority``, the worst level's.
    checks: list[dict[str, Any]]
    #: The first replication's provenance (scenario hash, seed, ringlet version): where the
    #: results store keeps it.
    provenance: dict[str, Any] = field(default_factory=dict)
    #: Payload carried per switch port (the mean over replications), where the network
    #: has switches (seed 001's cost-efficiency); else None.
    throughput_mbps_per_port: Optional[float] = None

    def row(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value, "meets": self.meets, "stopped_by": self.stopped_by}
        if self.throughput_mbps_per_port is not None:
            out["throughput_mbps_per_port"] = self.throughput_mbps_per_port
        for c in self.checks:
            d = c["deadline"]
            for k in ("figure", "ci95", "bound", "holds"):
                out[f"{d} {k}"] = c[k]
        return out


def judge(rows: Sequence[Mapping[str, Any]], deadlines: Sequence[Deadline], priority: Optional[int] = None) -> tuple[bool, str, list[dict[str, Any]]]:
    """Whether a point (its sweep rows, one per priority level) meets every deadline.

    Each figure's bound is the figure plus (for a floor, minus) its
    ``<column>_rep_ci95`` when the rows have one; a point stopped early meets
    nothing. Returns (meets, stopped_by, checks).
    """
    if priority is not None:
        rows = [r for r in rows if r["priority"] == priority]
    stopped = ",".join(sorted({str(r.get("stopped_by")) for r in rows}))
    early = any(s in EARLY_STOPS for s in stopped.split(","))
    checks = []
    for d in deadlines:
        scoped = rows if d.per_priority else rows[:1]
        worst: Optional[dict[str, Any]] = None
        for r in scoped:
            figure = _number(r.get(d.column))
            ci = _number(r.get(f"{d.column}_rep_ci95"))
            ci = 0.0 if ci is None or math.isnan(ci) else ci
            if figure is None or math.isnan(figure):
                bound = math.nan
            else:
                bound = figure + ci if d.op == "<=" else figure - ci
            holds = not math.isnan(bound) and d.holds(bound) and not early
            check = {"deadline": d.text, "priority": r["priority"] if d.per_priority else None,
                     "figure": figure, "ci95": ci, "bound": bound, "unit": d.unit, "holds": holds}
            if worst is None or _worse(check, worst, d):
                worst = check
        checks.append(worst or {"deadline": d.text, "priority": None, "figure": None, "ci95": 0.0,
                                "bound": math.nan, "unit": d.unit, "holds": False})
    return all(c["holds"] for c in checks), stopped, checks


def _worse(a: Mapping[str, Any], b: Mapping[str, Any], d: Deadline) -> bool:
    if a["holds"] != b["holds"]:
        return not a["holds"]
    x, y = a["bound"], b["bound"]
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and not math.isnan(y)
    return x > y if d.op == "<=" else x < y


def _number(v: Any) -> Optional[float]:
    if v is None:
        return None
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


@dataclass
class Capacity:
    """The answer of a capacity search (:func:`capacity`)."""

    key: str
    deadlines: list[str]
    priority: Optional[int]
    #: The highest probed value meeting every deadline (None if none does).
    capacity: Optional[float]
    #: ``found`` (bracketed within the tolerance), ``nowhere`` (not met at the
    #: lowest value tried) or ``everywhere`` (met at the highest tried).
    verdict: str
    #: The lowest value found to fail (None if none fails).
    fails_at: Optional[float]
    tolerance: float
    replications: int
    probes: list[Probe] = field(default_factory=list)
    #: The number of runs made (the rest came from the results store).
    computed: int = 0

    def decisive(self) -> Optional[Probe]:
        """The probe the answer rests on: at the capacity, else the lowest value tried."""
        if not self.probes:
            return None
        at = self.capacity if self.capacity is not None else min(p.value for p in self.probes)
        return next(p for p in self.probes if p.value == at)

    @property
    def throughput_mbps_per_port(self) -> Optional[float]:
        """Payload per switch port at the capacity (where the network has switches and the
        deadline is met somewhere): what a port earns of its cost, seed 001's measure."""
        if self.capacity is None:
            return None
        probe = self.decisive()
        return None if probe is None else probe.throughput_mbps_per_port

    def message(self) -> str:
        """One line: the answer, or why there is none."""
        what = " and ".join(self.deadlines) + (f" at priority {self.priority}" if self.priority is not None else "")
        if self.verdict == "nowhere":
            lowest = min(p.value for p in self.probes)
            return f"{what} is met nowhere: not even at {self.key} = {_fmt(lowest)}"
        if self.verdict == "everywhere":
            return f"{what} is met everywhere probed: up to {self.key} = {_fmt(self.capacity)} (the highest tried)"
        per_port = self.throughput_mbps_per_port
        there = "" if per_port is None else f"; there {_fmt(per_port)} MB/s of payload per switch port"
        return (f"capacity: {self.key} = {_fmt(self.capacity)} meets {what} "
                f"({_fmt(self.fails_at)} does not; within {self.tolerance:.3g} of it{there})")

    def table(self) -> "Any":
        """The probed points as a DataFrame, in the order they were run."""
        import pandas as pd

        return pd.DataFrame([p.row() for p in self.probes])

    def to_dict(self) -> dict[str, Any]:
        return {"capacity": self.capacity, "key": self.key, "deadlines": self.deadlines, "priority": self.priority,
                "verdict": self.verdict, "fails_at": self.fails_at, "tolerance": self.tolerance,
                "replications": self.replications, "throughput_mbps_per_port": self.throughput_mbps_per_port,
                "probes": [{"value": p.value, "meets": p.meets, "stopped_by": p.stopped_by,
                            "throughput_mbps_per_port": p.throughput_mbps_per_port,
                            "checks": [_plain(c) for c in p.checks]} for p in self.probes]}

    def plot(self, path: "str | os.PathLike[str]") -> None:
        """Draws the probed points, each deadline's figure with its CI against the key, the deadline as a
        dashed line and the capacity as a dotted one (PNG or SVG by the suffix)."""
        from .capacity_plot import draw

        draw(self, Path(path))


def _plain(c: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in c.items()}


def _fmt(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:,.6g}"


def capacity(
    scenario: "Scenario | str | os.PathLike[str]",
    deadline: "str | Sequence[str]",
    key: str = "traffic.load_mbps_per_node",
    range: Optional[tuple[float, float]] = None,  # noqa: A002 - the CLI's --range
    tolerance: float = 0.02,
    priority: Optional[int] = None,
    replications: int = 5,
    processes: Optional[int] = None,
    store: "str | os.PathLike[str] | Store | None" = None,
    out: "str | os.PathLike[str] | None" = None,
    progress: "Callable[[Probe], None] | None" = None,
    executor: str = "local",
    scheduler: Optional[str] = None,
) -> Capacity:
    """The highest value of ``key`` at which every ``deadline`` holds (see the module's doc).

    - ``deadline``: ``"p99<=2us"``, several joined by commas or in a list (all must hold).
      Figures: ``mean``, ``p50``, ``p99``, ``p99.9``, ``max`` (packet latency, per priority
      level: each level, or ``priority``'s), ``transaction.mean``/``.p99`` and
      ``channel.mean``/``.p99`` (GigaRing), ``loss`` (MB/s) and ``fairness`` (``>=``).
    - ``range``: (lo, hi) to search in; default: from the scenario's value, doubling or halving.
    - ``tolerance``: stop when the bracket is within this fraction of the answer.
    - ``replications``: seeds per point for the confidence interval (1: no interval).
    - ``store`` or ``out``: where runs are kept (``out`` also gets ``capacity.json``,
      ``capacity.csv`` and the figure ``capacity.png``/``.svg``).
    - ``progress``: called with each :class:`Probe` as it is judged.
    - ``processes``, ``executor``, ``scheduler``: where a probe's replications run, as for
      :func:`~ringlet.runs.sweep.sweep` (``executor="dask"``: a Dask cluster).
    """
    if not isinstance(scenario, Scenario):
        scenario = Scenario.load(scenario)
    deadlines = parse_deadlines(deadline)
    check_count("replications", replications, MAX_REPLICATIONS)
    if not (isinstance(tolerance, (int, float)) and 0 < tolerance < 1):
        raise CapacityError(f"tolerance: expected a fraction between 0 and 1 (e.g. 0.02 for 2%), got {tolerance!r}")
    try:
        start = scenario.get(key)
    except KeyError:
        raise CapacityError(f"key: {key} is not a key of this scenario (ringlet params lists them)") from None
    if isinstance(start, bool) or not isinstance(start, (int, float)):
        raise CapacityError(f"key: {key} is not numeric (it is {start!r}); capacity searches a number")
    integer = isinstance(start, int)
    priorities = scenario.get("traffic.priorities")
    if priority is not None and not (0 <= priority < priorities):
        raise CapacityError(f"priority: expected 0..{priorities - 1} (traffic.priorities = {priorities}), got {priority}")
    if range is not None:
        lo, hi = range
        if not (math.isfinite(lo) and math.isfinite(hi) and 0 <= lo < hi):
            raise CapacityError(f"range: expected LO:HI with 0 <= LO < HI, got {lo}:{hi}")
        if integer and (lo != int(lo) or hi != int(hi)):
            raise CapacityError(f"range: {key} is an integer key; got {lo}:{hi}")
    elif start <= 0:
        raise CapacityError(f"range: {key} is {start} in the scenario, nothing to double from: give a range LO:HI")
    if store is not None and out is not None:
        raise CapacityError(f"store and out: give one of them (out keeps its results store in out/{FILENAME})")
    out_dir = None
    if out is not None:
        out_dir = check_out_dir(out, CapacityError, (FILENAME, *OUT_FILES))
        out_dir.mkdir(parents=True, exist_ok=True)
        store = out_dir / FILENAME
    own = store is not None and not isinstance(store, Store)
    st = Store.at(store) if own else store
    search = _Search(scenario, deadlines, key, integer, priority, replications, st, progress,
                     dict(processes=processes, executor=executor, scheduler=scheduler))
    try:
        result = search.run(range, tolerance, start)
    finally:
        if own:
            st.close()
    if out_dir is not None:
        _write(result, out_dir)
    return result


class _Search:
    def __init__(self, scenario: Scenario, deadlines: list[Deadline], key: str, integer: bool,
                 priority: Optional[int], replications: int, store: Optional[Store],
                 progress: Optional[Callable[[Probe], None]], where: Mapping[str, Any]):
        self.scenario, self.deadlines, self.key, self.integer = scenario, deadlines, key, integer
        self.priority, self.replications, self.store, self.where = priority, replications, store, where
        self.progress = progress
        self.probes: dict[float, Probe] = {}
        self.order: list[Probe] = []
        self.computed = 0

    def meets(self, value: float) -> bool:
        value = self.norm(value)
        if value not in self.probes:
            from .sweep import run_sweep

            # (No pre-flight warnings: a search probes past saturation on purpose.)
            done = run_sweep(self.scenario, {self.key: [value]}, store=self.store, replications=self.replications,
                             preflight_checks=False, **self.where)
            if done.outcome.failures:
                raise done.error()
            self.computed += done.outcome.computed
            rows = done.table().to_dict("records")
            ok, stopped, checks = judge(rows, self.deadlines, self.priority)
            per_port = _number(rows[0].get("throughput_mbps_per_port"))
            probe = Probe(value, ok, stopped, checks, {f: rows[0].get(f) for f in PROVENANCE_FIELDS},
                          None if per_port is None or math.isnan(per_port) else per_port)
            self.probes[value] = probe
            self.order.append(probe)
            if self.progress:
                self.progress(probe)
        return self.probes[value].meets

    def norm(self, v: float) -> float:
        return int(round(v)) if self.integer else float(f"{v:.6g}")

    def run(self, rng: Optional[tuple[float, float]], tolerance: float, start: float) -> Capacity:
        if rng is not None:
            lo, hi = self.norm(rng[0]), self.norm(rng[1])
            if not self.meets(lo):
                return self.answer(None, "nowhere", lo, tolerance)
            if self.meets(hi):
                return self.answer(hi, "everywhere", None, tolerance)
        else:
            v = self.norm(start)
            if self.meets(v):
                lo, hi = v, None
                for _ in range(MAX_DOUBLINGS):
                    nxt = self.norm(lo * 2)
                    if not self.meets(nxt):
                        hi = nxt
                        break
                    lo = nxt
                if hi is None:
                    return self.answer(lo, "everywhere", None, tolerance)
            else:
                hi, lo = v, None
                for _ in range(MAX_DOUBLINGS):
                    nxt = self.norm(hi / 2)
                    if nxt == hi or nxt <= 0:
                        break
                    if self.meets(nxt):
                        lo = nxt
                        break
                    hi = nxt
                if lo is None:
                    return self.answer(None, "nowhere", hi, tolerance)
        while hi - lo > max(tolerance * lo, 1 if self.integer else 0):
            mid = self.norm((lo + hi) / 2)
            if mid in (lo, hi):
                break
            if self.meets(mid):
                lo = mid
            else:
                hi = mid
        return self.answer(lo, "found", hi, tolerance)

    def answer(self, cap: Optional[float], verdict: str, fails_at: Optional[float], tolerance: float) -> Capacity:
        return Capacity(self.key, [d.text for d in self.deadlines], self.priority, cap, verdict, fails_at,
                        tolerance, self.replications, list(self.order), self.computed)


def _write(result: Capacity, out: Path) -> None:
    doc, table, png, svg = (out / name for name in OUT_FILES)
    doc.write_text(json.dumps(result.to_dict(), indent=2) + "\n")
    result.table().to_csv(table, index=False)
    for path in (png, svg):
        result.plot(path)
