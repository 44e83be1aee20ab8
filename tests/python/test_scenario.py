"""``Scenario``: loading, validation, immutable changes, reading values."""

from __future__ import annotations

import math
import tomllib

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ringlet
from ringlet import Scenario, ScenarioError
from ringlet.api.literal import from_literal, to_literal


def test_load_fills_defaults(base_path):
    s = Scenario.load(base_path)
    assert s.get("network.nodes") == 8
    assert s.get("traffic.load_mbps_per_node") == 50.0
    assert s.get("run.ci_rel_halfwidth") is None
    assert s.path == str(base_path)
    assert "[network]" in s.toml and "nodes = 8" in s.toml
    assert len(s.hash) == 16


def test_load_missing_file_names_the_path(tmp_path):
    missing = tmp_path / "nope.toml"
    with pytest.raises(ScenarioError) as e:
        Scenario.load(missing)
    assert str(missing) in str(e.value)
    assert "cannot read scenario file" in str(e.value)


def test_scenario_error_is_a_value_error():
    assert issubclass(ScenarioError, ValueError)


@pytest.mark.parametrize(
    "text, message",
    [
        ('[traffic]\nload_mbps_per_node = "fast"', 'traffic.load_mbps_per_node: expected a number >= 0, got "fast"'),
        ("[traffic]\nload_mbps_per_node = -1.5", "traffic.load_mbps_per_node: expected a number >= 0, got -1.5"),
        ("[network]\nnodes = 1", "network.nodes: expected an integer in 2..4096, got 1"),
        ("[network]\nnodez = 3", "network.nodez: unknown key"),
    ],
)
def test_validation_errors_are_the_cores_one_line_messages(text, message):
    with pytest.raises(ScenarioError) as e:
        Scenario.from_toml(text)
    assert str(e.value) == message


def test_malformed_toml_is_one_line_with_position():
    with pytest.raises(ScenarioError) as e:
        Scenario.from_toml("[network]\nnodes = = 3\n")
    assert str(e.value).startswith("malformed TOML at line 2, column")
    assert "\n" not in str(e.value)


def test_malformed_toml_in_a_file_names_the_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("[network]\nnodes = = 3\n")
    with pytest.raises(ScenarioError) as e:
        Scenario.load(path)
    assert str(e.value).startswith(f"{path}: malformed TOML at line 2, column")


def test_a_key_error_in_a_file_names_the_key_not_the_file(tmp_path):
    path = tmp_path / "bad-key.toml"
    path.write_text("[network]\nnodez = 3\n")
    with pytest.raises(ScenarioError) as e:
        Scenario.load(path)
    with pytest.raises(ScenarioError) as from_text:
        Scenario.from_toml(path.read_text())
    assert str(e.value) == str(from_text.value) and "network.nodez" in str(e.value)


def test_with_overrides_takes_pairs_or_key_value_strings():
    base = Scenario.from_toml("")
    assert base.with_overrides(["network.nodes=16"]).toml == base.with_overrides([("network.nodes", "16")]).toml
    with pytest.raises(ScenarioError, match="expected KEY=VALUE"):
        base.with_overrides(["network.nodes"])
    with pytest.raises(ScenarioError, match=r"expected a \(KEY, VALUE\) pair"):
        base.with_overrides([("network.nodes", "16", "x")])


def test_with_returns_a_new_validated_scenario(base_path):
    s = Scenario.load(base_path)
    t = s.with_(traffic={"load_mbps_per_node": 120}, network={"nodes": 16})
    assert t is not s
    assert t.get("traffic.load_mbps_per_node") == 120.0
    assert t.get("network.nodes") == 16
    assert s.get("traffic.load_mbps_per_node") == 50.0  # the original is unchanged
    assert s.get("network.nodes") == 8
    assert t.hash != s.hash
    assert t.path == s.path


def test_set_dotted_key_and_later_overrides_win():
    s = Scenario.from_toml("")
    t = s.set("traffic.load_mbps_per_node", 10).set("traffic.load_mbps_per_node", 20)
    assert t.get("traffic.load_mbps_per_node") == 20.0
    assert s.set("traffic.destinations", "hotspot").get("traffic.destinations") == "hotspot"
    assert s.set("run.seed", np.int64(7)).get("run.seed") == 7
    assert s.set("traffic.load_mbps_per_node", np.float64(12.5)).get("traffic.load_mbps_per_node") == 12.5


def test_derived_defaults_keep_following_their_source():
    s = Scenario.from_toml("").with_(node={"input_queue_packets": 9})
    assert s.get("node.requestor_input_queue_packets") == 9
    assert s.get("node.responder_input_queue_packets") == 9


def test_same_scenario_same_hash_and_equality():
    a = Scenario.from_toml("")
    b = Scenario.from_toml("[network]\nnodes = 8\n")
    assert a == b and a.hash == b.hash and hash(a) == hash(b)
    assert a != a.set("network.nodes", 9)
    # the canonical TOML reproduces the scenario exactly
    assert Scenario.from_toml(a.toml).hash == a.hash


@pytest.mark.parametrize(
    "key, value, fragment",
    [
        ("traffic.load_mbps_per_node", math.nan, "traffic.load_mbps_per_node: expected a finite number, got nan"),
        ("traffic.load_mbps_per_node", math.inf, "traffic.load_mbps_per_node: expected a finite number, got inf"),
        ("traffic.load_mbps_per_node", "fast", 'traffic.load_mbps_per_node: expected a number >= 0, got "fast"'),
        ("traffic.load_mbps_per_node", -3, "traffic.load_mbps_per_node: expected a number >= 0, got -3"),
        ("network.nodes", 1, "network.nodes: expected an integer in 2..4096, got 1"),
        ("network.nodes", 2.5, "network.nodes: expected an integer in 2..4096, got 2.5"),
        ("traffic.load_mbps_per_node", [1], "traffic.load_mbps_per_node: expected a string, number or boolean"),
        ("traffic.load_mbps_per_node", None, "traffic.load_mbps_per_node: expected a string, number or boolean"),
        ("traffic.speed", 3, "traffic.speed: unknown key"),
        ("trafficspeed", 3, "trafficspeed: expected SECTION.KEY"),
    ],
)
def test_bad_values_raise_scenario_error_naming_the_key(key, value, fragment):
    with pytest.raises(ScenarioError) as e:
        Scenario.from_toml("").set(key, value)
    assert str(e.value).startswith(fragment)
    assert "\n" not in str(e.value)


def test_with_rejects_unknown_sections_and_non_dicts():
    with pytest.raises(ScenarioError, match="netwrk: unknown section"):
        Scenario.from_toml("").with_(netwrk={"nodes": 4})
    with pytest.raises(TypeError):
        Scenario.from_toml("").with_(network=4)


def test_get_unknown_key():
    with pytest.raises(KeyError):
        Scenario.from_toml("").get("network.nodez")


def test_repr_names_the_essentials(base_path):
    r = repr(Scenario.load(base_path))
    assert "nodes=8" in r and "load_mbps_per_node=50.0" in r and Scenario.load(base_path).hash in r


def test_version():
    assert ringlet.__version__ == ringlet._core.version()
    assert ringlet.__version__.count(".") == 2


# -- TOML literals -------------------------------------------------------------


def test_literals():
    assert to_literal("k.k", True) == "true"
    assert to_literal("k.k", False) == "false"
    assert to_literal("k.k", np.bool_(True)) == "true"
    assert to_literal("k.k", 120) == "120"
    assert to_literal("k.k", 0.1) == "0.1"
    assert to_literal("k.k", 1e20) == "1e+20"
    assert to_literal("k.k", "dfc") == '"dfc"'
    assert from_literal("120") == 120
    assert from_literal('"dfc"') == "dfc"
    assert from_literal("dfc") == "dfc"
    assert from_literal("true") is True


@given(st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",))),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
))
def test_literals_round_trip_through_toml(value):
    parsed = tomllib.loads(f"v = {to_literal('k.k', value)}")["v"]
    assert parsed == value and type(parsed) is type(value)
