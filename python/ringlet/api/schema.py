"""The report's column schema, as the Rust core exports it (``_core.report_schema``).

Every table of a run's report is declared once in Rust (``report.rs``), with
its columns' units and meanings; so are the counters a run's view shows and
what a sweep row copies. Python reads the columns from here rather than keeping
lists of its own, so a column the core adds reaches the result frames, the
sweep table and the CLI without a change on this side. Read once per process.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Optional

from .. import _core

#: One column: ``{"name", "unit", "doc"}``, and ``"label"`` for a counter the run view shows.
Column = dict[str, str]


@functools.cache
def report_schema() -> dict[str, Any]:
    """The whole schema: ``summary``, ``tables``, ``counters``, ``conservation``, ``sweep``,
    ``client``."""
    return json.loads(_core.report_schema())


def names(columns: list[Column]) -> list[str]:
    return [c["name"] for c in columns]


def summary() -> list[Column]:
    """The scalar figures of a run, in order."""
    return report_schema()["summary"]


def table(name: str) -> Optional[list[Column]]:
    """The columns of the report table ``name`` (``per_priority``, ``per_link``, ...);
    None if the core has no such table."""
    return report_schema()["tables"].get(name)


def labelled_counters() -> list[tuple[str, str]]:
    """``(counter, label)`` of the counters a run's view shows when they occurred, in order."""
    return [(c["name"], c["label"]) for c in report_schema()["counters"] if "label" in c]


def sweep_per_priority() -> list[str]:
    """The per-priority figures a sweep row copies, in order."""
    return list(report_schema()["sweep"]["per_priority"])


def optional_summary() -> list[Column]:
    """The scalar figures that only some network families report, in order: the
    schema's ``client`` figures (a GigaRing's channel and transaction latencies,
    its window decreases). A run of another family has none of them."""
    return list(report_schema().get("client", []))


def sweep_totals() -> dict[str, str]:
    """The summary figures a sweep row copies: sweep column -> figure, in order."""
    return {column: figure for column, figure in report_schema()["sweep"]["totals"]}
