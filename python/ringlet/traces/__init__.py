"""Traces of common traffic patterns for trace-driven runs (``traffic.source = "trace"``):
:func:`trace_gen` and ``ringlet trace-gen``. :mod:`.patterns` makes the rows,
:mod:`.write` writes them (CSV or Parquet) a chunk at a time."""

from .patterns import PATTERNS, TraceGenError
from .write import Written, trace_gen

__all__ = ["PATTERNS", "TraceGenError", "Written", "trace_gen"]
