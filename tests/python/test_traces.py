"""Trace-driven workloads end to end: ``ringlet trace-gen``, ``ringlet run`` of a
trace, CSV and Parquet of one trace giving one result, errors naming the row, the
results store keyed by the trace's content (edit it and the run is computed anew),
rerun, sweeps (local and Dask), and the Python API."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import ringlet
from conftest import ROOT, one_error_line
from ringlet.traces import TraceGenError

RING = """\
[network]
nodes = 4
protocol = "dfc"

[traffic]
source = "trace"
trace = "t.csv"

[run]
warmup_ns = 1000.0
"""


@pytest.fixture
def traced(tmp_path: Path) -> Path:
    """A 4-node ring scenario replaying t.csv beside it (an all-reduce: 240 rows)."""
    ringlet.trace_gen("all-reduce", tmp_path / "t.csv", nodes=4, count=5, period_ns=2000, repeats=8)
    (tmp_path / "s.toml").write_text(RING)
    return tmp_path / "s.toml"


def _figures(raw: dict) -> dict:
    """A result less what names its inputs (the trace file, the scenario) or the wall time."""
    raw = dict(raw)
    for k in ("provenance", "wall_time_s", "setup_time_s", "trace"):
        raw.pop(k)
    return raw


def test_trace_gen_writes_each_pattern(tmp_path: Path) -> None:
    w = ringlet.trace_gen("all-reduce", tmp_path / "a.csv", nodes=4, count=2, period_ns=1000)
    lines = (tmp_path / "a.csv").read_text().splitlines()
    assert lines[0] == "time_ns,src,dst,bytes"
    # 2 (4 - 1) steps x 4 nodes x 2 transactions; node k to k + 1, the chunk 100 ns apart.
    assert w.rows == len(lines) - 1 == 48
    assert lines[1:9] == ["0.0,0,1,64", "0.0,1,2,64", "0.0,2,3,64", "0.0,3,0,64",
                          "100.0,0,1,64", "100.0,1,2,64", "100.0,2,3,64", "100.0,3,0,64"]
    w = ringlet.trace_gen("frame", tmp_path / "f.csv", nodes=3, count=1, priorities=2, repeats=2)
    lines = (tmp_path / "f.csv").read_text().splitlines()
    assert lines[0] == "time_ns,src,dst,bytes,priority"
    # Each instant the highest priority first; priority q to the node 1 + q downstream.
    assert lines[1:8] == ["0.0,0,2,64,1", "0.0,1,0,64,1", "0.0,2,1,64,1",
                          "0.0,0,1,64,0", "0.0,1,2,64,0", "0.0,2,0,64,0", "10000.0,0,2,64,1"]
    assert all(int(l.split(",")[1]) != int(l.split(",")[2]) for l in lines[1:]), "no node sends to itself"
    a2a = ringlet.trace_gen("all-to-all", tmp_path / "x.csv", nodes=4, count=1)
    assert a2a.rows == 12
    b = ringlet.trace_gen("bursts", tmp_path / "b.csv", nodes=4, count=3, repeats=5, to_memories=True)
    rows = [l.split(",") for l in (tmp_path / "b.csv").read_text().splitlines()[1:]]
    assert b.rows == 60 and all(4 <= int(r[2]) < 8 for r in rows), "destinations are memories 4..7"
    times = [float(r[0]) for r in rows]
    assert times == sorted(times)
    with pytest.raises(TraceGenError, match="--nodes: expected an integer >= 2"):
        ringlet.trace_gen("frame", tmp_path / "n.csv", nodes=1)
    with pytest.raises(TraceGenError, match="pattern 'ring'"):
        ringlet.trace_gen("ring", tmp_path / "n.csv")


def test_cli_trace_gen_then_run(tmp_path: Path, cli) -> None:
    p = cli(["trace-gen", "all-to-all", "--nodes", "4", "--count", "3", "--repeats", "4", "--out", tmp_path / "t.csv"])
    assert p.returncode == 0, p.stderr
    assert "144 rows of all-to-all" in p.stdout + p.stderr
    (tmp_path / "s.toml").write_text(RING)
    p = cli(["run", tmp_path / "s.toml", "--json"], cwd=Path("/"))  # the trace is found beside the scenario
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["stopped_by"] == "trace_done" and p.stderr == ""
    t = r["trace"]
    assert (t["file"], t["rows"], t["rows_issued"]) == (str(tmp_path / "t.csv"), 144, 144)
    assert r["conservation"]["completed"] == 144
    # The view says what the trace held and issued.
    p = cli(["run", tmp_path / "s.toml", "--wide"])
    view = " ".join(p.stdout.split())  # (the view wraps its lines)
    assert p.returncode == 0 and "144 rows from 0 to 110,200 ns; 144 issued, 12 of them in the warm-up" in view, view
    # Stopped short: a warning on stderr naming the key to raise.
    p = cli(["run", tmp_path / "s.toml", "--json", "--set", "run.measure_transactions=20"])
    assert p.returncode == 0 and "warning: trace: the run stopped (transactions)" in p.stderr, p.stderr
    # A trace from --set is taken from the current directory.
    p = cli(["run", tmp_path / "s.toml", "--json", "--set", "traffic.trace=t.csv"], cwd=tmp_path)
    assert p.returncode == 0 and json.loads(p.stdout)["trace"]["rows"] == 144, p.stderr


def test_cli_errors_name_file_row_and_column(tmp_path: Path, cli) -> None:
    (tmp_path / "t.csv").write_text("time_ns,src,dst,bytes\n0,0,1,64\n10,0,7,64\n")
    (tmp_path / "s.toml").write_text(RING)
    msg = one_error_line(cli(["run", tmp_path / "s.toml"]))
    assert msg == (f"{tmp_path / 't.csv'}: row 2 (line 3), column dst: expected an endpoint in 0..3 "
                   "(the network's 4 endpoints), got 7")
    # A trace of its header alone would run idle to the time cap: refused.
    (tmp_path / "t.csv").write_text("time_ns,src,dst,bytes\n")
    msg = one_error_line(cli(["run", tmp_path / "s.toml"]))
    assert msg == f"{tmp_path / 't.csv'}: no rows after the header: a trace gives at least one transaction"
    msg = one_error_line(cli(["trace-gen", "frame", "--out", tmp_path / "x.txt"]))
    assert msg.endswith("expected a .csv or .parquet file")


def test_csv_and_parquet_of_one_trace_give_one_result(tmp_path: Path) -> None:
    results = []
    for name in ("t.csv", "t.parquet"):
        ringlet.trace_gen("frame", tmp_path / name, nodes=4, count=3, priorities=2, repeats=20, period_ns=1500)
        text = RING.replace('"t.csv"', json.dumps(str(tmp_path / name)))
        s = ringlet.Scenario.from_toml(text).set("traffic.priorities", 2)
        results.append(s.run())
    assert results[0].trace_warnings == [] and results[0].summary["stopped_by"] == "trace_done"
    assert results[0].trace["rows"].iloc[0] == results[1].trace["rows"].iloc[0] == 480
    assert _figures(results[0].raw) == _figures(results[1].raw)


def test_the_store_keys_a_run_by_the_traces_content(traced: Path) -> None:
    out = traced.parent / "out"
    s = ringlet.Scenario.load(traced)
    grid = {"network.protocol": ["sci", "dfc"]}
    first = ringlet.sweep(s, grid, processes=1, out=out)
    again = ringlet.sweep(ringlet.Scenario.load(traced), grid, processes=1, out=out)
    assert first.equals(again)
    with ringlet.runs.store.Store.at(out) as store:
        assert len(store.rows()) == 2, "the second sweep ran nothing"
    # Edit the trace: the same scenario file is another scenario, run anew.
    ringlet.trace_gen("all-reduce", traced.parent / "t.csv", nodes=4, count=5, period_ns=2000, repeats=9)
    edited = ringlet.sweep(ringlet.Scenario.load(traced), grid, processes=1, out=out)
    with ringlet.runs.store.Store.at(out) as store:
        rows = store.rows()
    assert len(rows) == 4
    assert (edited["total_transactions"] > first["total_transactions"]).all()
    # A stored run of the old trace cannot be re-run: its scenario names the old content.
    with pytest.raises(ringlet.ScenarioError, match="traffic.trace_sha256: the trace file .* has changed"):
        ringlet.Scenario.from_toml(rows[0].scenario)


def test_rerun_and_results_of_a_trace_sweep(traced: Path, cli) -> None:
    out = traced.parent / "out"
    p = cli(["sweep", traced, "--set", "network.protocol=sci,dfc", "--out", out, "--processes", "1"])
    assert p.returncode == 0, p.stderr
    p = cli(["rerun", out, "1"])
    assert p.returncode == 0 and "bit-identical" in p.stdout, p.stdout + p.stderr
    p = cli(["results", out, "--csv", out / "r.csv"])
    assert p.returncode == 0, p.stderr


def test_python_api_runs_and_warns(traced: Path) -> None:
    s = ringlet.Scenario.load(traced)
    assert Path(s.get("traffic.trace")) == traced.parent / "t.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = s.run()
    assert r.summary["stopped_by"] == "trace_done" and r.summary["transactions"] > 0
    assert set(r.tables) >= {"trace", "per_priority"}
    with pytest.warns(UserWarning, match="trace: the run stopped .* raise run.measure_transactions"):
        s.set("run.measure_transactions", 10).run()
    with pytest.warns(UserWarning, match="trace: point 0: the run stopped"):
        ringlet.sweep(s, {"run.measure_transactions": [10]}, processes=1)


def test_dask_runs_a_trace(traced: Path) -> None:
    pytest.importorskip("distributed")
    s = ringlet.Scenario.load(traced)
    local = ringlet.sweep(s, {"network.protocol": ["dfc"]}, processes=1)
    dask = ringlet.sweep(s, {"network.protocol": ["dfc"]}, executor="dask", processes=1)
    assert local.equals(dask)


def test_a_capacity_search_over_a_trace(tmp_path):
    """A trace's traffic is fixed, so the search sweeps another key: here the
    highest responder service time (node.iqst_ns) at which the trace's mean
    latency stays within 70 us (about 49 us at 100 ns, 87 us at 1000 ns)."""
    c = ringlet.capacity(ROOT / "scenarios/traces/allreduce-8node.toml", "mean<=70us", key="node.iqst_ns",
                         range=(100, 1000), replications=1, out=tmp_path, processes=1)
    assert 100 < c.capacity < 1000
    for p in c.probes:
        assert p.meets == (p.value <= c.capacity), (p.value, p.meets, c.capacity)
        assert p.stopped_by == "trace_done"
