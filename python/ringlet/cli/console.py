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


def wrote(path: Path, what: str) -> None:
    """Says ``wrote PATH`` and ``what``; on stderr when ``path`` is /dev/stdout
    or a pipe, where the note would join the data."""
    note = sys.stderr if files.in_place(path) else sys.stdout
    print(f"wrote {path}{what}", file=note)
