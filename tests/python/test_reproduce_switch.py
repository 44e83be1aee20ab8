"""The shipped ``sci-switch`` study (seed 001, Figures 10-16): it parses, every
point is a valid scenario, and a quick run of one small figure gives the
validation rows the study declares, with sensible values.

No ringlet value is hard-coded: the test checks the quotes are there and that
what ringlet gives is a finite number of the right kind.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

import ringlet
from ringlet.runs.grid import points
from ringlet.study import available_studies, load_study
from ringlet.study.reproduce import plan

SEED_QUOTES = {  # quote id -> the seed's number, as section VI prints it
    "bO2nS2-max-throughput": 272,
    "uO2nS2-max-throughput": 682,
    "bO2nS2-loss-1GBps": 1823,
    "uO2nS2-loss-1GBps": 83,
    "bO2nS2-latency-below-saturation": 1242,
    "bO2nS2-max-latency": 5230,
    "uO2nS2-max-latency": 1895,
    "uO2nS4-max-throughput": 1364,
    "uO2nS4-loss-1GBps": 167,
    "uO2nS4-max-latency": 1895,
    "throughput-factor": 5,
    "loss-factor": 11,
    "latency-factor": 2.8,
}

BOOK_QUOTES = {  # quote id -> Richter's SCINET book's number (pp. 82-85, 124-128), or the seed's read with its transaction
    "elementary-loss-free-limit": 333.3,
    "elementary-max-throughput": 333.3,
    "elementary-loss-450": 9.5,
    "uO2nS2-write64-max-throughput": 682,
    "uO2nS2-write64-loss-1GBps": 83,
    "uO2nS2-write64-max-packet-latency": 1895,
    "second-blink-two-senders": 1.554,
    "second-blink-four-senders": 2,
    "fourth-blink-ringlets": 1.015,
    "elementary-latency-constant": 915,
    "elementary-latency-max-450": 1890,
    "elementary-latency-max-500": 2629,
}


def test_sci_switch_study_parses_and_validates():
    assert "sci-switch" in available_studies()
    study = load_study("sci-switch")
    assert {"fig10", "fig11", "fig12", "fig13", "fig14", "fig15", "fig16"} <= set(study.ids)
    quotes = {q.id: q for f in study.figures for q in f.quotes}
    assert {k: q.seed_value for k, q in quotes.items()} == {**SEED_QUOTES, **BOOK_QUOTES}
    assert all(q.seed_unit in ("MB/s", "ns", "ratio") for q in quotes.values())
    # Every figure is the paper's (quotes, findings, or another's data), says it is beyond it, or
    # is a sensitivity figure (a value no source fixes, with the seed's number beside it).
    assert all(f.quotes or f.findings or f.data or "Beyond the paper" in f.title or f.plot.mark_default
               for f in study.figures)
    sensitivity = [f for f in study.figures if f.plot.mark_default]
    assert {"sens-blink-frame", "sens-blink-arbitration", "sens-acceptance", "sens-receive-path",
            "sens-send-path"} <= {f.id for f in sensitivity}
    assert all(f.title.startswith("Sensitivity:") and f.plot.seed_lines for f in sensitivity)
    # The paper's comparisons at three sizes, with and without bandwidth allocation.
    assert {"fig14-none", "fig14-64", "fig14-64-none", "fig14-256", "fig14-256-none"} <= set(study.ids)
    # The single-switch figures draw the processor pair's raw input: twice the per-processor rate.
    assert study.figure("fig10").plot.x_scale == 2
    for fig in study.figures:
        if fig.data is None:
            assert points(study.scenario(fig), fig.grid)
    # Every figure of random pairs (permutation traffic) runs over at least five draws of them.
    permutation = [f for f in study.figures if f.data is None
                   and study.scenario(f).get("traffic.destinations") == "permutation"]
    assert {"fig14", "fig14-rules", "fig14-start", "fig14-64", "fig14-256"} <= {f.id for f in permutation}
    assert all(f.draws >= 5 for f in permutation if f.capacity is None)
    # (capacity-loss's searches have their own replications, each its own permutation.)
    assert all(f.capacity.replications >= 3 for f in permutation if f.capacity is not None)
    # Budget: under 3100 distinct runs (the capacity searches apart), most of 50 000 or 20 000
    # transactions; the permutation figures' points, each run once per draw, are most of them
    # (docs/studies.md gives the time).
    assert len(plan(study, study.figures).work) <= 3100


@pytest.fixture(scope="module")
def quick_fig10(tmp_path_factory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("sw-quick")
    return ringlet.reproduce("sci-switch", out, jobs=1, quick=True, only="fig10,fig11,fig12", progress=False)


def test_quick_run_gives_the_quotes(quick_fig10):
    table = quick_fig10
    quotes = table[table["kind"] == "quote"].set_index("quote_id")
    expected = {k for k in SEED_QUOTES if not k.startswith(("uO2nS4", "throughput-", "loss-", "latency-"))}
    assert set(quotes.index) == expected
    assert quotes["quick"].all()
    for qid, row in quotes.iterrows():
        assert row["seed_value"] == SEED_QUOTES[qid]
        assert math.isfinite(row["ringlet_value"]), qid
        assert row["unit"] == ("ns" if "latency" in qid else "MB/s")
    # Throughput is carried, latencies are positive, losses are never negative.
    assert (quotes.loc[[q for q in expected if "throughput" in q], "ringlet_value"] > 0).all()
    assert (quotes.loc[[q for q in expected if "latency" in q], "ringlet_value"] > 0).all()
    assert (quotes.loc[[q for q in expected if "loss" in q], "ringlet_value"] >= 0).all()
    findings = table[table["kind"] == "finding"]
    assert set(findings["finding_id"]) >= {"uni-above-bi", "carried-equals-offered", "uni-fewer-losses"}
    # Far below saturation both switches carry what they are offered.
    assert findings.set_index("finding_id").loc["carried-equals-offered", "verdict"] == "yes"


# -- plot.x_scale (added for this study) ------------------------------------------------

TINY_BASE = """\
[network]
nodes = 4
[run]
measure_transactions = 500
"""


def _tiny(tmp_path, plot_extra: str):
    from ringlet.study import parse_study

    (tmp_path / "base.toml").write_text(TINY_BASE)
    text = f"""\
[study]
title = "x_scale"
base = "base.toml"
[[figure]]
id = "f"
title = "f"
[figure.grid]
"traffic.load_mbps_per_node" = [10, 20]
[figure.plot]
x = "traffic.load_mbps_per_node"
y = "total_throughput_mbps"
{plot_extra}
"""
    return parse_study(text, tmp_path)


def test_x_scale_draws_x_scaled_and_defaults_to_one(tmp_path):
    from ringlet.study.curves import curve

    assert _tiny(tmp_path, "").figures[0].plot.x_scale == 1.0
    plot = _tiny(tmp_path, "x_scale = 2").figures[0].plot
    frame = pd.DataFrame({"point": [0, 1], "traffic.load_mbps_per_node": [10, 20], "priority": [0, 0],
                          "total_throughput_mbps": [7.0, 9.0], "total_throughput_mbps_ci95": [0.1, 0.1]})
    assert curve(frame, plot, None, None)["x"].tolist() == [20.0, 40.0]


@pytest.mark.parametrize("extra, message", [
    ("x_scale = 0", "x_scale must be a finite number above 0"),
    ("x_scale = \"2\"", "x_scale must be a finite number above 0"),
    ("x_scale = 2\nmark_default = true", "x_scale cannot be combined with mark_default"),
])
def test_x_scale_refused(tmp_path, extra, message):
    from ringlet.study import StudyError

    with pytest.raises(StudyError, match=message):
        _tiny(tmp_path, extra)
