"""Executors: local processes (and a worker killed mid-sweep), Dask distributed on a
real LocalCluster on loopback, and the one-line errors of bad executor options."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from concurrent.futures.process import _ExecutorManagerThread
from typing import Any, Callable, Optional

import pandas as pd
import pytest

import ringlet
from ringlet import Scenario
from ringlet.runs.executors import ExecutorError, LocalExecutor
from ringlet.runs.sweep import _run_point

from conftest import SMALL_TOML, one_error_line, run_cli
from storetools import (LONG_POINTS, LONG_SETS, OPEN_POINTS, SHORT_POINTS, SHORT_SETS, children, cmdline, count_rows,
                        popen_gated_cli, store_rows, sweep_args, wait_for_rows)

distributed = pytest.importorskip("distributed")  # the test extra installs it

LOAD = "traffic.load_mbps_per_node"
GRID = {LOAD: [10, 30, 50], "traffic.priorities": [1, 2]}



@pytest.fixture(scope="module")
def small() -> Scenario:
    return Scenario.from_toml(SMALL_TOML).set("run.measure_transactions", 2000)


@pytest.fixture(scope="module")
def local_table(small) -> pd.DataFrame:
    return ringlet.sweep(small, GRID, processes=2)


@pytest.fixture(scope="module")
def cluster():
    """A real Dask cluster on loopback that the CLI joins with --scheduler."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as c:
        yield c


def test_dask_local_cluster_equals_local_processes(small, local_table):
    table = ringlet.sweep(small, GRID, executor="dask", processes=2)
    pd.testing.assert_frame_equal(table, local_table)


def test_a_capacity_search_on_a_dask_cluster_equals_the_local_one(small, tmp_path, cluster):
    ask = dict(deadline="p99<=3us", range=(20, 160), tolerance=0.1, replications=2)
    local = ringlet.capacity(small, processes=2, store=tmp_path / "local.sqlite", **ask)
    remote = ringlet.capacity(small, executor="dask", scheduler=cluster.scheduler_address,
                              store=tmp_path / "dask.sqlite", **ask)
    assert remote.to_dict() == local.to_dict() and remote.computed == local.computed > 0
    assert store_rows(tmp_path / "dask.sqlite") == store_rows(tmp_path / "local.sqlite")


def test_cli_joins_an_existing_dask_cluster_and_stores_every_point(tmp_path, cluster):
    out = tmp_path / "dask"
    p = run_cli(sweep_args(out, SHORT_SETS, "--executor", "dask", "--scheduler", cluster.scheduler_address))
    assert p.returncode == 0, p.stderr
    assert f"{SHORT_POINTS} computed, 0 from" in p.stdout
    local = tmp_path / "local"
    p = run_cli(sweep_args(local, SHORT_SETS, "--processes", "2"))
    assert p.returncode == 0, p.stderr
    assert store_rows(out / "results.sqlite") == store_rows(local / "results.sqlite")
    pd.testing.assert_frame_equal(pd.read_csv(out / "sweep.csv"), pd.read_csv(local / "sweep.csv"))
    # The store does not care where its points ran: a local re-run computes nothing.
    again = run_cli(sweep_args(out, SHORT_SETS, "--processes", "2"))
    assert again.returncode == 0 and f"0 computed, {SHORT_POINTS} from" in again.stdout
    # A scheduler file (as `dask scheduler --scheduler-file` writes on HPC clusters) names the same cluster.
    scheduler_file = tmp_path / "scheduler.json"
    scheduler_file.write_text(json.dumps({"type": "Scheduler", "address": cluster.scheduler_address}))
    via_file = tmp_path / "via-file"
    p = run_cli(sweep_args(via_file, SHORT_SETS, "--executor", "dask", "--scheduler", scheduler_file))
    assert p.returncode == 0, p.stderr
    assert store_rows(via_file / "results.sqlite") == store_rows(local / "results.sqlite")


def test_cli_starts_a_local_dask_cluster(tmp_path):
    out = tmp_path / "out"
    p = run_cli(sweep_args(out, SHORT_SETS, "--executor", "dask", "--processes", "2"))
    assert p.returncode == 0, p.stderr
    assert f"{SHORT_POINTS} computed" in p.stdout and count_rows(out / "results.sqlite") == SHORT_POINTS


def test_worker_killed_mid_sweep_loses_and_duplicates_nothing(tmp_path):
    ref = tmp_path / "ref"
    p = run_cli(sweep_args(ref, LONG_SETS, "--processes", "2"))
    assert p.returncode == 0, p.stderr
    out = tmp_path / "out"
    gate = tmp_path / "gate"
    proc = popen_gated_cli(sweep_args(out, LONG_SETS, "--processes", "2"), gate)
    try:
        wait_for_rows(out / "results.sqlite", OPEN_POINTS, proc)  # both workers now hold a point at the gate
        me = cmdline(proc.pid)
        workers = [c for c in children(proc.pid) if cmdline(c) == me]  # forked pool workers
        assert len(workers) == 2
        os.kill(workers[0], signal.SIGKILL)
        gate.touch()
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    assert f"{LONG_POINTS} points" in stdout
    assert count_rows(out / "results.sqlite") == LONG_POINTS
    assert store_rows(out / "results.sqlite") == store_rows(ref / "results.sqlite")  # each key once, same results
    pd.testing.assert_frame_equal(pd.read_csv(out / "sweep.csv"), pd.read_csv(ref / "sweep.csv"))


#: Runs the CLI with a point (30 MB/s per node, priorities 2) that kills its own worker process.
CRASHING_CLI = """
import os, signal, sys
from ringlet import cli
sweep = sys.modules["ringlet.runs.sweep"]
real = sweep._run_point
def crashing(text, overrides):
    if ("traffic.load_mbps_per_node", "30") in overrides and ("traffic.priorities", "2") in overrides:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(text, overrides)
sweep._run_point = crashing
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_point_that_kills_its_worker_fails_alone(tmp_path):
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-c", CRASHING_CLI, *sweep_args(out, SHORT_SETS, "--processes", "2")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    assert (f"  point 3 ({LOAD}=30, traffic.priorities=2): the worker process running this point died"
            in p.stderr.splitlines())
    assert "1 of 4 points failed (3 computed, 0 from" in p.stderr
    assert count_rows(out / "results.sqlite") == 3


def test_python_api_bad_executor_options(small):
    with pytest.raises(ExecutorError, match="--executor threads: unknown executor; choose one of: local, dask"):
        ringlet.sweep(small, GRID, executor="threads")
    with pytest.raises(ExecutorError, match="--scheduler needs --executor dask"):
        ringlet.sweep(small, GRID, scheduler="tcp://127.0.0.1:8786")
    with pytest.raises(ValueError, match="replications: expected an integer >= 1, got 0"):
        ringlet.sweep(small, GRID, replications=0)


# -- one-line errors, exit 2, nothing lost -------------------------------------------------------------

#: Runs the CLI as if Dask were not installed.
NO_DASK_CLI = """
import sys
sys.modules["distributed"] = None  # import distributed now raises ImportError
from ringlet import cli
sys.exit(cli.main(sys.argv[1:]))
"""


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unknown_executor(tmp_path):
    out = tmp_path / "out"
    msg = one_error_line(run_cli(sweep_args(out, SHORT_SETS, "--executor", "threads")))
    assert msg == "--executor threads: unknown executor; choose one of: local, dask"
    assert not out.exists()


def test_dask_not_installed(tmp_path):
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-c", NO_DASK_CLI, *sweep_args(out, SHORT_SETS, "--executor", "dask")],
                       capture_output=True, text=True, timeout=60)
    msg = one_error_line(p)
    assert msg == "--executor dask needs Dask distributed, which is not installed: pip install 'ringlet[dask]'"
    assert not out.exists()


def test_unreachable_scheduler_loses_nothing(tmp_path):
    out = tmp_path / "out"
    first = run_cli(sweep_args(out, ["--set", f"{LOAD}=10,30", "--set", "run.measure_transactions=2000"]))
    assert first.returncode == 0, first.stderr
    before = store_rows(out / "results.sqlite")
    address = f"tcp://127.0.0.1:{_free_port()}"
    p = run_cli(sweep_args(out, SHORT_SETS, "--executor", "dask", "--scheduler", address), timeout=60)
    msg = one_error_line(p)
    assert msg.startswith(f"--scheduler {address}: cannot reach a Dask scheduler there within 5 s")
    assert store_rows(out / "results.sqlite") == before  # the two finished points are still there


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler needs --executor dask"),
        (["--executor", "dask", "--scheduler", "tcp://127.0.0.1:8786", "--processes", "2"],
         "--processes does not apply with --scheduler: the cluster has its own workers"),
        (["--replications", "0"], "argument --replications: expected an integer >= 1, got '0'"),
    ],
)
def test_bad_executor_options(tmp_path, extra, message):
    out = tmp_path / "out"
    assert one_error_line(run_cli(sweep_args(out, SHORT_SETS, *extra))) == message
    assert not out.exists()


def test_unwritable_out_with_dask(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    msg = one_error_line(run_cli(sweep_args(blocker, SHORT_SETS, "--executor", "dask")))
    assert msg == f"--out {blocker}: exists and is not a directory"
    assert blocker.read_text() == "not a directory"




#: A point a Ctrl-C can land on: (event, file and line of the call site, what was called).
Point = tuple[str, str, int, str]


def _calls_run(action: Callable[[], None], files: tuple[str, ...], stop_at: Optional[Point] = None) -> Counter:
    """Runs ``action`` counting the calls made from ``files`` (this thread of this
    process only); with ``stop_at`` sends SIGINT (Ctrl-C) where that call first
    starts or returns. Those are places where Python runs a signal handler: on
    entry to a Python function and after a call returns (for a C function such
    as a lock's ``acquire``, after it has taken effect)."""
    seen: Counter = Counter()
    me = os.getpid()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if os.getpid() != me:  # a forked worker inherits the profiler
            sys.setprofile(None)
            return
        if event == "c_return":
            site, called = frame, getattr(arg, "__qualname__", repr(arg))
        elif event in ("call", "return") and frame.f_back is not None:
            site, called = frame.f_back, frame.f_code.co_qualname
        else:
            return
        if not site.f_code.co_filename.endswith(files):
            return
        point = (event, site.f_code.co_filename, site.f_lineno, called)
        seen[point] += 1
        if point == stop_at and seen[point] == 1:
            sys.setprofile(None)
            signal.raise_signal(signal.SIGINT)  # its handler runs here

    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(None)
    return seen


def _pools_left(before: frozenset) -> list[str]:
    """Process-pool manager threads and worker processes alive, beyond those in ``before``."""
    managers = [t for t in threading.enumerate() if isinstance(t, _ExecutorManagerThread) and t.is_alive()]
    return [x.name for x in [*managers, *multiprocessing.active_children()] if x not in before]


def test_a_ctrl_c_anywhere_in_a_local_sweep_leaves_no_pool_behind(small):
    """Python's exit joins every process pool's manager thread: one left running
    makes an interrupted sweep end with a traceback or, if it is stuck, never end.
    So a Ctrl-C at any call the executor or concurrent.futures makes in this
    thread during a sweep must leave no manager thread or worker behind. (Once
    a Ctrl-C inside `concurrent.futures.wait` left futures' locks held, and the
    manager thread blocked on them for good.)"""
    items = [(small.text, [*small.overrides, (LOAD, str(v)), ("run.measure_transactions", "200")])
             for v in (10, 20, 30)]
    files = tuple(os.path.join(*parts) for parts in
                  (("concurrent", "futures", "_base.py"), ("concurrent", "futures", "process.py"),
                   ("ringlet", "runs", "executors.py")))

    def sweep() -> None:
        with LocalExecutor(2) as ex:
            done = list(ex.start(_run_point, items))
        assert sorted(i for i, _, _ in done) == [0, 1, 2]

    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    before = frozenset([*threading.enumerate(), *multiprocessing.active_children()])  # (a Dask fixture's)
    points = _calls_run(sweep, files)
    assert not _pools_left(before)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert {f.rsplit(os.sep, 1)[1] for _, f, _, _ in points} == {"_base.py", "process.py", "executors.py"}
    interrupted = 0
    for point in sorted(points):
        try:
            _calls_run(sweep, files, point)
        except KeyboardInterrupt:
            interrupted += 1
        finally:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        assert not _pools_left(before), f"Ctrl-C at {point}"
    # A call made in one sweep may not be made in the next (timing): most are.
    assert interrupted >= 0.8 * len(points), (interrupted, len(points))
