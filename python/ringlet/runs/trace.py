"""``trace``: one point's packet lifetimes as a Chrome trace-event file.

The file opens in Perfetto (ui.perfetto.dev) and chrome://tracing: one
process per node (agent) with rows for its output queue, output link, bypass
FIFO, input queues, and the echoes and control symbols reaching it; a switch
has these rows for each of its ports (``(ringlet N)``) and one more for its
B-Link, ``bus (B-Link): ...``, a span per packet across it. The run ends
at the window's end (or when ``max_events`` records are kept), so a trace
of a few microseconds costs only those microseconds of simulation.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional, Union

from .. import _core, files
from ..api.errors import ScenarioError
from ..api.literal import MAX_INT
from ..api.result import Result
from ..api.scenario import Scenario

#: Records kept by default: a file of a few tens of megabytes.
DEFAULT_MAX_EVENTS = 200_000


class Trace:
    """A written trace: where it is, the run's result, and what the file holds."""

    def __init__(self, path: Path, result: Result, info: dict[str, Any]) -> None:
        self.path = path
        self.result = result
        #: The file's ``otherData``: window, record count, ``truncated``, counts.
        self.info = info

    @property
    def truncated(self) -> bool:
        return bool(self.info.get("truncated"))

    def __repr__(self) -> str:
        return f"Trace({str(self.path)!r}, records={self.info.get('records')}, truncated={self.truncated})"


def trace(
    scenario: "Scenario | str | os.PathLike[str]",
    out: Union[str, "os.PathLike[str]"],
    from_ns: float = 0.0,
    to_ns: Optional[float] = None,
    max_events: int = DEFAULT_MAX_EVENTS,
) -> Trace:
    """Runs ``scenario`` traced over ``[from_ns, to_ns]`` and writes ``out``.

    The file is written whole or not at all (a temporary file renamed into
    place; a device or a FIFO is written in place). Raises :class:`ScenarioError` naming the bad option or key.
    """
    if not isinstance(scenario, Scenario):
        scenario = Scenario.load(scenario)
    if isinstance(max_events, bool) or not isinstance(max_events, int) or not 1 <= max_events <= MAX_INT:
        raise ScenarioError(f"max_events: expected an integer in 1..{MAX_INT}, got {max_events!r}")
    path = files.check_out_file(out, ScenarioError)  # before the run, not after it
    try:
        result_json, trace_json, info_json = _core.trace(
            scenario.text, list(scenario.overrides), float(from_ns), None if to_ns is None else float(to_ns), max_events
        )
    except ValueError as e:
        raise ScenarioError(str(e)) from None
    files.write_atomic(path, trace_json, ScenarioError)
    return Trace(path, Result(result_json), json.loads(info_json))
