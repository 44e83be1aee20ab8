"""Writing output safely: a file or a directory checked before any work is
done; one file then written whole or not at all (``ringlet report``,
``ringlet trace``, ``ringlet results --csv/--parquet``), or several files
all or none (a sweep's CSV and Parquet tables).

"Whole or not at all" means a temporary file renamed over the target, which
is right for a regular file only: a symbolic link is followed (the file it
names is replaced, the link stays), and a device, a FIFO or an open
descriptor (``/dev/stdout``, ``>(gzip > x.gz)``) is written in place, never
replaced by a regular file.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from typing import Iterable, Optional


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
    parent = _landing(out).absolute().parent
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


#: An open file descriptor's name: written through that descriptor, so that a
#: shell's ``>>`` appends (reopening the name would truncate the file).
_DESCRIPTOR = re.compile(r"/(?:dev|proc/(?P<pid>[^/]+))/fd/(?P<fd>\d+)")


def _own_descriptor(out: "str | os.PathLike[str]") -> Optional[int]:
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
        if _own_descriptor(out) is not None:
            return True
        mode = os.stat(out).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _landing(out: Path) -> Path:
    """The file a rename must replace: a symbolic link's final target (so the
    link stays a link), else ``out`` itself."""
    return Path(os.path.realpath(out)) if out.is_symlink() else out


def write_atomic(out: Path, content: "str | bytes", error: type[Exception], option: str = "--out") -> None:
    """Writes ``content`` (text as UTF-8) to ``out`` whole or not at all:
    through a temporary file in the same folder, then renamed; a device, a
    FIFO or a descriptor is written in place (see the module's doc). Raises
    ``error`` naming ``option`` if that fails; no temporary file is left behind."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    if in_place(out):
        fd = _own_descriptor(out)
        if fd is not None:  # what was printed before goes first
            sys.stdout.flush()
            sys.stderr.flush()
        try:
            with open(out if fd is None else fd, "wb", closefd=fd is None) as f:
                f.write(data)
        except OSError as e:
            raise error(f"{option} {out}: cannot write: {e.strerror or e}") from None
        return
    write_together([(out, data)], error, option)


def write_together(files: "Iterable[tuple[Path, str | bytes]]", error: type[Exception], option: str = "--out",
                   remove: Iterable[Path] = ()) -> None:
    """Writes every ``(path, content)`` of ``files`` and deletes every path of
    ``remove``, all of it or none of it: a table and its Parquet twin must
    never disagree. Each file is written to a temporary file beside it first;
    only when all are written are they renamed into place, each old file kept
    (hard-linked aside) until the last is in, and put back if a rename fails.
    For regular files (links are followed, as by :func:`write_atomic`).
    Raises ``error`` naming ``option`` and the file; nothing temporary is left."""
    staged: list[tuple[Path, Path, Path]] = []  # (temporary file, target, the name asked for)
    kept: list[tuple[Path, Optional[Path]]] = []  # (target, its old content aside, or None if it had none)
    current = Path(option)

    def aside(target: Path) -> Path:
        fd, name = tempfile.mkstemp(dir=target.absolute().parent, prefix=f".{target.name}.", suffix=".old")
        os.close(fd)
        os.unlink(name)
        try:
            os.link(target, name, follow_symlinks=False)  # the target stays readable throughout
        except OSError:
            shutil.copy2(target, name, follow_symlinks=False)
        return Path(name)

    try:
        umask = os.umask(0)
        os.umask(umask)
        for out, content in files:
            current = out
            target = _landing(out)
            fd, tmp = tempfile.mkstemp(dir=target.absolute().parent, prefix=f".{target.name}.", suffix=".tmp")
            staged.append((Path(tmp), target, out))
            with os.fdopen(fd, "wb") as f:
                f.write(content.encode("utf-8") if isinstance(content, str) else content)
            os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; an output is an ordinary file
        for tmp, target, out in staged:
            current = out
            kept.append((target, aside(target) if target.exists() else None))
            os.replace(tmp, target)
        for out in remove:
            current = out
            if os.path.lexists(out):
                kept.append((out, aside(out)))
                os.unlink(out)
    except BaseException as e:
        for target, old in reversed(kept):
            try:
                if old is None:
                    if os.path.lexists(target):
                        os.unlink(target)
                    continue
                os.replace(old, target)
            except OSError:
                pass  # nothing better to do; the error below still names the file
            try:
                # Still aside: a rename onto another link to the same file does
                # nothing, and then the target holds the old content already.
                # Otherwise the old content stays aside rather than be lost.
                if old is not None and os.path.samestat(os.lstat(old), os.lstat(target)):
                    os.unlink(old)
            except OSError:
                pass
        for tmp, _, _ in staged:
            tmp.unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise error(f"{option} {current}: cannot write: {e.strerror or e}") from None
        raise
    for _, old in kept:
        if old is not None:
            old.unlink(missing_ok=True)
