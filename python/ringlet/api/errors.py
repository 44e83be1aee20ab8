"""The exception every bad scenario input raises."""

from __future__ import annotations


class ScenarioError(ValueError):
    """A scenario, override or sweep grid is invalid, or the output of a sweep or
    a trace cannot be written there.

    The message is one line and names the offending key (or file, or
    ``--set`` argument) and the value, e.g.
    ``traffic.load_mbps_per_node: expected a number >= 0, got "fast"``.
    """


def shown(text: str) -> str:
    """``text`` as a one-line message quotes it: line breaks and other
    unprintable characters escaped (``a\\nb``), the rest as it is."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
