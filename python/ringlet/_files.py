"""Writing output safely: a file or a directory checked before any work is
done; one file then written whole or not at all (``ringlet report``, ``ringlet trace``)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterable


def _named(out: "str | os.PathLike[str]", error: type[Exception], option: str, what: str) -> Path:
    """``out`` as a path; an empty name (which would mean the current directory) raises ``error``."""
    text = os.fspath(out)
    if not str(text).strip():
        raise error(f"{option}: expected a {what} name, got {text!r}")
    return Path(out)


def check_out_file(out: "str | os.PathLike[str]", error: type[Exception], option: str = "--out") -> Path:
    """Checks that ``out`` can be written as a file (creates nothing); raises
    ``error`` naming the problem and the ``option`` it came from."""
    out = _named(out, error, option, "file")
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


def check_out_dir(out: "str | os.PathLike[str]", error: type[Exception], files: Iterable[str] = (),
                  option: str = "--out") -> Path:
    """Checks that ``out`` is, or can be created as, a writable directory in
    which none of the ``files`` to be written is a directory (creates nothing);
    raises ``error`` naming the problem and the ``option`` it came from."""
    path = _named(out, error, option, "directory")
    if path.exists():
        if not path.is_dir():
            raise error(f"{option} {out}: exists and is not a directory")
        if not os.access(path, os.W_OK | os.X_OK):
            raise error(f"{option} {out}: directory is not writable")
        for name in files:
            if (path / name).is_dir():
                raise error(f"{option} {out}: {name} exists and is a directory")
        return path
    ancestor = path.absolute().parent
    while not os.path.lexists(ancestor) and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise error(f"{option} {out}: cannot create directory: {ancestor} is not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise error(f"{option} {out}: cannot create directory: {ancestor} is not writable")
    return path


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
