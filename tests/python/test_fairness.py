"""Fairness on every run, in the Python front: the run table's fairness line and
starved-node warning, the sweep table's fairness columns (and replications'),
the results store, and the report's fairness section (issue 34, part 1).

The case is the issue's hot spot: an 8-node ring, IQST 100 ns, every node
sending all its reads to node 5 at 150 MB/s, seed 3. DFC carries 92% of the
hot node's capacity and starves node 5 and the two nodes downstream of it;
base SCI carries less than half of that and, since no sender then carries more
than half of its offered load, flags no node.
"""

from __future__ import annotations

import json
import math
import re
import statistics

import pandas as pd
import pytest

import ringlet
from ringlet.cli.render import node_views, progress_views
from ringlet.runs.replications import REPLICATED_FIELDS
from ringlet.runs.store import Store
from ringlet.runs.table import NODE_FIELDS, NODE_LIST_FIELDS, TEXT_FIELDS, node_list, node_list_text, rows

from conftest import BASE, SMALL_TOML, run_cli

LOAD = "traffic.load_mbps_per_node"

#: The hot spot of issue 34 (seed 003 fig. 11's case), short.
HOT_SPOT = ["network.protocol=dfc", "node.iqst_ns=100", "traffic.destinations=hotspot", "traffic.hotspot_node=5",
            "traffic.hotspot_fraction=1.0", f"{LOAD}=150", "run.seed=3", "run.measure_transactions=20000"]
SETS = [a for q in HOT_SPOT for a in ("--set", q)]


def flat(text: str) -> str:
    """Console output on one line (rich wraps long lines at the console's width)."""
    return " ".join(text.split())


@pytest.fixture(scope="module")
def hot() -> ringlet.Scenario:
    return ringlet.Scenario.load(BASE).with_overrides(HOT_SPOT)


@pytest.fixture(scope="module")
def dfc(hot) -> ringlet.Result:
    return hot.run()


# -- the run ----------------------------------------------------------------------------------


def test_the_hot_spot_starves_the_hot_node_and_those_downstream(dfc, hot):
    assert dfc.starved_nodes == [5, 6, 7] == dfc["starved_nodes"]
    nodes = dfc.per_node.set_index("node")
    assert list(dfc.per_node.columns[-5:]) == ["carried_share", "backlog", "oldest_waiting_ns", "longest_stall_ns", "longest_stall_by_data_ns"]
    assert (nodes.loc[[5, 6, 7], "carried_share"] < 0.1).all() and (nodes["carried_share"] > 0.5).any()
    assert dfc.summary["min_carried_share_node"] == 5
    assert dfc.summary["min_carried_share"] == nodes["carried_share"].min()
    shares = nodes["carried_share"]
    assert dfc.summary["fairness_index"] == pytest.approx(shares.sum() ** 2 / (len(shares) * (shares ** 2).sum()))
    # A starved node's queue grew for the whole run: its backlog and oldest waiting age say so.
    assert (nodes.loc[[5, 6, 7], "backlog"] > 1000).all()
    assert (nodes.loc[[5, 6, 7], "oldest_waiting_ns"] > 0.5 * dfc.summary["sim_time_ns"]).all()
    # Not a table, but the result's list of starved nodes.
    assert "starved_nodes" not in dfc.tables and "per_node" in dfc.tables
    with pytest.raises(KeyError):
        dfc.table("starved_nodes")
    # They complete (almost) nothing, by their own progress: stalled too.
    assert dfc.stalled_nodes == [5, 6, 7] == dfc["stalled_nodes"]
    assert (nodes.loc[[5, 6, 7], "longest_stall_ns"] > dfc.summary["stall_window_ns"]).all()
    assert (nodes.loc[[0, 1, 2, 3, 4], "longest_stall_ns"] < dfc.summary["stall_window_ns"]).all()
    # A read's data comes with its one response, which completes it: judged by data, the same stretches.
    assert (nodes["longest_stall_by_data_ns"] == nodes["longest_stall_ns"]).all()
    base = hot.set("network.protocol", "sci").run()
    assert base.starved_nodes == [] and base.summary["fairness_index"] > dfc.summary["fairness_index"]


def test_run_table_names_each_starved_node(dfc):
    p = run_cli(["run", BASE, *SETS])
    assert p.returncode == 0, p.stderr
    text = flat(p.stdout)
    nodes = dfc.per_node.set_index("node")
    assert f"Jain's index {dfc.summary['fairness_index']:.3f}" in text
    assert f"smallest carried share {100 * dfc.summary['min_carried_share']:.1f}% (node 5)" in text
    warning = text[text.index("starved: "):]
    named = re.findall(r"node (\d+) carried ([\d.]+)%", warning)
    assert [int(n) for n, _ in named] == [5, 6, 7]
    for node, share in named:
        assert float(share) == pytest.approx(100 * nodes.loc[int(node), "carried_share"], abs=0.05)
        row = nodes.loc[int(node)]
        assert f"backlog {int(row['backlog']):,}, oldest waiting {row['oldest_waiting_ns'] / 1e6:.1f} ms" in warning
    assert "node 5 carried" in warning and "of its offered load" in warning
    assert "latency figures come only from the few of its transactions that got through" in text
    # The per-node p99 range is that of the served nodes: a starved node's few packets do not set it.
    served = nodes.drop(index=[5, 6, 7])["latency_ns_p99"]
    assert f"latency p99 {served.min():,.0f} to {served.max():,.0f} ns (the starved nodes left out)" in text


def test_run_table_names_each_prioritys_worst_node(small_file):
    """With several priorities the run table adds each priority's worst node tail (with one,
    the per-node line's p99 range has it)."""
    sets = ["--set", "traffic.priorities=3", "--set", "run.measure_transactions=3000"]
    p = run_cli(["run", small_file, *sets, "--json"])
    assert p.returncode == 0, p.stderr
    levels = json.loads(p.stdout)["per_priority"]
    p = run_cli(["run", small_file, *sets])
    assert p.returncode == 0, p.stderr
    text = flat(p.stdout)
    line = text[text.index("worst node per priority"):]
    for level in levels:
        assert (f"priority {level['priority']}: {level['node_latency_ns_p99_max']:,.0f} ns "
                f"(node {level['node_latency_ns_p99_max_node']})") in line
    p = run_cli(["run", small_file, "--set", "run.measure_transactions=3000"])
    assert p.returncode == 0 and "worst node per priority" not in flat(p.stdout)


@pytest.mark.parametrize("case, sets", [
    ("base SCI, the same hot spot", [*SETS, "--set", "network.protocol=sci"]),
    ("a lightly loaded ring", None),
])
def test_run_table_without_starved_nodes_warns_of_none(case, sets, small_file):
    p = run_cli(["run", BASE, *sets] if sets else ["run", small_file, "--json"])
    assert p.returncode == 0, p.stderr
    if sets is None:  # the light load: every node carries its load
        out = json.loads(p.stdout)
        assert out["starved_nodes"] == [] and out["fairness_index"] > 0.99
        assert all(0.8 < n["carried_share"] < 1.2 for n in out["per_node"])
        p = run_cli(["run", small_file])
    text = flat(p.stdout)
    assert "fairness over 8 sending nodes: Jain's index" in text, case
    assert "starved" not in text and "got through" not in text, case


def test_node_views_of_made_up_runs():
    def node(k, share, offered=100.0):
        return {"node": k, "offered_mbps": offered, "throughput_mbps": offered * (share or 0), "carried_share": share,
                "transactions": 3, "latency_ns_p99": 1000.0 + k, "backlog": 12_345, "oldest_waiting_ns": 6.5e6}

    # Twenty starved nodes: the first eight named, the rest counted.
    many = {"per_node": [node(k, 0.01 if k else 0.9) for k in range(21)], "starved_nodes": list(range(1, 21)),
            "fairness_index": 0.06, "min_carried_share": 0.01, "min_carried_share_node": 1}
    text = flat(" ".join(str(t) for t in node_views(many)))
    assert "node 1 carried 1.0% of its offered load (3 transactions completed; backlog 12,345, " \
           "oldest waiting 6.5 ms)" in text
    assert "node 8 carried" in text and "node 9 carried" not in text and "and 12 more nodes" in text
    assert "latency p99 1,000 to 1,000 ns (the starved nodes left out)" in text
    # Agents that offer nothing (a switch, a bridge) are not senders; a run without senders has no fairness line.
    idle = {"per_node": [node(0, None, 0.0)], "starved_nodes": [], "fairness_index": None,
            "min_carried_share": None, "min_carried_share_node": -1}
    assert node_views(idle) == []
    # A report from before the fairness figures: the per-node line only.
    old = {"per_node": [{k: v for k, v in node(k, 0.9).items() if k != "carried_share"} for k in range(2)]}
    assert [str(t).split(":")[0] for t in node_views(old)] == ["per node over 2 nodes"]
    # One sender (a half-duplex channel's master): in the singular.
    lone = {"per_node": [node(0, 0.9)], "starved_nodes": [], "fairness_index": 1.0,
            "min_carried_share": 0.9, "min_carried_share_node": 0}
    assert [str(t).split(":")[0] for t in node_views(lone)] == ["per node over 1 node", "fairness over 1 sending node"]


def test_run_table_names_a_stalled_node():
    """Every node reads from node 0 beyond what it answers: node 0 completes nothing (its
    requests wait behind the responses it owes), nobody carries half its load, so nobody
    is starved; the run table names node 0 stalled, by its own progress."""
    sets = ["--set", "network.nodes=16", "--set", "traffic.destinations=hotspot", "--set", "traffic.hotspot_node=0",
            "--set", "traffic.hotspot_fraction=1.0", "--set", f"{LOAD}=40", "--set", "run.max_sim_time_ns=1e6",
            "--set", "run.measure_transactions=1000000"]
    p = run_cli(["run", BASE, *sets, "--json"])
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["stalled_nodes"] == [0] and out["starved_nodes"] == []
    hot = out["per_node"][0]
    p = run_cli(["run", BASE, *sets])
    text = flat(p.stdout)
    assert (f"stalled (no completion for over {out['stall_window_ns'] / 1e3:.1f} µs with work outstanding): "
            f"node 0 completed nothing for {hot['longest_stall_ns'] / 1e3:.1f} µs (0 completed; backlog "
            f"{hot['backlog']:,})") in text
    assert "starved:" not in text and "delivered twice" not in text


def test_progress_views_of_made_up_runs():
    node = {"node": 3, "transactions": 2, "backlog": 40, "longest_stall_ns": 2.5e6}
    run = {"per_node": [node], "stalled_nodes": [3], "stall_window_ns": 1e6, "conservation": {"delivered_twice": 2}}
    text = flat(" ".join(str(t) for t in progress_views(run)))
    assert "stalled (no completion for over 1.0 ms with work outstanding): node 3 completed nothing for 2.5 ms " \
           "(2 completed; backlog 40)" in text
    assert "2 packets delivered twice" in text
    # Its data went meanwhile (a long block's packets): slow, not stuck, and said so.
    node["longest_stall_by_data_ns"] = 95e3
    text = flat(" ".join(str(t) for t in progress_views(run)))
    assert "node 3 completed nothing for 2.5 ms, its data going (none for at most 95.0 µs) (2 completed; backlog 40)" in text
    node["longest_stall_by_data_ns"] = 2.5e6
    assert "its data going" not in flat(" ".join(str(t) for t in progress_views(run)))
    assert progress_views({"per_node": [node], "stalled_nodes": [], "conservation": {"delivered_twice": 0}}) == []
    # A report from before the figures: nothing to say.
    assert progress_views({"per_node": [node]}) == []


def test_a_failed_node_is_not_judged():
    """A GigaRing node that fails mid-run offered load only until it failed: the core leaves
    its carried share empty and never flags it, so the run table names no starved node."""
    fold = ringlet.Scenario.load(BASE.parent.parent / "gigaring" / "fold-8node.toml")
    r = fold.set("run.measure_transactions", 3000).run()
    failed = fold.get("faults.fail_node")
    assert r.starved_nodes == [] and failed == 3
    assert r.raw["per_node"][failed]["carried_share"] is None
    assert r.raw["min_carried_share_node"] != failed
    text = flat(" ".join(str(t) for t in node_views(r.raw)))
    assert "starved:" not in text


# -- the sweep table --------------------------------------------------------------------------


def test_node_lists_in_a_row():
    assert NODE_LIST_FIELDS == ["starved_nodes", "stalled_nodes"] and "stalled_nodes" in TEXT_FIELDS
    assert NODE_FIELDS == ["node_latency_ns_p99_max_node", "total_min_carried_share_node", "starved_nodes", "stalled_nodes"]
    assert node_list_text([5, 6, 7]) == "5 6 7" and node_list_text([]) is None
    # However a table file gives a cell back: text, empty, or a lone node read as a number.
    for cell, nodes in (("5 6 7", [5, 6, 7]), (None, []), (float("nan"), []), (5, [5]), (5.0, [5]), ("", [])):
        assert node_list(cell) == nodes, cell
    # A result from before the list existed has no value, not an empty list.
    result = {"per_priority": [{"priority": 0}], "provenance": {}}
    assert rows(0, {}, result)[0]["starved_nodes"] is None
    assert rows(0, {}, {**result, "starved_nodes": [6, 7]})[0]["starved_nodes"] == "6 7"


@pytest.fixture(scope="module")
def swept(hot, tmp_path_factory):
    """The hot spot at two loads, DFC and base SCI, with its results store and tables."""
    out = tmp_path_factory.mktemp("fair")
    table = ringlet.sweep(hot, {"network.protocol": ["dfc", "sci"], LOAD: [80, 150]}, processes=1, out=out)
    return out, table


def test_sweep_table_has_the_fairness_columns(swept, dfc):
    out, table = swept
    for column in ("total_fairness_index", "total_min_carried_share", "total_min_carried_share_node",
                   "starved_nodes"):
        assert column in table.columns, column
    point = table.set_index(["network.protocol", LOAD])
    assert point.loc[("dfc", 150), "starved_nodes"] == "5 6 7"
    assert point.loc[("dfc", 150), "total_fairness_index"] == dfc.summary["fairness_index"]
    assert point.loc[("dfc", 150), "total_min_carried_share"] == dfc.summary["min_carried_share"]
    assert point.loc[("dfc", 150), "total_min_carried_share_node"] == 5
    # Each priority's worst node tail, from the run's per_priority table.
    level = dfc.per_priority.iloc[0]
    assert point.loc[("dfc", 150), "node_latency_ns_p99_max"] == level["node_latency_ns_p99_max"]
    assert point.loc[("dfc", 150), "node_latency_ns_p99_max_node"] == level["node_latency_ns_p99_max_node"]
    worst = dfc.per_node.loc[dfc.per_node["latency_ns_p99"].idxmax()]
    assert (level["node_latency_ns_p99_max"], level["node_latency_ns_p99_max_node"]) == (worst["latency_ns_p99"], worst["node"])
    assert pd.isna(point.loc[("dfc", 80), "starved_nodes"]) and pd.isna(point.loc[("sci", 150), "starved_nodes"])
    # The Parquet, the CSV and the store's export hold the same table (a CSV file has no None: its
    # empty cells read back as NaN, and a lone starved node as a number unless read as text).
    pd.testing.assert_frame_equal(pd.read_parquet(out / "sweep.parquet"), table)
    p = run_cli(["results", out, "--csv", out.parent / "export.csv"])
    assert p.returncode == 0, p.stderr
    for csv in (out / "sweep.csv", out.parent / "export.csv"):
        read = pd.read_csv(csv, dtype={"starved_nodes": str})
        read["starved_nodes"] = read["starved_nodes"].astype(object).where(read["starved_nodes"].notna(), None)
        pd.testing.assert_frame_equal(read, table)


def test_a_sweep_without_starved_nodes_has_an_empty_column(tmp_path):
    s = ringlet.Scenario.from_toml(SMALL_TOML).set("run.measure_transactions", 1000)
    table = ringlet.sweep(s, {LOAD: [10, 30]}, processes=1, out=tmp_path)
    assert table["starved_nodes"].isna().all() and (table["total_fairness_index"] > 0.9).all()
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "sweep.csv"), table)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "sweep.parquet"), table)


def test_replications_average_the_fairness_but_not_the_nodes(hot):
    grid = {LOAD: [150]}
    reps = ringlet.sweep(hot, grid, processes=1, replications=3, aggregate=False)
    table = ringlet.sweep(hot, grid, processes=1, replications=3)
    row = table.iloc[0]
    for f in ("total_fairness_index", "total_min_carried_share"):
        assert f in REPLICATED_FIELDS
        assert row[f] == pytest.approx(statistics.fmean(reps[f]), rel=1e-12)
        assert row[f"{f}_rep_ci95"] > 0
    # The nodes are replication 0's: an average of node numbers means nothing.
    first = reps[reps["replication"] == 0].iloc[0]
    assert row["total_min_carried_share_node"] == first["total_min_carried_share_node"]
    assert row["starved_nodes"] == first["starved_nodes"] == "5 6 7"
    assert "total_min_carried_share_node_rep_ci95" not in table.columns
    assert row["node_latency_ns_p99_max_node"] == first["node_latency_ns_p99_max_node"]
    assert "node_latency_ns_p99_max_node" in NODE_FIELDS and "node_latency_ns_p99_max_node_rep_ci95" not in table.columns
    assert row["node_latency_ns_p99_max"] == pytest.approx(statistics.fmean(reps["node_latency_ns_p99_max"]), rel=1e-12)
    assert "starved_nodes_rep_ci95" not in table.columns
    assert not math.isnan(row["total_fairness_index_rep_ci95"])


# -- the report -------------------------------------------------------------------------------


def _section(page: str, name: str) -> str:
    start = page.index(f'<section id="{name}">')
    return page[start:page.index("</section>", start)]


def test_report_has_the_fairness_section(swept, tmp_path):
    out, table = swept
    p = run_cli(["report", out, "--out", tmp_path / "report.html"])
    assert p.returncode == 0, p.stderr
    page = (tmp_path / "report.html").read_text()
    section = _section(page, "sweep-fairness")
    assert section.startswith('<section id="sweep-fairness"><h2>Fairness</h2>')
    for alt in ("Fairness index vs traffic.load_mbps_per_node", "Smallest carried share vs traffic.load_mbps_per_node",
                "Worst node p99 latency vs traffic.load_mbps_per_node"):
        assert f'alt="{alt}"' in section
    # The starved nodes by point, each with its own figures from the stored per_node table.
    starved = section[section.index('<h3 id="starved-nodes">'):]
    body = re.findall(r"<tr>(.*?)</tr>", starved[starved.index("<tbody>"):])
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", r) for r in body]
    flagged = table.dropna(subset=["starved_nodes"])
    expected = [(str(r["point"]), r["network.protocol"], str(r[LOAD]), str(n))
                for _, r in flagged.iterrows() for n in node_list(r["starved_nodes"])]
    assert [tuple(c[:4]) for c in cells] == expected and ("1", "dfc", "150", "7") in expected
    with Store(out / "results.sqlite") as store:
        stored = {r.scenario_hash: json.loads(r.result) for r in store.rows(ringlet.__version__)}
    hashes = [r["scenario_hash"] for _, r in flagged.iterrows() for _ in node_list(r["starved_nodes"])]
    for c, h in zip(cells, hashes):
        node = next(n for n in stored[h]["per_node"] if n["node"] == int(c[3]))
        assert c[4:] == [f"{node['carried_share']:.5g}", str(node["transactions"]), str(node["backlog"]),
                         f"{node['oldest_waiting_ns']:.0f}"]


def test_report_fairness_without_starved_nodes_or_before_the_columns(tmp_path):
    s = ringlet.Scenario.from_toml(SMALL_TOML).set("run.measure_transactions", 1000)
    ringlet.sweep(s, {LOAD: [10, 30]}, processes=1, out=tmp_path / "light")
    section = _section(ringlet.report(tmp_path / "light", tmp_path / "light.html").read_text(), "sweep-fairness")
    assert "No point has a starved node." in section and section.count("<img ") == 3
    # A sweep table written before ringlet reported fairness: no section, and the page still builds.
    old = tmp_path / "old"
    old.mkdir()
    frame = pd.read_csv(tmp_path / "light" / "sweep.csv")
    frame.drop(columns=[c for c in frame.columns if "fairness" in c or "carried" in c or c == "starved_nodes"]) \
        .to_csv(old / "sweep.csv", index=False)
    page = ringlet.report(old, tmp_path / "old.html").read_text()
    assert 'id="sweep-fairness"' not in page and page.count("<img ") == 3
