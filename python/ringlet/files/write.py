"""The one policy for writing result files: one file whole or not at all
(``ringlet report``, ``ringlet trace``, ``ringlet results --csv/--parquet``),
or several files all or none (a sweep's tables, a reproduction's figures and
validation), so an output is never half written nor mixed with the last one.

"Whole or not at all" means a temporary file renamed over the target, which
is right for a regular file only; a device, a FIFO or a descriptor is written
in place (:func:`ringlet.files.targets.in_place`).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Iterable, Optional

from .targets import in_place, landing, own_descriptor


def make_dir(out: Path, error: type[Exception], option: str = "--out") -> None:
    """Creates the output directory ``out`` and its parents, unless it exists;
    raises ``error`` naming ``option`` if it cannot."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise error(f"{option} {out}: cannot create directory: {e.strerror or e}") from None


def write_atomic(out: Path, content: "str | bytes", error: type[Exception], option: str = "--out") -> None:
    """Writes ``content`` (text as UTF-8) to ``out`` whole or not at all:
    through a temporary file in the same folder, then renamed; a device, a
    FIFO or a descriptor is written in place (see the module's doc). Raises
    ``error`` naming ``option`` if that fails; no temporary file is left behind."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    if in_place(out):
        fd = own_descriptor(out)
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
            target = landing(out)
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
