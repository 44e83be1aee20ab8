"""The analytic model beside a run (docs/analytic.md): its figures in the run's
JSON and table, and the warning when simulation and model part well below
saturation (and only then)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from conftest import ROOT
from ringlet.api.analytic import LATENCY_MARGIN, THROUGHPUT_MARGIN, WELL_BELOW, disagreement

BASE = {"transactions": 1000, "stopped_by": "transactions", "batches": 20, "model_utilization": 0.1, "throughput_mbps": 100.0, "throughput_mbps_ci95": 1.0,
        "model_throughput_mbps": 100.0, "latency_ns_mean": 200.0, "latency_ns_mean_ci95": 2.0,
        "model_latency_ns_mean": 200.0}


def test_no_warning_within_the_margins():
    assert disagreement(BASE) is None
    # At the margin plus the confidence half-width, still none.
    edge = {**BASE, "latency_ns_mean": 200.0 * (1 + LATENCY_MARGIN) + 2.0,
            "throughput_mbps": 100.0 * (1 - THROUGHPUT_MARGIN) - 1.0}
    assert disagreement(edge) is None


def test_a_warning_names_what_parts_and_by_how_much():
    far = {**BASE, "latency_ns_mean": 200.0 * (1 + LATENCY_MARGIN) + 10.0}
    text = disagreement(far)
    assert text and "mean latency 260.0 ns against the model's 200.0" in text and "+30%" in text
    assert "throughput" not in text.split(":", 1)[1].split("—")[0]
    low = {**BASE, "throughput_mbps": 80.0}
    assert "throughput 80.0 MB/s against the model's 100.0 (-20%" in disagreement(low)


def test_no_warning_near_saturation_or_without_a_model():
    far = {**BASE, "latency_ns_mean": 1000.0}
    assert disagreement({**far, "model_utilization": WELL_BELOW + 0.01}) is None
    assert disagreement({**far, "model_utilization": None}) is None
    assert disagreement({**far, "model_latency_ns_mean": None}) is None
    assert disagreement({**far, "transactions": 0}) is None
    # Nor for a run cut short, whose figures rest on a few transactions.
    assert disagreement({**far, "stopped_by": "time_cap"}) is None
    assert disagreement({**far, "batches": 3}) is None
    assert disagreement(far) is not None


def _run(*args):
    return subprocess.run([sys.executable, "-m", "ringlet", "run", *args], capture_output=True, text=True, check=True,
                          cwd=ROOT)


def test_run_reports_the_model_and_warns_only_where_it_parts():
    done = _run("scenarios/sci/base-8node.toml", "--json", "--set", "run.measure_transactions=3000",
                "--set", "traffic.load_mbps_per_node=20")
    r = json.loads(done.stdout)
    assert r["model_bottleneck"].startswith("link out of node")
    assert r["model_saturation_load_mbps_per_node"] * 8 == pytest.approx(1066.6667, rel=1e-4)
    assert r["model_utilization"] == pytest.approx(20 / r["model_saturation_load_mbps_per_node"])
    assert abs(r["latency_ns_mean"] - r["model_latency_ns_mean"]) < 0.05 * r["model_latency_ns_mean"]
    assert "warning" not in done.stderr
    # TRAIN with 40-cycle node delays: the LocalMotive's wait grows beyond the model's.
    parted = _run("scenarios/sci-rt/train-8node.toml", "--set", "traffic.load_mbps_per_node=5",
                  "--set", "run.measure_transactions=3000", "--set", "network.node_delay_cycles=40")
    assert "warning: simulation and analytic model part" in parted.stderr
    assert "model saturation" in parted.stdout


def test_beyond_saturation_the_model_has_no_latency():
    r = json.loads(_run("scenarios/sci/base-8node.toml", "--json", "--set", "run.measure_transactions=500",
                        "--set", "traffic.load_mbps_per_node=200", "--set", "run.max_sim_time_ns=200000").stdout)
    assert r["model_latency_ns_mean"] is None and r["model_utilization"] > 1
    assert math.isclose(r["model_throughput_mbps"], r["offered_mbps"] / r["model_utilization"])
