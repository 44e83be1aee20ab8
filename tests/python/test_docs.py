"""Every example in README.md and docs/usage.md runs, warns of nothing and does what
the page says (one past saturation says so in its comment: then, and only then, it
may say that it measures the peak); the few that take minutes are skipped, each
with its reason."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from conftest import ROOT

USAGE = ROOT / "docs" / "usage.md"
README = ROOT / "README.md"

#: Examples not run, by how their command starts (the rest of the line aside), and why.
LONG = {
    "ringlet reproduce sci-rt --out": "the full sci-rt reproduction: 818 points, minutes on 2 cores",
    "ringlet reproduce sci-switch --out": "the full sci-switch reproduction: 909 points, minutes on 2 cores",
    "ringlet reproduce gigaring --out": "the full gigaring reproduction: 130 points, about a minute",
    "ringlet report results/sci-rt": "reports the full sci-rt reproduction (skipped above)",
}
#: Examples not run whole, by their exact command, and why.
LONG_EXACT = {"ringlet bench": "the full bench: minutes (`ringlet bench --quick` runs)"}

#: What an example's output must not say: it warns, or its figures rest on fewer transactions.
WARNINGS = re.compile(r"\bwarning\b|time cap|backlog cap|nothing was measured", re.I)


def _blocks(lang: str, page: Path = USAGE) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", page.read_text(), flags=re.S | re.M)


def _skip_reason(command: str) -> str | None:
    if command in LONG_EXACT:
        return LONG_EXACT[command]
    return next((why for start, why in LONG.items() if command.startswith(start)), None)


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    argv = shlex.split(command, comments=True)
    assert argv[0] == "ringlet", command
    return subprocess.run([sys.executable, "-m", "ringlet", *argv[1:]], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


#: The pre-flight line of a load past the analytic model's saturation (not far
#: past it: that one names the caps), and the run's own line when it carried
#: under 90% of its load: an example may give them only where its comment
#: says that it measures a peak or runs past saturation.
PAST_SATURATION = re.compile(r"^warning: (\d+ of \d+ points, the first: )?traffic\.load_mbps_per_node: "
                             r".*: the run measures the peak it carries\n", re.M)
SATURATED = re.compile(r"^saturated: carries .*", re.M)
SAYS_PEAK = re.compile(r"\bpeak|saturat", re.I)


def _assert_clean(command: str, p: subprocess.CompletedProcess) -> None:
    assert p.returncode == 0, f"{command}: {p.stderr}"
    out = p.stdout + p.stderr
    if SAYS_PEAK.search(command.partition("  #")[2]):
        out = PAST_SATURATION.sub("", out)
    else:
        said = SATURATED.search(out)
        assert said is None, f"{command} carries under 90% of its load and its comment does not say so: {said and said.group(0)}"
    found = WARNINGS.search(out)
    assert found is None, f"{command} warns: {found and found.group(0)}\n{p.stdout}{p.stderr}"


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
    argv = shlex.split(command, comments=True)
    assert argv[0] == "ringlet"
    p = subprocess.run([sys.executable, "-m", "ringlet", *argv[1:]], capture_output=True, text=True,
                       cwd=workdir, timeout=300)
    if expected and expected[0].startswith("ringlet: error:"):
        assert p.returncode == 2
        assert p.stderr.splitlines() == expected
    elif expected and expected[0].startswith("warning: "):  # an example of a pre-flight warning: exactly these
        assert p.returncode == 0, p.stderr
        assert [line for line in p.stderr.splitlines() if line.startswith("warning: ")] == expected
    else:
        _assert_clean(command, p)
        for line in expected:
            assert line in p.stdout


def _shell_blocks(page: Path) -> list[list[str]]:
    """The ``ringlet`` command lines of each ```bash block (a set-up block's installs aside)."""
    out = []
    for block in _blocks("bash", page):
        lines = [line.strip() for line in block.splitlines() if line.strip() and not line.startswith("#")]
        if all(line.startswith("ringlet") for line in lines):
            out.append(lines)
        else:  # (README's set-up: pip and apt-get install, then the command the "Use" block runs again)
            assert any(line.startswith(("pip install", "apt-get")) for line in lines), lines
    return out


SHELL_BLOCKS = [(page.name, i, block) for page in (README, USAGE) for i, block in enumerate(_shell_blocks(page))]


def test_the_pages_have_shell_examples():
    assert sum(len(b) for name, _, b in SHELL_BLOCKS if name == "README.md") >= 15
    assert any(name == "usage.md" for name, _, _ in SHELL_BLOCKS)


@pytest.mark.parametrize("page, index, block", SHELL_BLOCKS, ids=[f"{n}-{i}" for n, i, _ in SHELL_BLOCKS])
def test_shell_examples_run_clean(tmp_path, page, index, block):
    """Each ```bash block's commands, in order, in one directory (a later one reads
    what an earlier one wrote), without a warning; the long ones skipped."""
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    skipped = []
    for command in block:
        plain = command.split("  #")[0].strip()
        why = _skip_reason(plain)
        if why is not None:
            skipped.append(f"{plain}: {why}")
            continue
        _assert_clean(command, _run(command, tmp_path))
    if skipped and len(skipped) == len(block):
        pytest.skip("; ".join(skipped))


LONG_EXAMPLES = [(page.name, c.split("  #")[0].strip()) for page in (README, USAGE)
                 for block in _shell_blocks(page) for c in block if _skip_reason(c.split("  #")[0].strip())]


@pytest.mark.parametrize("page, command", LONG_EXAMPLES, ids=[f"{p}: {c}" for p, c in LONG_EXAMPLES])
def test_long_examples(page, command):
    """The examples the blocks above do not run, each reported skipped with its reason."""
    pytest.skip(f"not run: {_skip_reason(command)}")


def test_stated_point_counts():
    """A `ringlet reproduce STUDY` example's "N distinct points" is the study's count."""
    from ringlet.study import load_study
    from ringlet.study.reproduce import plan

    stated = [(m[1], int(m[2])) for page in (README, USAGE)
              for m in re.finditer(r"ringlet reproduce (\S+) .*# (\d+) distinct points", page.read_text())]
    assert stated
    for name, count in stated:
        study = load_study(name)
        assert len(plan(study, study.figures, False).work) == count, name


def _exec_python(page: Path, workdir: Path, monkeypatch) -> dict:
    """The page's Python blocks, in order, in one namespace, as a reader would paste them;
    no ringlet warning (a point cut short by a cap) allowed."""
    monkeypatch.chdir(workdir)
    namespace: dict = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for block in _blocks("python", page):
            exec(compile(block, str(page), "exec"), namespace)
    # (A page's prose says which of its runs go past saturation: the pre-flight line may come there.)
    ours = [str(w.message) for w in caught if issubclass(w.category, UserWarning)
            and not PAST_SATURATION.match(f"warning: {w.message}\n")]
    assert not ours, ours
    return namespace


def test_python_examples(workdir, monkeypatch, capsys):
    namespace = _exec_python(USAGE, workdir, monkeypatch)
    assert "ringlet" in namespace and len(namespace["table"]) == 6


def test_readme_python_example(workdir, monkeypatch, capsys):
    namespace = _exec_python(README, workdir, monkeypatch)
    assert len(namespace["df"]) == 4 * 2 and set(namespace["df"]["stopped_by"]) == {"transactions"}


def test_a_warning_fails_an_example(tmp_path):
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    command = "ringlet run scenarios/sci/base-8node.toml --set run.max_sim_time_ns=20000"
    with pytest.raises(AssertionError, match="warns: time cap"):
        _assert_clean(command, _run(command, tmp_path))
