"""Putting a reproduction's validation into a document: ``ringlet reproduce STUDY
--docs FILE`` rewrites the part of FILE between two marker lines,

    <!-- begin generated: ringlet reproduce STUDY -->
    <!-- end generated: ringlet reproduce STUDY -->

with the ``validation.md`` it writes (its headings one level below the last
heading before the block), and leaves the rest of FILE, the hand-written
prose, as it is. The markers are checked before anything runs.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .format import StudyError


def markers(study: str) -> tuple[str, str]:
    return (f"<!-- begin generated: ringlet reproduce {study} -->", f"<!-- end generated: ringlet reproduce {study} -->")


def check(path: "str | os.PathLike[str]", study: str, option: str = "--docs") -> tuple[Path, int]:
    """The document's path and the heading level the generated text takes;
    raises :class:`StudyError` (naming ``option``, the command's for it) unless
    it is readable and has both markers, once each, in order."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise StudyError(f"{option} {path}: cannot read it: {getattr(e, 'strerror', None) or e}") from None
    begin, end = markers(study)
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == begin]
    ends = [i for i, line in enumerate(lines) if line.strip() == end]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise StudyError(f"{option} {path}: needs the lines {begin!r} and {end!r}, once each and in this order")
    headings = [len(m.group(1)) for line in lines[:starts[0]] if (m := re.match(r"(#{1,6}) ", line))]
    return path, min((headings[-1] if headings else 0) + 1, 5)


def fill(text: str, study: str, generated: str) -> str:
    """``text`` with the block between the study's markers replaced by ``generated``."""
    begin, end = markers(study)
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.strip() == begin)
    stop = next(i for i, line in enumerate(lines) if line.strip() == end)
    note = (f"<!-- Written by `ringlet reproduce {study} --docs`: edit the study, not this block. -->\n\n")
    body = note + generated.rstrip("\n") + "\n\n"
    return "".join(lines[:start + 1]) + body + "".join(lines[stop:])
