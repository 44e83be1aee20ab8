"""``ringlet reproduce STUDY --check [PAGE]``: a reproduction's verdicts
against those its committed validation page gives (the block ``--docs``
writes), so that a change that flips one is caught.

A quote's verdict is whether ringlet is within :data:`QUOTE_TOLERANCE_PCT`
of the seed (as the page rounds the difference: to 0.1%); a finding's is
its own (yes, no, within noise). A row with no value (its point gave none)
has the verdict "no value". Only the figures the run ran are compared
(``--only``), every row of theirs.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from .format import StudyError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: A quote "agrees" with the seed when ringlet's difference is at most this, in %.
QUOTE_TOLERANCE_PCT = 10.0

NO_VALUE = "no value"

#: (kind, figure, id) of a row: ("quote", "fig4", "half-duplex-peak").
Key = tuple[str, str, str]


def _quote_verdict(pct: float) -> str:
    within = abs(pct) <= QUOTE_TOLERANCE_PCT
    return f"{'within' if within else 'beyond'} {QUOTE_TOLERANCE_PCT:g}% ({pct:+.1f}%)"


def _same(a: str, b: str) -> bool:
    """Whether two verdicts agree: a quote's by its side of the tolerance, not its percentage."""
    return a.split(" (")[0] == b.split(" (")[0]


def verdicts_of_table(table: "pd.DataFrame") -> dict[Key, str]:
    """Each row's verdict in a validation table (:func:`ringlet.study.validation.validation_table`)."""
    from .validation import signed_pct

    out: dict[Key, str] = {}
    for r in table.to_dict("records"):
        if r["kind"] == "quote":
            pct = r["difference_pct"]
            # (Rounded as the page prints it, so that the page and the run agree on 10.04%.)
            out[("quote", r["figure"], r["quote_id"])] = (
                NO_VALUE if pct is None or math.isnan(pct) else _quote_verdict(float(signed_pct(pct)[:-1])))
        else:
            verdict = r["verdict"]
            out[("finding", r["figure"], r["finding_id"])] = verdict if isinstance(verdict, str) else NO_VALUE
    return out


def _cells(line: str) -> list[str]:
    """A Markdown table row's cells (an escaped ``\\|`` stays in its cell)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def verdicts_of_page(path: "str | os.PathLike[str]", study: str) -> dict[Key, str]:
    """Each row's verdict in the generated block of the validation page ``path``;
    raises :class:`StudyError` naming the page if it has no block of ``study``
    or the block no table of quotes or findings."""
    from . import docs

    path, _ = docs.check(path, study, "--check")
    begin, end = docs.markers(study)
    lines = path.read_text(encoding="utf-8").splitlines()
    block = lines[next(i for i, x in enumerate(lines) if x.strip() == begin):
                  next(i for i, x in enumerate(lines) if x.strip() == end)]
    out: dict[Key, str] = {}
    section, header = None, []
    for line in block:
        if line.startswith("#"):
            title = line.lstrip("#").strip()
            section = {"Quoted numbers": "quote", "Findings": "finding"}.get(title)
            header = []
            continue
        if section is None or not line.startswith("|"):
            continue
        cells = _cells(line)
        if not header:
            header = cells
            continue
        if set(line) <= set("|-: "):
            continue
        row = dict(zip(header, cells))
        if section == "quote":
            m = re.search(r"\(([+-][0-9.]+)%\)\s*$", row.get("difference", ""))
            out[("quote", row["figure"], row["quote"])] = _quote_verdict(float(m.group(1))) if m else NO_VALUE
        else:
            holds = row.get("holds", "").replace("**", "")
            out[("finding", row["figure"], row["finding"])] = holds if holds in ("yes", "no", "within noise") else NO_VALUE
    if not out:
        raise StudyError(f"--check {path}: its block of {study} has no table of quotes or findings")
    return out


def differences(page: dict[Key, str], run: dict[Key, str], figures: "set[str] | None" = None) -> list[str]:
    """One line per row whose verdict differs between the page and the run,
    over the figures the run ran (``figures``; all of the run's if ``None``)."""
    figures = figures if figures is not None else {k[1] for k in run}
    lines = []
    for key in sorted(set(page) | set(run), key=lambda k: (k[1], k[0], k[2])):  # by figure
        kind, figure, ident = key
        if figure not in figures:
            continue
        was, now = page.get(key), run.get(key)
        if was is None:
            lines.append(f"{figure} {kind} {ident}: not on the page; this run: {now}")
        elif now is None:
            lines.append(f"{figure} {kind} {ident}: on the page ({was}); not in the study any more")
        elif not _same(was, now):
            lines.append(f"{figure} {kind} {ident}: the page says {was}; this run: {now}")
    return lines


def default_page(study: str) -> Path:
    """Where a shipped study's committed page is, from a clone's root."""
    return Path("docs") / "validation" / f"{study}.md"
