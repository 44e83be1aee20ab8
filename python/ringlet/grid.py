"""Parsing ``--set`` arguments: fixed overrides and sweep axes.

``KEY=VALUE`` is a fixed override; ``KEY=START:STOP:STEP`` is an inclusive
numeric range (STOP is included when it lands on the grid) and
``KEY=V1,V2,...`` a list of literal values. Both make a sweep axis.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any, Iterable, Union

from ._literal import from_literal
from .errors import ScenarioError, shown

Number = Union[int, float]

#: Largest number of values one range may expand to.
MAX_AXIS_VALUES = 1_000_000

#: Largest number of runs (grid points x replications) one sweep may plan.
MAX_SWEEP_RUNS = 1_000_000

_INT = re.compile(r"[+-]?\d+\Z")
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


def _number(key: str, spec: str, part: str) -> Decimal:
    try:
        d = Decimal(part.strip())
    except InvalidOperation:
        d = None
    if d is None or not d.is_finite():
        raise ScenarioError(
            f'{key}: bad range "{shown(spec)}": START, STOP and STEP must be numbers, got "{shown(part.strip())}"'
        )
    return d


def parse_range(key: str, spec: str) -> list[Number]:
    """Expands ``START:STOP:STEP`` into its values, STOP included when on the grid.

    Integers stay integers; if any part is written as a float all values are
    floats (computed in decimal, so ``0.1:0.3:0.1`` gives 0.1, 0.2, 0.3).
    """
    parts = spec.split(":")
    if len(parts) != 3:
        raise ScenarioError(f'{key}: bad range "{shown(spec)}": expected START:STOP:STEP, e.g. 1:150:10')
    start, stop, step = (_number(key, spec, p) for p in parts)
    if step <= 0:
        raise ScenarioError(f'{key}: bad range "{shown(spec)}": STEP must be > 0')
    if stop < start:
        raise ScenarioError(
            f'{key}: bad range "{shown(spec)}": STOP ({parts[1].strip()}) is below START ({parts[0].strip()})'
        )
    try:
        count = int((stop - start) // step) + 1
    except ArithmeticError:  # (decimal: a quotient too large to hold exactly)
        count = MAX_AXIS_VALUES + 1
    if count > MAX_AXIS_VALUES:
        raise ScenarioError(
            f'{key}: bad range "{shown(spec)}": more than {MAX_AXIS_VALUES} values'
        )
    integral = all(_INT.match(p.strip()) for p in parts)
    values = (start + i * step for i in range(count))
    return [int(v) for v in values] if integral else [float(v) for v in values]


def _split_list(text: str) -> list[str]:
    """Splits on commas that are not inside quotes."""
    items, current, quote = [], [], None
    for ch in text:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
            current.append(ch)
        elif ch == ",":
            items.append("".join(current))
            current = []
        else:
            current.append(ch)
    items.append("".join(current))
    return items


def is_axis(value: str) -> bool:
    """True if a raw ``--set`` value is a range or a comma list (a sweep axis)."""
    if len(_split_list(value)) > 1:
        return True
    return ":" in value and value.strip()[:1] not in ("\"", "'")


def parse_axis(key: str, value: str) -> list[Any]:
    """The values of one sweep axis written as a range, a comma list or one literal."""
    items = _split_list(value)
    if len(items) > 1:
        if any(not item.strip() for item in items):
            raise ScenarioError(f'{key}: empty value in list "{shown(value)}"')
        return [from_literal(item) for item in items]
    if is_axis(value):
        return parse_range(key, value)
    return [from_literal(value)]


def parse_sets(specs: Iterable[str]) -> tuple[list[tuple[str, str]], dict[str, list[Any]]]:
    """Sorts ``--set`` arguments into fixed overrides and sweep axes.

    Returns ``(fixed, axes)``: fixed ``(key, raw TOML value)`` pairs in order,
    and ``{key: [values]}`` for every range or list, in order. A key given
    twice is an error.
    """
    fixed: list[tuple[str, str]] = []
    axes: dict[str, list[Any]] = {}
    seen: set[str] = set()
    for spec in specs:
        key, value = split_set(spec)
        if key in seen:
            raise ScenarioError(f"--set {key}: given more than once")
        seen.add(key)
        if is_axis(value):
            axes[key] = parse_axis(key, value)
        else:
            fixed.append((key, value))
    return fixed, axes
