"""Fuzzing the scenario binding from Python: whatever the scenario text or the
``--set`` strings, the answer is a scenario or a one-line error.

Every input either succeeds or raises :class:`ScenarioError` (``ValueError``
straight from ``_core``) with a message of exactly one line, ``SUBJECT: PROBLEM``.
Anything else fails, above all pyo3's ``PanicException`` (a ``BaseException``,
so the calls are wrapped in ``except BaseException``). The inputs are fully
arbitrary text and near-valid TOML built from the real sections and keys of
docs/scenario.md, with junk, out-of-range and wrongly typed values.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable, Optional

from hypothesis import example, given, settings, strategies as st

from conftest import ROOT
from ringlet import Scenario, ScenarioError, _core
from ringlet.api.literal import toml_string
from ringlet.api.overrides import split_set
from ringlet.runs.grid import parse_sets, points


def _reference() -> dict[str, dict[str, str]]:
    """``{section: {key: what it accepts}}``, from docs/scenario.md (the core's, every
    family's and every protocol's sections, under ``##`` and ``###`` headings)."""
    sections: dict[str, dict[str, str]] = {}
    keys: Optional[dict[str, str]] = None
    for line in (ROOT / "docs" / "scenario.md").read_text().splitlines():
        if line.startswith("## ") or line.startswith("### "):
            heading = re.fullmatch(r"###? \[(\w+)\]", line)
            keys = sections.setdefault(heading[1], {}) if heading else None
        elif keys is not None and line.startswith("| `"):
            cells = re.split(r"(?<!\\)\|", line)  # (the accepts column escapes its own bars)
            keys[cells[1].strip().strip("`")] = cells[2].strip()
    return sections


REFERENCE = _reference()
SECTIONS = [*REFERENCE, "bogus"]
KEYS = sorted({key for keys in REFERENCE.values() for key in keys})
DOTTED_KEYS = [f"{section}.{key}" for section, keys in REFERENCE.items() for key in keys]
WORDS = sorted({word for keys in REFERENCE.values() for accepts in keys.values()
                for word in re.findall(r"`([^`]+)`", accepts)})

#: A few seconds a property.
FUZZ = settings(max_examples=250, deadline=None)


def mostly(usual: st.SearchStrategy, other: st.SearchStrategy, one_in: int) -> st.SearchStrategy:
    """``usual``, but ``other`` about one time in ``one_in``."""
    return st.integers(1, one_in).flatmap(lambda dice: other if dice == 1 else usual)


def accepted(accepts: str) -> st.SearchStrategy[str]:
    """TOML values in and just outside what a key accepts (its docs/scenario.md "accepts" cell)."""
    words = re.findall(r"`([^`]+)`", accepts)
    if words:
        return st.sampled_from([w if w in ("true", "false") else toml_string(w) for w in words])
    at_least = re.fullmatch(r"number >= (\S+)", accepts)
    if at_least:  # e.g. "number >= 0", "number >= 1"
        lo = float(at_least[1])
        return st.one_of(st.floats(lo, lo + 1e6).map(repr),
                         st.sampled_from([repr(lo), repr(lo - 1), "-0.0", "1e300"]))
    if not re.match(r"(integer|number) ", accepts):  # free text: a file path (traffic.trace), a digest
        return st.sampled_from([toml_string(t) for t in ("t.csv", "missing.parquet", "t.txt", "", "0" * 64)])
    kind, low, high = re.fullmatch(r"(integer|number) (\S+)\.\.(\S+)", accepts).groups()
    if kind == "integer":
        lo, hi = int(low), int(high)
        return mostly(st.integers(lo, hi), st.sampled_from([lo - 1, hi + 1]), 6).map(str)
    lo, hi = float(low), float(high)
    return mostly(st.floats(lo, hi), st.sampled_from([-lo - 1, hi * 2]), 6).map(repr)


ACCEPTED = {f"{section}.{key}": accepted(accepts) for section, keys in REFERENCE.items()
            for key, accepts in keys.items()}


def test_the_reference_is_read():
    assert set(REFERENCE) == {"network", "node", "traffic", "run", "ppq", "train", "dfc", "switch", "gigaring", "faults"}
    assert "fifo_to_blink_ns" in REFERENCE["switch"] and "topology" in REFERENCE["network"]
    assert "nodes" in REFERENCE["network"] and "seed" in REFERENCE["run"] and len(KEYS) >= 40
    assert "sci-ring" in WORDS and "dfc" in WORDS and "hotspot" in WORDS


# -- TOML values, keys and documents ---------------------------------------------------------

INTEGERS = st.one_of(
    st.integers(-10, 5000),
    st.integers(),  # far beyond i64 too
    st.sampled_from([2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64, 10**30]),
).map(str)
FLOATS = st.one_of(
    st.floats().map(repr),  # nan and inf among them
    st.sampled_from(["nan", "+nan", "-nan", "+inf", "-inf", "1e400", "-1e400", "1e-400", "-0.0", "6.02e23",
                     "0.000001", "4096.0", "2.5", "1.", ".5", "1e"]),
)
SPELLINGS = st.sampled_from(["0x7FFFFFFFFFFFFFFF", "0xFFFFFFFFFFFFFFFFF", "0o777", "0b101", "1_000", "+8", "-0",
                             "08", "1__0", "0x", "True", "yes", "null", "''", '""'])
STRINGS = st.one_of(
    st.sampled_from(WORDS).map(toml_string),
    st.text(max_size=12).map(toml_string),
    st.text(alphabet=st.characters(exclude_characters="'\n\r"), max_size=12).map(lambda s: f"'{s}'"),
    st.text(max_size=12).map(lambda s: f'"""{s}"""'),  # unescaped: often not TOML
)
DATES = st.sampled_from(["1979-05-27", "1979-05-27T07:32:00Z", "1979-05-27 07:32:00.999999-07:00",
                         "1979-05-27T07:32:00", "07:32:00", "2026-13-45", "0000-00-00T25:61:61Z"])
SCALARS = st.one_of(INTEGERS, FLOATS, SPELLINGS, STRINGS, st.sampled_from(["true", "false"]), DATES)

BARE_KEYS = st.one_of(st.sampled_from(KEYS), st.from_regex(r"[A-Za-z0-9_-]{1,10}", fullmatch=True))
KEY_NAMES = st.one_of(
    BARE_KEYS,
    st.text(max_size=8).map(toml_string),  # quoted: any character, the empty key too
    st.tuples(BARE_KEYS, BARE_KEYS).map(".".join),  # dotted
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda xs: f"[{', '.join(xs)}]"),
        st.lists(st.tuples(KEY_NAMES, inner), max_size=3).map(
            lambda kvs: "{ " + ", ".join(f"{k} = {v}" for k, v in kvs) + " }"),
    ),
    max_leaves=6,
)
LITERALS = mostly(VALUES, st.text(max_size=12), 4)  # (any text: seldom TOML at all)

SECTION_NAMES = st.one_of(st.sampled_from(SECTIONS), st.text(max_size=8).map(toml_string))
ODD_HEADERS = st.one_of(
    SECTION_NAMES.map(lambda s: f"[{s}]"),
    SECTION_NAMES.map(lambda s: f"[[{s}]]"),  # an array of tables
    st.tuples(SECTION_NAMES, BARE_KEYS).map(lambda sk: f"[{sk[0]}.{sk[1]}]"),  # a subtable
)


def value_of(draw: st.DrawFn, key: str) -> str:
    """Mostly what ``key`` accepts (or just misses), else any literal."""
    return draw(mostly(ACCEPTED[key], LITERALS, 12) if key in ACCEPTED else LITERALS)


@st.composite
def documents(draw: st.DrawFn) -> str:
    """Scenario TOML, mostly the real sections and keys, with good, bad and junk values."""
    lines = [f"{draw(KEY_NAMES)} = {draw(LITERALS)}" for _ in range(draw(st.integers(0, 3)) // 3)]
    for section in draw(st.lists(st.sampled_from(SECTIONS), unique=True, max_size=4)):
        lines.append(draw(ODD_HEADERS) if draw(st.integers(0, 7)) == 0 else f"[{section}]")
        for key in draw(st.lists(st.sampled_from(sorted(REFERENCE.get(section, KEYS))), unique=True, max_size=4)):
            lines.append(f"{key} = {value_of(draw, f'{section}.{key}')}")
        for _ in range(draw(st.integers(0, 7)) // 7):  # now and then a key of no section's
            lines.append(f"{draw(KEY_NAMES)} = {draw(LITERALS)}")
    return "\n".join(lines)


TEXTS = mostly(documents(), st.one_of(
    st.text(),
    st.text(st.characters(exclude_categories=()), max_size=8),  # lone surrogates too: not UTF-8
), 3)
DOTTED = st.one_of(
    st.sampled_from(DOTTED_KEYS),
    st.tuples(st.sampled_from(SECTIONS), st.sampled_from(KEYS)).map(".".join),
    st.tuples(st.text(max_size=6), st.text(max_size=6)).map(".".join),
    st.text(max_size=12),
)


@st.composite
def overrides(draw: st.DrawFn) -> tuple[str, str]:
    key = draw(DOTTED)
    return key, value_of(draw, key)


# --set strings: SECTION.KEY=VALUE from random pieces, values that are ranges and lists too.
PIECES = st.one_of(st.sampled_from([*SECTIONS, *KEYS, ""]), st.text(max_size=6))
NUMBERS = st.one_of(INTEGERS, FLOATS, st.text(max_size=4))
SET_VALUES = st.one_of(
    LITERALS,
    st.tuples(NUMBERS, NUMBERS, NUMBERS).map(":".join),  # a range
    st.lists(st.one_of(SCALARS, st.just(""), st.text(max_size=4)), min_size=2, max_size=4).map(",".join),  # a list
    st.text(alphabet="\"',:= \n", max_size=8),  # quotes and separators
)


@st.composite
def good_sets(draw: st.DrawFn) -> str:
    """``section.key=value`` with a real key and mostly a value it accepts, a range or a list of them."""
    key = draw(st.sampled_from(DOTTED_KEYS))
    shape = draw(st.integers(0, 2))
    if shape == 0:
        return f"{key}={value_of(draw, key)}"
    if shape == 1:
        return f"{key}={draw(st.integers(-5, 100))}:{draw(st.integers(-5, 100))}:{draw(st.integers(-1, 30))}"
    return f"{key}=" + ",".join(value_of(draw, key) for _ in range(draw(st.integers(2, 3))))


SETS = st.one_of(
    st.text(max_size=20),
    st.tuples(PIECES, st.sampled_from([".", "", ".."]), PIECES, st.sampled_from(["=", "", " = ", "==", ":"]),
              SET_VALUES).map("".join),
    good_sets(),
)


# -- the property ---------------------------------------------------------------------------


def raised(call: Callable[[], Any]) -> Optional[BaseException]:
    """What ``call`` raised, if anything; pyo3's PanicException is a BaseException."""
    try:
        call()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # (a panic is one: caught, to be reported)
        return e
    return None


def assert_one_line_error(error: Optional[BaseException], allowed: type[BaseException]) -> None:
    """None, or an ``allowed`` error whose message is one line, ``SUBJECT: PROBLEM``."""
    if error is None:
        return
    assert isinstance(error, allowed), f"{type(error).__module__}.{type(error).__qualname__}: {error}"
    message = str(error)
    # splitlines, as the CLI's one-error-line tests read stderr (\n, \r, \x85, \u2028 all break a line)
    assert len(message.splitlines()) == 1, f"not one line: {message!r}"
    assert re.fullmatch(r".*: \S.*", message, re.S), f"names no problem: {message!r}"


# Found by this test: the core wrote a key (a TOML quoted key, or an override's key)
# or the origin into its message as it is, so a line break in it split the message
# ('a\nb: unknown section (...)'); the core now escapes them (ScenarioError::new).
@FUZZ
@example(text='"a\\nb" = 1', overrides=[], origin=None)
@example(text='[network]\n"no\\ndes" = 8', overrides=[], origin=None)
@example(text="", overrides=[("net\nwork.nodes", "8")], origin=None)
@example(text="nodes = = 8", overrides=[], origin="a\nb.toml")
@given(text=TEXTS, overrides=st.lists(overrides(), max_size=3), origin=st.one_of(st.none(), st.text(max_size=12)))
def test_core_validate_answers_a_scenario_or_one_line(text, overrides, origin):
    assert_one_line_error(raised(lambda: _core.validate(text, overrides, origin)), ValueError)


@FUZZ
@example(text='[network]\n"no\\ndes" = 8', sets=[])  # was 'network.no\ndes: unknown key' on two lines
@given(text=TEXTS, sets=st.lists(SETS, max_size=3))
def test_scenario_answers_a_scenario_or_one_line(text, sets):
    made: list[Scenario] = []
    assert_one_line_error(raised(lambda: made.append(Scenario.from_toml(text).with_overrides(sets))), ScenarioError)
    if made:  # what validates, validates again from its canonical TOML, to the same scenario
        assert Scenario.from_toml(made[0].toml) == made[0]


PYTHON_VALUES = st.one_of(
    st.integers(), st.floats(), st.booleans(), st.sampled_from(WORDS),
    st.text(st.characters(exclude_categories=()), max_size=8),  # lone surrogates too
    st.none(), st.lists(st.integers(), max_size=2),  # not values at all
)


@FUZZ
@example(changes=[("net\nwork.nodes", 8)], grouped=False)  # was 'net\nwork.nodes: expected SECTION.KEY, ...'
@example(changes=[("net\nwork.nodes", math.nan)], grouped=True)  # was 'net\nwork.nodes: expected a finite ...'
@given(changes=st.lists(st.tuples(DOTTED, PYTHON_VALUES), max_size=3), grouped=st.booleans())
def test_set_and_with_answer_a_scenario_or_one_line(changes, grouped):
    """Python values through ``Scenario.set`` or, grouped by section, ``Scenario.with_``."""
    def change() -> None:
        scenario = Scenario.from_toml("")
        if grouped:
            sections: dict[str, dict[str, Any]] = {}
            for dotted, value in changes:
                section, _, key = dotted.partition(".")
                sections.setdefault(section, {})[key] = value
            scenario.with_(**sections)
        else:
            for dotted, value in changes:
                scenario = scenario.set(dotted, value)

    assert_one_line_error(raised(change), ScenarioError)


@FUZZ
@example(specs=["a\nb"])  # was '--set a\nb: expected KEY=VALUE, ...' on two lines
@example(specs=["network.nodes=1:\n:3"])  # was 'bad range "1:\n:3"' on two lines
@given(specs=st.lists(SETS, max_size=4))
def test_set_parsing_answers_or_one_line(specs):
    """The CLI's paths: ``run`` splits every --set; ``sweep`` sorts them into fixed
    overrides and axes, applies the fixed ones and validates the grid's points."""
    for spec in specs:
        assert_one_line_error(raised(lambda: split_set(spec)), ScenarioError)
    planned: list[tuple] = []

    def sweep_plan() -> None:
        fixed, axes = parse_sets(specs)
        scenario = Scenario.from_toml("").with_overrides(fixed)
        # An axis's first and last values stand for it: a range may hold a million.
        points(scenario, {key: values[:1] + values[-1:] for key, values in axes.items()})
        planned.append((fixed, axes))

    assert_one_line_error(raised(sweep_plan), ScenarioError)
    if planned:  # a key is fixed or an axis, never both
        fixed, axes = planned[0]
        assert not set(axes) & {key for key, _ in fixed}
