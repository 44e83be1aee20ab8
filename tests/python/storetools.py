"""Helpers shared by the results-store and executor tests: a sweep command whose
later points wait at a gate (so an interrupt lands partway every time), a reader
of a store's rows, and process control."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

from conftest import BASE

#: A sweep of 40 points (10-205 MB/s per node), the long one of these tests.
LONG_SETS = ["--set", "traffic.load_mbps_per_node=10:205:5", "--set", "run.measure_transactions=5000"]
LONG_POINTS = 40

#: The CLI, with every point of 30 MB/s per node or more held until the file named
#: by its first argument exists. Run on ``LONG_SETS`` the first ``OPEN_POINTS``
#: points finish and the workers then wait: what an interrupt or a killed worker
#: meets is a sweep partway through, however fast or slow the machine is (a race
#: with the whole sweep's second of work was lost once, on CI).
GATED_CLI = """
import os, sys, time
from ringlet import cli
sweep = sys.modules["ringlet.runs.sweep"]
real = sweep._run_point
gate = sys.argv.pop(1)
def gated(text, overrides):
    if float(dict(overrides)["traffic.load_mbps_per_node"]) >= 30:
        while not os.path.exists(gate):
            time.sleep(0.01)
    return real(text, overrides)
sweep._run_point = gated
sys.exit(cli.main(sys.argv[1:]))
"""
OPEN_POINTS = 4

#: A sweep of 4 quick points.
SHORT_SETS = ["--set", "traffic.load_mbps_per_node=10,30", "--set", "traffic.priorities=1,2",
              "--set", "run.measure_transactions=2000"]
SHORT_POINTS = 4


def sweep_args(out: Path, sets: Sequence[str] = SHORT_SETS, *extra: str) -> list[str]:
    return ["sweep", str(BASE), *sets, "--out", str(out), *extra]


def popen_gated_cli(args: Sequence[str], gate: Path) -> subprocess.Popen:
    """The CLI as a child process, with the points of ``GATED_CLI`` held until ``gate`` exists."""
    return subprocess.Popen([sys.executable, "-c", GATED_CLI, str(gate), *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def count_rows(db: Path) -> int:
    """Rows in a store that another process is writing (0 before it exists)."""
    if not db.exists():
        return 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    except sqlite3.OperationalError:  # created but not yet complete (it is linked in whole)
        return 0
    finally:
        conn.close()


def wait_for_rows(db: Path, n: int, proc: subprocess.Popen, timeout: float = 60) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = count_rows(db)
        if got >= n:
            return got
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    raise AssertionError(f"store did not reach {n} rows")


def store_rows(db: Path) -> list[tuple]:
    """A store's rows, id and time aside, sorted by key; results without wall time."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT scenario_hash, seed, ringlet_version, replication, values_json, scenario, "
                            "result FROM results").fetchall()
    finally:
        conn.close()
    out = []
    for *head, result in rows:
        r = json.loads(result)
        r.pop("wall_time_s"), r.pop("setup_time_s", None)
        out.append((*head, json.dumps(r, sort_keys=True)))
    return sorted(out)


def children(pid: int) -> list[int]:
    """Child processes of ``pid`` (Linux /proc)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


def wait_gone(pids: Sequence[int], timeout: float = 10) -> list[int]:
    """Waits for ``pids`` to exit; returns those still alive at the deadline."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = [p for p in pids if alive(p)]
        if not left:
            return []
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def kill_all(pids: Sequence[int]) -> None:
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
