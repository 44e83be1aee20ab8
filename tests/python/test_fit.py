"""Every table the CLI prints fits 80 columns (a pipe, COLUMNS=80) and keeps every
digit of every number it shows: abbreviated, wrapped or split, never cut."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterable, Sequence

import pandas as pd
import pytest
from rich.cells import cell_len
from rich.console import Console

from conftest import ROOT
from ringlet.cli import render
from ringlet.cli.fit import Column, FitTable

SCENARIOS = ROOT / "scenarios"
WIDTH = 80


def cli80(args: Sequence[Any], cwd: Path | None = None, columns: int = WIDTH) -> subprocess.CompletedProcess:
    """The CLI in a pipe (not a terminal) with ``COLUMNS``."""
    env = dict(os.environ, COLUMNS=str(columns))
    env.pop("PYTHONPATH", None) if not env.get("PYTHONPATH") else None
    p = subprocess.run([sys.executable, "-m", "ringlet.cli", *map(str, args)], capture_output=True, text=True,
                       cwd=cwd, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    return p


def assert_fits(text: str, width: int = WIDTH) -> None:
    assert "…" not in text
    long = [line for line in text.splitlines() if cell_len(line.rstrip()) > width]
    assert not long, "\n".join(long)


def assert_shown(text: str, values: Iterable[str]) -> None:
    """Each of ``values`` appears whole in ``text``: not a digit more or less on either side."""
    missing = [v for v in values if not re.search(rf"(?<![\w.,]){re.escape(v)}(?![\w,]|\.\d)", text)]
    assert not missing, f"not shown whole: {missing}\n{text}"


def render_at(renderable: Any, width: int = WIDTH) -> str:
    out = io.StringIO()
    Console(file=out, width=width, highlight=False, color_system=None).print(renderable)
    return out.getvalue()


# --- ringlet run, on each family ------------------------------------------------------------------

RUNS = {
    # Three priorities at an overload: latencies in the tens of thousands of ns.
    "sci-ring-3-priorities": (SCENARIOS / "sci-rt" / "dfc-8node.toml",
                              ["traffic.priorities=3", "traffic.load_mbps_per_node=400",
                               "run.measure_transactions=2000"]),
    "banyan": (SCENARIOS / "banyan" / "uO2nS16.toml", ["run.measure_transactions=1000"]),
    "gigaring": (SCENARIOS / "gigaring" / "p2p-half-duplex.toml", ["run.measure_transactions=1000"]),
}


def _summary_cells(r: dict[str, Any]) -> list[str]:
    num = render._num
    cells = [num(r["throughput_mbps"]), num(r["throughput_mbps_ci95"]), num(r["offered_mbps"]),
             num(r["latency_ns_mean"]), num(r["latency_ns_mean_ci95"]), num(r["transactions"]),
             num(r["retries"]), num(r["sim_time_ns"], 0)]
    cells += [num(r[k]) for k in ("latency_ns_p50", "latency_ns_p99", "latency_ns_p999", "latency_ns_max")]
    return cells


def _priority_cells(r: dict[str, Any]) -> list[str]:
    num = render._num
    return [c for p in r["per_priority"] for c in (
        num(p["throughput_mbps"]), num(p["offered_mbps"]), num(p["transactions"]),
        *(num(p[k], 0) for k in ("latency_ns_mean", "latency_ns_p50", "latency_ns_p99", "latency_ns_p999",
                                  "latency_ns_max")))]


def _switch_cells(r: dict[str, Any]) -> list[str]:
    num = render._num
    cells = []
    switches = r.get("per_switch") or []
    shown, _ = render._busiest(switches, lambda s: (s["bus_utilization"] or 0.0, s["bus_mbps"] or 0.0), "", "")
    for s in shown:
        cells += [num(s["bus_utilization"], 3), num(s["bus_mbps"]), num(s["crossings"])]
    ports = r.get("per_port") or []
    shown, _ = render._busiest(ports, lambda p: (p["send_utilization"] or 0.0,
                                                 (p["to_bus_mbps"] or 0.0) + (p["from_bus_mbps"] or 0.0)), "", "")
    for p in shown:
        cells += [num(p["to_bus_mbps"]), num(p["from_bus_mbps"]), num(p["send_utilization"], 3)]
    return cells


def _channel_cells(r: dict[str, Any]) -> list[str]:
    num = render._num
    cells = [num(r[k], 1) for k in ("channel_latency_ns_mean", "channel_latency_ns_p99",
                                    "transaction_latency_ns_mean", "transaction_latency_ns_p99")
             if k in r]
    classes = {c["class"]: c for c in r.get("per_class") or []}
    for vc in r.get("per_vc") or []:
        c = classes[vc["class"]]
        cells += [vc["name"], num(vc["throughput_mbps"]), num(c["packets"]), num(c["latency_ns_mean"], 0)]
    return cells


@pytest.mark.parametrize("family", list(RUNS))
def test_run_tables_fit_80_columns_with_every_digit(family):
    path, sets = RUNS[family]
    args = ["run", path, *(a for s in sets for a in ("--set", s))]
    r = json.loads(cli80([*args, "--json"]).stdout)
    text = cli80(args).stdout
    assert_fits(text)
    cells = _summary_cells(r) + _priority_cells(r) + _switch_cells(r) + _channel_cells(r)
    assert len(cells) > 20
    assert_shown(text, cells)
    if family == "gigaring":
        # Too wide for 80 columns whole: the short header and its legend.
        assert "prio = priority" in text
    if family == "sci-ring-3-priorities":
        assert r["per_priority"][2]["latency_ns_max"] >= 1e4
        # Narrower still: the per-priority table splits in two, the priority repeated.
        narrow = cli80(args, columns=60).stdout
        assert_fits(narrow, 60)
        assert_shown(narrow, cells)
        assert len(re.findall(r"^ +prio +", narrow, flags=re.M)) == 2
    wide = cli80([*args, "--wide"]).stdout
    assert "…" not in wide
    assert re.search(r"priority +MB/s +offered +txns +mean +p50 +p99 +p99\.9 +max", wide)
    assert_shown(wide, cells)


def test_run_keeps_its_tables_whole_where_there_is_room():
    path, sets = RUNS["gigaring"]
    text = cli80(["run", path, *(a for s in sets for a in ("--set", s))], columns=200).stdout
    assert re.search(r"priority +MB/s +offered +txns +mean +p50 +p99 +p99\.9 +max", text)
    assert "prio = priority" not in text


# --- ringlet sweep and results ---------------------------------------------------------------------

def test_sweep_and_results_fit_80_columns_and_keep_the_seed(tmp_path):
    seed = "9223372036854775807"
    sweep = cli80(["sweep", SCENARIOS / "sci" / "base-8node.toml", "--set", "traffic.load_mbps_per_node=20,40",
                   "--set", "traffic.priorities=1,2", "--set", "run.measure_transactions=300",
                   "--set", f"run.seed={seed}", "--set", "node.iqst_ns=100,1000", "--processes", "1",
                   "--out", tmp_path / "out"])
    assert "…" not in sweep.stdout + sweep.stderr  # (a sentence naming its files: no table)
    text = cli80(["results", tmp_path / "out"]).stdout
    assert_fits(text)
    table = pd.read_csv(tmp_path / "out" / "sweep.csv")
    assert len(table) == 8 * 3 // 2
    hashes = table["scenario_hash"].unique().tolist()
    assert_shown(text, [seed, *hashes,
                        *(render._num(x) for x in table.drop_duplicates("point")["total_throughput_mbps"])])
    assert text.count(seed) == 8
    # The three swept keys do not fit beside the rest: a second table, the id repeated.
    assert "load_mbps_per_node" in text and "iqst_ns" in text and "priorities" in text
    assert len(re.findall(r"^ *id +", text, flags=re.M)) == 2
    wide = cli80(["results", tmp_path / "out", "--wide"]).stdout
    assert re.search(r"id +hash|id +scenario hash", wide)
    assert sum(1 for line in wide.splitlines() if seed in line) == 8


# --- reproduce's validation and findings -----------------------------------------------------------

def test_validation_tables_fit_80_columns_and_keep_the_seeds_numbers():
    rows = [
        {"kind": "quote", "figure": "fig8a-latency-per-priority", "quote_id": "stop-to-ties-starve-under-allocation",
         "seed_value_si": 1.8e-05, "ringlet_value": 123456789.0, "unit": "ns", "difference_pct": -12.5,
         "calibrated": False, "finding_id": "", "verdict": ""},
        {"kind": "quote", "figure": "fig11", "quote_id": "peak-throughput-of-a-ring-of-eight", "seed_value_si": 9.87654e9,
         "ringlet_value": 1.234567e-7, "unit": "B/s", "difference_pct": 3.25, "calibrated": True,
         "finding_id": "", "verdict": ""},
        {"kind": "finding", "figure": "fig8a-latency-per-priority", "quote_id": "",
         "seed_value_si": float("nan"), "ringlet_value": float("nan"), "unit": "", "difference_pct": float("nan"),
         "calibrated": False, "finding_id": "dfc-allocation-serves-in-ring-order-whatever-the-load",
         "verdict": "within noise"},
    ]
    view = render.validation_view(pd.DataFrame(rows))
    text = render_at(view)
    assert_fits(text)
    assert_shown(text, ["1.8e-05", "1.235e+08", "9.877e+09", "1.235e-07", "-12.5%", "+3.2%", "within noise"])
    joined = re.sub(r"\s+", "", text)  # (a label may wrap; its characters stay in order)
    for label in ("stop-to-ties-starve-under-allocation", "dfc-allocation-serves-in-ring-order-whatever-the-load",
                  "fig8a-latency-per-priority"):
        assert label in joined


def test_reproduce_prints_its_validation_within_80_columns(tmp_path):
    p = cli80(["reproduce", "gigaring", "--quick", "--only", "fig6-wire", "--out", tmp_path / "out", "--jobs", "1"])
    tables, summary = p.stdout.split("\nwrote ")  # (the last line, a sentence naming files, is left whole)
    assert_fits(tables)
    assert "…" not in summary
    table = pd.read_csv(tmp_path / "out" / "validation.csv")
    from ringlet.study.validation import short_number

    quotes = table[table["kind"] == "quote"]
    assert len(quotes) == 3
    assert_shown(p.stdout, [short_number(x) for x in [*quotes["seed_value_si"], *quotes["ringlet_value"]]])


# --- params and bench ----------------------------------------------------------------------------

def test_params_fit_80_columns_and_keep_every_range_and_default():
    text = cli80(["params"]).stdout
    assert_fits(text)
    markdown = cli80(["params", "--markdown"]).stdout
    values = set()
    for line in markdown.splitlines():
        cells = [c.strip().replace("`", "") for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if len(cells) == 4 and line.startswith("| `"):
            values.add(cells[0])
            values |= {w for w in cells[1].split() + cells[2].split() if re.search(r"\d", w)}
    assert "0..9223372036854775807" in values and "measure_transactions" in values and len(values) > 50
    missing = [v for v in values if v not in text]
    assert not missing


def test_bench_fits_80_columns():
    report = {"ringlet_version": "0.1.0+0123456789ab", "workloads": [
        {"workload": "banyan-bO2nS256-with-a-long-name", "repeats": 5, "floor_ratio": 0.0841234,
         "packet_hops_per_s": 123456789.0, "packet_hops": 1e9, "wall_s_all": [8.1, 9.2],
         "sim_to_wall": 0.00081234, "wall_s_median": 123.456, "throughput_mbps": 12345678.9}]}
    text = render_at(render.bench_view(report))
    assert_fits(text)
    assert_shown(text, ["0.084", "123.46", "108.70-123.46", "0.0008", "123.456", "12,345,678.9"])
    assert_fits(cli80(["bench", "--quick", "--repeats", "1"]).stdout)


# --- the layout itself ------------------------------------------------------------------------------

def _table() -> FitTable:
    columns = [Column("node", key=True), Column("label", justify="left", wrap=True),
               *(Column(f"figure number {i}", short=f"f{i}", meaning=f"figure {i}") for i in range(6))]
    rows = [[str(n), f"a label of node {n} in words", *(f"{(n + 1) * 10 ** (i + 3) + 0.5:,.1f}" for i in range(6))]
            for n in range(3)]
    return FitTable(columns, rows, title="a table")


@pytest.mark.parametrize("width", [30, 45, 80, 120])
def test_a_fit_table_keeps_every_cell_at_any_width(width):
    t = _table()
    text = render_at(t, width)
    assert_fits(text, width)
    assert_shown(text, [cell.plain for row in t.rows for cell in row[2:]])
    assert_shown(text, [row[0].plain for row in t.rows])
    assert len(re.findall(r"\bwords\b", text)) == 3  # each row's label, wrapped at its spaces if need be


def test_a_fit_table_abbreviates_before_it_splits():
    t = _table()
    whole = render_at(t, 400)
    assert "figure number 5" in whole and "f5 = figure 5" not in whole
    natural = max(cell_len(line.rstrip()) for line in whole.splitlines())
    short = render_at(t, natural - 1)
    assert "figure number" not in short and "f0 = figure 0" in short
    assert sum(1 for line in short.splitlines() if re.match(r"\s*node\b", line)) == 1  # one table
    split = render_at(t, 45)
    assert sum(1 for line in split.splitlines() if re.match(r"\s*node\b", line)) >= 2  # stacked, node repeated
