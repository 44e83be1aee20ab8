"""The real-time protocols end to end: shipped scenario files, the CLI and the Python API."""

from __future__ import annotations

import json

import pytest

from ringlet import Scenario, ScenarioError, sweep

from conftest import QUICK, ROOT

PROTOCOLS = ["ppq", "train", "dfc"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_shipped_scenario_runs_from_the_cli(cli, protocol):
    path = ROOT / "scenarios" / "sci-rt" / f"{protocol}-8node.toml"
    sets = [a for q in QUICK for a in ("--set", q)]
    done = cli(["run", str(path), "--json", *sets, "--set", "traffic.load_mbps_per_node=30"])
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["provenance"]["scenario"].count(f'protocol = "{protocol}"') == 1
    # Below saturation every protocol delivers what is offered (8 x 30 MB/s).
    assert out["throughput_mbps"] == pytest.approx(240.0, rel=0.06)
    assert "control_symbols" in out["counters"]


def test_protocol_counters_tell_the_protocols_apart():
    s = Scenario.load(ROOT / "scenarios" / "sci-rt" / "dfc-8node.toml").with_(
        run={"measure_transactions": 4000, "warmup_ns": 2000}, traffic={"priorities": 3, "load_mbps_per_node": 60})
    counters = {p: s.with_(network={"protocol": p}).run().raw["counters"] for p in ["sci", *PROTOCOLS]}
    assert counters["sci"]["control_symbols"] == 0
    assert counters["dfc"]["control_symbols"] > 0          # STOP-THRU / STOP-TO symbols
    assert counters["train"]["control_symbols"] > 0        # train revolutions
    assert counters["ppq"]["preemptions"] > 0              # preemptive queues at saturation


def test_priorities_roll_off_lowest_first_in_a_sweep():
    s = Scenario.load(ROOT / "scenarios" / "sci-rt" / "dfc-8node.toml").with_(
        run={"measure_transactions": 6000, "warmup_ns": 2000}, traffic={"priorities": 3})
    df = sweep(s, {"network.protocol": PROTOCOLS, "traffic.load_mbps_per_node": [60]}, progress=False)
    for protocol, rows in df.groupby("network.protocol"):
        by_prio = rows.set_index("priority")["throughput_mbps"]
        assert by_prio[0] < by_prio[2], protocol


def test_protocol_keys_are_validated():
    s = Scenario.from_toml("[network]\nprotocol = \"train\"\n")
    with pytest.raises(ScenarioError, match=r"train\.ticketmaster: expected a node index in 0\.\.7"):
        s.with_(train={"ticketmaster": 8}).run()
    with pytest.raises(ScenarioError, match=r"dfc\.stop_to_low: expected less than the high-water mark"):
        s.with_(network={"protocol": "dfc"}, dfc={"stop_to_low": 5}).run()
    with pytest.raises(ScenarioError, match=r"ppq\.starvation: expected one of \"aging\", \"inheritance\""):
        s.with_(ppq={"starvation": "never"}).run()


def test_run_summary_shows_the_counters_that_explain_it(cli):
    path = ROOT / "scenarios" / "sci-rt" / "dfc-8node.toml"
    done = cli(["run", str(path), "--set", "run.measure_transactions=4000", "--set", "traffic.priorities=3"])
    assert done.returncode == 0, done.stderr
    # The counters paragraph, as the terminal wraps it (up to the provenance line).
    out = done.stdout.splitlines()
    start = next(k for k, x in enumerate(out) if x.startswith("counters:"))
    end = next(k for k in range(start, len(out)) if out[k].startswith("ringlet "))
    line = " ".join(x.strip() for x in out[start:end])
    raw = json.loads(cli(["run", str(path), "--json", "--set", "run.measure_transactions=4000",
                          "--set", "traffic.priorities=3"]).stdout)["counters"]
    assert f"control symbols {raw['control_symbols']:,}" in line
    assert "preemptions" not in line  # DFC never preempts: zero counters are left out
