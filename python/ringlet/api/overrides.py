"""Scenario keys and ``--set KEY=VALUE`` overrides: their syntax, checked before
the core sees them.

Here rather than with the grid (:mod:`ringlet.runs.grid`) because a
:class:`~ringlet.api.scenario.Scenario` takes ``"key=literal"`` strings too,
and a scenario knows nothing of sweeps.
"""

from __future__ import annotations

import re

from .errors import ScenarioError, shown

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\.[A-Za-z_][A-Za-z0-9_-]*\Z")


def check_key(key: str) -> str:
    """Returns ``key`` if it has the ``section.key`` form, else raises."""
    if not isinstance(key, str) or not _KEY.match(key):
        raise ScenarioError(f"{shown(str(key))}: expected SECTION.KEY, e.g. traffic.load_mbps_per_node")
    return key


def split_set(spec: str) -> tuple[str, str]:
    """Splits one ``--set KEY=VALUE`` argument into a checked key and the raw value."""
    key, sep, value = spec.partition("=")
    if not sep:
        raise ScenarioError(
            f"--set {shown(spec)}: expected KEY=VALUE, e.g. traffic.load_mbps_per_node=120"
        )
    key, value = key.strip(), value.strip()
    if not _KEY.match(key):
        raise ScenarioError(
            f"--set {shown(spec)}: expected SECTION.KEY=VALUE, e.g. traffic.load_mbps_per_node=120"
        )
    if value == "":
        raise ScenarioError(f"--set {shown(spec)}: {key} has no value")
    return key, value
