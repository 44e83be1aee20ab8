"""Progress of one long simulation run, reported by the Rust core."""

from __future__ import annotations

import contextlib
from typing import Callable, Iterator

#: ``(fraction, sim_time_ns, transactions, target_transactions)``
RunProgress = Callable[[float, float, int, int], None]


@contextlib.contextmanager
def run_bar() -> Iterator[RunProgress]:
    """A progress bar on stderr for one run: fraction done, simulated time,
    transactions measured, time left. Shown only on a terminal (a log file
    gets nothing); removed when the run ends."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        yield lambda *_: None
        return
    bar = Progress(
        TextColumn("run"),
        BarColumn(bar_width=24),
        TextColumn("{task.percentage:>3.0f}%"),
        TextColumn("{task.fields[detail]}"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )
    task = bar.add_task("run", total=1.0, detail="")

    def update(fraction: float, sim_time_ns: float, transactions: int, target: int) -> None:
        detail = f"{sim_time_ns / 1e6:.2f} ms sim, {transactions:,}/{target:,} txns"
        bar.update(task, completed=fraction, detail=detail)

    with bar:
        yield update
