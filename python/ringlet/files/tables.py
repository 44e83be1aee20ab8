"""Tables as result files: a DataFrame rendered as the bytes of a CSV or a
Parquet file, so the write policy (:mod:`ringlet.files.write`) can stage them
with the rest of an output."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: The kinds of file a table is written as, in the order they are written.
TABLE_KINDS = ("csv", "parquet")


def table_bytes(frame: "pd.DataFrame", kind: str) -> bytes:
    """``frame`` as the bytes of a ``"csv"`` or ``"parquet"`` file. Built in
    memory: pyarrow seeks in a file it writes (a pipe cannot), and deletes a
    path it failed to write (/dev/stdout once)."""
    if kind == "csv":
        return frame.to_csv(index=False).encode("utf-8")
    return frame.to_parquet(None, index=False, engine="pyarrow")


def table_files(frame: "pd.DataFrame", folder: Path, name: str) -> list[tuple[Path, bytes]]:
    """``frame`` as ``folder/<name>.csv`` and ``folder/<name>.parquet``, rendered."""
    return [(folder / f"{name}.{kind}", table_bytes(frame, kind)) for kind in TABLE_KINDS]
