"""Writing one output file safely: checked before any work is done, then
written whole or not at all (``ringlet report``, ``ringlet trace``)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def check_out_file(out: Path, error: type[Exception], option: str = "--out") -> Path:
    """Checks that ``out`` can be written as a file (creates nothing); raises
    ``error`` naming the problem and the ``option`` it came from."""
    if out.is_dir():
        raise error(f"{option} {out}: is a directory")
    parent = out.absolute().parent
    if not parent.exists():
        raise error(f"{option} {out}: directory {parent} does not exist")
    if not parent.is_dir():
        raise error(f"{option} {out}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise error(f"{option} {out}: directory {parent} is not writable")
    return out


def write_atomic(out: Path, text: str, error: type[Exception]) -> None:
    """Writes ``text`` to ``out`` through a temporary file in the same folder,
    then renames it; raises ``error`` if that fails (nothing is left behind)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=out.absolute().parent, prefix=f".{out.name}.", suffix=".tmp")
    except OSError as e:
        raise error(f"--out {out}: cannot write: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; an output is an ordinary file
        os.replace(tmp, out)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise error(f"--out {out}: cannot write: {e.strerror or e}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
