"""How long a run will take, from how far it got in its first seconds.

The core reports a run's fraction done about five times a second. After
:data:`CALIBRATE_S` of wall time the elapsed time over the fraction done is
an estimate of the whole run, honest for a run that keeps its pace (a run
that saturates later slows, so it is a lower bound then). A run estimated
at :data:`LONG_RUN_S` or more says so once, up front, whether or not
stderr is a terminal.
"""

from __future__ import annotations

import datetime
import time
from typing import Callable, Optional

#: A run estimated to take at least this long (wall seconds) says so.
LONG_RUN_S = 60.0
#: Wall seconds of the run the estimate waits for, past start-up noise.
CALIBRATE_S = 1.0


def duration(seconds: float) -> str:
    """``seconds`` as ``0:04:10``."""
    return str(datetime.timedelta(seconds=round(seconds)))


class RunEstimate:
    """Called as the core's progress callback ``(fraction, sim_time_ns,
    transactions, target)``; calls ``say`` once with the estimate when the
    run will be long. ``clock`` gives wall seconds (a test passes its own)."""

    def __init__(self, say: Callable[[str], None], clock: Callable[[], float] = time.monotonic):
        self.say = say
        self.clock = clock
        self.start = clock()
        self.decided = False
        self.total_s: Optional[float] = None

    def __call__(self, fraction: float, _sim_time_ns: float = 0.0, _transactions: int = 0, _target: int = 0) -> None:
        if self.decided:
            return
        elapsed = self.clock() - self.start
        if elapsed < CALIBRATE_S or fraction <= 0.0:
            return
        self.decided = True  # up front: one estimate, not a running commentary
        if fraction >= 1.0:
            return
        self.total_s = elapsed / fraction
        if self.total_s >= LONG_RUN_S:
            self.say(f"this run will take about {duration(self.total_s)} "
                     f"(estimated from its first {elapsed:.0f} s, {fraction:.1%} done); Ctrl-C stops it")
