"""``sweep``: run the Cartesian product of a grid of key values, as a tidy table.

Every run is keyed by its provenance (scenario hash, seed, ringlet version)
before it runs, so a results store (:mod:`ringlet.runs.store`) can supply the
runs it already holds and take each new one the moment it finishes; the runs
themselves go to an executor (:mod:`ringlet.runs.executors`). The grid is read
by :mod:`ringlet.runs.grid`, the rows by :mod:`ringlet.runs.table`, and the
output directory written by :mod:`ringlet.runs.output`.
"""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from .. import _core
from ..api import preflight
from ..api.errors import ScenarioError
from ..api.scenario import Override, Scenario
from .executors import make_executor
from .grid import points
from .limits import MAX_PROCESSES, MAX_REPLICATIONS, check_count
from .output import check_out, write_tables
from .progress import Progress, Reporter, reporter
from .replications import aggregate, aggregate_columns, replication_seed
from .store import FILENAME, Key, Store, result_key
from .table import (columns, describe, early_message, early_points, frame, optional_present,
                    replication_columns, rows)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


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


def _run_point(text: str, overrides: Sequence[Override]) -> str:
    """Runs one point (in a worker process); returns the core's JSON."""
    try:
        return _core.run(text, list(overrides))
    except ValueError as e:  # a combination of keys the model rejects
        raise ScenarioError(str(e)) from None


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else str(value)


def execute(runs: Sequence[Run], executor: Any, report_to: Reporter, store: Optional[Store] = None) -> Outcome:
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
        with report_to() as report:
            report(total, total, failed=0, from_store=out.from_store)
        return out
    done = out.from_store
    with executor:
        completions = executor.start(_run_point, items)  # workers exist before the progress thread
        with report_to() as report:
            report(done, total, failed=0, from_store=out.from_store)
            for j, text, error in completions:
                key = todo[j]
                first = runs[by_key[key][0]]
                if error is None:
                    got = result_key(text)
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


# -- the sweep -------------------------------------------------------------------


class SweepError(RuntimeError):
    """Some runs of a sweep failed; raised after all the others finished and were stored.

    ``failures`` lists ``(point, replication, swept values, message)``.
    """

    def __init__(self, message: str, failures: list[tuple[int, int, dict[str, Any], str]]):
        super().__init__(message)
        self.failures = failures


@dataclass
class SweepRun:
    """Everything one sweep produced (the CLI reports from it; :func:`sweep` returns its table)."""

    keys: list[str]
    points: int
    replications: int
    runs: list[Run]
    outcome: Outcome
    store: Optional[Store]
    #: The output directory, when the sweep writes its tables (``out=``).
    out: Optional[Path] = None
    per_replication: list[dict[str, Any]] = field(default_factory=list)
    #: ``(point, replication, message)`` where a trace-driven run's trace and windows part.
    trace_warnings: list[tuple[int, int, str]] = field(default_factory=list)

    def trace_message(self) -> Optional[str]:
        """One line on the runs whose trace and windows part, or None."""
        if not self.trace_warnings:
            return None
        point, rep, first = self.trace_warnings[0]
        where = f"point {point}" + (f" replication {rep}" if self.replications > 1 else "")
        more = f" (and {len(self.trace_warnings) - 1} more)" if len(self.trace_warnings) > 1 else ""
        return f"trace: {where}: {first}{more}"

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
        return frame(self.per_replication, replication_columns(self.keys, optional_present(self.per_replication)))

    def table(self) -> "pd.DataFrame":
        """The sweep table: plain with one replication, means and CIs with several."""
        optional = optional_present(self.per_replication)
        if self.replications == 1:
            rows_ = [{k: v for k, v in r.items() if k != "replication"} for r in self.per_replication]
            return frame(rows_, columns(self.keys, optional))
        return frame(aggregate(self.per_replication, self.keys), aggregate_columns(self.keys, optional))


def run_sweep(
    scenario: Scenario,
    grid: Mapping[str, Any],
    processes: Optional[int] = None,
    progress: Progress = False,
    store: "Store | str | os.PathLike[str] | None" = None,
    executor: str = "local",
    scheduler: Optional[str] = None,
    replications: int = 1,
    out: "str | os.PathLike[str] | None" = None,
    preflight_checks: bool = True,
) -> SweepRun:
    """Plans, runs and tabulates a sweep, failures included (see :func:`sweep`);
    ``preflight_checks``: warn of what makes its points pointless
    (:mod:`ringlet.api.preflight`), once per kind.

    Everything is checked before anything runs, in this order: the counts,
    every point, the executor, ``out``, the store. A store opened here (from
    a path, or in ``out``) is the returned run's: the caller closes it.
    """
    if store is not None and out is not None:
        raise ValueError(f"store and out: give one of them (out keeps its results store in out/{FILENAME})")
    if processes is not None:
        check_count("processes", processes, MAX_PROCESSES)
    check_count("replications", replications, MAX_REPLICATIONS)
    plan = points(scenario, grid, replications)
    if preflight_checks:
        preflight.warn(preflight.sweep_checks(scenario, [ov for _, ov in plan]), stacklevel=3)
    runner = make_executor(executor, processes, scheduler)
    opened = out is not None or (store is not None and not isinstance(store, Store))
    if out is not None:
        out = check_out(out)
        store = Store(out / FILENAME)  # (not Store.at: a results.sqlite that is a directory is an error)
    elif opened:
        store = Store.at(store)
    try:
        if store is not None:
            store.check_writable()
        runs = plan_runs([(scenario.text, ov, values) for values, ov in plan], replications)
        unit = "runs" if replications > 1 else "points"
        outcome = execute(runs, runner, reporter(progress, len(runs), unit), store)
    except BaseException:
        if opened:
            store.close()
        raise
    done = SweepRun(list(grid), len(plan), replications, runs, outcome, store, out)
    for run, text in zip(runs, outcome.results):
        if text is None:
            continue
        result = json.loads(text)
        for w in (result.get("trace") or {}).get("warnings") or []:
            done.trace_warnings.append((run.point, run.replication, w))
        for row in rows(run.point, run.values, result):
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
    out: "str | os.PathLike[str] | None" = None,
) -> "pd.DataFrame":
    """Runs every point of the Cartesian product of ``grid`` over ``scenario``.

    ``grid`` maps dotted keys (``"traffic.load_mbps_per_node"``) to axes: a
    list, range or array of values, one value, or a string written as
    ``--set`` takes it (``"10:150:20"``, ``"sci,dfc"``; see
    :mod:`ringlet.runs.grid`). Every point is validated before any runs.

    - ``processes``: local worker processes (default: one per core; 1 = in
      this process); with ``executor="dask"`` and no ``scheduler``, the
      LocalCluster's workers.
    - ``progress``: ``True`` for a progress bar on stderr, or a callable
      ``(done, total)``.
    - ``store``: a directory (its ``results.sqlite``) or a ``.sqlite`` file:
      runs it holds are not run again, and each new run is stored as it finishes.
    - ``out``: a directory (created if needed) to write as ``ringlet sweep
      --out`` does: its results store ``results.sqlite`` (so not with
      ``store``), and once every run is done ``sweep.csv`` and ``sweep.parquet``
      (with replications also ``sweep-replications.csv/.parquet``), all
      replacing the last sweep's together. Checked before anything runs.
    - ``executor``: ``"local"`` or ``"dask"``; ``scheduler``: the address of
      a running Dask scheduler (default: start a LocalCluster).
    - ``replications``: independent seed streams per point (see
      :func:`~ringlet.runs.replications.replication_seed`). With more than
      one, the table holds each figure's mean and ``<figure>_rep_ci95``;
      ``aggregate=False`` returns the per-replication rows instead (with a
      ``replication`` column).

    Returns one row per point x priority, in point order then priority order;
    see :func:`~ringlet.runs.table.columns`. Raises :class:`SweepError` if any
    run failed, after the others have finished (and been stored), and writes
    no table. Points that stop at the time cap or the backlog cap before
    measuring their transactions are named in a ``UserWarning``.
    """
    if not isinstance(scenario, Scenario):
        scenario = Scenario.load(scenario)
    done = run_sweep(scenario, grid, processes, progress, store, executor, scheduler, replications, out)
    try:
        if done.outcome.failures:
            raise done.error()
        table = write_tables(done, done.out) if done.out is not None else done.table()
        early = early_points(table, done.keys)
        if early:
            warnings.warn(early_message(early), stacklevel=2)
        if done.trace_message():
            warnings.warn(done.trace_message(), stacklevel=2)
        return table if aggregate else done.replication_table()
    finally:
        if done.store is not None and not isinstance(store, Store):
            done.store.close()
