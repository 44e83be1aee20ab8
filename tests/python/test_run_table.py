"""The run table's rows in plain words: the model's figures in the run's
own units (a node's load over all its priorities), the bottleneck named as
a user names it, a figure without an interval says why, and ``ringlet
results`` aligns numbers right."""

from __future__ import annotations

import re

from conftest import ROOT


def _row(out: str, label: str) -> str:
    """The run table's row ``label``, its cells joined (``--wide``: one line each)."""
    [line] = [x for x in out.splitlines() if re.match(rf"^│ {re.escape(label)}\s+│", x)]
    return " ".join(c.strip() for c in line.strip("│").split("│"))


def test_the_models_saturation_is_a_nodes_over_its_priorities(cli):
    p = cli(["run", ROOT / "scenarios" / "sci-rt" / "dfc-8node.toml", "--set", "traffic.priorities=3",
             "--set", "run.measure_transactions=3000", "--wide"])
    assert p.returncode == 0, p.stderr
    # 133.3 MB/s per node, as the pre-flight says, each of the three levels a third of it.
    assert _row(p.stdout, "model saturation") == (
        "model saturation 133.3 MB/s offered per node (3 priorities of 44.4): beyond it the link out of "
        "node 4 (ringlet 0) is full")
    # Past its saturation the model has no latency, and says so.
    assert _row(p.stdout, "model latency mean") == "model latency mean - ns (analytic model: none past its saturation)"


def test_a_switchs_bottleneck_is_its_b_link(cli):
    p = cli(["run", ROOT / "scenarios" / "sci-switch" / "bO2nS2.toml", "--set", "run.measure_transactions=2000",
             "--wide"])
    assert p.returncode == 0, p.stderr
    assert _row(p.stdout, "model saturation").endswith("beyond it the B-Link of switch 0 is full")
    # Below its saturation the model's latency is a number.
    q = cli(["run", ROOT / "scenarios" / "sci" / "base-8node.toml", "--set", "traffic.load_mbps_per_node=20",
             "--set", "run.measure_transactions=2000", "--wide"])
    assert re.fullmatch(r"model latency mean [0-9,.]+ ns \(analytic model\)", _row(q.stdout, "model latency mean"))


def test_a_figure_without_an_interval_says_why(cli):
    p = cli(["run", ROOT / "scenarios" / "traces" / "allreduce-8node.toml", "--wide"])
    assert p.returncode == 0, p.stderr
    assert "± -" not in p.stdout
    assert _row(p.stdout, "throughput") == "throughput 762.9 MB/s (no 95% CI: the run closed fewer than two batches)"
    # The trace offers in the window what its warm-up's rows still had to deliver: all of it is carried.
    assert _row(p.stdout, "offered") == "offered 762.9 MB/s payload"


def test_results_aligns_numbers_right_and_words_left(cli, small_file, tmp_path):
    out = tmp_path / "sweep"
    p = cli(["sweep", small_file, "--set", "traffic.load_mbps_per_node=5,30", "--set", 'network.protocol="sci","ppq"',
             "--set", "run.measure_transactions=300", "--processes", "1", "--out", out])
    assert p.returncode == 0, p.stderr
    p = cli(["results", out])
    assert p.returncode == 0, p.stderr
    rows = [x for x in p.stdout.splitlines() if re.match(r"^\s+\d+\s+[0-9a-f]{16}\s", x)]
    assert len(rows) == 4
    # The swept load's column ends where its head does; the protocol's starts where its head does.
    head = next(x for x in p.stdout.splitlines() if "load_mbps_per_node" in x)
    load_end, protocol_start = head.index("load_mbps_per_node") + len("load_mbps_per_node"), head.index("protocol")
    for row in rows:
        assert row[load_end - 1] != " " and row[load_end - 2:load_end].strip(), row
        assert row[protocol_start] != " ", row


def test_the_terminals_tables_say_a_missing_figure_one_way():
    """A quote with no value: "-" in the terminal, as every terminal table says it ("–" is the documents')."""
    import io
    import math

    import pandas as pd
    from rich.console import Console

    from ringlet.cli.render import validation_view

    table = pd.DataFrame([{"kind": "quote", "figure": "fig1", "quote_id": "peak", "calibrated": False,
                           "seed_value_si": 916.0, "ringlet_value": math.nan, "unit": "MB/s", "difference_pct": math.nan}])
    out = io.StringIO()
    Console(file=out, width=100).print(validation_view(table))
    assert "–" not in out.getvalue()
    assert re.search(r"fig1\s+peak\s+916\s+-\s+MB/s\s+-", out.getvalue()), out.getvalue()
