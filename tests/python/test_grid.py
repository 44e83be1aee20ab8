"""``--set`` parsing: fixed overrides, inclusive ranges, comma lists."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, strategies as st

from ringlet import ScenarioError
from ringlet.runs.grid import is_axis, parse_axis, parse_range, parse_sets, split_set

K = "traffic.load_mbps_per_node"


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("1:150:10", list(range(1, 151, 10))),
        ("0:100:50", [0, 50, 100]),
        ("5:5:1", [5]),
        ("0:10:3", [0, 3, 6, 9]),
        ("-2:2:2", [-2, 0, 2]),
        ("0.1:0.5:0.1", [0.1, 0.2, 0.3, 0.4, 0.5]),
        ("0:1:0.25", [0.0, 0.25, 0.5, 0.75, 1.0]),
        ("1:2.0:1", [1.0, 2.0]),
    ],
)
def test_range_examples(spec, expected):
    values = parse_range(K, spec)
    assert values == expected
    assert all(type(v) is type(expected[0]) for v in values)


def test_range_last_value_is_141_not_150():
    assert parse_range(K, "1:150:10")[-1] == 141


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("5:1:1", "STOP (1) is below START (5)"),
        ("0:10:0", "STEP must be > 0"),
        ("0:10:-1", "STEP must be > 0"),
        ("1:10", "expected START:STOP:STEP"),
        ("1:2:3:4", "expected START:STOP:STEP"),
        ("a:10:1", 'must be numbers, got "a"'),
        ("0:nan:1", "must be numbers"),
        ("0:inf:1", "must be numbers"),
        ("0:1e12:1", "more than"),
        ("0:1:1e-300", "more than 1000000 values"),  # a quotient decimal cannot hold exactly
        ("0:1e400:1", "more than 1000000 values"),
    ],
)
def test_bad_ranges_name_the_key(spec, fragment):
    with pytest.raises(ScenarioError) as e:
        parse_range(K, spec)
    msg = str(e.value)
    assert msg.startswith(f"{K}: bad range \"{spec}\"")
    assert fragment in msg
    assert "\n" not in msg


@given(
    start=st.integers(-1000, 1000),
    length=st.integers(0, 500),
    step=st.integers(1, 100),
)
def test_integer_ranges_match_python_range(start, length, step):
    stop = start + length
    values = parse_range(K, f"{start}:{stop}:{step}")
    assert values == list(range(start, stop + 1, step))
    assert all(isinstance(v, int) for v in values)


@given(
    start=st.decimals(-100, 100, places=2, allow_nan=False, allow_infinity=False),
    span=st.decimals(0, 50, places=2, allow_nan=False, allow_infinity=False),
    step=st.decimals(Decimal("0.01"), 10, places=2, allow_nan=False, allow_infinity=False),
)
def test_float_ranges_are_inclusive_grids(start, span, step):
    stop = start + span
    spec = f"{start:.2f}:{stop:.2f}:{step:.2f}"
    values = parse_range(K, spec)
    assert all(isinstance(v, float) for v in values)
    assert values[0] == float(start)
    assert values == sorted(values)
    assert values[-1] <= float(stop)
    # the next grid point would pass STOP: STOP is included exactly when on the grid
    assert start + len(values) * step > stop
    assert (values[-1] == float(stop)) == ((stop - start) % step == 0)
    assert len(values) == int(span // step) + 1


def test_axis_forms():
    assert parse_axis("network.protocol", "sci,dfc") == ["sci", "dfc"]
    assert parse_axis("traffic.priorities", "1,2,4") == [1, 2, 4]
    assert parse_axis(K, "1.5,2") == [1.5, 2]
    assert parse_axis("network.protocol", '"sci","dfc"') == ["sci", "dfc"]
    assert parse_axis(K, "0:100:50") == [0, 50, 100]
    assert is_axis("1:5:1") and is_axis("a,b") and not is_axis("120") and not is_axis('"a:b"')
    with pytest.raises(ScenarioError, match="empty value"):
        parse_axis(K, "1,,2")


def test_one_parser_for_python_values_too():
    """``ringlet.sweep`` grids and study files go through the same parser as ``--set``."""
    assert parse_axis(K, range(10, 31, 10)) == [10, 20, 30]
    assert parse_axis(K, np.array([1.5, 2.5])) == [1.5, 2.5] and type(parse_axis(K, np.array([1]))[0]) is int
    assert parse_axis(K, 5) == [5] and parse_axis("network.protocol", "sci") == ["sci"]
    assert parse_axis(K, "10:30:10") == [10, 20, 30] and parse_axis("network.protocol", "sci,dfc") == ["sci", "dfc"]
    with pytest.raises(ScenarioError, match=f"^{K}: no values to sweep$"):
        parse_axis(K, [])


def test_parse_sets_splits_fixed_and_axes():
    fixed, axes = parse_sets([
        "run.seed=3",
        "traffic.load_mbps_per_node=10:30:10",
        "network.protocol=sci",
        "traffic.priorities=1,2",
    ])
    assert fixed == [("run.seed", "3"), ("network.protocol", "sci")]
    assert axes == {"traffic.load_mbps_per_node": [10, 20, 30], "traffic.priorities": [1, 2]}
    assert list(axes) == ["traffic.load_mbps_per_node", "traffic.priorities"]


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("traffic.load_mbps_per_node", "expected KEY=VALUE"),
        ("load=5", "expected SECTION.KEY"),
        ("=5", "expected SECTION.KEY"),
        ("traffic.load_mbps_per_node=", "has no value"),
    ],
)
def test_bad_set_syntax(spec, fragment):
    with pytest.raises(ScenarioError, match=fragment):
        split_set(spec)


def test_key_given_twice_is_an_error():
    with pytest.raises(ScenarioError, match="run.seed: given more than once"):
        parse_sets(["run.seed=1", "run.seed=1,2"])
