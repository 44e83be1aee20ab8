"""What an output path is, and whether it can be written: checked before any
work is done, so a long run never ends in an output it cannot write.

A regular file is replaced whole (see :mod:`ringlet.files.write`); a symbolic
link is followed (the file it names is replaced, the link stays); a device, a
FIFO or an open descriptor (``/dev/stdout``, ``>(gzip > x.gz)``) is written in
place, never replaced by a regular file.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Iterable, Optional


#: An open file descriptor's name: written through that descriptor, so that a
#: shell's ``>>`` appends (reopening the name would truncate the file).
_DESCRIPTOR = re.compile(r"/(?:dev|proc/(?P<pid>[^/]+))/fd/(?P<fd>\d+)")


def own_descriptor(out: "str | os.PathLike[str]") -> Optional[int]:
    """The descriptor of this process that ``out`` names, itself or through
    links (``/dev/stdout`` -> ``/proc/self/fd/1``): ``/dev/fd/N``,
    ``/proc/self/fd/N`` or ``/proc/<this pid>/fd/N``; else None."""
    path = os.path.abspath(out)
    for _ in range(40):  # the kernel's own limit on a chain of links
        m = _DESCRIPTOR.fullmatch(path)
        if m and m["pid"] in (None, "self", str(os.getpid())):
            return int(m["fd"])
        if not os.path.islink(path):
            return None
        path = os.path.normpath(os.path.join(os.path.dirname(path), os.readlink(path)))
    return None


def in_place(out: "str | os.PathLike[str]") -> bool:
    """Whether ``out`` is written in place rather than replaced: it names one
    of this process's descriptors (``/dev/stdout``), or it exists (links
    followed) and is neither a regular file nor a directory (a device, a
    FIFO, a socket)."""
    try:
        if own_descriptor(out) is not None:
            return True
        mode = os.stat(out).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def landing(out: Path) -> Path:
    """The file a rename must replace: a symbolic link's final target (so the
    link stays a link), else ``out`` itself."""
    return Path(os.path.realpath(out)) if out.is_symlink() else out


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
    if in_place(out):
        if not os.access(out, os.W_OK):
            raise error(f"{option} {out}: is not writable")
        return out
    parent = landing(out).absolute().parent
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


