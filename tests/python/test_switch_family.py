"""Every tool on the switch families (``network.kind = "sci-switch"`` and
``"banyan"``), as on the ring: ``run`` (its table shows the switch figures),
``sweep``, ``results`` and ``rerun``, ``report``, ``trace`` (a row per switch
port and one for the B-Link), ``params``, the Python API and Dask.

The scenario is seed 001's Figure 5a (``bO2nS2``: P0, P1, M0, M1 on one
4-port switch, every packet across its B-Link), a few thousand transactions.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

import ringlet
from conftest import ROOT, SMALL_TOML, one_error_line
from ringlet.api import schema

SWITCH = ROOT / "scenarios" / "sci-switch" / "bO2nS2.toml"
BANYAN = ROOT / "scenarios" / "banyan" / "uO4nS16.toml"
QUICK = ["run.measure_transactions=3000"]
#: Below what the B-Link carries for two processors: nothing is lost.
BELOW = "traffic.load_mbps_per_node=100"
#: Above what the B-Link carries for two processors (about 240 MB/s): the sources' buffers overflow.
OVERLOAD = "traffic.load_mbps_per_node=500"
LOAD = "traffic.load_mbps_per_node"


def _sets(pairs):
    return [a for kv in pairs for a in ("--set", kv)]


@pytest.fixture(scope="module")
def switch_json() -> dict:
    return json.loads(ringlet.Scenario.load(SWITCH).with_overrides([*QUICK, BELOW]).run().to_json())


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> Path:
    """A CLI sweep of the switch over the load and the ringlets: its output folder."""
    from conftest import run_cli

    out = tmp_path_factory.mktemp("switch") / "sweep"
    p = run_cli(["sweep", SWITCH, *_sets([f"{LOAD}=100,200", "network.ringlets=bidirectional,unidirectional",
                                          *QUICK]), "--processes", "1", "--out", out])
    assert p.returncode == 0, p.stderr
    assert "4 points" in p.stdout and "4 computed" in p.stdout
    return out


# -- run -------------------------------------------------------------------------------------


def test_run_json_has_the_switch_tables(cli):
    p = cli(["run", SWITCH, "--json", *_sets([*QUICK, BELOW])])
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert [list(row) for row in r["per_switch"]] == [schema.names(schema.table("per_switch"))]
    assert {tuple(row) for row in r["per_port"]} == {tuple(schema.names(schema.table("per_port")))}
    (switch,) = r["per_switch"]
    assert switch["ports"] == len(r["per_port"]) == 4
    assert all(port["switch"] == switch["switch"] for port in r["per_port"])
    # Every transaction crosses the B-Link once, from a processor's port to its memory's (the
    # window's edges may cut one or two crossings from the transactions they complete).
    assert r["transactions"] == 3000 and abs(switch["crossings"] - r["transactions"]) <= 2
    to_bus = sum(port["to_bus_mbps"] for port in r["per_port"])
    from_bus = sum(port["from_bus_mbps"] for port in r["per_port"])
    assert to_bus == pytest.approx(switch["bus_mbps"], rel=0.01) and from_bus == pytest.approx(to_bus, rel=0.01)
    assert switch["bus_mbps"] == pytest.approx(r["throughput_mbps"], rel=0.01)
    assert 0 < switch["bus_utilization"] < 1
    # The memories' ports send what the B-Link delivers; the processors' ports send nothing.
    assert sorted(port["send_utilization"] > 0 for port in r["per_port"]) == [False, False, True, True]


def test_run_table_shows_the_b_link_ports_and_loss(cli, switch_json):
    p = cli(["run", SWITCH, *_sets([*QUICK, BELOW])])
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert all(len(line) <= 80 for line in out.splitlines()), out  # fits 80 columns
    (switch,) = switch_json["per_switch"]
    assert "switches: B-Link utilisation and MB/s across it" in out
    row = re.search(rf"^\s*{switch['switch']}\s+4\s+(\S+)\s+(\S+)\s+(\S+)\s*$", out, re.M)
    assert row, out
    assert row[1] == f"{switch['bus_utilization']:.3f}" and row[2] == f"{switch['bus_mbps']:,.1f}"
    assert row[3] == f"{switch['crossings']:,}"
    assert "ports: MB/s to/from the B-Link, link send utilisation" in out
    for port in switch_json["per_port"]:
        cells = [str(port["switch"]), str(port["port"]), str(port["link"]), str(port["ringlet"]),
                 f"{port['to_bus_mbps']:,.1f}", f"{port['from_bus_mbps']:,.1f}", f"{port['send_utilization']:.3f}"]
        assert re.search(r"^\s*" + r"\s+".join(map(re.escape, cells)) + r"\s*$", out, re.M), (cells, out)
    assert re.search(r"^│ lost\s+│\s+0\.0 │ MB/s", out, re.M) and "latency max" in out

    # Past the B-Link's capacity the sources lose data: the summary says how much.
    over = cli(["run", SWITCH, *_sets([*QUICK, OVERLOAD])])
    assert over.returncode == 0, over.stderr
    raw = json.loads(cli(["run", SWITCH, "--json", *_sets([*QUICK, OVERLOAD])]).stdout)
    assert raw["loss_mbps"] > 100
    share = 100 * raw["loss_mbps"] / raw["offered_mbps"]
    lost = re.escape(f"{raw['loss_mbps']:,.1f} ({share:.1f}% of offered)")
    assert re.search(rf"│ lost +│ {lost}", over.stdout), over.stdout
    assert f"{raw['latency_ns_max']:,.1f}" in over.stdout
    assert re.search(r"^\s*4\s+4\s+1\.000\s", over.stdout, re.M)  # the B-Link is saturated


def test_run_table_of_a_banyan_shows_its_busiest_switches(cli):
    p = cli(["run", BANYAN, *_sets(QUICK)])
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert all(len(line) <= 80 for line in out.splitlines()), out
    raw = json.loads(cli(["run", BANYAN, "--json", *_sets(QUICK)]).stdout)
    # 8 switches fit; 32 ports do not: the 8 busiest are shown, and the spread over all.
    assert len(raw["per_switch"]) == 8 and len(raw["per_port"]) == 32
    assert "switches: B-Link utilisation and MB/s across it\n" in out
    assert "(8 busiest of 32 ports)" in out
    sends = [port["send_utilization"] for port in raw["per_port"]]
    assert f"link send utilisation over 32 ports: min {min(sends):.3f}" in out
    assert f"max {max(sends):.3f}" in out
    shown = re.findall(r"^\s*(\d+)\s+(\d)\s+(\d+)\s+(\d+)\s+\S+\s+\S+\s+(\d\.\d{3})\s*$", out, re.M)
    assert len(shown) == 8 and max(float(s[-1]) for s in shown) == pytest.approx(max(sends), abs=5e-4)


def test_a_ring_run_shows_no_switch_table(cli, small_file):
    p = cli(["run", small_file])
    assert p.returncode == 0, p.stderr
    assert "B-Link" not in p.stdout and "per priority" in p.stdout
    assert re.search(r"^│ lost\s+│\s+0\.0 │ MB/s", p.stdout, re.M)


# -- sweep, results, rerun ---------------------------------------------------------------------


def test_sweep(swept):
    table = pd.read_csv(swept / "sweep.csv")
    assert list(table["point"]) == [0, 1, 2, 3]
    assert list(table[LOAD]) == [100, 100, 200, 200]
    assert list(table["network.ringlets"]) == ["bidirectional", "unidirectional"] * 2
    # Two processors at 100 MB/s of raw input (84-byte packets): 2 x 64/84 x 100 MB/s of data.
    assert table.loc[table[LOAD] == 100, "throughput_mbps"].tolist() == pytest.approx([2 * 6400 / 84] * 2, rel=0.01)
    # Through the B-Link (bidirectional ringlets) latency is longer than through bypass FIFOs.
    lat = dict(zip(table["network.ringlets"], table["latency_ns_mean"]))
    assert lat["bidirectional"] > lat["unidirectional"]
    pd.testing.assert_frame_equal(pd.read_parquet(swept / "sweep.parquet"), table, check_dtype=False)


def test_results_and_rerun(cli, swept):
    p = cli(["results", swept])
    assert p.returncode == 0, p.stderr
    assert "4 runs of 4 points" in p.stdout
    with sqlite3.connect(swept / "results.sqlite") as con:
        stored = dict(con.execute("SELECT id, result FROM results"))
    assert len(stored) == 4 and all(json.loads(r)["per_switch"] for r in stored.values())
    again = cli(["rerun", swept, "1"])
    assert again.returncode == 0, again.stderr
    assert "row 1: bit-identical to the stored result" in again.stdout
    assert "switches: B-Link utilisation" in again.stdout
    as_json = cli(["rerun", swept, "3", "--json"])
    assert as_json.returncode == 0 and "bit-identical" in as_json.stderr
    new, old = json.loads(as_json.stdout), json.loads(stored[3])
    assert new["per_switch"] == old["per_switch"] and new["per_port"] == old["per_port"]
    export = cli(["results", swept, "--csv", swept / "export.csv"])
    assert export.returncode == 0, export.stderr
    assert len(pd.read_csv(swept / "export.csv")) == 4


# -- report ------------------------------------------------------------------------------------


def test_report_has_the_switch_tables_and_plots(cli, swept, tmp_path):
    out = tmp_path / "report.html"
    p = cli(["report", swept, "--out", out])
    assert p.returncode == 0, p.stderr
    page = out.read_text()
    assert '<section id="sweep-switches"><h2>Switches</h2>' in page
    section = page[page.index('<section id="sweep-switches">'):]
    section = section[:section.index("</section>")]
    assert '<h3 id="per_switch">' in section and '<h3 id="per_port">' in section
    assert "<th class=num>bus_utilization</th>" in section and "<th class=num>to_bus_mbps (MB/s)</th>" in section
    assert 'alt="Busiest B-Link utilisation vs traffic.load_mbps_per_node"' in section
    # One row per point and switch, with the stored figures.
    with sqlite3.connect(swept / "results.sqlite") as con:
        results = [json.loads(r) for (r,) in con.execute("SELECT result FROM results ORDER BY id")]
    for r in results:
        (switch,) = r["per_switch"]
        assert f"<td class=num>{switch['bus_utilization']:.5g}</td>" in section or switch["bus_utilization"] == 0
    per_port = section[section.index('<h3 id="per_port">'):]
    assert per_port.count("<tr>") == 1 + sum(len(r["per_port"]) for r in results)
    # The same folder gives the same page.
    assert cli(["report", swept, "--out", tmp_path / "again.html"]).returncode == 0
    assert (tmp_path / "again.html").read_text() == page


def test_report_of_a_ring_sweep_has_no_switch_section(tmp_path):
    out = tmp_path / "ring"
    s = ringlet.Scenario.from_toml(SMALL_TOML).set("run.measure_transactions", 1000)
    ringlet.sweep(s, {LOAD: [10, 20]}, processes=1, out=out)
    page = ringlet.report(out, tmp_path / "ring.html").read_text()
    assert "sweep-switches" not in page and "sweep-plots" in page


# -- trace -------------------------------------------------------------------------------------


def test_trace_has_a_b_link_row_and_a_row_set_per_port(cli, tmp_path):
    out = tmp_path / "trace.json"
    p = cli(["trace", SWITCH, "--out", out, "--to", "5000"])
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    events = doc["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    assert sorted(processes.values()) == ["M0", "M1", "P0", "P1", "switch 0"]
    (switch,) = [pid for pid, name in processes.items() if name == "switch 0"]
    rows = {e["tid"]: e["args"]["name"] for e in events
            if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == switch}
    (bus,) = [tid for tid, name in rows.items() if name.startswith("bus (B-Link)")]
    spans = [e for e in events if e["pid"] == switch and e["tid"] == bus and e["ph"] in ("b", "e")]
    assert len(spans) > 10 and {e["ph"] for e in spans} == {"b", "e"}
    # Each of the switch's four ports (port k on ringlet k) has its own rows; packets leave on them.
    for ringlet_id in range(4):
        (link,) = [tid for tid, name in rows.items() if name == f"output link (port {ringlet_id}, ringlet {ringlet_id})"]
        assert any(e["ph"] == "X" and e["pid"] == switch and e["tid"] == link for e in events)
    assert "output queue (own packets) (port 3, ringlet 3)" in rows.values()


def test_trace_python_api(tmp_path):
    t = ringlet.trace(SWITCH, tmp_path / "t.json", to_ns=3000)
    assert t.result.summary["stopped_by"] == "trace_end" and t.info["records"] > 0
    names = [e["args"]["name"] for e in json.loads(t.path.read_text())["traceEvents"] if e["name"] == "thread_name"]
    assert any(n.startswith("bus (B-Link)") for n in names)


# -- params ------------------------------------------------------------------------------------


def test_params_lists_the_switch_keys(cli):
    everything = cli(["params", "--markdown"])
    assert everything.returncode == 0
    assert "fifo_to_blink_ns" in everything.stdout and '## network.kind = "banyan"' in everything.stdout
    switch = cli(["params", "--kind", "sci-switch", "--markdown"])
    assert switch.returncode == 0, switch.stderr
    text = switch.stdout
    # The keys every scenario has, then this family's own only.
    assert text.startswith("# Scenario reference") and "## [run]" in text and "`measure_transactions`" in text
    assert '## network.kind = "sci-switch"' in text and "### [switch]" in text
    for key in ("fifo_to_blink_ns", "blink_to_fifo_ns", "blink_mbps", "buffer_packets", "address_decode_ns"):
        assert f"| `{key}` |" in text, key
    assert '## network.kind = "banyan"' not in text and '## network.kind = "sci-ring"' not in text
    assert "`ticketmaster`" not in text  # a ring protocol's key
    banyan = cli(["params", "--kind", "banyan"])
    assert banyan.returncode == 0 and "switch_ports" in banyan.stdout and "topology" in banyan.stdout
    assert one_error_line(cli(["params", "--kind", "torus"])) == (
        "--kind torus: unknown network family; choose one of: sci-ring, sci-switch, banyan, gigaring")


def test_switch_keys_are_validated():
    s = ringlet.Scenario.load(SWITCH)
    assert s.get("switch.fifo_to_blink_ns") == 106
    assert s.set("switch.fifo_to_blink_ns", 50).get("switch.fifo_to_blink_ns") == 50
    with pytest.raises(ringlet.ScenarioError, match=r"^switch\.buffer_packets: "):
        s.set("switch.buffer_packets", 0)


# -- Python API and Dask -----------------------------------------------------------------------


def test_python_api_result_frames(switch_json):
    r = ringlet.Scenario.load(SWITCH).with_overrides([*QUICK, BELOW]).run()
    assert r.tables[-2:] == ("per_switch", "per_port")
    assert list(r.per_switch.columns) == schema.names(schema.table("per_switch"))
    assert list(r.per_port.columns) == schema.names(schema.table("per_port"))
    assert len(r.per_switch) == 1 and len(r.per_port) == 4
    assert r.per_switch["crossings"].tolist() == [switch_json["per_switch"][0]["crossings"]]
    assert r.per_port["to_bus_mbps"].sum() == pytest.approx(r.per_switch["bus_mbps"].iloc[0], rel=0.01)
    pd.testing.assert_frame_equal(r.table("per_port"), r.per_port)
    # The same point gives the same figures (only wall time differs).
    assert r.raw["per_port"] == switch_json["per_port"]
    ring = ringlet.Scenario.from_toml(SMALL_TOML).set("run.measure_transactions", 500).run()
    assert ring.per_switch.empty and list(ring.per_switch.columns) == list(r.per_switch.columns)
    assert "per_switch" not in ring.tables


def test_python_api_sweep(tmp_path):
    s = ringlet.Scenario.load(SWITCH).with_overrides(QUICK)
    table = ringlet.sweep(s, {LOAD: [100, 500]}, processes=1, store=tmp_path)
    assert list(table[LOAD]) == [100, 500]
    low, high = table["throughput_mbps"].tolist()
    assert low == pytest.approx(2 * 6400 / 84, rel=0.01) and high < table["offered_mbps"].iloc[1] * 0.7
    # What the B-Link cannot carry is lost at the sources, and the sweep table says so.
    assert table["total_loss_mbps"].tolist()[0] == 0 and table["total_loss_mbps"].iloc[1] > 100
    again = ringlet.sweep(s, {LOAD: [100, 500]}, processes=1, store=tmp_path)  # all from the store
    pd.testing.assert_frame_equal(again, table)


def test_a_sweep_row_says_what_each_switch_port_carries(swept, tmp_path):
    """Seed 001's cost-efficiency in every switch sweep: the switch ports (4 on bO2nS2's
    bidirectional switch, 2 used on uO2nS2's unidirectional one) and the payload each carries,
    the throughput over the ports; a ring's sweep has neither column."""
    table = pd.read_csv(swept / "sweep.csv")
    ports = dict(zip(table["network.ringlets"], table["switch_ports"]))
    assert ports == {"bidirectional": 4, "unidirectional": 2}
    assert table["throughput_mbps_per_port"].tolist() == pytest.approx(
        (table["total_throughput_mbps"] / table["switch_ports"]).tolist(), rel=1e-9)
    ring = ringlet.sweep(ringlet.Scenario.from_toml(SMALL_TOML), {LOAD: [10]}, processes=1, store=tmp_path)
    assert not {"switch_ports", "throughput_mbps_per_port"} & set(ring.columns)


def test_dask_sweep_equals_local():
    pytest.importorskip("distributed")
    s = ringlet.Scenario.load(SWITCH).with_overrides(QUICK)
    grid = {LOAD: [100, 500], "network.ringlets": ["bidirectional", "unidirectional"]}
    local = ringlet.sweep(s, grid, processes=1)
    dask = ringlet.sweep(s, grid, executor="dask", processes=2)
    pd.testing.assert_frame_equal(dask, local)
    assert len(dask) == 4
