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
        "sweep 1/3 points after T", "sweep 2/3 points after T (1 from store)", "sweep 3/3 points in T (1 from store)"]


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
