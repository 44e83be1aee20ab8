"""The study file's fields, read and checked one at a time: the helpers every part of
the format's parser (:mod:`.format`, :mod:`.plotspec`, :mod:`.claims`,
:mod:`.capacityspec`) shares, and the error they raise."""

from __future__ import annotations

import re
from typing import Any, Mapping, Optional

from ..api.errors import ScenarioError
from ..api.literal import to_literal
from ..api.overrides import check_key
from ..api.scenario import Override
from ..runs.grid import is_axis, parse_axis
from .extract import Value, is_finite_number, is_number, parse_value

#: What a figure id may be.
ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")


class StudyError(ValueError):
    """A study cannot be found, or its file is invalid (one line, names the place)."""


def as_table(spec: Any, context: str) -> Mapping[str, Any]:
    if spec is None:
        return {}
    if not isinstance(spec, Mapping):
        raise StudyError(f"{context}: expected a table")
    return spec


def as_text(spec: Mapping[str, Any], key: str, context: str, default: Optional[str] = None) -> str:
    value = spec.get(key, default)
    if not isinstance(value, str) or (default is None and not value):
        raise StudyError(f"{context}: {key} must be a non-empty string")
    return value


def check_fields(spec: Mapping[str, Any], allowed: set[str], context: str) -> None:
    unknown = set(spec) - allowed
    if unknown:
        raise StudyError(f"{context}: unknown field(s) {', '.join(sorted(unknown))}")


def as_overrides(spec: Mapping[str, Any], context: str) -> tuple[Override, ...]:
    try:
        return tuple((check_key(k), to_literal(k, v)) for k, v in spec.items())
    except ScenarioError as e:
        raise StudyError(f"{context}: {e}") from None


def as_axis(key: str, values: Any, context: str) -> list[Any]:
    """A grid axis: a list of values, or a string with several (a ``"START:STOP:STEP"``
    range, STOP included on the grid, or a comma list), read as ``--set`` reads them."""
    if not (isinstance(values, list) and values) and not (isinstance(values, str) and is_axis(values)):
        raise StudyError(
            f"{context}: {key} must be a non-empty list or a \"START:STOP:STEP\" range "
            f"(a single value belongs in fixed)"
        )
    try:
        axis = parse_axis(key, values)
    except ScenarioError as e:
        raise StudyError(f"{context}: {e}") from None
    for value in axis:  # each a scenario value (NaN refused now, not when the points are planned)
        as_overrides({key: value}, context)
    return axis


def as_values(spec: Any, context: str, what: str) -> Optional[tuple[Any, ...]]:
    if spec is None:
        return None
    if not isinstance(spec, list) or not spec:
        raise StudyError(f"{context}: {what} must be a non-empty list")
    if any(is_number(v) and not is_finite_number(v) for v in spec):
        raise StudyError(f"{context}: {what} must hold finite numbers")
    return tuple(spec)


def as_labels(spec: Any, context: str) -> dict[str, str]:
    return {str(k): str(v) for k, v in as_table(spec, context).items()}


def as_value(spec: Any, context: str) -> Value:
    try:
        return parse_value(spec, context)
    except ValueError as e:
        raise StudyError(str(e)) from None
