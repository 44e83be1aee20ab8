"""How a sweep reports its progress: the caller's ``progress`` argument (``True``
for a bar on stderr, a ``(done, total)`` callable, or nothing) made into what
:func:`ringlet.runs.sweep.execute` calls as runs finish."""

from __future__ import annotations

import contextlib
from typing import Callable, Union

#: What ``ringlet.sweep()`` and ``ringlet.reproduce()`` take as ``progress``.
Progress = Union[bool, Callable[[int, int], None]]

#: ``reporter()`` gives a context manager yielding ``report(done, total, failed=0, from_store=0)``.
Reporter = Callable[[], "contextlib.AbstractContextManager[Callable[..., None]]"]


def reporter(progress: Progress, total: int, unit: str = "points") -> Reporter:
    """A context-manager factory giving the progress callback."""
    if progress is True:
        from ..cli.progress import sweep_bar

        return lambda: sweep_bar(total, unit)
    callback = progress if callable(progress) else (lambda done, total: None)
    return lambda: contextlib.nullcontext(lambda done, total, **_: callback(done, total))
