"""What ``traffic.load_mbps_per_node`` measures, family by family, and how
to label it beside the reported (payload) figures.

On an SCI ring and a GigaRing the load is the data payload each node
offers. On the switch families (seed 001) it is the raw input rate of each
processor: its packets with their headers and idles, 84 bytes for 64 of
payload (docs/model-switch.md), the seed's x axis. Every report figure
(``offered_mbps``, throughput, loss) is payload. Tables and axes show the
raw input beside the payload, each labelled as such.
"""

from __future__ import annotations

import tomllib
from typing import Any, Optional

#: The families whose load is the raw input rate per processor.
RAW_INPUT_KINDS = ("sci-switch", "banyan")

LOAD_LABELS = {
    "raw": "Raw input per processor, headers and idles (MB/s)",
    "payload": "Offered load per node, payload (MB/s)",
    "either": "Load per node (MB/s): payload; raw input with headers and idles on switches",
}


def load_is_raw(kind: Optional[str]) -> Optional[bool]:
    """Whether ``traffic.load_mbps_per_node`` is a raw input rate on family
    ``kind`` (``None``: the family is not known)."""
    return None if kind is None else kind in RAW_INPUT_KINDS


def load_label(kind: Optional[str]) -> str:
    """The axis label of ``traffic.load_mbps_per_node`` on family ``kind`` (``None``: unknown)."""
    raw = load_is_raw(kind)
    return LOAD_LABELS["either" if raw is None else "raw" if raw else "payload"]


def kind_of(scenario_toml: Optional[str]) -> Optional[str]:
    """The ``network.kind`` of a full scenario's TOML (a result's provenance), or ``None``."""
    if not scenario_toml:
        return None
    try:
        return tomllib.loads(scenario_toml).get("network", {}).get("kind")
    except tomllib.TOMLDecodeError:
        return None


def raw_input_mbps(result: dict[str, Any]) -> Optional[float]:
    """The raw input rate a switch family's run was offered over all its
    processors, MB/s (``traffic.load_mbps_per_node`` times the processors,
    each priority counted); ``None`` on other families."""
    try:
        scenario = tomllib.loads(result.get("provenance", {}).get("scenario") or "")
    except tomllib.TOMLDecodeError:
        return None
    network, traffic = scenario.get("network", {}), scenario.get("traffic", {})
    if network.get("kind") not in RAW_INPUT_KINDS:
        return None
    return float(traffic.get("load_mbps_per_node", 0.0)) * traffic.get("priorities", 1) * network.get("nodes", 0)
