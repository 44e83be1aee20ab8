"""Progress bars on stderr: one long run's and the bench's (reported by the Rust
core), and a sweep's (runs done, from the store, failed).

Shown only on a terminal, so a log file gets no bar; rich is imported only
when a bar is wanted, so ``Scenario.run()`` without one never loads it.
"""

from __future__ import annotations

import contextlib
import datetime
import time
from typing import Any, Callable, Iterator

#: ``(fraction, sim_time_ns, transactions, target_transactions)``
RunProgress = Callable[[float, float, int, int], None]

#: ``(done, total, workload)``, called by the core after each bench run,
#: outside its timing.
BenchProgress = Callable[[int, int, str], None]


def _transient_bar(label: str, *columns: Any) -> Any:
    """A rich progress bar on stderr, ``label`` then a bar, ``columns``,
    elapsed time and time left, removed when it stops; ``None`` when stderr
    is not a terminal (a log file gets nothing)."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        return None
    return Progress(TextColumn(label), BarColumn(bar_width=24), *columns, TimeElapsedColumn(), TextColumn("left"),
                    TimeRemainingColumn(), console=console, transient=True)


class RunLog:
    """One run's progress off a terminal: a line every :data:`LOG_EVERY_S`
    seconds (fraction done, time elapsed and left, simulated time,
    transactions), through ``say``; ``clock`` gives wall seconds."""

    def __init__(self, say: Callable[[str], None], clock: Callable[[], float] = time.monotonic):
        self.say, self.clock = say, clock
        self.start = self.last = clock()

    def __call__(self, fraction: float, sim_time_ns: float, transactions: int, target: int) -> None:
        now = self.clock()
        if now - self.last < LOG_EVERY_S or not 0.0 < fraction < 1.0:
            return
        self.last = now
        elapsed = now - self.start
        left = datetime.timedelta(seconds=round(elapsed / fraction - elapsed))
        self.say(f"run {fraction:.0%} after {datetime.timedelta(seconds=round(elapsed))}, about {left} left "
                 f"({sim_time_ns / 1e6:.2f} ms simulated, {transactions:,}/{target:,} transactions)")


@contextlib.contextmanager
def run_bar() -> Iterator[RunProgress]:
    """A progress bar on stderr for one run: fraction done, simulated time,
    transactions measured, time left, removed when the run ends; off a
    terminal, a line every :data:`LOG_EVERY_S` seconds instead."""
    import sys

    from rich.progress import TextColumn

    bar = _transient_bar("run", TextColumn("{task.percentage:>3.0f}%"), TextColumn("{task.fields[detail]}"))
    if bar is None:
        yield RunLog(lambda line: print(line, file=sys.stderr, flush=True))
        return
    task = bar.add_task("run", total=1.0, detail="")

    def update(fraction: float, sim_time_ns: float, transactions: int, target: int) -> None:
        detail = f"{sim_time_ns / 1e6:.2f} ms sim, {transactions:,}/{target:,} txns"
        bar.update(task, completed=fraction, detail=detail)

    with bar:
        yield update


@contextlib.contextmanager
def bench_bar() -> Iterator[BenchProgress]:
    """A bench progress bar on stderr: runs done of all, the workload just
    run, elapsed time and time left. Shown only on a terminal and removed
    when the bench ends, so the table (or the JSON) is all that stays."""
    from rich.progress import MofNCompleteColumn, TextColumn

    bar = _transient_bar("bench", MofNCompleteColumn(), TextColumn("runs  {task.fields[workload]}"))
    if bar is None:
        yield lambda *_: None
        return
    task = bar.add_task("bench", total=None, workload="")

    def update(done: int, total: int, workload: str) -> None:
        bar.update(task, total=total, completed=done, workload=workload)

    with bar:
        yield update


#: Off a terminal (a log file, a pipe), a sweep's or reproduction's progress line every this many seconds.
LOG_EVERY_S = 10.0


def _tally(failed: int, from_store: int) -> str:
    parts = ([f"{from_store} from store"] if from_store else []) + ([f"{failed} failed"] if failed else [])
    return f"({', '.join(parts)})" if parts else ""


@contextlib.contextmanager
def sweep_bar(total: int, unit: str = "points") -> Iterator[Callable[..., None]]:
    """A sweep progress bar on stderr: done / total, how many came from the
    results store and how many failed, elapsed time and time left.

    Yields the ``(done, total, failed=0, from_store=0)`` callback that advances
    it; ``done`` counts every finished run, failed and stored ones included.
    On a terminal the bar is live; otherwise (a log file, a pipe) a line is
    printed every :data:`LOG_EVERY_S` seconds while runs finish, and one at the end. If the block fails, no bar is left behind: the error
    is all the user sees.
    """
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    console = Console(stderr=True)
    if not console.is_terminal:
        state = [0, 0, 0]
        start = time.monotonic()
        last = [start, 0]  # (when the last line was printed, and its count)

        def note(done: int, _total: int, failed: int = 0, from_store: int = 0) -> None:
            state[:] = [done, failed, from_store]
            now = time.monotonic()
            if last[1] < done < total and now - last[0] >= LOG_EVERY_S:
                # A line every few seconds, so a long run in a log file is seen to move.
                last[:] = [now, done]
                elapsed = datetime.timedelta(seconds=round(now - start))
                tally = _tally(failed, from_store)
                # (From the pace so far, stored points included: a rough, early-optimistic figure.)
                left = datetime.timedelta(seconds=round((now - start) * (total - done) / done))
                console.print(f"sweep {done}/{total} {unit} after {elapsed}, about {left} left"
                              + (f" {tally}" if tally else ""), soft_wrap=True)

        yield note
        elapsed = datetime.timedelta(seconds=round(time.monotonic() - start))
        tally = _tally(state[1], state[2])
        console.print(f"sweep {state[0]}/{total} {unit} in {elapsed}" + (f" {tally}" if tally else ""),
                      soft_wrap=True)
        return
    bar = Progress(
        TextColumn("sweep"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
        TextColumn("{task.fields[tally]}"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=console,
    )
    task = bar.add_task("sweep", total=total, tally="")
    first = [True]

    def update(done: int, _total: int, failed: int = 0, from_store: int = 0) -> None:
        if first[0]:
            # Runs found in the store are done at once: set them without a speed
            # sample, so the time left is estimated from computed runs only.
            bar.reset(task, total=total, completed=done, tally=_tally(failed, from_store))
            first[0] = False
        else:
            bar.update(task, completed=done, tally=_tally(failed, from_store))

    bar.start()
    try:
        yield update
    except BaseException:
        bar.live.transient = True
        raise
    finally:
        bar.stop()
