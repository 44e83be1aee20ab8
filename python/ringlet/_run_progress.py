"""Progress of one long simulation run, and of the bench's runs, reported by the Rust core."""

from __future__ import annotations

import contextlib
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


@contextlib.contextmanager
def run_bar() -> Iterator[RunProgress]:
    """A progress bar on stderr for one run: fraction done, simulated time,
    transactions measured, time left. Shown only on a terminal; removed when
    the run ends."""
    from rich.progress import TextColumn

    bar = _transient_bar("run", TextColumn("{task.percentage:>3.0f}%"), TextColumn("{task.fields[detail]}"))
    if bar is None:
        yield lambda *_: None
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
