"""``Scenario.run`` and ``Result``: the figures of one simulation point."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ringlet import Result, Scenario, ScenarioError

from conftest import SMALL_TOML

REPORT_KEYS = {
    "throughput_mbps", "throughput_mbps_ci95", "offered_mbps", "latency_ns_mean", "latency_ns_mean_ci95",
    "latency_ns_p50", "latency_ns_p99", "latency_ns_p999", "latency_ns_max", "transactions", "retries",
    "sim_time_ns", "measure_time_ns", "batches", "stopped_by",
}


@pytest.fixture(scope="module")
def small() -> Scenario:
    return Scenario.from_toml(SMALL_TOML)


@pytest.fixture(scope="module")
def two_priorities(small) -> Result:
    return small.with_(traffic={"priorities": 2, "load_mbps_per_node": 30}).run()


def _without_wall_time(result: Result) -> dict:
    raw = result.raw
    raw.pop("wall_time_s"), raw.pop("setup_time_s")
    return raw


def test_result_structure(small):
    r = small.run()
    assert isinstance(r, Result)
    assert REPORT_KEYS <= set(r.summary)
    assert "wall_time_s" in r.summary
    # The wall time splits into the set-up (scenario and network) and the run.
    assert 0 <= r.summary["setup_time_s"] <= r.summary["wall_time_s"]
    assert not any(isinstance(v, (dict, list)) for v in r.summary.values())
    assert set(r.provenance) >= {"ringlet_version", "seed", "scenario_hash", "scenario"}
    assert r.provenance["scenario_hash"] == small.hash
    assert r.provenance["seed"] == 1
    assert Scenario.from_toml(r.provenance["scenario"]).hash == small.hash  # re-runnable exactly
    assert {"retries", "busy_echoes", "packet_hops"} <= set(r.counters)
    assert set(r.conservation) == {"generated", "completed", "queued", "in_flight", "lost", "delivered_twice"}
    assert r.conservation["delivered_twice"] == 0
    assert json.loads(r.to_json()) == r.raw
    assert list(r.per_priority.columns[:4]) == ["priority", "throughput_mbps", "offered_mbps", "transactions"]
    assert list(r.per_link.columns[:4]) == ["link", "from_node", "to_node", "utilization"]
    assert r["transactions"] == r.summary["transactions"]
    assert "Result(" in repr(r)


def test_run_measures_the_requested_transactions(small):
    r = small.run()
    assert r.summary["transactions"] >= 4000
    assert r.summary["stopped_by"] == "transactions"
    assert len(r.per_priority) == 1
    assert len(r.per_link) == 8
    assert r.per_link["utilization"].between(0, 1).all()
    assert r.summary["latency_ns_p50"] <= r.summary["latency_ns_p99"] <= r.summary["latency_ns_p999"] <= r.summary["latency_ns_max"]
    assert r.summary["latency_ns_mean"] > 0


def test_every_transaction_is_accounted_for(small):
    c = small.run().conservation
    assert c["generated"] > 0
    assert c["generated"] == c["completed"] + c["queued"] + c["in_flight"]


def test_throughput_equals_offered_load_below_saturation(base_path):
    """8 nodes x 50 MB/s offered on the base ring: ~400 MB/s delivered."""
    s = Scenario.load(base_path).with_(run={"measure_transactions": 20000})
    r = s.run().summary
    assert r["throughput_mbps"] == pytest.approx(400.0, rel=0.05)
    assert r["offered_mbps"] == pytest.approx(400.0, rel=1e-9)
    assert r["throughput_mbps_ci95"] > 0


def test_per_priority_rows_sum_to_the_total(two_priorities):
    pp = two_priorities.per_priority
    total = two_priorities.summary
    assert len(pp) == 2
    assert pp["priority"].nunique() == 2
    assert pp["throughput_mbps"].sum() == pytest.approx(total["throughput_mbps"], rel=1e-9)
    assert pp["offered_mbps"].sum() == pytest.approx(total["offered_mbps"], rel=1e-9)
    assert pp["transactions"].sum() == total["transactions"]


def test_same_scenario_and_seed_is_bit_identical(small):
    a, b = small.run(), small.run()
    assert _without_wall_time(a) == _without_wall_time(b)


def test_different_seed_gives_different_numbers(small):
    a = small.run().summary
    b = small.set("run.seed", 2).run().summary
    assert (a["throughput_mbps"], a["latency_ns_mean"]) != (b["throughput_mbps"], b["latency_ns_mean"])


def test_keys_only_the_model_can_check_are_rejected_before_running(small):
    """The schema admits any bypass FIFO size; the model needs one packet's worth,
    and says so when the scenario is built, before anything runs."""
    with pytest.raises(ScenarioError) as e:
        small.set("network.bypass_fifo_symbols", 3)
    assert str(e.value).startswith("network.bypass_fifo_symbols:")
    assert small.set("network.bypass_fifo_symbols", 41).run().summary["transactions"] > 0


@pytest.mark.parametrize("protocol, key, bad, message", [
    ("dfc", "dfc.stop_to_low", 5, "dfc.stop_to_low: expected less than the high-water mark (5), got 5"),
    ("dfc", "dfc.stop_to_high", 6, "dfc.stop_to_high: expected at most the input queue size (5), got 6"),
    ("train", "train.budget_symbols", 39,
     "train.budget_symbols: expected 0 (derived) or at least the longest send packet (40 symbols), got 39"),
])
def test_a_protocols_own_checks_come_before_running(small, protocol, key, bad, message):
    """DFC's water marks and TRAIN's budget are checked when the scenario is
    built (so a sweep checks every point first), not when it runs."""
    s = small.set("network.protocol", protocol)
    with pytest.raises(ScenarioError) as e:
        s.set(key, bad)
    assert str(e.value) == message
    assert small.set(key, bad).get(key) == bad  # another protocol's keys are not its business


def test_a_run_ends_before_its_warm_up_is_refused(small):
    with pytest.raises(ScenarioError, match=r"^run\.warmup_ns: expected less than run\.max_sim_time_ns"):
        small.set("run.max_sim_time_ns", small.get("run.warmup_ns"))


def test_tables_have_the_cores_columns(small):
    """Every table's columns come from the core's schema, whether or not the result holds the table."""
    from ringlet.api import schema

    r = small.run()
    for name in schema.report_schema()["tables"]:
        columns = schema.names(schema.table(name))
        frame = r.table(name)
        # (A table of another family, such as per_switch on a ring, is empty.)
        assert list(frame.columns[:len(columns)]) == columns and len(frame) == len(r.raw.get(name) or [])
    pd.testing.assert_frame_equal(r.table("per_priority"), r.per_priority)
    for name in ("per_node", "per_ringlet", "per_class"):  # tables the core adds: empty until it reports them
        frame = getattr(r, name)
        columns = schema.names(schema.table(name) or [])
        assert list(frame.columns[:len(columns)]) == columns and len(frame) == len(r.raw.get(name) or [])
    raw = r.raw
    del raw["per_link"]
    missing = Result(json.dumps(raw)).per_link
    assert missing.empty and list(missing.columns) == schema.names(schema.table("per_link"))
    with pytest.raises(KeyError, match="per_prority: not a report table"):
        r.table("per_prority")


def test_the_wall_time_is_shown_split():
    from ringlet.report.provenance import wall_split

    assert wall_split(1.2449, 0.95) == "1.24 s wall (0.95 s set-up, 0.29 s run)"
    assert wall_split(0.5, None) == "0.50 s wall"  # a result stored before the split
