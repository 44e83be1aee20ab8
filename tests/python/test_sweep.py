"""``ringlet.sweep``: Cartesian grids, validation first, a tidy table."""

from __future__ import annotations

import sys

import pandas as pd
import pytest

import ringlet
from ringlet import Scenario, ScenarioError

from conftest import SMALL_TOML, run_cli

sweep_module = sys.modules["ringlet.runs.sweep"]

LOAD = "traffic.load_mbps_per_node"
PRIOS = "traffic.priorities"

PER_PRIORITY = ["throughput_mbps", "offered_mbps", "latency_ns_mean", "latency_ns_p50", "latency_ns_p99",
                "latency_ns_p999", "latency_ns_max", "transactions", "node_latency_ns_p99_max",
                "node_latency_ns_p99_max_node"]
TOTALS = ["total_throughput_mbps", "total_throughput_mbps_ci95", "total_loss_mbps", "total_latency_ns_mean",
          "total_latency_ns_mean_ci95", "total_latency_ns_p99", "total_retries", "total_fairness_index",
          "total_min_carried_share", "total_min_carried_share_node", "total_output_inversions_per_kpacket",
          "total_input_inversions_per_kpacket", "total_transactions", "stopped_by", "model_throughput_mbps",
          "model_latency_ns_mean", "model_saturation_load_mbps_per_node", "model_utilization", "starved_nodes",
          "stalled_nodes"]
PROVENANCE = ["scenario_hash", "seed", "ringlet_version"]


@pytest.fixture(scope="module")
def small() -> Scenario:
    return Scenario.from_toml(SMALL_TOML).set("run.measure_transactions", 2000)


@pytest.fixture(scope="module")
def table(small) -> pd.DataFrame:
    return ringlet.sweep(small, {LOAD: [10, 30], PRIOS: [1, 2]}, processes=2)


def test_columns_are_the_contract(table):
    assert list(table.columns) == ["point", LOAD, PRIOS, "priority", *PER_PRIORITY, *TOTALS, *PROVENANCE]


def test_one_row_per_point_and_priority(table):
    assert len(table) == 1 + 2 + 1 + 2
    assert table["point"].tolist() == [0, 1, 1, 2, 3, 3]
    assert table[LOAD].tolist() == [10, 10, 10, 30, 30, 30]
    assert table[PRIOS].tolist() == [1, 2, 2, 1, 2, 2]
    for _, rows in table.groupby("point"):
        assert rows["priority"].is_monotonic_increasing and rows["priority"].is_unique


def test_point_level_columns_and_provenance(table, small):
    for point, rows in table.groupby("point"):
        assert rows[TOTALS + PROVENANCE].nunique().max() == 1  # same on every row of a point
        assert rows["total_transactions"].iloc[0] == rows["transactions"].sum()
        assert rows["total_throughput_mbps"].iloc[0] == pytest.approx(rows["throughput_mbps"].sum(), rel=1e-9)
    first = table.iloc[0]
    assert first["scenario_hash"] == small.with_(traffic={"load_mbps_per_node": 10, "priorities": 1}).hash
    assert first["seed"] == 1
    assert first["ringlet_version"] == ringlet.__version__
    assert table["scenario_hash"].nunique() == 4


def test_throughput_follows_the_offered_load(table):
    totals = table.drop_duplicates("point").set_index("point")["total_throughput_mbps"]
    # 8 nodes x load x priorities, well below saturation
    assert totals[0] == pytest.approx(80, rel=0.1)
    assert totals[3] == pytest.approx(480, rel=0.1)


def test_in_process_and_worker_processes_give_the_same_table(table, small):
    serial = ringlet.sweep(small, {LOAD: [10, 30], PRIOS: [1, 2]}, processes=1)
    pd.testing.assert_frame_equal(serial, table)


def test_bad_value_raises_before_anything_runs(small, monkeypatch):
    ran = []
    monkeypatch.setattr(sweep_module, "_run_point", lambda *a: ran.append(a))
    with pytest.raises(ScenarioError) as e:
        ringlet.sweep(small, {LOAD: [10, 20, -5]}, processes=1)
    assert str(e.value) == f"{LOAD}: expected a number >= 0, got -5"
    with pytest.raises(ScenarioError, match=r"network.protocol: expected one of .*got \"token\""):
        ringlet.sweep(small, {LOAD: [10], "network.protocol": ["sci", "token"]}, processes=1)
    with pytest.raises(ScenarioError, match=f"{LOAD}: expected a finite number, got nan"):
        ringlet.sweep(small, {LOAD: [float("nan")]}, processes=1)
    with pytest.raises(ScenarioError, match=f"{LOAD}: no values"):
        ringlet.sweep(small, {LOAD: []}, processes=1)
    with pytest.raises(ScenarioError, match="expected SECTION.KEY"):
        ringlet.sweep(small, {"load": [1]}, processes=1)
    assert ran == []


def test_progress_callback_and_scalar_axis(small):
    seen = []
    t = ringlet.sweep(small, {LOAD: range(10, 31, 10), "network.protocol": "sci"},
                      processes=1, progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 3) and seen[-1] == (3, 3)
    assert t["network.protocol"].tolist() == ["sci"] * 3
    assert t[LOAD].tolist() == [10, 20, 30]


def test_sweep_accepts_a_path(small_file):
    t = ringlet.sweep(small_file, {"run.measure_transactions": [1000]}, processes=1)
    assert t["run.measure_transactions"].tolist() == [1000]


def test_bad_processes(small):
    with pytest.raises(ValueError, match="processes"):
        ringlet.sweep(small, {LOAD: [10]}, processes=0)


def test_a_point_gives_the_same_numbers_in_any_sweep_order(table, small):
    """Same scenario and seed: bit-identical, whatever else the sweep holds and in what order."""
    reordered = ringlet.sweep(small, {PRIOS: [2, 1], LOAD: [30, 10]}, processes=2)
    key = ["scenario_hash", "priority"]
    a = table.drop(columns=["point"]).sort_values(key).reset_index(drop=True)
    b = reordered[list(table.columns.drop("point"))].sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    alone = small.with_(traffic={"load_mbps_per_node": 30, "priorities": 2}).run()
    rows = table[(table[LOAD] == 30) & (table[PRIOS] == 2)]
    assert rows["throughput_mbps"].tolist() == alone.per_priority["throughput_mbps"].tolist()
    assert rows["latency_ns_p99"].tolist() == alone.per_priority["latency_ns_p99"].tolist()


def test_too_big_grid_and_too_many_processes_raise_before_planning(small, monkeypatch):
    """The grid's size (points x replications) is capped like one axis's, and checked
    before a single point is built or validated; so are the worker processes."""
    def planned(*args):
        raise AssertionError("a point was built")

    monkeypatch.setattr(sweep_module._core, "validate", planned)
    with pytest.raises(ScenarioError) as e:
        ringlet.sweep(small, {LOAD: range(1, 1_000_001), "node.iqst_ns": range(1, 1_000_001)}, processes=1)
    assert str(e.value) == ("the grid has 1000000000000 points (1000000 x 1000000); "
                            "a sweep may have at most 1000000 points")
    with pytest.raises(ScenarioError, match=r"^the grid has 1000 points x 1001 replications = 1001000 runs; "):
        ringlet.sweep(small, {LOAD: range(1, 1001)}, processes=1, replications=1001)
    with pytest.raises(ValueError, match=r"^processes: expected an integer in 1\.\.4096, got 1000000000000$"):
        ringlet.sweep(small, {LOAD: [10]}, executor="dask", processes=10**12)


def test_points_that_stop_early_are_warned_of(small, recwarn):
    table = ringlet.sweep(small, {"run.max_sim_time_ns": [20000.0, 1e9]}, processes=1)
    assert table["stopped_by"].tolist() == ["time_cap", "transactions"]
    short = int(table["total_transactions"].iloc[0])
    [w] = [w for w in recwarn if issubclass(w.category, UserWarning)]
    assert str(w.message).endswith(f": point 0 (run.max_sim_time_ns=20000.0): time_cap, {short:,}")
    assert w.filename == __file__  # points at the caller, not at ringlet


def test_no_warning_when_every_point_measures_its_transactions(small, recwarn):
    ringlet.sweep(small, {LOAD: [10]}, processes=1)
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)]


# -- out=: the tables ringlet sweep --out writes -------------------------------------


def test_out_writes_the_tables_the_cli_writes(small, small_file, tmp_path):
    """``ringlet.sweep(..., out=DIR)`` and ``ringlet sweep --out DIR`` write the same files, by the same code."""
    grid = {LOAD: [10, 30]}
    api_out, cli_out = tmp_path / "api", tmp_path / "cli"
    returned = ringlet.sweep(small, grid, processes=1, replications=2, out=api_out)
    p = run_cli(["sweep", small_file, "--set", f"{LOAD}=10,30", "--set", "run.measure_transactions=2000",
                 "--replications", "2", "--processes", "1", "--out", cli_out])
    assert p.returncode == 0, p.stderr
    names = ["results.sqlite", "sweep-replications.csv", "sweep-replications.parquet", "sweep.csv", "sweep.parquet"]
    assert sorted(x.name for x in api_out.iterdir()) == sorted(x.name for x in cli_out.iterdir()) == names
    for name in ("sweep.csv", "sweep-replications.csv"):
        assert (api_out / name).read_bytes() == (cli_out / name).read_bytes()
    for name in ("sweep.parquet", "sweep-replications.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(api_out / name), pd.read_parquet(cli_out / name))
    pd.testing.assert_frame_equal(pd.read_parquet(api_out / "sweep.parquet"), returned)
    # Again with one replication: the plain table, the stale per-replication tables removed, nothing computed.
    plain = ringlet.sweep(small, grid, processes=1, out=api_out)
    assert sorted(x.name for x in api_out.iterdir()) == ["results.sqlite", "sweep.csv", "sweep.parquet"]
    pd.testing.assert_frame_equal(pd.read_csv(api_out / "sweep.csv"), plain)


def test_out_is_checked_before_anything_runs(small, tmp_path, monkeypatch):
    monkeypatch.setattr(sweep_module, "_run_point", lambda *a: pytest.fail("a point ran"))
    with pytest.raises(ValueError, match=r"^store and out: give one of them"):
        ringlet.sweep(small, {LOAD: [10]}, store=tmp_path / "s", out=tmp_path / "o")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(ScenarioError) as e:
        ringlet.sweep(small, {LOAD: [10]}, out=blocker)
    assert str(e.value) == f"--out {blocker}: exists and is not a directory"
    (tmp_path / "o" / "sweep.parquet").mkdir(parents=True)
    with pytest.raises(ScenarioError, match=r"sweep\.parquet exists and is a directory$"):
        ringlet.sweep(small, {LOAD: [10]}, out=tmp_path / "o")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "o"]


def test_a_failed_point_writes_no_table(small, tmp_path, monkeypatch):
    real = sweep_module._run_point

    def failing(text, overrides):
        if (LOAD, "30") in overrides:
            raise ScenarioError("model says no")
        return real(text, overrides)

    monkeypatch.setattr(sweep_module, "_run_point", failing)
    with pytest.raises(sweep_module.SweepError):
        ringlet.sweep(small, {LOAD: [10, 30]}, processes=1, out=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.sqlite"]
