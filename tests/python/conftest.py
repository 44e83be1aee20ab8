"""Shared fixtures: the repository's scenarios, small fast scenarios, a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Sequence

import pytest

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "scenarios" / "sci" / "base-8node.toml"

#: Overrides that keep a run short (tests check behaviour, not precision).
QUICK = ["run.measure_transactions=4000", "run.warmup_ns=2000"]

SMALL_TOML = """\
[network]
nodes = 8
protocol = "sci"

[traffic]
load_mbps_per_node = 50.0

[run]
seed = 1
warmup_ns = 2000.0
measure_transactions = 4000
"""


@pytest.fixture
def base_path() -> Path:
    """The shipped 8-node base SCI scenario (seed 003 Table 1)."""
    return BASE


@pytest.fixture
def small_file(tmp_path: Path) -> Path:
    """A small, fast scenario file in a temporary directory."""
    path = tmp_path / "small.toml"
    path.write_text(SMALL_TOML)
    return path


def one_error_line(proc: subprocess.CompletedProcess) -> str:
    """Asserts the bad-input contract (exit 2, one ``ringlet: error:`` line on
    stderr, no traceback, nothing on stdout) and returns the message."""
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ringlet: error: "), proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    return lines[0][len("ringlet: error: "):]


def run_cli(args: Sequence[str], cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs ``python -m ringlet.cli ARGS`` and captures its output. A relative
    PYTHONPATH is made absolute, so that ``cwd`` does not change which ringlet runs."""
    env = dict(os.environ)
    if env.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep) if p)
    return subprocess.run(
        [sys.executable, "-m", "ringlet.cli", *map(str, args)],
        capture_output=True, text=True, cwd=cwd, timeout=timeout, env=env,
    )


@pytest.fixture
def cli():
    """The CLI runner: ``cli(["run", path, "--json"])``."""
    return run_cli
