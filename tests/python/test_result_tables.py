"""``Result`` gives every family's tables as attributes by one rule, lists them in
``r.tables`` and documents them (class docstring, docs/usage.md)."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import ringlet
from conftest import ROOT
from ringlet.api import schema
from ringlet.api.preflight import PreflightWarning
from ringlet.api.result import ONE_ROW_TABLES, Result, table_columns, table_names

SCENARIOS = ROOT / "scenarios"

FAMILIES = {
    "sci-ring": (SCENARIOS / "sci-rt" / "dfc-8node.toml", {"traffic.priorities": 2}),
    "banyan": (SCENARIOS / "banyan" / "uO2nS16.toml", {}),
    "gigaring-fold": (SCENARIOS / "gigaring" / "fold-8node.toml", {}),
}


@pytest.fixture(scope="module", params=list(FAMILIES))
def result(request) -> tuple[str, Result]:
    path, sets = FAMILIES[request.param]
    s = ringlet.Scenario.load(path).set("run.measure_transactions", 500)
    for key, value in sets.items():
        s = s.set(key, value)
    with warnings.catch_warnings():  # (the ring is overloaded on purpose: its inversions make a table)
        warnings.simplefilter("ignore", PreflightWarning)
        return request.param, s.run()


def test_every_reported_table_is_an_attribute_by_one_rule(result):
    family, r = result
    raw = r.raw
    assert isinstance(r.tables, tuple) and r.tables
    for name in r.tables:
        frame = getattr(r, name)
        assert isinstance(frame, pd.DataFrame)
        columns = table_columns(name)
        assert list(frame.columns[:len(columns)]) == columns
        rows = [raw[name]] if name in ONE_ROW_TABLES else raw[name]
        assert len(frame) == len(rows) > 0
        pd.testing.assert_frame_equal(frame, pd.DataFrame(rows).reindex(columns=frame.columns))
        pd.testing.assert_frame_equal(frame, r.table(name))
    # A table the run did not report: empty, with the schema's columns.
    for name in set(table_names()) - set(r.tables):
        frame = getattr(r, name)
        assert frame.empty and list(frame.columns) == table_columns(name), name
    expected = {"sci-ring": {"per_priority", "per_node_priority", "per_inversion"},
                "banyan": {"per_switch", "per_port"},
                "gigaring-fold": {"per_vc", "reconfiguration", "per_interval"}}[family]
    assert expected | {"hardware"} <= set(r.tables)
    # Plain lists and dicts that are not tables stay out.
    assert not {"starved_nodes", "counters", "conservation", "provenance"} & set(r.tables)


def test_a_fold_is_a_one_row_table(result):
    family, r = result
    if family != "gigaring-fold":
        assert r.reconfiguration.empty
        return
    assert len(r.reconfiguration) == 1
    row = r.reconfiguration.iloc[0].to_dict()
    assert row == pytest.approx(r.raw["reconfiguration"])
    assert row["at_ns"] == 200_000


def test_the_hardware_is_counted_for_the_cost_per_port(result):
    """Seed 001 weighs a network's cost by its switch ports: uO2nS16 has 32 two-port switches (64
    ports), each with one B-Link, and 96 links; its throughput per port is the run's over 64."""
    family, r = result
    hw = r.hardware.iloc[0]
    if family == "banyan":
        assert (hw["switches"], hw["ports"], hw["blinks"], hw["links"], hw["ringlets"]) == (32, 64, 32, 96, 16)
        assert hw["ports"] == r.per_switch["ports"].sum() and hw["switches"] == len(r.per_switch)
        assert hw["throughput_mbps_per_port"] == pytest.approx(r.raw["throughput_mbps"] / 64)
    else:
        assert hw["switches"] == hw["ports"] == hw["blinks"] == 0 and pd.isna(hw["throughput_mbps_per_port"])
    if family == "gigaring-fold":
        # The folded ring, built beside the two rings from their hardware, is not counted.
        assert (hw["endpoints"], hw["links"], hw["ringlets"]) == (8, 16, 2)


def test_unknown_attributes_and_tables_are_refused(result):
    _, r = result
    with pytest.raises(AttributeError, match="per_nonsense"):
        r.per_nonsense
    with pytest.raises(KeyError, match="per_nonsense"):
        r.table("per_nonsense")
    assert set(table_names()) <= set(dir(r))


def test_every_table_is_documented():
    names = table_names()
    assert set(schema.report_schema()["tables"]) | set(ONE_ROW_TABLES) == set(names)
    doc = Result.__doc__
    usage = (ROOT / "docs" / "usage.md").read_text()
    for name in names:
        assert f"``{name}``" in doc, name
        assert f"`r.{name}`" in usage, name
        assert isinstance(getattr(Result, name), property), name
