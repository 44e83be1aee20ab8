"""Writing a pattern's rows as a trace file, CSV or Parquet by the file's extension,
a chunk of rows at a time (a trace of any length in bounded memory); the file
appears whole or not at all (written beside it, then renamed)."""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

from .patterns import PATTERNS, Options, Row, TraceGenError

#: Rows written per chunk.
CHUNK = 65_536


@dataclass(frozen=True)
class Written:
    """What :func:`trace_gen` wrote."""

    path: Path
    rows: int
    last_ns: float


def _chunks(rows: Iterator[Row]) -> Iterator[list[Row]]:
    chunk: list[Row] = []
    for r in rows:
        chunk.append(r)
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def trace_gen(pattern: str, out: "str | os.PathLike[str]", *, nodes: int = 8, count: int = 4,
              gap_ns: float = 100.0, period_ns: float = 10_000.0, repeats: int = 1, priorities: int = 1,
              seed: int = 1, to_memories: bool = False, transaction: Optional[str] = None,
              bytes: int = 64) -> Written:
    """Writes a trace of ``pattern`` (one of :data:`PATTERNS`) to ``out`` (``.csv`` or
    ``.parquet``): columns ``time_ns, src, dst``, the kind of transaction (``transaction``
    by name if given, else ``bytes`` of payload: 64, the SCI rings' and switches'), and
    ``priority`` when ``priorities`` > 1. See :mod:`.patterns` for the options.

    Raises :class:`TraceGenError` (one line naming the option) for a bad option.
    """
    if pattern not in PATTERNS:
        raise TraceGenError(f"pattern {pattern!r}: expected one of {', '.join(PATTERNS)}")
    o = Options(nodes=nodes, count=count, gap_ns=gap_ns, period_ns=period_ns, repeats=repeats,
                priorities=priorities, seed=seed, to_memories=to_memories)
    o.check()
    if transaction is None and bytes < 1:
        raise TraceGenError(f"--bytes: expected an integer >= 1, got {bytes}")
    path = Path(out)
    kind = path.suffix.lower()
    if kind not in (".csv", ".parquet"):
        raise TraceGenError(f"--out {out}: expected a .csv or .parquet file")
    kind_column = ("transaction", transaction) if transaction is not None else ("bytes", bytes)
    names = ["time_ns", "src", "dst", kind_column[0]] + (["priority"] if priorities > 1 else [])
    rows = PATTERNS[pattern][0](o)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    count_rows, last = 0, 0.0
    try:
        if kind == ".csv":
            with open(tmp, "w", newline="") as f:
                w = csv.writer(f, lineterminator="\n")
                w.writerow(names)
                for chunk in _chunks(rows):
                    for t, s, d, p in chunk:
                        w.writerow([repr(float(t)), s, d, kind_column[1]] + ([p] if priorities > 1 else []))
                    count_rows += len(chunk)
                    last = float(chunk[-1][0])
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            kind_type = pa.string() if transaction is not None else pa.int64()
            schema = pa.schema([("time_ns", pa.float64()), ("src", pa.int64()), ("dst", pa.int64()),
                                (kind_column[0], kind_type)] + ([("priority", pa.int64())] if priorities > 1 else []))
            with pq.ParquetWriter(tmp, schema, compression="snappy") as w:
                for chunk in _chunks(rows):
                    cols = [[r[0] for r in chunk], [r[1] for r in chunk], [r[2] for r in chunk],
                            [kind_column[1]] * len(chunk)] + ([[r[3] for r in chunk]] if priorities > 1 else [])
                    w.write_table(pa.table(cols, schema=schema))
                    count_rows += len(chunk)
                    last = float(chunk[-1][0])
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return Written(path, count_rows, last)
