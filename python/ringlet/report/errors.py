"""The one exception of ``ringlet report``, in its own module so every part can raise it."""

from __future__ import annotations


class ReportError(ValueError):
    """The folder holds no results, a results file is damaged, or the output cannot be written.

    The message is one line naming the file and the problem.
    """


def first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
