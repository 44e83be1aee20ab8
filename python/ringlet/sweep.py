"""``sweep``: run the Cartesian product of a grid of key values, as a tidy table.

Every run is keyed by its provenance (scenario hash, seed, ringlet version)
before it runs, so a results store (:mod:`ringlet.store`) can supply the runs
it already holds and take each new one the moment it finishes; the runs
themselves go to an executor (:mod:`ringlet.executors`).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import os
import statistics
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from . import _core
from ._literal import to_literal
from .errors import ScenarioError
from .grid import MAX_SWEEP_RUNS, check_key
from .executors import MAX_PROCESSES, LocalExecutor, make_executor
from .scenario import Override, Scenario
from .store import Key, Store, _result_key

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Per-priority figures copied into every row.
PRIORITY_FIELDS = [
    "throughput_mbps",
    "offered_mbps",
    "latency_ns_mean",
    "latency_ns_p50",
    "latency_ns_p99",
    "latency_ns_p999",
    "latency_ns_max",
    "transactions",
]

#: Point-level figures: column name -> key of the run's JSON.
TOTAL_FIELDS = {
    "total_throughput_mbps": "throughput_mbps",
    "total_throughput_mbps_ci95": "throughput_mbps_ci95",
    "total_latency_ns_mean": "latency_ns_mean",
    "total_latency_ns_mean_ci95": "latency_ns_mean_ci95",
    "total_latency_ns_p99": "latency_ns_p99",
    "total_retries": "retries",
    "total_transactions": "transactions",
    "stopped_by": "stopped_by",
}

#: Provenance columns.
PROVENANCE_FIELDS = ["scenario_hash", "seed", "ringlet_version"]

Progress = Union[bool, Callable[[int, int], None]]


#: Figures averaged over replications that also get a ``<name>_rep_ci95`` column.
REPLICATED_FIELDS = [*PRIORITY_FIELDS, "total_throughput_mbps", "total_latency_ns_mean", "total_latency_ns_p99",
                     "total_retries", "total_transactions"]

#: Figures averaged over replications (the runs' own batch-means half-widths are averaged too).
AVERAGED_FIELDS = [*REPLICATED_FIELDS, "total_throughput_mbps_ci95", "total_latency_ns_mean_ci95"]


def columns(keys: Sequence[str]) -> list[str]:
    """The sweep table's columns, in order, for swept ``keys``."""
    return ["point", *keys, "priority", *PRIORITY_FIELDS, *TOTAL_FIELDS, *PROVENANCE_FIELDS]


def replication_columns(keys: Sequence[str]) -> list[str]:
    """The per-replication table's columns: the sweep table's, with ``replication`` before ``priority``."""
    return ["point", *keys, "replication", "priority", *PRIORITY_FIELDS, *TOTAL_FIELDS, *PROVENANCE_FIELDS]


def aggregate_columns(keys: Sequence[str]) -> list[str]:
    """The sweep table's columns with replications: means, then the count and the across-replication CIs."""
    return [*columns(keys), "replications", *(f"{f}_rep_ci95" for f in REPLICATED_FIELDS)]


def _axis(key: str, values: Any) -> list[Any]:
    """One grid axis as a list; a single scalar (or string) is a one-value axis."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        values = [values]
    elif hasattr(values, "tolist"):  # numpy arrays and pandas series: plain Python values
        values = values.tolist()
    values = list(values)
    if not values:
        raise ScenarioError(f"{key}: no values to sweep")
    return values


def points(scenario: Scenario, grid: Mapping[str, Any],
           replications: int = 1) -> list[tuple[dict[str, Any], tuple[Override, ...]]]:
    """Every point of the grid, validated, in order (last key varies fastest).

    Returns ``(values, overrides)`` per point. Raises :class:`ScenarioError`
    naming the key and value of the first invalid point, or the size of a grid
    whose points times ``replications`` exceed :data:`MAX_SWEEP_RUNS`, before
    anything runs.
    """
    keys = [check_key(k) for k in grid]
    axes = [_axis(k, grid[k]) for k in keys]
    total = math.prod(len(a) for a in axes)
    if total * replications > MAX_SWEEP_RUNS:  # checked before building any of it
        size = f"{total} points" + (f" ({' x '.join(str(len(a)) for a in axes)})" if len(axes) > 1 else "")
        if replications > 1:
            size += f" x {replications} replications = {total * replications} runs"
        unit = "runs" if replications > 1 else "points"
        raise ScenarioError(f"the grid has {size}; a sweep may have at most {MAX_SWEEP_RUNS} {unit}")
    out = []
    for combo in itertools.product(*axes):
        values = dict(zip(keys, combo))
        pairs = tuple((k, to_literal(k, v)) for k, v in values.items())
        try:
            _core.validate(scenario.text, list(scenario.overrides + pairs))
        except ValueError as e:
            raise ScenarioError(str(e)) from None
        out.append((values, scenario.overrides + pairs))
    return out


def _run_point(text: str, overrides: Sequence[Override]) -> str:
    """Runs one point (in a worker process); returns the core's JSON."""
    try:
        return _core.run(text, list(overrides))
    except ValueError as e:  # a combination of keys the model rejects
        raise ScenarioError(str(e)) from None


def rows(point: int, values: Mapping[str, Any], result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The tidy rows of one point: one per priority level.

    A result without per-priority figures still gives one row (priority and
    per-priority figures missing) so no point disappears from the table.
    """
    base = {"point": point, **values}
    totals = {col: result.get(key) for col, key in TOTAL_FIELDS.items()}
    prov = result.get("provenance", {})
    provenance = {k: prov.get(k) for k in PROVENANCE_FIELDS}
    levels = result.get("per_priority") or [{}]
    if all(level.get("priority") is not None for level in levels):
        levels = sorted(levels, key=lambda level: level["priority"])
    out = []
    for level in levels:
        row = dict(base)
        row["priority"] = level.get("priority")
        row.update({f: level.get(f) for f in PRIORITY_FIELDS})
        row.update(totals)
        row.update(provenance)
        out.append(row)
    return out


# -- replications ----------------------------------------------------------------


def replication_seed(seed: int, replication: int) -> int:
    """The seed of replication ``replication`` of a point whose ``run.seed`` is ``seed``.

    Replication 0 keeps ``seed``, so a one-replication sweep is the plain sweep
    and shares its stored runs. The others hash (seed, replication) with
    BLAKE2b into 63 bits: fixed, different per replication, and far from
    the small consecutive seeds people write by hand.
    """
    if replication == 0:
        return seed
    digest = hashlib.blake2b(f"ringlet-replication/{seed}/{replication}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def aggregate(rep_rows: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> list[dict[str, Any]]:
    """One row per point x priority from per-replication rows: each figure's mean over
    the replications and, as ``<figure>_rep_ci95``, its 95% CI half-width (Student t).

    Identity and provenance columns are replication 0's; ``stopped_by`` lists
    every reason that occurred.
    """
    groups: dict[tuple[Any, Any], list[Mapping[str, Any]]] = {}
    for row in rep_rows:
        groups.setdefault((row["point"], row["priority"]), []).append(row)
    out = []
    for rows_ in groups.values():
        rows_ = sorted(rows_, key=lambda r: r["replication"])
        row = {c: rows_[0].get(c) for c in columns(keys)}
        for f in AVERAGED_FIELDS:
            vals = [r[f] for r in rows_ if r.get(f) is not None]
            row[f] = math.fsum(vals) / len(vals) if vals else None
        reasons = sorted({str(r["stopped_by"]) for r in rows_ if r.get("stopped_by") is not None})
        row["stopped_by"] = ",".join(reasons) or None
        row["replications"] = len(rows_)
        for f in REPLICATED_FIELDS:
            vals = [r[f] for r in rows_ if r.get(f) is not None]
            n = len(vals)
            row[f"{f}_rep_ci95"] = _core.t95(n - 1) * statistics.stdev(vals) / math.sqrt(n) if n >= 2 else None
        out.append(row)
    return out


# -- runs, the store and the executor ----------------------------------------------


@dataclass(frozen=True)
class Run:
    """One simulation of a sweep: a point's replication, keyed before it runs."""

    point: int
    replication: int
    text: str
    overrides: tuple[Override, ...]
    key: Key  # (scenario hash, seed, ringlet version): what the result's provenance will carry
    point_hash: str  # scenario hash of the point's replication 0
    values: Mapping[str, Any] = field(default_factory=dict)


def plan_runs(work: Sequence[tuple[str, tuple[Override, ...], Mapping[str, Any]]], replications: int = 1) -> list[Run]:
    """The runs of ``(text, overrides, swept values)`` points, replications of a point together."""
    version = _core.version()
    runs = []
    for p, (text, ov, values) in enumerate(work):
        seed = json.loads(_core.scenario_json(text, list(ov)))["run"]["seed"]
        base = _core.scenario_hash(text, list(ov))
        for r in range(replications):
            if r == 0:
                runs.append(Run(p, 0, text, tuple(ov), (base, seed, version), base, values))
            else:
                seed_r = replication_seed(seed, r)
                ov_r = (*ov, ("run.seed", str(seed_r)))
                runs.append(Run(p, r, text, ov_r, (_core.scenario_hash(text, list(ov_r)), seed_r, version), base,
                                values))
    return runs


@dataclass
class Outcome:
    """What :func:`execute` did: every run's result JSON (None if it failed) and the counts."""

    results: list[Optional[str]]
    failures: dict[int, str]  # run index -> message
    computed: int = 0
    from_store: int = 0


#: ``reporter()`` gives a context manager yielding ``report(done, total, failed=0, from_store=0)``.
Reporter = Callable[[], "contextlib.AbstractContextManager[Callable[..., None]]"]


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else str(value)


def execute(runs: Sequence[Run], executor: Any, reporter: Reporter, store: Optional[Store] = None) -> Outcome:
    """Runs what ``store`` does not already hold on ``executor``; stores each result as it arrives.

    Runs with the same key run once. A failed run does not stop the others.
    A result whose provenance is not the run's key (a worker with another
    ringlet version) is a failure, never stored.
    """
    total = len(runs)
    by_key: dict[Key, list[int]] = {}
    for i, run in enumerate(runs):
        by_key.setdefault(run.key, []).append(i)
    results: list[Optional[str]] = [None] * total
    stored = store.lookup(by_key) if store is not None else {}
    for key, text in stored.items():
        for i in by_key[key]:
            results[i] = text
    out = Outcome(results, {}, from_store=sum(len(by_key[k]) for k in stored))
    todo = [key for key in by_key if key not in stored]
    items = [(runs[by_key[k][0]].text, runs[by_key[k][0]].overrides) for k in todo]
    if not todo:  # nothing to compute: no workers, no cluster
        with reporter() as report:
            report(total, total, failed=0, from_store=out.from_store)
        return out
    done = out.from_store
    with executor:
        completions = executor.start(_run_point, items)  # workers exist before the progress thread
        with reporter() as report:
            report(done, total, failed=0, from_store=out.from_store)
            for j, text, error in completions:
                key = todo[j]
                first = runs[by_key[key][0]]
                if error is None:
                    got = _result_key(text)
                    if got != key:
                        error = (f"the result's provenance {got} is not the expected {key}: "
                                 f"is another ringlet version installed on the workers?")
                if error is None:
                    if store is not None:
                        store.put(key, text, replication=first.replication,
                                  values=json.loads(json.dumps(dict(first.values), default=_plain)),
                                  point_hash=first.point_hash)
                    out.computed += 1
                    for i in by_key[key]:
                        results[i] = text
                else:
                    for i in by_key[key]:
                        out.failures[i] = error
                done += len(by_key[key])
                report(done, total, failed=len(out.failures), from_store=out.from_store)
    return out


def _reporter(progress: Progress, total: int, unit: str = "points") -> Reporter:
    """A context-manager factory giving the progress callback."""
    if progress is True:
        from ._render import progress_bar

        return lambda: progress_bar(total, unit)
    callback = progress if callable(progress) else (lambda done, total: None)
    return lambda: contextlib.nullcontext(lambda done, total, **_: callback(done, total))


def _run_all(work: list[tuple[str, tuple[Override, ...]]], processes: int, reporter: Reporter,
             store: Optional[Store] = None, values: Optional[Sequence[Mapping[str, Any]]] = None) -> list[str]:
    """Runs every ``(text, overrides)``; results in order. Raises the first failure's
    :class:`ScenarioError` once every other run has finished (and been stored).
    ``values`` gives each item's swept values, kept with it in ``store``."""
    runs = plan_runs([(text, ov, values[i] if values is not None else {}) for i, (text, ov) in enumerate(work)])
    out = execute(runs, LocalExecutor(processes), reporter, store)
    if out.failures:
        raise ScenarioError(out.failures[min(out.failures)])
    return out.results  # type: ignore[return-value]


# -- the sweep -------------------------------------------------------------------


class SweepError(RuntimeError):
    """Some runs of a sweep failed; raised after all the others finished and were stored.

    ``failures`` lists ``(point, replication, swept values, message)``.
    """

    def __init__(self, message: str, failures: list[tuple[int, int, dict[str, Any], str]]):
        super().__init__(message)
        self.failures = failures


def describe(values: Mapping[str, Any]) -> str:
    """``key=value, ...`` of a point's swept values."""
    return ", ".join(f"{k}={v}" for k, v in values.items())


#: Stop reasons that end a run before it has measured its transactions.
EARLY_STOPS = ("time_cap", "backlog", "interrupted")


def early_points(table: "pd.DataFrame", keys: Sequence[str]) -> list[dict[str, Any]]:
    """The points of a sweep table (as :func:`sweep` returns it) that stopped
    before measuring their transactions: ``point``, ``settings`` (``describe``
    of ``keys``), ``stopped_by`` and ``transactions`` measured, one per point."""
    found = []
    for r in table.drop_duplicates("point").to_dict("records"):
        # Replications that stopped differently are listed "a,b" (see ``SweepRun.table``).
        if any(reason in EARLY_STOPS for reason in str(r.get("stopped_by") or "").split(",")):
            found.append({"point": r["point"], "settings": describe({k: r[k] for k in keys}),
                          "stopped_by": r["stopped_by"], "transactions": r["total_transactions"]})
    return found


def early_message(early: Sequence[Mapping[str, Any]]) -> str:
    """One line naming each point of :func:`early_points`."""
    listed = "; ".join(f"point {p['point']} ({p['settings']}): {p['stopped_by']}, {p['transactions']:,}"
                       for p in early)
    return (f"{len(early)} point(s) stopped before measuring their transactions "
            f"(time cap or backlog cap; the stopped_by column): {listed}")


@dataclass
class SweepRun:
    """Everything one sweep produced (the CLI reports from it; :func:`sweep` returns its table)."""

    keys: list[str]
    points: int
    replications: int
    runs: list[Run]
    outcome: Outcome
    store: Optional[Store]
    per_replication: list[dict[str, Any]] = field(default_factory=list)

    @property
    def failures(self) -> list[tuple[int, int, dict[str, Any], str]]:
        return [(self.runs[i].point, self.runs[i].replication, dict(self.runs[i].values), msg)
                for i, msg in sorted(self.outcome.failures.items())]

    def error(self) -> SweepError:
        fails = self.failures
        point, rep, values, msg = fails[0]
        where = f"point {point}" + (f" replication {rep}" if self.replications > 1 else "")
        where += f" ({describe(values)})" if values else ""
        kept = f"; the other {len(self.runs) - len(fails)} are stored in {self.store.path}" if self.store else ""
        unit = "runs" if self.replications > 1 else "points"
        return SweepError(f"{len(fails)} of {len(self.runs)} {unit} failed{kept}; first: {where}: {msg}", fails)

    def replication_table(self) -> "pd.DataFrame":
        import pandas as pd

        return pd.DataFrame(self.per_replication, columns=replication_columns(self.keys))

    def table(self) -> "pd.DataFrame":
        """The sweep table: plain with one replication, means and CIs with several."""
        import pandas as pd

        if self.replications == 1:
            rows_ = [{k: v for k, v in r.items() if k != "replication"} for r in self.per_replication]
            return pd.DataFrame(rows_, columns=columns(self.keys))
        return pd.DataFrame(aggregate(self.per_replication, self.keys), columns=aggregate_columns(self.keys))


#: Replications per point: more could not be planned, let alone run.
MAX_REPLICATIONS = 100_000


def _check_int(name: str, value: Any, most: Optional[int] = None) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name}: expected an integer >= 1, got {value!r}")
    if most is not None and value > most:
        raise ValueError(f"{name}: expected an integer in 1..{most}, got {value!r}")


def run_sweep(
    scenario: Scenario,
    grid: Mapping[str, Any],
    processes: Optional[int] = None,
    progress: Progress = False,
    store: "Store | str | os.PathLike[str] | None" = None,
    executor: str = "local",
    scheduler: Optional[str] = None,
    replications: int = 1,
) -> SweepRun:
    """Plans, runs and tabulates a sweep, failures included (see :func:`sweep`)."""
    if processes is not None:
        _check_int("processes", processes, MAX_PROCESSES)
    _check_int("replications", replications, MAX_REPLICATIONS)
    plan = points(scenario, grid, replications)
    runner = make_executor(executor, processes, scheduler)
    if store is not None and not isinstance(store, Store):
        store = Store.at(store)
    if store is not None:
        store.check_writable()
    runs = plan_runs([(scenario.text, ov, values) for values, ov in plan], replications)
    unit = "runs" if replications > 1 else "points"
    outcome = execute(runs, runner, _reporter(progress, len(runs), unit), store)
    done = SweepRun(list(grid), len(plan), replications, runs, outcome, store)
    for run, text in zip(runs, outcome.results):
        if text is None:
            continue
        for row in rows(run.point, run.values, json.loads(text)):
            row["replication"] = run.replication
            done.per_replication.append(row)
    return done


def sweep(
    scenario: "Scenario | str | os.PathLike[str]",
    grid: Mapping[str, Any],
    processes: Optional[int] = None,
    progress: Progress = False,
    store: "str | os.PathLike[str] | None" = None,
    executor: str = "local",
    scheduler: Optional[str] = None,
    replications: int = 1,
    aggregate: bool = True,
) -> "pd.DataFrame":
    """Runs every point of the Cartesian product of ``grid`` over ``scenario``.

    ``grid`` maps dotted keys (``"traffic.load_mbps_per_node"``) to iterables
    of values. Every point is validated before any runs.

    - ``processes``: local worker processes (default: one per core; 1 = in
      this process); with ``executor="dask"`` and no ``scheduler``, the
      LocalCluster's workers.
    - ``progress``: ``True`` for a progress bar on stderr, or a callable
      ``(done, total)``.
    - ``store``: a directory (its ``results.sqlite``) or a ``.sqlite`` file:
      runs it holds are not run again, and each new run is stored as it finishes.
    - ``executor``: ``"local"`` or ``"dask"``; ``scheduler``: the address of
      a running Dask scheduler (default: start a LocalCluster).
    - ``replications``: independent seed streams per point (see
      :func:`replication_seed`). With more than one, the table holds each
      figure's mean and ``<figure>_rep_ci95``; ``aggregate=False`` returns
      the per-replication rows instead (with a ``replication`` column).

    Returns one row per point x priority, in point order then priority order;
    see :func:`columns`. Raises :class:`SweepError` if any run failed, after
    the others have finished (and been stored). Points that stop at the time
    cap or the backlog cap before measuring their transactions are named in a
    ``UserWarning``.
    """
    if not isinstance(scenario, Scenario):
        scenario = Scenario.load(scenario)
    done = run_sweep(scenario, grid, processes, progress, store, executor, scheduler, replications)
    try:
        if done.outcome.failures:
            raise done.error()
        table = done.table()
        early = early_points(table, done.keys)
        if early:
            warnings.warn(early_message(early), stacklevel=2)
        return table if aggregate else done.replication_table()
    finally:
        if done.store is not None and not isinstance(store, Store):
            done.store.close()
