"""Sweep grids: the one parser of an axis, and the grid's points.

An axis is read the same way wherever it comes from: a ``--set`` argument, a
study file's ``[figure.grid]`` or a ``ringlet.sweep()`` grid. A string is
written as on the command line: ``START:STOP:STEP`` is an inclusive numeric
range (STOP is included when it lands on the grid), ``V1,V2,...`` a list of
literal values, anything else one literal. A list, range, numpy array or any
other iterable gives its values as they are; any other value is a one-value
axis. What a caller admits (the CLI takes strings only; a study wants at least
a list or a range) is the caller's rule; how an axis is read is this module's.
"""

from __future__ import annotations

import itertools
import math
import re
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Union

from .. import _core
from ..api.errors import ScenarioError, shown
from ..api.literal import from_literal, to_literal
from ..api.overrides import check_key, split_set
from ..api.scenario import anchored
from .limits import MAX_AXIS_VALUES, MAX_SWEEP_RUNS

if TYPE_CHECKING:  # pragma: no cover
    from ..api.scenario import Override, Scenario

Number = Union[int, float]

_INT = re.compile(r"[+-]?\d+\Z")


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
    """True if a written value is a range or a comma list (more than one literal)."""
    if len(_split_list(value)) > 1:
        return True
    return ":" in value and value.strip()[:1] not in ("\"", "'")


def parse_axis(key: str, values: Any) -> list[Any]:
    """The values of one sweep axis, read as the module's doc says.

    Raises :class:`ScenarioError` naming ``key`` for a bad range, an empty
    item of a comma list, or an axis without values.
    """
    if isinstance(values, str):
        items = _split_list(values)
        if len(items) > 1:
            if any(not item.strip() for item in items):
                raise ScenarioError(f'{key}: empty value in list "{shown(values)}"')
            return [from_literal(item) for item in items]
        if is_axis(values):
            return parse_range(key, values)
        return [from_literal(values)]
    if isinstance(values, bytes) or not isinstance(values, Iterable):
        return [values]
    # numpy arrays and pandas series: plain Python values
    listed = values.tolist() if hasattr(values, "tolist") else list(values)
    if not listed:
        raise ScenarioError(f"{key}: no values to sweep")
    return listed


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


def points(scenario: "Scenario", grid: Mapping[str, Any],
           replications: int = 1) -> list[tuple[dict[str, Any], tuple["Override", ...]]]:
    """Every point of the grid, validated, in order (last key varies fastest).

    Returns ``(values, overrides)`` per point. Raises :class:`ScenarioError`
    naming the key and value of the first invalid point, or the size of a grid
    whose points times ``replications`` exceed :data:`MAX_SWEEP_RUNS`, before
    anything runs.
    """
    keys = [check_key(k) for k in grid]
    axes = [parse_axis(k, grid[k]) for k in keys]
    total = math.prod(len(a) for a in axes)
    if total * replications > MAX_SWEEP_RUNS:  # checked before building any of it
        size = f"{total} points" + (f" ({' x '.join(str(len(a)) for a in axes)})" if len(axes) > 1 else "")
        if replications > 1:
            size += f" x {replications} replications = {total * replications} runs"
        unit = "runs" if replications > 1 else "points"
        raise ScenarioError(f"the grid has {size}; a sweep may have at most {MAX_SWEEP_RUNS} {unit}")
    out = []
    for combo in itertools.product(*axes):
        values = dict(zip(keys, combo))
        pairs = tuple((k, to_literal(k, v)) for k, v in values.items())
        try:
            canonical = _core.validate(scenario.text, list(scenario.overrides + pairs))
        except ValueError as e:
            raise ScenarioError(str(e)) from None
        out.append((values, anchored(scenario.overrides + pairs, canonical)))
    return out
