"""A sweep's output directory, as ``ringlet sweep --out DIR`` and
``ringlet.sweep(..., out=DIR)`` both write it: the results store
``results.sqlite`` (written run by run, see :mod:`ringlet.runs.store`) and,
once every run is done, the tables (:data:`SWEEP_FILES`), written through the
one policy for result files (:mod:`ringlet.files`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from .. import files
from ..api.errors import ScenarioError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .sweep import SweepRun

#: The sweep table's file name (without its kind), and the per-replication table's.
TABLE = "sweep"
REPLICATIONS_TABLE = "sweep-replications"

#: The files a sweep writes (or removes) in its output directory.
SWEEP_FILES = tuple(f"{name}.{kind}" for name in (TABLE, REPLICATIONS_TABLE) for kind in files.TABLE_KINDS)


def check_out(out: "str | os.PathLike[str]") -> Path:
    """``out`` as a directory a sweep can write (creates nothing); raises
    :class:`ScenarioError` naming the problem."""
    return files.check_out_dir(out, ScenarioError, SWEEP_FILES)


def write_tables(done: "SweepRun", out: Path) -> "pd.DataFrame":
    """Writes a finished sweep's tables into ``out`` and returns the sweep table.

    The tables of one sweep replace the last sweep's all together: a
    ``sweep.csv`` never sits beside another sweep's Parquet file or
    per-replication table (a sweep without replications removes those).
    """
    table = done.table()
    written = files.table_files(table, out, TABLE)
    stale: list[Path] = []
    if done.replications > 1:
        written += files.table_files(done.replication_table(), out, REPLICATIONS_TABLE)
    else:
        stale = [out / f"{REPLICATIONS_TABLE}.{kind}" for kind in files.TABLE_KINDS]
    files.make_dir(out, ScenarioError)
    files.write_together(written, ScenarioError, remove=stale)
    return table
