"""Capacity search (``ringlet capacity``, ``ringlet.capacity``): the answer on a
channel whose latency jumps at a load known from its packet format, the rule
that a point meets a deadline only when its interval's bound does, every
deadline kind, resuming from the results store, and each family."""

from __future__ import annotations

import json
import math

import pytest

import ringlet
from conftest import ROOT, one_error_line, run_cli
from ringlet.runs.capacity import CapacityError, judge, parse_deadlines

#: Seed 002's channel, two nodes, node 0 sending 32-word messages to node 1 at
#: fixed intervals: a message is one packet of 4 header + 12 framing + 64 payload
#: + 1 checksum symbols and 1 idle (82 symbols of a 150 MHz ring), the two rings
#: share the load, so until the channel carries 2 x 256 B per 82 cycles every
#: message finds a ring free and its latency is the same; above, a queue builds.
P2P_MESSAGES = """
[network]
kind = "gigaring"
nodes = 2
[traffic]
masters = 1
transaction = "message"
block_words = 32
arrivals = "deterministic"
[run]
measure_transactions = 1500
"""
KNOWN_MBPS = 2 * 256 * 150 / 82  # 936.585...


@pytest.fixture(scope="module")
def p2p(tmp_path_factory):
    path = tmp_path_factory.mktemp("cap") / "p2p.toml"
    path.write_text(P2P_MESSAGES)
    return path


def test_the_answer_is_the_load_where_the_latency_jumps(p2p, tmp_path):
    c = ringlet.capacity(p2p, "max<=1.035us", range=(700, 1200), tolerance=0.001, replications=2, processes=1,
                         out=tmp_path)
    assert c.verdict == "found"
    assert c.capacity <= KNOWN_MBPS < c.fails_at, (c.capacity, c.fails_at)
    assert c.fails_at - c.capacity <= 0.001 * c.capacity
    probed = {p.value: p.meets for p in c.probes}
    assert probed[700.0] and not probed[1200.0]
    assert all(met == (v <= c.capacity) for v, met in probed.items()), probed
    for name in ("capacity.json", "capacity.csv", "capacity.png", "capacity.svg", "results.sqlite"):
        assert (tmp_path / name).is_file(), name
    doc = json.loads((tmp_path / "capacity.json").read_text())
    assert doc["capacity"] == c.capacity and doc["key"] == "traffic.load_mbps_per_node"
    assert len(doc["probes"]) == len(c.probes)
    # The same question again: every run from the store.
    again = ringlet.capacity(p2p, "max<=1.035us", range=(700, 1200), tolerance=0.001, replications=2, processes=1,
                             out=tmp_path)
    assert (again.capacity, again.computed) == (c.capacity, 0)


def test_an_interrupted_search_resumes_from_the_store(p2p, tmp_path):
    seen = []

    def stop_after_three(probe):
        seen.append(probe.value)
        if len(seen) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ringlet.capacity(p2p, "max<=1.035us", range=(700, 1200), tolerance=0.01, replications=2, processes=1,
                         out=tmp_path, progress=stop_after_three)
    c = ringlet.capacity(p2p, "max<=1.035us", range=(700, 1200), tolerance=0.01, replications=2, processes=1,
                         out=tmp_path)
    assert [p.value for p in c.probes[:3]] == seen
    assert c.computed == 2 * (len(c.probes) - 3), "the three probes done before the interruption were not run again"


def _rows(**figures):
    base = {"priority": 0, "stopped_by": "transactions"}
    return [{**base, **figures}]


def test_a_point_meets_a_deadline_only_when_its_bound_does():
    [p99] = parse_deadlines("p99<=2us")
    assert (p99.column, p99.limit) == ("latency_ns_p99", 2000.0)
    ok, _, [check] = judge(_rows(latency_ns_p99=1900.0, latency_ns_p99_rep_ci95=50.0), [p99])
    assert ok and check["bound"] == 1950.0
    ok, _, [check] = judge(_rows(latency_ns_p99=1900.0, latency_ns_p99_rep_ci95=200.0), [p99])
    assert not ok and check["figure"] < 2000 < check["bound"], "the mean meets, the upper bound does not"
    # A floor takes the lower bound.
    [fair] = parse_deadlines("fairness>=0.95")
    assert judge(_rows(total_fairness_index=0.97, total_fairness_index_rep_ci95=0.01), [fair])[0]
    assert not judge(_rows(total_fairness_index=0.97, total_fairness_index_rep_ci95=0.03), [fair])[0]
    # A point stopped before measuring its transactions is saturated: it meets nothing.
    early = [{"priority": 0, "stopped_by": "time_cap", "latency_ns_p99": 10.0}]
    assert not judge(early, [p99])[0]
    # Several priority levels: each must meet it, unless one is named.
    rows = [{"priority": 0, "stopped_by": "transactions", "latency_ns_p99": 1000.0},
            {"priority": 1, "stopped_by": "transactions", "latency_ns_p99": 3000.0}]
    ok, _, [check] = judge(rows, [p99])
    assert not ok and check["priority"] == 1
    assert judge(rows, [p99], priority=0)[0] and not judge(rows, [p99], priority=1)[0]


@pytest.mark.parametrize("text,column,limit", [
    ("mean<=500ns", "latency_ns_mean", 500.0), ("p50<=0.5us", "latency_ns_p50", 500.0),
    ("p99<=2us", "latency_ns_p99", 2000.0), ("p99.9<=1ms", "latency_ns_p999", 1e6),
    ("max<=3 µs", "latency_ns_max", 3000.0), ("transaction.p99<=10us", "transaction_latency_ns_p99", 1e4),
    ("channel.mean<=1us", "channel_latency_ns_mean", 1000.0), ("loss<=1MB/s", "total_loss_mbps", 1.0),
    ("loss<=0.5GB/s", "total_loss_mbps", 500.0), ("fairness>=0.9", "total_fairness_index", 0.9)])
def test_each_deadline_kind(text, column, limit):
    [d] = parse_deadlines(text)
    assert (d.column, d.limit) == (column, limit)


@pytest.mark.parametrize("text,needle", [
    ("p98<=2us", "unknown figure 'p98'"), ("p99<=2", "unit none"), ("p99<=2MB/s", "unit 'MB/s'"),
    ("p99>=2us", "takes '<='"), ("fairness<=0.9", "takes '>='"), ("p99 about 2us", "expected FIGURE<=NUMBER"),
    ("", "at least one")])
def test_bad_deadlines_are_named(text, needle):
    with pytest.raises(CapacityError) as e:
        parse_deadlines(text)
    assert needle in str(e.value)


def test_several_deadlines_all_hold_and_the_verdicts_at_the_ends(p2p, tmp_path):
    both = ringlet.capacity(p2p, ["max<=1.035us", "mean<=1.1us, loss<=1MB/s"], range=(700, 1200), tolerance=0.01,
                            replications=1, processes=1, store=tmp_path / "a.sqlite")
    assert both.verdict == "found" and both.capacity <= KNOWN_MBPS < both.fails_at
    assert all(len(p.checks) == 3 for p in both.probes)
    nowhere = ringlet.capacity(p2p, "max<=100ns", range=(700, 1200), replications=1, processes=1,
                               store=tmp_path / "a.sqlite")
    assert (nowhere.verdict, nowhere.capacity) == ("nowhere", None)
    assert "met nowhere" in nowhere.message() and len(nowhere.probes) == 1
    everywhere = ringlet.capacity(p2p, "max<=1.035us", range=(600, 900), replications=1, processes=1,
                                  store=tmp_path / "a.sqlite")
    assert (everywhere.verdict, everywhere.capacity) == ("everywhere", 900.0)
    # Without a range: from the scenario's value, doubling until it fails (or halving until it
    # meets), then bisecting.
    at = ringlet.Scenario.load(p2p)
    doubling = ringlet.capacity(at.with_overrides(["traffic.load_mbps_per_node=350"]), "max<=1.035us",
                                tolerance=0.01, replications=1, processes=1, store=tmp_path / "a.sqlite")
    assert [p.value for p in doubling.probes[:3]] == [350.0, 700.0, 1400.0]
    assert doubling.capacity <= KNOWN_MBPS < doubling.fails_at
    halving = ringlet.capacity(at.with_overrides(["traffic.load_mbps_per_node=1500"]), "max<=1.035us",
                               tolerance=0.01, replications=1, processes=1, store=tmp_path / "a.sqlite")
    assert [p.value for p in halving.probes[:2]] == [1500.0, 750.0]
    assert halving.capacity <= KNOWN_MBPS < halving.fails_at


def test_every_family(tmp_path):
    """A priority level's p99 on the real-time ring, a Banyan's loss, a GigaRing channel's transaction p99."""
    ring = ringlet.Scenario.load(ROOT / "scenarios" / "sci-rt" / "dfc-8node.toml").with_overrides(
        ["run.measure_transactions=1500", "traffic.priorities=2"])
    c = ringlet.capacity(ring, "p99<=3us", priority=0, range=(5, 200), tolerance=0.1, replications=2,
                         processes=1, store=tmp_path / "s.sqlite")
    assert c.verdict == "found" and 5 <= c.capacity < c.fails_at <= 200
    assert all(ch["priority"] == 0 for p in c.probes for ch in p.checks)
    banyan = ringlet.Scenario.load(ROOT / "scenarios" / "banyan" / "uO2nS16.toml").with_overrides(
        ["run.measure_transactions=1500"])
    b = ringlet.capacity(banyan, "loss<=1MB/s", range=(10, 400), tolerance=0.1, replications=2, processes=1,
                         store=tmp_path / "s.sqlite")
    assert b.verdict in ("found", "everywhere") and b.capacity >= 10
    gr = ringlet.Scenario.load(ROOT / "scenarios" / "gigaring" / "mixed-8node.toml").with_overrides(
        ["run.measure_transactions=800"])
    g = ringlet.capacity(gr, "transaction.p99<=20us", range=(10, 400), tolerance=0.1, replications=2, processes=1,
                         store=tmp_path / "s.sqlite")
    assert g.verdict == "found" and 10 <= g.capacity < g.fails_at
    assert all(not math.isnan(p.checks[0]["figure"]) for p in g.probes)


def test_the_cli(p2p, tmp_path):
    args = ["capacity", str(p2p), "--deadline", "max<=1.035us", "--range", "700:1200", "--tolerance", "1%",
            "--replications", "1", "--processes", "1", "--out", str(tmp_path)]
    p = run_cli([*args, "--json"])
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["capacity"] <= KNOWN_MBPS < doc["fails_at"] and doc["deadlines"] == ["max<=1.035us"]
    assert "meets" in p.stderr and "misses" in p.stderr, "each probe is reported as it is judged"
    p = run_cli(args)
    assert p.returncode == 0 and p.stdout.startswith("capacity: traffic.load_mbps_per_node = ")
    assert ", 0 runs made" in p.stdout
    # The folder is a results store like a sweep's, and a report has the search's section.
    listed = run_cli(["results", str(tmp_path)])
    assert listed.returncode == 0 and f"{len(doc['probes'])} points" in " ".join(listed.stdout.split())
    again = run_cli(["rerun", str(tmp_path), "1"])
    assert again.returncode == 0 and "bit-identical" in again.stdout, again.stdout + again.stderr
    page = run_cli(["report", str(tmp_path), "--out", str(tmp_path / "report.html")])
    assert page.returncode == 0, page.stderr
    html = (tmp_path / "report.html").read_text()
    assert "Capacity search" in html and f"{len(doc['probes'])} points probed" in html
    for bad, needle in [(["--deadline", "p98<=1us"], "unknown figure 'p98'"), (["--range", "9"], "--range: expected LO:HI"),
                        (["--key", "traffic.transaction"], "not numeric"), (["--key", "traffic.nope"], "traffic.nope"),
                        (["--tolerance", "x"], "--tolerance"), (["--range", "50:10"], "range: expected")]:
        q = run_cli(["capacity", str(p2p), "--deadline", "max<=1.035us", "--out", str(tmp_path / "x"), *bad])
        assert needle in one_error_line(q), (bad, q.stderr)  # (no "probing ..." line before it)


# -- capacity figures in a study -------------------------------------------------------------

STUDY = """
[study]
name = "cap"
title = "capacity figures"
base = "base.toml"

[[figure]]
id = "cap"
title = "Capacity of the channel"
[figure.grid]
"traffic.block_words" = [16, 32]
[figure.capacity]
deadlines = ["max<=1.035us", "max<=2us"]
range = [600, 1200]
tolerance = 0.01
replications = 1
[figure.plot]
x = "deadline_value"
y = "capacity"
series = "traffic.block_words"

[[figure.finding]]
id = "looser-deadline-no-less"
description = "a looser deadline is met at no lower load"
left = { stat = "max", column = "capacity", where = { "deadline" = "max<=2us", "traffic.block_words" = 32 } }
op = ">="
right = { stat = "max", column = "capacity", where = { "deadline" = "max<=1.035us", "traffic.block_words" = 32 } }
"""


def test_a_study_figure_of_capacity_searches(p2p, tmp_path):
    import pandas as pd

    study = tmp_path / "study"
    study.mkdir()
    (study / "base.toml").write_text(p2p.read_text())
    (study / "study.toml").write_text(STUDY)
    out = tmp_path / "out"
    table = ringlet.reproduce(study, out, jobs=1, progress=False)
    frame = pd.read_csv(out / "cap.csv")
    assert list(frame.columns[:2]) == ["point", "traffic.block_words"]
    assert len(frame) == 4 and set(frame["deadline"]) == {"max<=1.035us", "max<=2us"}
    exact = frame[(frame["traffic.block_words"] == 32) & (frame["deadline"] == "max<=1.035us")].iloc[0]
    assert exact["capacity"] <= KNOWN_MBPS < exact["fails_at"]
    assert (out / "cap.png").is_file()
    [verdict] = table["verdict"].tolist()
    assert verdict == "yes"
    # Asked again: every probe from the store (the same figures).
    again = ringlet.reproduce(study, out, jobs=1, progress=False)
    pd.testing.assert_frame_equal(pd.read_csv(out / "cap.csv"), frame)
    assert again["verdict"].tolist() == ["yes"]


@pytest.mark.parametrize("spec,needle", [
    ('deadlines = ["p98<=1us"]', "unknown figure 'p98'"), ("deadlines = []", "non-empty list"),
    ('deadlines = ["p99<=1us"]\nrange = [5, 1]', "range must be"),
    ('deadlines = ["p99<=1us"]\ntolerance = 2', "tolerance must be"),
    ('deadlines = ["p99<=1us"]\nwhat = 1', "unknown field(s) what")])
def test_bad_capacity_figures_are_named(tmp_path, p2p, spec, needle):
    from ringlet.study import StudyError, load_study

    text = STUDY.split("[figure.capacity]")[0] + "[figure.capacity]\n" + spec + "\n[figure.plot]\nx = \"deadline_value\"\ny = \"capacity\"\n"
    (tmp_path / "base.toml").write_text(p2p.read_text())
    (tmp_path / "study.toml").write_text(text)
    with pytest.raises(StudyError) as e:
        load_study(tmp_path)
    assert needle in str(e.value) and "cap: capacity" in str(e.value)


def test_a_switch_networks_capacity_says_what_each_port_carries_there(tmp_path):
    """Seed 001's cost-efficiency: the payload per switch port at the capacity is the decisive
    run's throughput over the network's switch ports (32 of uO4nS16's), the same figure a run
    at that load reports; a ring has no ports and no such figure."""
    banyan = ringlet.Scenario.load(ROOT / "scenarios" / "banyan" / "uO4nS16.toml").with_overrides(
        ["run.measure_transactions=1500"])
    c = ringlet.capacity(banyan, "loss<=1MB/s", range=(10, 400), tolerance=0.2, replications=1, processes=1,
                         store=tmp_path / "s.sqlite")
    assert c.verdict == "found"
    at = banyan.with_overrides([f"traffic.load_mbps_per_node={c.capacity}"]).run()
    assert at.hardware["ports"].iloc[0] == 32
    assert c.throughput_mbps_per_port == pytest.approx(at.summary["throughput_mbps"] / 32, rel=1e-9)
    assert f"there {c.throughput_mbps_per_port:.6g} MB/s of payload per switch port" in c.message()
    assert c.to_dict()["throughput_mbps_per_port"] == c.throughput_mbps_per_port
    ring = ringlet.Scenario.load(ROOT / "scenarios" / "sci-rt" / "dfc-8node.toml").with_overrides(
        ["run.measure_transactions=1500"])
    r = ringlet.capacity(ring, "p99<=3us", range=(5, 200), tolerance=0.2, replications=1, processes=1,
                         store=tmp_path / "s.sqlite")
    assert r.throughput_mbps_per_port is None and "per switch port" not in r.message()
