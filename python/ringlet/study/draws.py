"""Figures run over several independent draws (``draws = N`` in a figure of a study).

A figure with draws runs each point of its grid N times, draw ``d`` with the
seed a sweep's replication ``d`` gets (:func:`ringlet.runs.replications.replication_seed`:
draw 0 keeps the scenario's ``run.seed``). Its data has a ``draw`` column, and
``point`` numbers every run (draw 0's points first, numbered as without draws).

Everything read off such data is read off each draw alone, then averaged:
a recipe's value (a quote's, a finding's side) is the mean of its N per-draw
values, and its 95% confidence half-width is Student t over those values
(the spread between the draws, not the runs' batch-means half-widths); a
finding's difference ``left - factor x right`` is taken draw by draw, so its
half-width is that of the N differences, and the count of draws in which the
comparison held is kept beside it. A drawn line is the mean over the draws at
each x, with the same half-width (:func:`ringlet.study.curves.curve`).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Sequence

from .extract import Estimate, ExtractError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .claims import Finding
    from .extract import Value

#: The column that numbers the draws of a figure's data (0 to N - 1).
DRAW = "draw"


def is_drawn(frame: "pd.DataFrame") -> bool:
    """Whether a figure's data holds several draws (a ``draw`` column)."""
    return DRAW in frame.columns


def split(frame: "pd.DataFrame") -> list[tuple[Optional[int], "pd.DataFrame"]]:
    """``(draw, rows)`` per draw, in draw order; ``[(None, frame)]`` for data without draws."""
    if not is_drawn(frame) or frame.empty:
        return [(None, frame)]
    return [(int(d), rows) for d, rows in frame.groupby(DRAW, sort=True)]


def count(frame: "pd.DataFrame") -> int:
    """The number of draws in a figure's data (1 without draws)."""
    return int(frame[DRAW].nunique()) if is_drawn(frame) else 1


def half_width(values: Sequence[float]) -> float:
    """The 95% confidence half-width of the mean of independent ``values``: Student t
    with n - 1 degrees of freedom times the standard error; NaN for fewer than two."""
    from .. import _core

    n = len(values)
    if n < 2:
        return math.nan
    return float(_core.t95(n - 1) * statistics.stdev(values) / math.sqrt(n))


def mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def over_draws(values: Sequence[float]) -> Estimate:
    """The mean of per-draw values and its 95% half-width from the spread between them."""
    return Estimate(mean(values), half_width(values))


def per_draw(value: "Value", frame: "pd.DataFrame", x_column: str) -> list[float]:
    """``value`` read off each draw of ``frame`` alone, in draw order. An
    :class:`ExtractError` names the draw that cannot give it."""
    out = []
    for d, rows in split(frame):
        try:
            out.append(value.evaluate(rows, x_column))
        except ExtractError as e:
            raise ExtractError(e if d is None else f"draw {d}: {e}") from None
    return out


def estimate(value: "Value", frame: "pd.DataFrame", x_column: str) -> Estimate:
    """``value`` and its 95% half-width: the recipe's own (batch means) without draws;
    with draws the mean over the draws and Student t over their values."""
    if not is_drawn(frame):
        return value.estimate(frame, x_column)
    return over_draws(per_draw(value, frame, x_column))


@dataclass(frozen=True)
class Judged:
    """A finding checked over draws: each side's mean and half-width, the half-width of
    the difference to each bound (from the draws' differences), and the draws' verdicts."""

    left: Estimate
    right: Estimate
    noise: tuple[float, ...]
    draws: int
    #: In how many draws the comparison itself held (noise aside).
    held: int


def judge(finding: "Finding", frame: "pd.DataFrame", x_column: str) -> Judged:
    """Reads both sides of ``finding`` off each draw of ``frame`` (which has draws):
    the half-width of ``left - f x right`` for each bound's factor ``f`` is Student t
    over the draws' differences, each draw's two sides read off the same runs."""
    lefts = per_draw(finding.left, frame, x_column)
    rights = per_draw(finding.right, frame, x_column)
    noise = tuple(half_width([a - f * b for a, b in zip(lefts, rights)]) for f in finding.factors)
    held = sum(finding.holds(a, b) for a, b in zip(lefts, rights))
    return Judged(over_draws(lefts), over_draws(rights), noise, len(lefts), held)


def curve_over_draws(lines: Sequence[tuple[Any, "pd.DataFrame"]]) -> "pd.DataFrame":
    """One line from the same line of each draw (columns ``x``, ``y``): at each x the
    mean of the draws' y and its 95% half-width (``ci95``) from their spread."""
    import pandas as pd

    parts = [line.assign(draw=d) for d, line in lines if not line.empty]
    if not parts:
        return pd.DataFrame(columns=["x", "y", "ci95"])
    every = pd.concat(parts, ignore_index=True)
    out = [{"x": x, "y": mean(list(group["y"])), "ci95": half_width(list(group["y"]))}
           for x, group in every.groupby("x", sort=True)]
    return pd.DataFrame(out, columns=["x", "y", "ci95"])
