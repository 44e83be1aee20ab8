"""Replications: independent seed streams per point, their means and Student-t
confidence intervals, and the per-replication rows kept beside them."""

from __future__ import annotations

import math
import statistics
import sys

import pandas as pd
import pytest

import ringlet
from ringlet import Scenario
from ringlet import _core
from ringlet.runs.replications import REPLICATED_FIELDS, aggregate_columns, replication_seed
from ringlet.runs.table import OPTIONAL_FIELDS, replication_columns

from conftest import SMALL_TOML, run_cli
from storetools import SHORT_SETS, sweep_args

sweep_module = sys.modules["ringlet.runs.sweep"]
LOAD = "traffic.load_mbps_per_node"
GRID = {LOAD: [10, 60], "traffic.priorities": [1, 2]}
T_975_2 = 4.303  # Student t, 97.5% quantile, 2 degrees of freedom (the 3-decimal table value)


@pytest.fixture(scope="module")
def small() -> Scenario:
    return Scenario.from_toml(SMALL_TOML).set("run.measure_transactions", 2000)


@pytest.fixture(scope="module")
def reps(small) -> pd.DataFrame:
    return ringlet.sweep(small, GRID, processes=2, replications=3, aggregate=False)


def test_replication_seeds_are_fixed_distinct_and_in_range():
    assert replication_seed(1, 0) == 1
    seeds = [replication_seed(1, r) for r in range(50)]
    assert len(set(seeds)) == 50
    assert all(0 <= s < 2**63 for s in seeds)
    assert seeds == [replication_seed(1, r) for r in range(50)]
    assert replication_seed(2, 1) != replication_seed(1, 1)


@pytest.mark.parametrize("df, expected", [(1, 12.706204736), (2, 4.302652730), (4, 2.776445105),
                                          (9, 2.262157163), (30, 2.042272456), (120, 1.979930405)])
def test_t_quantile(df, expected):
    """The core's t quantile (a 3-decimal table to 30 degrees of freedom, a
    Cornish-Fisher expansion beyond), shared by batch means and replications."""
    assert _core.t95(df) == pytest.approx(expected, abs=1e-3)


def test_each_replication_has_its_own_seed(reps, small):
    assert list(reps.columns) == replication_columns(list(GRID))
    for _, point in reps.groupby("point"):
        per_rep = point.drop_duplicates("replication").set_index("replication")
        assert per_rep.index.tolist() == [0, 1, 2]
        assert per_rep["seed"].tolist() == [1, replication_seed(1, 1), replication_seed(1, 2)]
        assert per_rep["scenario_hash"].is_unique
        # the seeds are not just labels: the simulated figures differ between replications
        assert per_rep["total_latency_ns_mean"].nunique() == 3
    # replication 0 is the plain point
    plain = ringlet.sweep(small, GRID, processes=2)
    pd.testing.assert_frame_equal(reps[reps["replication"] == 0].drop(columns="replication").reset_index(drop=True),
                                  plain)


def test_replications_are_identical_when_repeated(reps, small):
    again = ringlet.sweep(small, GRID, processes=1, replications=3, aggregate=False)
    pd.testing.assert_frame_equal(again, reps)


def test_table_has_means_and_student_t_intervals(reps, small):
    table = ringlet.sweep(small, GRID, processes=2, replications=3)
    assert list(table.columns) == aggregate_columns(list(GRID))
    assert len(table) == 1 + 2 + 1 + 2
    assert (table["replications"] == 3).all()
    # An SCI ring reports none of the optional figures (a GigaRing's): the table has no column for them.
    assert not set(OPTIONAL_FIELDS) & set(table.columns)
    for (point, prio), group in reps.groupby(["point", "priority"]):
        row = table[(table["point"] == point) & (table["priority"] == prio)].iloc[0]
        assert row["seed"] == 1 and row["scenario_hash"] == group["scenario_hash"].iloc[0]
        for f in (f for f in REPLICATED_FIELDS if f not in OPTIONAL_FIELDS):
            values = group[f].astype(float).tolist()
            assert row[f] == pytest.approx(statistics.fmean(values), rel=1e-12)
            assert row[f"{f}_rep_ci95"] == pytest.approx(T_975_2 * statistics.stdev(values) / math.sqrt(3),
                                                         rel=1e-9, abs=1e-12)
    assert (table["total_latency_ns_mean_rep_ci95"] > 0).all()
    assert table["offered_mbps_rep_ci95"].eq(0).all()  # offered load does not depend on the seed


def test_replications_reuse_stored_points(small, tmp_path, monkeypatch):
    calls = []
    real = sweep_module._run_point
    monkeypatch.setattr(sweep_module, "_run_point", lambda t, ov: calls.append(ov) or real(t, ov))
    ringlet.sweep(small, GRID, processes=1, store=tmp_path)
    assert len(calls) == 4
    ringlet.sweep(small, GRID, processes=1, store=tmp_path, replications=3)
    assert len(calls) == 4 + 4 * 2  # replication 0 of each point came from the store
    ringlet.sweep(small, GRID, processes=1, store=tmp_path, replications=3)
    assert len(calls) == 12


def test_cli_writes_means_and_the_replications(tmp_path):
    out = tmp_path / "out"
    p = run_cli(sweep_args(out, SHORT_SETS, "--replications", "3", "--processes", "2"))
    assert p.returncode == 0, p.stderr
    assert "4 points x 3 replications" in p.stdout and "12 computed" in p.stdout
    assert "sweep 12/12 runs" in p.stderr
    table = pd.read_csv(out / "sweep.csv")
    per_rep = pd.read_csv(out / "sweep-replications.csv")
    assert list(table.columns) == aggregate_columns([LOAD, "traffic.priorities"])
    assert list(per_rep.columns) == replication_columns([LOAD, "traffic.priorities"])
    assert len(per_rep) == 3 * len(table)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "sweep-replications.parquet"), per_rep, check_dtype=False)
    export = run_cli(["results", out, "--csv", tmp_path / "export.csv"])
    assert export.returncode == 0, export.stderr
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "export.csv"), per_rep)
    # back to one replication: the plain table again, and no stale replication files
    p = run_cli(sweep_args(out, SHORT_SETS, "--processes", "2"))
    assert p.returncode == 0 and "0 computed, 4 from" in p.stdout
    assert not (out / "sweep-replications.csv").exists()
    plain = pd.read_csv(out / "sweep.csv")
    assert "replications" not in plain.columns and len(plain) == len(table)
