"""Off a terminal, a sweep's and a reproduction's progress is a line every few
seconds on stderr (a log file sees a long run move), and one at the end."""

from __future__ import annotations

import re

import ringlet
from ringlet.cli import progress


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("sweep ")]


def test_a_line_every_interval_and_one_at_the_end(monkeypatch, capsys):
    monkeypatch.setattr(progress, "LOG_EVERY_S", 0.0)
    with progress.sweep_bar(3) as note:
        for done in (1, 2, 3):
            note(done, 3, from_store=1 if done > 1 else 0)
    lines = _lines(capsys.readouterr().err)
    assert [re.sub(r"\d+:\d\d:\d\d", "T", line) for line in lines] == [
        "sweep 1/3 points after T, about T left", "sweep 2/3 points after T, about T left (1 from store)",
        "sweep 3/3 points in T (1 from store)"]


def test_no_line_before_the_interval(monkeypatch, capsys):
    monkeypatch.setattr(progress, "LOG_EVERY_S", 3600.0)
    with progress.sweep_bar(3) as note:
        for done in (1, 2, 3):
            note(done, 3)
    assert len(_lines(capsys.readouterr().err)) == 1


def test_reproduce_off_a_terminal_says_how_far_it_is(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(progress, "LOG_EVERY_S", 0.0)
    ringlet.reproduce("gigaring", tmp_path / "out", quick=True, only="fig6-wire", jobs=1)
    lines = _lines(capsys.readouterr().err)
    assert [line.split(" after ")[0] for line in lines[:-1]] == ["sweep 1/4 points", "sweep 2/4 points",
                                                                "sweep 3/4 points"]
    assert lines[-1].startswith("sweep 4/4 points in ")


class Clock:
    """Wall seconds a test sets by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_one_run_off_a_terminal_says_how_far_it_is_every_interval():
    clock, said = Clock(), []
    log = progress.RunLog(said.append, clock)
    log(0.1, 1e6, 100, 1000)  # at once: nothing yet
    clock.now += progress.LOG_EVERY_S
    log(0.25, 2.5e6, 250, 1000)
    clock.now += 1.0
    log(0.3, 3e6, 300, 1000)  # within the interval: nothing
    clock.now += progress.LOG_EVERY_S
    log(0.5, 5e6, 500, 1000)
    assert said == ["run 25% after 0:00:10, about 0:00:30 left (2.50 ms simulated, 250/1,000 transactions)",
                    "run 50% after 0:00:21, about 0:00:21 left (5.00 ms simulated, 500/1,000 transactions)"]
