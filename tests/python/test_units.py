"""One unit convention everywhere: every reported figure is payload; on the
switch families the load key is the processors' raw input (headers and
idles), shown beside the payload and labelled as such, in the run's table,
the report's axes and tables; a packet's latency is named apart from a
GigaRing's channel and transaction latencies."""

from __future__ import annotations

import base64
import re

import pytest

import ringlet
from ringlet.api import units
from ringlet.study.plots import DEFAULT_LABELS


@pytest.fixture(scope="module")
def banyan_run():
    return ringlet.Scenario.load("scenarios/banyan/uO4nS16.toml").set("run.measure_transactions", 3000).run()


def test_the_raw_input_of_a_switch_family_beside_its_payload(banyan_run):
    raw = units.raw_input_mbps(banyan_run.raw)
    assert raw == 16 * 100.0  # 16 processors at 100 MB/s raw each
    # Payload: 64 of every 84 raw bytes (deterministic arrivals, so exact up to the run's edges).
    assert banyan_run.summary["offered_mbps"] == pytest.approx(raw * 64 / 84, rel=0.01)
    ring = ringlet.Scenario.load("scenarios/sci/base-8node.toml").set("run.measure_transactions", 2000).run()
    assert units.raw_input_mbps(ring.raw) is None  # a ring's load is payload already


def test_the_run_table_labels_payload_and_raw_input(cli):
    p = cli(["run", "scenarios/banyan/uO4nS16.toml", "--set", "run.measure_transactions=3000", "--wide"])
    assert p.returncode == 0, p.stderr
    assert re.search(r"│ offered +│ +1,21\d\.\d │ MB/s payload", p.stdout), p.stdout
    assert re.search(r"│ raw input +│ +1,600\.0 │ MB/s with headers and idles", p.stdout), p.stdout
    ring = cli(["run", "scenarios/sci/base-8node.toml", "--set", "run.measure_transactions=2000", "--wide"])
    assert "MB/s payload" in ring.stdout and "raw input" not in ring.stdout


def test_gigaring_names_its_latencies_apart(cli):
    p = cli(["run", "scenarios/gigaring/mixed-8node.toml", "--set", "run.measure_transactions=2000", "--wide"])
    assert p.returncode == 0, p.stderr
    rows = [m.group(1) for m in re.finditer(r"^│ ((?:\w+ )?latency mean)\s", p.stdout, re.M)]
    assert rows == ["packet latency mean", "channel latency mean", "transaction latency mean", "model latency mean"], rows


def test_the_load_axis_says_what_the_load_is():
    assert units.load_label("banyan") == units.load_label("sci-switch") == \
        "Raw input per processor, headers and idles (MB/s)"
    assert units.load_label("sci-ring") == units.load_label("gigaring") == "Offered load per node, payload (MB/s)"
    assert "raw input" in units.load_label(None) and "payload" in units.load_label(None)
    assert DEFAULT_LABELS["traffic.load_mbps_per_node"] == units.load_label(None)


def test_a_switch_sweeps_report_labels_its_axis_and_table(tmp_path, cli):
    out = tmp_path / "sweep"
    p = cli(["sweep", "scenarios/sci-switch/bO2nS2.toml", "--set", "traffic.load_mbps_per_node=50,100",
             "--set", "run.measure_transactions=2000", "--processes", "1", "--out", out])
    assert p.returncode == 0, p.stderr
    page = ringlet.report(out, tmp_path / "report.html").read_text()
    # The plots' x axis (each SVG is embedded as a data URI; its text is text).
    svgs = [base64.b64decode(m).decode() for m in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', page)]
    assert svgs and all(units.load_label("sci-switch") in svg for svg in svgs)
    assert "<code>traffic.load_mbps_per_node</code> is the raw input per processor" in page
    assert "Offered load per node (MB/s)" not in page
    # Each stored point's provenance gives its wall time split into set-up and run.
    assert len(re.findall(r"\d+\.\d\d s wall \(\d+\.\d\d s set-up, \d+\.\d\d s run\)", page)) == 2
