"""How big a sweep may be: one place for the bounds the CLI's arguments and the
Python API's both check, so the two refuse the same things with the same words."""

from __future__ import annotations

from typing import Any, Optional

#: Largest number of values one range may expand to.
MAX_AXIS_VALUES = 1_000_000

#: Largest number of runs (grid points x replications) one sweep may plan.
MAX_SWEEP_RUNS = 1_000_000

#: Replications per point: more could not be planned, let alone run.
MAX_REPLICATIONS = 100_000

#: The most worker processes (``--processes``, ``--jobs``) one sweep starts on this machine.
MAX_PROCESSES = 4096


def check_count(name: str, value: Any, most: Optional[int] = None) -> None:
    """Raises ValueError naming ``name`` unless ``value`` is an integer >= 1 (and <= ``most``)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name}: expected an integer >= 1, got {value!r}")
    if most is not None and value > most:
        raise ValueError(f"{name}: expected an integer in 1..{most}, got {value!r}")
