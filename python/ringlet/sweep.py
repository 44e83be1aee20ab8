"""``sweep``: run the Cartesian product of a grid of key values, as a tidy table."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from . import _core
from ._literal import to_literal
from .errors import ScenarioError
from .grid import check_key
from .scenario import Override, Scenario

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


def columns(keys: Sequence[str]) -> list[str]:
    """The sweep table's columns, in order, for swept ``keys``."""
    return ["point", *keys, "priority", *PRIORITY_FIELDS, *TOTAL_FIELDS, *PROVENANCE_FIELDS]


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


def points(scenario: Scenario, grid: Mapping[str, Any]) -> list[tuple[dict[str, Any], tuple[Override, ...]]]:
    """Every point of the grid, validated, in order (last key varies fastest).

    Returns ``(values, overrides)`` per point. Raises :class:`ScenarioError`
    naming the key and value of the first invalid point, before anything runs.
    """
    keys = [check_key(k) for k in grid]
    axes = [_axis(k, grid[k]) for k in keys]
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


Reporter = Callable[[], "contextlib.AbstractContextManager[Callable[[int, int], None]]"]


def _run_all(work: list[tuple[str, tuple[Override, ...]]], processes: int, reporter: Reporter) -> list[str]:
    """Runs every point; results in point order whatever the completion order.

    ``reporter()`` is entered only after the worker processes exist, so no
    progress-bar thread is running when they are forked.
    """
    total = len(work)
    results: list[Optional[str]] = [None] * total
    if processes <= 1 or total <= 1:
        with reporter() as report:
            report(0, total)
            for i, (text, ov) in enumerate(work):
                results[i] = _run_point(text, ov)
                report(i + 1, total)
        return results  # type: ignore[return-value]
    pool = ProcessPoolExecutor(max_workers=min(processes, total))
    try:
        futures = {pool.submit(_run_point, text, ov): i for i, (text, ov) in enumerate(work)}
        pending = set(futures)
        done_count = 0
        with reporter() as report:
            report(0, total)
            while pending:
                done, pending = wait(pending, return_when=FIRST_EXCEPTION)
                for f in done:
                    results[futures[f]] = f.result()  # re-raises a worker's exception
                    done_count += 1
                report(done_count, total)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return results  # type: ignore[return-value]


def _reporter(progress: Progress, total: int) -> Reporter:
    """A context-manager factory giving the ``(done, total)`` progress callback."""
    if progress is True:
        from ._render import progress_bar

        return lambda: progress_bar(total)
    callback = progress if callable(progress) else (lambda done, total: None)
    return lambda: contextlib.nullcontext(callback)


def sweep(
    scenario: "Scenario | str | os.PathLike[str]",
    grid: Mapping[str, Any],
    processes: Optional[int] = None,
    progress: Progress = False,
) -> "pd.DataFrame":
    """Runs every point of the Cartesian product of ``grid`` over ``scenario``.

    ``grid`` maps dotted keys (``"traffic.load_mbps_per_node"``) to iterables
    of values. Every point is validated before any runs. Points run on
    ``processes`` local processes (default: one per core; 1 = in this
    process). ``progress`` is ``True`` for a progress bar on stderr, or a
    callable ``(done, total)``.

    Returns one row per point x priority, in point order then priority order;
    see :func:`columns` for the columns.
    """
    import pandas as pd  # imported lazily: the CLI's error paths stay fast

    if not isinstance(scenario, Scenario):
        scenario = Scenario.load(scenario)
    if processes is None:
        processes = os.cpu_count() or 1
    if not isinstance(processes, int) or isinstance(processes, bool) or processes < 1:
        raise ValueError(f"processes: expected an integer >= 1, got {processes!r}")
    plan = points(scenario, grid)
    work = [(scenario.text, ov) for _, ov in plan]
    outputs = _run_all(work, processes, _reporter(progress, len(work)))
    table: list[dict[str, Any]] = []
    for i, ((values, _), text) in enumerate(zip(plan, outputs)):
        table.extend(rows(i, values, json.loads(text)))
    return pd.DataFrame(table, columns=columns(list(grid)))
