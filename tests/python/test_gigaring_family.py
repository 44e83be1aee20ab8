"""Every tool on the GigaRing family (``network.kind = "gigaring"``), as on the ring:
``run`` (its table shows the rings, the virtual channels and the channel latency;
its JSON the keys only this family has), ``sweep`` (the channel latency is a
column), ``results`` and ``rerun``, ``report`` (a section of virtual channels and
rings), ``trace`` (rows per node and per ring), ``params``, the Python API and Dask.

The scenario is seed 002's point-to-point channel (two nodes) in half duplex:
node 0 reads 64-word blocks from node 1, a few hundred transactions.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

import ringlet
from conftest import ROOT, SMALL_TOML
from ringlet.api import schema
from ringlet.runs.table import HARDWARE_FIELDS, OPTIONAL_FIELDS, columns

HALF = ROOT / "scenarios" / "gigaring" / "p2p-half-duplex.toml"
SMALL = ["traffic.block_words=64", "run.measure_transactions=500"]
LOAD = "traffic.load_mbps_per_node"
#: The scalar figures only this family reports (seed 002's channel latency and the client's).
CLIENT = ["channel_latency_ns_mean", "channel_latency_ns_p99", "transaction_latency_ns_mean",
          "transaction_latency_ns_p99", "window_decreases"]
VCS = ["read-request", "read-response", "write-request", "write-response"]


def _sets(pairs):
    return [a for kv in pairs for a in ("--set", kv)]


@pytest.fixture(scope="module")
def half_json() -> dict:
    return json.loads(ringlet.Scenario.load(HALF).with_overrides(SMALL).run().to_json())


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> Path:
    """A CLI sweep of the channel over the load and half/full duplex: its output folder."""
    from conftest import run_cli

    out = tmp_path_factory.mktemp("gigaring") / "sweep"
    p = run_cli(["sweep", HALF, *_sets([f"{LOAD}=100,2000", "traffic.masters=1,0", *SMALL]), "--processes", "1",
                 "--out", out])
    assert p.returncode == 0, p.stderr
    assert "4 points" in p.stdout and "4 computed" in p.stdout
    return out


# -- run -------------------------------------------------------------------------------------


def test_schema_declares_the_client_figures():
    assert schema.names(schema.optional_summary()) == CLIENT
    # (The other optional columns are a switch network's hardware: its ports and the payload per port.)
    assert OPTIONAL_FIELDS == [*CLIENT, *HARDWARE_FIELDS]
    assert schema.table("per_vc") is not None


def test_run_json_has_the_gigaring_keys(cli):
    p = cli(["run", HALF, "--json", *_sets(SMALL)])
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert all(isinstance(r[k], (int, float)) for k in CLIENT)
    assert [v["name"] for v in r["per_vc"]] == VCS
    assert [g["ringlet"] for g in r["per_ringlet"]] == [0, 1]
    # Half duplex: only node 1's data flows, as read responses, and it is all the data delivered.
    by_vc = {v["name"]: v["throughput_mbps"] for v in r["per_vc"]}
    assert by_vc["read-response"] == pytest.approx(r["throughput_mbps"], rel=1e-9)
    assert by_vc["read-request"] == by_vc["write-request"] == by_vc["write-response"] == 0
    # Both rings carry node 1's data (per-packet load balancing), about equally: within 10%
    # with 64-word blocks (two data packets and the DMA handshake's ready and status each).
    send = [g["send_utilization_mean"] for g in r["per_ringlet"]]
    assert min(send) > 0.3 and abs(send[0] - send[1]) < 0.1 * max(send)
    # A data packet's echo comes back after its send: the channel latency is positive and below a
    # whole block's transaction latency (two packets of 32 words and the request).
    assert 0 < r["channel_latency_ns_mean"] <= r["channel_latency_ns_p99"]
    assert r["channel_latency_ns_mean"] < r["transaction_latency_ns_mean"]


def test_sci_ring_json_has_none_of_them(cli, small_file):
    r = json.loads(cli(["run", small_file, "--json"]).stdout)
    assert not any(k in r for k in (*CLIENT, "per_vc"))


def test_run_table_shows_rings_virtual_channels_and_channel_latency(cli, half_json):
    p = cli(["run", HALF, *_sets(SMALL)])
    assert p.returncode == 0, p.stderr
    text = p.stdout
    mean = f"{half_json['channel_latency_ns_mean']:,.1f}"
    assert re.search(rf"^│ channel latency mean\s+│\s+{re.escape(mean)} │ ns", text, re.M), text
    assert re.search(r"^│ transaction latency p99\s+│", text, re.M)
    assert re.search(r"^│ window decreases\s+│\s+0 │", text, re.M)
    for g in half_json["per_ringlet"]:
        assert f"ring {g['ringlet']}: send {g['send_utilization_mean']:.3f}; all mean {g['utilization_mean']:.3f}" \
            in text
    assert "per virtual channel" in text
    for vc in half_json["per_vc"]:
        mbps = re.escape(f"{vc['throughput_mbps']:,.1f}")
        assert re.search(rf"^\s+{vc['class']}\s+{vc['name']}\s+{mbps}\s", text, re.M), vc


def test_a_ring_run_shows_no_channel_view(cli, small_file):
    p = cli(["run", small_file])
    assert p.returncode == 0, p.stderr
    assert "per virtual channel" not in p.stdout and "channel latency" not in p.stdout
    assert "ring 0:" not in p.stdout


# -- sweep, results, rerun ---------------------------------------------------------------------


def test_sweep_table_carries_the_channel_latency(swept):
    table = pd.read_csv(swept / "sweep.csv")
    assert list(table.columns) == columns([LOAD, "traffic.masters"], CLIENT)
    assert list(table[LOAD]) == [100, 100, 2000, 2000] and list(table["traffic.masters"]) == [1, 0] * 2
    with sqlite3.connect(swept / "results.sqlite") as con:
        stored = {json.loads(r)["provenance"]["scenario_hash"]: json.loads(r)
                  for (r,) in con.execute("SELECT result FROM results")}
    for row in table.to_dict("records"):
        for column in CLIENT:
            assert row[column] == pytest.approx(stored[row["scenario_hash"]][column], rel=1e-12), column
    # Full duplex at saturation: the echoes of one direction wait behind the other's data.
    saturated = table[table[LOAD] == 2000].set_index("traffic.masters")
    assert saturated.loc[0, "channel_latency_ns_mean"] > saturated.loc[1, "channel_latency_ns_mean"]
    assert saturated.loc[0, "total_throughput_mbps"] > saturated.loc[1, "total_throughput_mbps"]
    pd.testing.assert_frame_equal(pd.read_parquet(swept / "sweep.parquet"), table, check_dtype=False)


def test_a_ring_sweep_has_no_client_columns():
    s = ringlet.Scenario.from_toml(SMALL_TOML).set("run.measure_transactions", 500)
    table = ringlet.sweep(s, {LOAD: [10, 20]}, processes=1)
    assert list(table.columns) == columns([LOAD])
    assert not set(CLIENT) & set(table.columns)


def test_results_and_rerun(cli, swept):
    p = cli(["results", swept])
    assert p.returncode == 0, p.stderr
    assert "4 runs of 4 points" in p.stdout
    again = cli(["rerun", swept, "2"])
    assert again.returncode == 0, again.stderr
    assert "row 2: bit-identical to the stored result" in again.stdout
    assert "per virtual channel" in again.stdout and "channel latency mean" in again.stdout
    as_json = cli(["rerun", swept, "4", "--json"])
    assert as_json.returncode == 0 and "bit-identical" in as_json.stderr
    with sqlite3.connect(swept / "results.sqlite") as con:
        (old,) = con.execute("SELECT result FROM results WHERE id = 4").fetchone()
    new, old = json.loads(as_json.stdout), json.loads(old)
    assert new["per_vc"] == old["per_vc"] and new["channel_latency_ns_mean"] == old["channel_latency_ns_mean"]
    export = cli(["results", swept, "--csv", swept / "export.csv"])
    assert export.returncode == 0, export.stderr
    exported = pd.read_csv(swept / "export.csv")
    assert len(exported) == 4 and set(CLIENT) <= set(exported.columns)


# -- report ------------------------------------------------------------------------------------


def test_report_has_the_channel_section_and_plots(cli, swept, tmp_path):
    out = tmp_path / "report.html"
    p = cli(["report", swept, "--out", out])
    assert p.returncode == 0, p.stderr
    page = out.read_text()
    assert 'alt="Mean channel latency vs traffic.load_mbps_per_node"' in page
    assert '<section id="sweep-channels"><h2>Virtual channels and rings</h2>' in page
    section = page[page.index('<section id="sweep-channels">'):]
    section = section[:section.index("</section>")]
    assert '<h3 id="per_vc">' in section and '<h3 id="per_ringlet">' in section
    assert 'alt="Throughput per virtual channel vs traffic.load_mbps_per_node"' in section
    assert "<th class=num>throughput_mbps (MB/s)</th>" in section
    # One row per point and virtual channel, one per point and ring.
    per_vc = section[section.index('<h3 id="per_vc">'):section.index('<h3 id="per_ringlet">')]
    assert per_vc.count("<tr>") == 1 + 4 * 4
    assert section[section.index('<h3 id="per_ringlet">'):].count("<tr>") == 1 + 4 * 2
    assert "sweep-switches" not in page


def test_report_of_a_ring_sweep_has_no_channel_section(tmp_path):
    out = tmp_path / "ring"
    s = ringlet.Scenario.from_toml(SMALL_TOML).set("run.measure_transactions", 1000)
    ringlet.sweep(s, {LOAD: [10, 20]}, processes=1, out=out)
    page = ringlet.report(out, tmp_path / "ring.html").read_text()
    assert "sweep-channels" not in page and "channel latency" not in page.lower()


# -- trace -------------------------------------------------------------------------------------


def test_trace_has_rows_per_node_and_ring(cli, tmp_path):
    out = tmp_path / "trace.json"
    p = cli(["trace", HALF, "--out", out, "--to", "5000", *_sets(SMALL)])
    assert p.returncode == 0, p.stderr
    events = json.loads(out.read_text())["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    assert sorted(processes.values()) == ["node 0", "node 1"]
    for pid in processes:
        rows = {e["tid"]: e["args"]["name"] for e in events
                if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == pid}
        for ring in (0, 1):
            assert any(n.startswith("output link") and f"ringlet {ring})" in n for n in rows.values()), rows
            assert any(n.startswith("read-response input queue") and f"ringlet {ring})" in n
                       for n in rows.values()), rows
    # Node 1 sends the data (read responses) on its output links; node 0 sends the requests.
    links = [e for e in events if e["ph"] == "X"]
    assert any(e["name"].startswith("response 1→0") for e in links)
    assert any(e["name"].startswith("request 0→1") for e in links)


# -- params ------------------------------------------------------------------------------------


def test_params_lists_the_gigaring_keys(cli):
    p = cli(["params", "--kind", "gigaring", "--markdown"])
    assert p.returncode == 0, p.stderr
    text = p.stdout
    assert '## network.kind = "gigaring"' in text and "### [gigaring]" in text
    for key in ("idle_symbols_between_packets", "node_latency_ns", "wire_m", "masters", "block_words"):
        assert f"| `{key}` |" in text, key
    assert '## network.kind = "sci-switch"' not in text and "`fifo_to_blink_ns`" not in text


# -- Python API and Dask -----------------------------------------------------------------------


def test_python_api(half_json):
    r = ringlet.Scenario.load(HALF).with_overrides(SMALL).run()
    assert r.to_json() != "" and r.summary["channel_latency_ns_mean"] == half_json["channel_latency_ns_mean"]
    assert list(r.table("per_vc")["name"]) == VCS
    assert list(r.per_ringlet["ringlet"]) == [0, 1]
    assert "per_vc" in r.tables and set(CLIENT) <= set(r.summary)


def test_python_api_sweep_and_dask():
    pytest.importorskip("distributed")
    s = ringlet.Scenario.load(HALF).with_overrides(SMALL)
    grid = {"gigaring.wire_m": [0, 10], LOAD: [10.0]}
    local = ringlet.sweep(s, grid, processes=1)
    dask = ringlet.sweep(s, grid, executor="dask", processes=2)
    pd.testing.assert_frame_equal(dask, local)
    # Unloaded, 10 m of wire each way adds the propagation of a packet over one wire and its echo over
    # the other: 2 x 10 m x 5 ns/m.
    latency = local["channel_latency_ns_mean"].tolist()
    assert latency[1] - latency[0] == pytest.approx(100.0, abs=1e-6)
    reps = ringlet.sweep(s, {"gigaring.wire_m": [0]}, processes=1, replications=2)
    assert "channel_latency_ns_mean_rep_ci95" in reps.columns and reps["replications"].tolist() == [2]


# -- ring folding ------------------------------------------------------------------------------

FOLD = ROOT / "scenarios" / "gigaring" / "fold-8node.toml"


def test_a_fold_is_reported_before_and_after(cli):
    """The shipped folding scenario, shortened: `run --json` has the reconfiguration
    with figures before and after and the losses it caused; the table says so."""
    short = _sets(["run.measure_transactions=4000", "faults.at_ns=50000", "traffic.block_words=64"])
    p = cli(["run", FOLD, *short, "--json"])
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    change = r["reconfiguration"]
    assert change["at_ns"] == 50000
    assert change["throughput_before_mbps"] > 0 and change["throughput_after_mbps"] > 0
    assert change["lost_transactions"] == r["conservation"]["lost"] > 0
    c = r["conservation"]
    assert c["generated"] == c["completed"] + c["queued"] + c["in_flight"] + c["lost"]
    assert len(r["per_ringlet"]) == 3 and r["per_ringlet"][2]["send_utilization_mean"] > 0
    table = cli(["run", FOLD, *short])
    assert table.returncode == 0, table.stderr
    text = " ".join(table.stdout.split())
    assert "the rings folded at 50,000 ns" in text and "folded ring:" in text
    assert "transactions whose requester or target failed" in text


def test_a_run_without_faults_has_no_reconfiguration(half_json):
    assert "reconfiguration" not in half_json


def test_a_series_over_time_in_the_python_api():
    """``run.series_interval_ns`` gives ``Result.per_interval`` on any run, congestion
    windows included: nine masters at one slave, the windows close from their 16."""
    s = ringlet.Scenario.load(HALF).with_overrides([
        "network.nodes=10", "traffic.masters=9", "traffic.block_words=256", "gigaring.dma_queue_transfers=8",
        "traffic.load_mbps_per_node=200", "run.measure_transactions=300", "run.warmup_ns=0",
        "run.series_interval_ns=10000"])
    r = s.run()
    t = r.per_interval
    assert list(t.columns[:3]) == ["start_ns", "throughput_mbps", "latency_ns_mean"]
    assert {"window_mean", "window_decreases", "retransmissions"} <= set(t.columns)
    assert t["start_ns"].diff().dropna().eq(10000).all()
    assert t["window_mean"].iloc[0] > 8 and t["window_mean"].iloc[-5:].mean() <= 4
    assert t["window_decreases"].sum() == r.raw["window_decreases"]
    assert t["transactions"].sum() == r.raw["transactions"]
    assert ringlet.Scenario.load(HALF).with_overrides(SMALL).run().per_interval.empty
