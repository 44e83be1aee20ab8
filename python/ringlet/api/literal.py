"""Python values <-> TOML literals, as the scenario overrides use them.

An override value travels to the Rust core as a TOML literal (``120``,
``"dfc"``, ``true``); the core reads a bare word that is not TOML as a string.
"""

from __future__ import annotations

import math
import numbers
import sys
import tomllib
from typing import Any, Union

from .errors import ScenarioError, shown

Scalar = Union[bool, int, float, str]

#: TOML's largest integer (an i64), so the core's and SQLite's too: the most
#: any count or id an option takes can be.
MAX_INT = 2**63 - 1

# TOML basic strings must escape these; everything else may appear as is.
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def toml_string(text: str) -> str:
    """Encodes ``text`` as a TOML basic string (double quoted, escaped)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        elif 0xD800 <= code <= 0xDFFF:
            raise ValueError(f"lone surrogate U+{code:04X} cannot be written in TOML")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def to_literal(key: str, value: Any) -> str:
    """Encodes one override value as a TOML literal.

    ``bool`` -> ``true``/``false``, integers -> their digits, floats -> ``repr``
    (NaN and infinities are rejected), strings -> a TOML basic string. Numpy
    scalars count as the matching Python type. Anything else is a
    :class:`ScenarioError` naming ``key``.
    """
    np = sys.modules.get("numpy")  # a numpy bool can only exist if numpy is loaded
    if isinstance(value, bool) or (np is not None and isinstance(value, np.bool_)):
        return "true" if bool(value) else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        x = float(value)
        if not math.isfinite(x):
            raise ScenarioError(f"{shown(key)}: expected a finite number, got {x!r}")
        return repr(x)
    if isinstance(value, str):
        try:
            return toml_string(value)
        except ValueError as e:
            raise ScenarioError(f"{shown(key)}: {e}") from None
    raise ScenarioError(
        f"{shown(key)}: expected a string, number or boolean, got {value!r} ({type(value).__name__})"
    )


def from_literal(raw: str) -> Any:
    """Reads a raw ``--set`` value the way the core does.

    A TOML literal gives its value (``120`` -> 120, ``"dfc"`` -> "dfc",
    ``true`` -> True); anything that is not TOML is taken as a bare string.
    """
    raw = raw.strip()
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw
