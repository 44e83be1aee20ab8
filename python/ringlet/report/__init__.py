"""``report``: one self-contained HTML page of a sweep's or a reproduction's results.

A folder is read as a **sweep** when it holds ``sweep.csv`` (or
``sweep.parquet``), and as a **reproduction** when it holds
``validation.csv`` or a figure's ``<id>.csv`` beside its ``<id>.svg`` or
``<id>.png``, and as a **capacity search** when it holds ``capacity.json``; a
folder holding several gets each section. The same inputs give
the same page, byte for byte (no timestamps).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from .. import _core, files
from .capacity import capacity_sections, is_capacity
from .errors import ReportError
from .html import Page, escape, render_page
from .reproduction import is_reproduction, reproduce_sections
from .store import read_store
from .sweep import plan_plots, sweep_sections
from .tables import check_sweep_table

#: A quote agrees with the seed when ringlet is within this many % of the seed's value.
DEFAULT_TOLERANCE_PCT = 10.0


def build(folder: "str | os.PathLike[str]", tolerance_pct: float = DEFAULT_TOLERANCE_PCT) -> tuple[str, str]:
    """The report of ``folder`` as HTML text, and what it is (``"sweep"``, ``"reproduction"`` or both)."""
    d = Path(folder)
    if not d.exists():
        raise ReportError(f"{folder}: no such directory")
    if not d.is_dir():
        raise ReportError(f"{folder}: not a directory")
    if not os.access(d, os.R_OK | os.X_OK):
        raise ReportError(f"{folder}: directory is not readable")
    sweep = (d / "sweep.csv").is_file() or (d / "sweep.parquet").is_file()
    repro = is_reproduction(d)
    search = is_capacity(d)
    if not sweep and not repro and not search:
        raise ReportError(
            f"{folder}: holds no sweep results (sweep.csv, sweep.parquet), reproduce results "
            f"(validation.csv, <figure>.csv with <figure>.svg) or capacity search (capacity.json)")
    kinds = " and ".join(k for k, present in (("sweep", sweep), ("reproduction", repro), ("capacity search", search))
                         if present)
    name = d.resolve().name or str(d)
    if repro:  # a reproduction is titled after its study (validation.md's title), not its folder
        from .reproduction import study_title

        name = study_title(d) or name
    page = Page(title=f"ringlet {kinds}: {name}")
    page.intro.append(f"<p>Results in <code>{escape(d)}</code>, written by ringlet; this page by ringlet "
                      f"{escape(_core.version())}.</p>")
    if sweep:
        sweep_sections(d, page)
    if repro:
        reproduce_sections(d, page, tolerance_pct)
    if search:
        capacity_sections(d, page)
    return render_page(page), kinds


def report(folder: "str | os.PathLike[str]", out: "str | os.PathLike[str]",
           tolerance_pct: float = DEFAULT_TOLERANCE_PCT) -> Path:
    """Writes one self-contained HTML page of the results in ``folder`` to ``out``.

    ``folder`` is a ``ringlet sweep --out`` folder (plots of throughput and
    latency against the first swept key, the table, each point's provenance,
    and its scenario TOML when the folder holds ``results.sqlite``), or a
    ``ringlet reproduce --out`` folder (every figure, its caption, the
    validation table, each figure's points and provenance). A quote agrees
    with the seed when ringlet is within ``tolerance_pct`` % of it.

    The page loads nothing from anywhere (no network, no other file). It is
    written atomically: a temporary file in ``out``'s folder, then renamed.
    Raises :class:`ReportError` (a ``ValueError``), writing nothing, for a
    folder without results, a damaged results file or an ``out`` that cannot
    be written. Returns ``out`` as a :class:`~pathlib.Path`.
    """
    if isinstance(tolerance_pct, bool) or not isinstance(tolerance_pct, (int, float)) \
            or not math.isfinite(tolerance_pct) or tolerance_pct < 0:
        raise ReportError(f"tolerance: expected a number >= 0, got {tolerance_pct!r}")
    out = files.check_out_file(out, ReportError)
    text, _ = build(folder, tolerance_pct)
    files.write_atomic(out, text, ReportError)
    return out


__all__ = ["report", "build", "ReportError", "read_store", "check_sweep_table", "plan_plots"]
