"""``ringlet trace`` and ``Scenario.run(progress=...)``: traces that viewers
accept and that agree with the run's counters; progress from the Rust core."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import jsonschema
import pytest

import ringlet

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "trace-event.schema.json").read_text())

#: A small ring whose input queues fill (IQST 1 us): busy echoes and retries happen.
BUSY = ["node.iqst_ns=1000", "traffic.load_mbps_per_node=150", "network.nodes=4",
        "run.measure_transactions=60", "run.warmup_ns=500"]


def _sets(pairs):
    return [a for kv in pairs for a in ("--set", kv)]


def _check_pairs(events):
    """Every async span has one begin and one end, in order, with the same name and category."""
    spans = {}
    for e in events:
        if e["ph"] in ("b", "e"):
            spans.setdefault(e["id"], []).append(e)
    assert spans, "queue and FIFO waits appear as async spans"
    for pair in spans.values():
        assert [e["ph"] for e in pair] == ["b", "e"]
        assert pair[0]["name"] == pair[1]["name"] and pair[0]["cat"] == pair[1]["cat"]
        assert pair[1]["ts"] >= pair[0]["ts"]


@pytest.mark.parametrize("protocol", ["sci", "ppq", "train", "dfc"])
def test_trace_validates_and_matches_the_counters(cli, small_file, tmp_path, protocol):
    out = tmp_path / "trace.json"
    p = cli(["trace", small_file, "--out", out, *_sets([*BUSY, f'network.protocol="{protocol}"'])])
    assert p.returncode == 0, p.stderr
    assert "wrote" in p.stdout and "records" in p.stdout
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, SCHEMA)
    events = doc["traceEvents"]
    other = doc["otherData"]
    counters = other["ringlet"]["counters"]
    counts = other["counts"]
    assert other["truncated"] is False
    # The packets the trace shows are the packets the run counted.
    assert counts["send_packets"] == counters["send_packets"] > 0
    assert counts["retries"] == counters["retries"]
    assert sum(1 for e in events if e["ph"] == "X") == counts["link_transmissions"] >= counters["packet_hops"]
    own_sends = sum(1 for e in events if e["ph"] == "X" and e["args"]["own"] and e["name"].split()[0] in ("request", "response"))
    assert own_sends == counters["send_packets"]
    retries = sum(1 for e in events if e["ph"] == "i" and e["cat"] == "echo" and e["args"]["busy"])
    assert retries == counters["retries"]
    _check_pairs(events)
    # One process per node, each named, with its rows named.
    names = Counter(e["name"] for e in events if e["ph"] == "M")
    assert names["process_name"] == 4 and names["thread_name"] == 4 * 6
    if protocol == "dfc":
        assert any(e["cat"] == "control" for e in events), "DFC's control symbols are traced"


def test_trace_window_and_bound(cli, small_file, tmp_path):
    out = tmp_path / "w.json"
    p = cli(["trace", small_file, "--out", out, "--from", "3000", "--to", "4000"])
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, SCHEMA)
    ts = [e["ts"] for e in doc["traceEvents"] if e["ph"] in ("X", "i")]
    assert ts and min(ts) >= 3.0 and max(ts) <= 4.0  # microseconds
    out2 = tmp_path / "full.json"
    p = cli(["trace", small_file, "--out", out2, "--max-events", "50"])
    assert p.returncode == 0, p.stderr
    assert "trace is full" in p.stderr
    doc = json.loads(out2.read_text())
    assert doc["otherData"]["records"] == 50 and doc["otherData"]["truncated"] is True


@pytest.mark.parametrize(
    "args, message",
    [
        (["--from", "500", "--to", "100"], "--to: expected a time after --from"),
        (["--from", "-5"], "--from: expected a finite time >= 0"),
        (["--from", "inf"], "--from: expected a finite time >= 0 ns, got inf"),
        (["--to", "inf"], "--to: expected a time after --from"),
        (["--max-events", "0"], "--max-events"),
        (["--max-events", "99999999999999999999999"], "--max-events: expected an integer in 1..9223372036854775807"),
        (["--set", "network.nodes=1"], "network.nodes"),
    ],
)
def test_trace_bad_input(cli, small_file, tmp_path, args, message):
    out = tmp_path / "t.json"
    p = cli(["trace", small_file, "--out", out, *args])
    assert p.returncode == 2
    assert p.stderr.startswith("ringlet: error:") and message in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_trace_bad_out(cli, small_file, tmp_path):
    p = cli(["trace", small_file, "--out", tmp_path])
    assert p.returncode == 2 and "is a directory" in p.stderr
    p = cli(["trace", small_file, "--out", tmp_path / "missing" / "t.json"])
    assert p.returncode == 2 and "does not exist" in p.stderr


def test_trace_python_api(small_file, tmp_path):
    t = ringlet.trace(ringlet.Scenario.load(small_file), tmp_path / "api.json", to_ns=5000)
    assert t.path.exists() and not t.truncated
    assert t.result.summary["stopped_by"] == "trace_end"
    assert t.info["records"] > 0
    for bad in (0, 10**30):
        with pytest.raises(ringlet.ScenarioError, match="max_events"):
            ringlet.trace(small_file, tmp_path / "x.json", max_events=bad)


def test_a_window_after_the_run_says_so(cli, small_file, tmp_path):
    p = cli(["trace", small_file, "--out", tmp_path / "t.json", "--from", "1e9"])
    assert p.returncode == 0 and "0 records" in p.stdout
    assert "before the window began" in p.stderr


def test_run_reports_progress_from_the_core(small_file):
    s = ringlet.Scenario.load(small_file).with_overrides([("run.measure_transactions", "20000")])
    seen = []
    r = s.run(progress=lambda fraction, sim_ns, txns, target: seen.append((fraction, sim_ns, txns, target)))
    assert seen, "the core called back"
    fractions = [f for f, *_ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert seen[-1][3] == 20000 and seen[-1][2] == r.summary["transactions"]
    # Observing changes nothing.
    assert s.run().raw["throughput_mbps"] == r.raw["throughput_mbps"]


def test_progress_callback_can_stop_a_run(small_file):
    s = ringlet.Scenario.load(small_file).with_overrides([("run.measure_transactions", "1000000")])

    class Stop(Exception):
        pass

    def stop(*_):
        raise Stop()

    with pytest.raises(Stop):
        s.run(progress=stop)

    def bad_value(*_):
        raise ValueError("from the callback")

    # The callable's own ValueError stays itself (it is not a scenario error).
    with pytest.raises(ValueError, match="from the callback") as info:
        s.run(progress=bad_value)
    assert not isinstance(info.value, ringlet.ScenarioError)
