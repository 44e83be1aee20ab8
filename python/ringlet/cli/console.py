"""Where the commands print: a rich console, and the ``wrote FILE`` note that
must not join the data when the file is stdout or a pipe."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .. import files


def console(stderr: bool = False) -> Any:
    """A rich console on stdout (or stderr) that highlights nothing by itself."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def _fit_tables(renderable: Any) -> list[Any]:
    """The :class:`~ringlet.cli.fit.FitTable` objects in ``renderable`` (a group, nested)."""
    from .fit import FitTable

    if isinstance(renderable, FitTable):
        return [renderable]
    return [t for child in getattr(renderable, "renderables", []) for t in _fit_tables(child)]


def show(renderable: Any, wide: bool = False, stderr: bool = False) -> None:
    """Prints ``renderable``, its tables laid out to fit the console's width
    (a terminal's, else ``COLUMNS``, else 80); ``wide``: on a console as wide as
    its widest table, each table whole, a row to a line."""
    out = console(stderr)
    if wide:
        from rich.measure import Measurement

        from .fit import UNLIMITED

        options = out.options.update_width(UNLIMITED)
        widths = [Measurement.get(out, options, t).maximum for t in _fit_tables(renderable)]
        out.width = max([out.width, *widths])
    out.print(renderable)


def wrote(path: Path, what: str) -> None:
    """Says ``wrote PATH`` and ``what``; on stderr when ``path`` is /dev/stdout
    or a pipe, where the note would join the data."""
    note = sys.stderr if files.in_place(path) else sys.stdout
    print(f"wrote {path}{what}", file=note)
