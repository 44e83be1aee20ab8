"""Every example in docs/usage.md runs and does what the page says."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

USAGE = ROOT / "docs" / "usage.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", USAGE.read_text(), flags=re.S | re.M)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A directory with the repository's scenarios/ and a results/ folder (which the page's
    first sweep makes), as the page assumes."""
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    (tmp_path / "results").mkdir()
    return tmp_path


def _commands() -> list[tuple[str, list[str]]]:
    """(command line, expected output lines) for every ``$ `` line of the console blocks."""
    out: list[tuple[str, list[str]]] = []
    for block in _blocks("console"):
        for line in block.splitlines():
            if line.startswith("$ "):
                out.append((line[2:], []))
            elif line.strip():
                out[-1][1].append(line)
    return out


COMMANDS = _commands()


def test_the_page_has_examples():
    assert len(COMMANDS) >= 10
    assert len(_blocks("python")) >= 4


@pytest.mark.parametrize("command, expected", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_console_examples(workdir, command, expected):
    argv = shlex.split(command)
    assert argv[0] == "ringlet"
    p = subprocess.run([sys.executable, "-m", "ringlet", *argv[1:]], capture_output=True, text=True,
                       cwd=workdir, timeout=300)
    if expected and expected[0].startswith("ringlet: error:"):
        assert p.returncode == 2
        assert p.stderr.splitlines() == expected
    else:
        assert p.returncode == 0, p.stderr
        for line in expected:
            assert line in p.stdout


def test_python_examples(workdir, monkeypatch, capsys):
    """The Python blocks run in order, in one namespace, as a reader would paste them."""
    monkeypatch.chdir(workdir)
    namespace: dict = {}
    for block in _blocks("python"):
        exec(compile(block, str(USAGE), "exec"), namespace)
    assert "ringlet" in namespace and len(namespace["table"]) == 6
