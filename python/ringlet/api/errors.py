"""The exception every bad scenario input raises."""

from __future__ import annotations


class ScenarioError(ValueError):
    """A scenario, override or sweep grid is invalid, or the output of a sweep or
    a trace cannot be written there.

    The message is one line and names the offending key (or file, or
    ``--set`` argument) and the value, e.g.
    ``traffic.load_mbps_per_node: expected a number >= 0, got "fast"``.
    """
