"""A study's verdicts (yes, no, within noise; two-sided claims), the confidence
half-widths they rest on, the sensitivity figures' plumbing and ``reproduce
--docs``. Small runs: a 4-node ring, 2000 transactions per point. Expected
values are recomputed from the CSVs a run wrote, never typed in.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

import ringlet
from ringlet.study import StudyError, load_study
from ringlet.study.extract import CI_COLUMNS, Estimate, parse_value
from ringlet.study.format import NO, WITHIN_NOISE, YES, Finding
from ringlet.study.reproduce import run_study

from conftest import one_error_line, run_cli
from test_reproduce import write_study

PICK = {"stat": "max", "column": "total_throughput_mbps"}


def finding(op: str, factor: "float | tuple[float, float]" = 1.0) -> Finding:
    value = parse_value(PICK, "test")
    return Finding("f", "a claim", value, op, value, factor)


# -- the verdict, from numbers -------------------------------------------------------------


@pytest.mark.parametrize("left, right, left_ci, right_ci, expected", [
    (10.0, 5.0, 0.5, 0.5, YES),            # far above: the noise cannot matter
    (5.0, 10.0, 0.5, 0.5, NO),             # far below
    (10.5, 10.0, 0.5, 0.5, WITHIN_NOISE),  # above, but by less than the difference's half-width (0.71)
    (9.5, 10.0, 0.5, 0.5, WITHIN_NOISE),   # below by as little: the runs cannot tell either way
    (10.5, 10.0, 0.2, 0.2, YES),           # the same margin with tighter intervals decides
    (10.5, 10.0, math.nan, math.nan, YES),  # no intervals: the plain comparison
    (9.5, 10.0, math.nan, 0.2, NO),
])
def test_one_sided_verdict(left, right, left_ci, right_ci, expected):
    assert finding(">").verdict(left, right, left_ci, right_ci) == expected
    # The opposite claim gets the opposite answer, or the same "within noise".
    flipped = {YES: NO, NO: YES, WITHIN_NOISE: WITHIN_NOISE}[expected]
    assert finding("<").verdict(left, right, left_ci, right_ci) == flipped


def test_factor_scales_the_bound_and_its_noise():
    f = finding(">", 2.0)  # "over twice"
    assert f.verdict(25.0, 10.0, 0.1, 0.1) == YES
    assert f.verdict(15.0, 10.0, 0.1, 0.1) == NO      # above the other, not above twice it
    assert f.holds(20.1, 10.0) and f.verdict(20.1, 10.0, 0.1, 0.1) == WITHIN_NOISE
    assert f.noise(0.3, 0.2) == (pytest.approx(math.hypot(0.3, 0.4)),)


@pytest.mark.parametrize("left, expected", [
    (95.0, YES),           # inside [0.9, 1.0] x 100, clear of both ends
    (104.0, NO),           # above the upper end: close, but not below it
    (80.0, NO),            # below the lower end
    (100.3, WITHIN_NOISE),  # at the upper end
    (89.6, WITHIN_NOISE),   # at the lower end
])
def test_two_sided_verdict(left, expected):
    f = finding("between", (0.9, 1.0))  # "close to, and below"
    assert f.verdict(left, 100.0, 0.5, 0.5) == expected
    assert f.holds(left, 100.0) == (90.0 <= left <= 100.0)


def test_two_sided_is_parsed_and_checked(tmp_path):
    from test_reproduce import STUDY_TOML

    good = STUDY_TOML.replace('op = "<"', 'op = "between"\nfactor = [0.5, 1.5]', 1)
    study = load_study(write_study(tmp_path / "good", good))
    falls = next(f for f in study.figure("figA").findings if f.id == "falls")
    assert falls.op == "between" and falls.factors == (0.5, 1.5)
    for factor in ("0.9", "[1.0, 0.9]", "[0.9]", "[0.9, nan]"):
        bad = STUDY_TOML.replace('op = "<"', f'op = "between"\nfactor = {factor}', 1)
        with pytest.raises(StudyError, match=r"falls: op = \"between\" needs factor = \[low, high\], two finite"):
            load_study(write_study(tmp_path / "bad", bad))


# -- the half-widths, from a table ----------------------------------------------------------


def _frame() -> pd.DataFrame:
    return pd.DataFrame({
        "point": [0, 1, 2], "load": [10.0, 20.0, 30.0], "priority": [0, 0, 0],
        "total_throughput_mbps": [100.0, 300.0, 200.0], "total_throughput_mbps_ci95": [1.0, 3.0, 2.0],
        "throughput_mbps": [100.0, 300.0, 200.0],
    })


def test_estimates_carry_the_picked_rows_half_width():
    assert CI_COLUMNS["total_throughput_mbps"] == "total_throughput_mbps_ci95"
    frame = _frame()
    est = parse_value(PICK, "t").estimate(frame, "load")
    assert (est.value, est.ci95) == (300.0, 3.0)  # the max's own row
    low = parse_value({"stat": "min", "column": "total_throughput_mbps"}, "t").estimate(frame, "load")
    assert (low.value, low.ci95) == (100.0, 1.0)
    at = parse_value({"stat": "at_max_x", "column": "total_throughput_mbps"}, "t").estimate(frame, "load")
    assert (at.value, at.ci95) == (200.0, 2.0)
    mean = parse_value({"stat": "mean", "column": "total_throughput_mbps"}, "t").estimate(frame, "load")
    assert mean.value == pytest.approx(200.0) and mean.ci95 == pytest.approx(math.sqrt(1 + 9 + 4) / 3)
    # A column the runs give no half-width for has none.
    per_priority = parse_value({"stat": "max", "column": "throughput_mbps"}, "t").estimate(frame, "load")
    assert per_priority.value == 300.0 and math.isnan(per_priority.ci95)
    mean_pp = parse_value({"stat": "mean", "column": "throughput_mbps"}, "t").estimate(frame, "load")
    assert mean_pp.value == pytest.approx(200.0) and math.isnan(mean_pp.ci95)  # not "± 0"
    frame.loc[1, "total_throughput_mbps_ci95"] = math.nan
    assert math.isnan(parse_value({"stat": "mean", "column": "total_throughput_mbps"}, "t").estimate(frame, "load").ci95)


def test_below_saturation_reads_the_last_point_that_carries_its_offer():
    frame = pd.DataFrame({
        "point": [0, 1, 2, 3, 4], "load": [10.0, 20.0, 30.0, 40.0, 50.0], "priority": [0] * 5,
        "offered_mbps": [100.0, 200.0, 300.0, 400.0, 500.0],
        # Carried in full up to 20, not at 30, in full again at 40 (a rebound after saturation does not count).
        "total_throughput_mbps": [100.0, 199.0, 250.0, 400.0, 260.0],
        "total_latency_ns_mean": [1.0, 2.0, 30.0, 4.0, 50.0], "total_latency_ns_mean_ci95": [0.1] * 5,
    })
    pick = parse_value({"stat": "below_saturation", "column": "total_latency_ns_mean"}, "t")
    assert pick.target_x(frame, "load") == 20.0
    assert pick.estimate(frame, "load") == Estimate(2.0, 0.1)
    frame["total_throughput_mbps"] = frame["offered_mbps"]  # never saturates: the highest x
    assert pick.target_x(frame, "load") == 50.0
    frame["total_throughput_mbps"] = 0.5 * frame["offered_mbps"]
    with pytest.raises(ValueError, match="no point carries what it is offered"):
        pick.estimate(frame, "load")
    with pytest.raises(ValueError, match="x is only for stat"):
        parse_value({"stat": "below_saturation", "column": "total_latency_ns_mean", "x": 3}, "t")


def test_ratio_and_drop_combine_half_widths():
    frame = _frame()
    pick = {"stat": "at_x", "column": "total_throughput_mbps"}
    ratio = parse_value({"ratio": [dict(pick, x=20), dict(pick, x=10)]}, "t").estimate(frame, "load")
    assert ratio.value == pytest.approx(3.0)
    assert ratio.ci95 == pytest.approx(3.0 * math.hypot(3 / 300, 1 / 100))
    drop = parse_value({"drop_pct": [dict(pick, x=20), dict(pick, x=30)]}, "t").estimate(frame, "load")
    assert drop.value == pytest.approx(100 / 3)
    assert drop.ci95 == pytest.approx(100 * (200 / 300) * math.hypot(3 / 300, 2 / 200))
    assert Estimate(1.0).ci95 != Estimate(1.0).ci95  # NaN by default: no interval claimed


# -- a study with a sensitivity figure, run end to end ------------------------------------------

SENS_TOML = """\
[study]
title = "Sensitivity test study"
base = "base.toml"

[[figure]]
id = "figA"
title = "A"
[figure.grid]
"traffic.load_mbps_per_node" = [10, 20]
[figure.plot]
x = "traffic.load_mbps_per_node"
y = "total_throughput_mbps"

[[figure.quote]]
id = "peak"
description = "peak"
seed_value = 60
seed_unit = "MiB/s"
value = { stat = "max", column = "total_throughput_mbps" }

[[figure.finding]]
id = "close"
description = "the lower load carries between half and all of the higher's"
left = { stat = "at_min_x", column = "total_throughput_mbps" }
op = "between"
factor = [0.5, 1.0]
right = { stat = "at_max_x", column = "total_throughput_mbps" }

[[figure]]
id = "sens"
title = "sensitivity to the output queue"
[figure.grid]
"node.output_queue_packets" = [2, 5, 8]
"traffic.load_mbps_per_node" = [10, 20]
[figure.plot]
x = "node.output_queue_packets"
y = "total_throughput_mbps"
reduce = { over = "traffic.load_mbps_per_node", stat = "max" }
mark_default = true
seed_lines = ["figA:peak"]

[[figure]]
id = "sens-latency"
data = "sens"
title = "latency at the lowest load"
[figure.plot]
x = "node.output_queue_packets"
y = "total_latency_ns_mean"
reduce = { over = "traffic.load_mbps_per_node", stat = "at_min" }
mark_default = true
"""

DOC = """\
# A document

Hand-written prose, kept.

## Results

<!-- begin generated: ringlet reproduce {name} -->
old generated text
<!-- end generated: ringlet reproduce {name} -->

Closing prose, kept too.
"""


@pytest.fixture(scope="module")
def sens_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("sens")
    study = write_study(root / "sensstudy", SENS_TOML)
    doc = root / "doc.md"
    doc.write_text(DOC.format(name="sensstudy"))
    done = run_study(study, root / "out", jobs=1, progress=False, docs=doc)
    return study, root / "out", doc, done


def test_verdicts_in_the_table_follow_the_figure_data(sens_run):
    _, out, _, done = sens_run
    table = pd.read_csv(out / "validation.csv")
    row = table[table["finding_id"] == "close"].iloc[0]
    a = pd.read_csv(out / "figA.csv").set_index("traffic.load_mbps_per_node")
    left, right = a.loc[10, "total_throughput_mbps"], a.loc[20, "total_throughput_mbps"]
    lci, rci = a.loc[10, "total_throughput_mbps_ci95"], a.loc[20, "total_throughput_mbps_ci95"]
    assert row["ringlet_value"] == pytest.approx(left) and row["ringlet_ci95"] == pytest.approx(lci)
    assert row["compared_to"] == pytest.approx(0.5 * right)
    assert row["compared_to_high"] == pytest.approx(right)
    expected = finding("between", (0.5, 1.0)).verdict(left, right, lci, rci)
    assert row["verdict"] == expected
    # Recomputed by hand: within noise exactly when a bound is within the combined half-width.
    near = any(abs(left - f * right) <= math.hypot(lci, f * rci) for f in (0.5, 1.0))
    assert (row["verdict"] == WITHIN_NOISE) == near
    if not near:
        assert row["verdict"] == (YES if 0.5 * right <= left <= right else NO)
    quote = table[table["quote_id"] == "peak"].iloc[0]
    assert quote["ringlet_ci95"] == pytest.approx(a.loc[a["total_throughput_mbps"].idxmax(),
                                                        "total_throughput_mbps_ci95"])
    md = (out / "validation.md").read_text()
    shown = {"yes": "yes", "no": "**no**", "within noise": "within noise"}[row["verdict"]]
    assert f"| figA | close | the lower load carries between half and all of the higher's | {shown} |" in md


def test_sensitivity_table_reads_the_reduced_lines(sens_run):
    study, out, _, done = sens_run
    sens = pd.read_csv(out / "sensitivity.csv")
    assert sens["figure"].tolist() == ["sens", "sens-latency"]
    data = pd.read_csv(out / "sens.csv").drop_duplicates("point")
    peaks = data.groupby("node.output_queue_packets")["total_throughput_mbps"].max()
    lowest = data[data["traffic.load_mbps_per_node"] == 10].set_index("node.output_queue_packets")
    ours = load_study(study).scenario(load_study(study).figure("sens")).get("node.output_queue_packets")
    thr, lat = sens.iloc[0], sens.iloc[1]
    assert thr["ringlet_x"] == ours and thr["at_ringlet_x"] == pytest.approx(peaks[ours])
    assert thr["min"] == pytest.approx(peaks.min()) and thr["max"] == pytest.approx(peaks.max())
    assert thr["max_at"] == peaks.idxmax()
    assert thr["high_pct"] == pytest.approx((peaks.max() - peaks[ours]) / peaks[ours] * 100)
    assert lat["at_ringlet_x"] == pytest.approx(lowest.loc[ours, "total_latency_ns_mean"])
    assert lat["min"] == pytest.approx(lowest["total_latency_ns_mean"].min())
    assert lat["quantity"] == "total_latency_ns_mean, at the lowest over traffic.load_mbps_per_node"
    md = (out / "validation.md").read_text()
    assert "## Sensitivity to parameters the seed does not give" in md
    assert "| sens | `node.output_queue_packets` |" in md
    for fig in ("sens", "sens-latency"):
        assert (out / f"{fig}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = (out / "sens.svg").read_text()
    assert f"ringlet: {ours:g}" in svg and "seed 60 MiB/s" in svg  # the marked value and the seed's line
    assert "ringlet: " not in (out / "figA.svg").read_text()  # only where the plot asks for it


def test_sensitivity_figures_are_checked_when_the_study_loads(tmp_path):
    for old, new, message in (
        ('seed_lines = ["figA:peak"]', 'seed_lines = ["figA:nope"]', "no quote 'nope' in a figure 'figA'"),
        ('seed_lines = ["figA:peak"]', 'seed_lines = ["figA"]', "seed_lines must be a list"),
        ('"node.output_queue_packets" = [2, 5, 8]', '"node.output_queue_packets" = [2, 8]',
         "ringlet's value of node.output_queue_packets (5) is not on the grid"),
        ('stat = "at_min" }', 'stat = "median" }', "reduce must be"),
        ('over = "traffic.load_mbps_per_node", stat = "max"', 'over = "node.output_queue_packets", stat = "max"',
         "reduce.over 'node.output_queue_packets' must be a swept key other than x"),
    ):
        assert old in SENS_TOML
        with pytest.raises(StudyError, match=message.replace("(", r"\(").replace(")", r"\)")):
            load_study(write_study(tmp_path / "bad", SENS_TOML.replace(old, new, 1)))


def test_a_derived_key_marks_the_value_ringlet_derives(tmp_path):
    """A key whose default is derived from the ring (0 in the scenario) is marked at the
    figure's ``derived_x``; it must be derived there, and marked."""
    from ringlet.study.format import default_x
    derived = SENS_TOML.replace('"node.output_queue_packets" = [2, 5, 8]', '"network.bypass_fifo_symbols" = [41, 82]', 1)
    derived = derived.replace('x = "node.output_queue_packets"', 'x = "network.bypass_fifo_symbols"')
    with pytest.raises(StudyError, match=r"ringlet's value of network.bypass_fifo_symbols \(0\) is not on the grid"):
        load_study(write_study(tmp_path / "plain", derived))
    marked = derived.replace("mark_default = true\nseed_lines", "mark_default = true\nderived_x = 41\nseed_lines", 1)
    marked = marked.replace('stat = "at_min" }\nmark_default = true', 'stat = "at_min" }\nmark_default = true\nderived_x = 41', 1)
    study = load_study(write_study(tmp_path / "marked", marked))
    assert [default_x(study, study.figure(f)) for f in ("sens", "sens-latency")] == [41.0, 41.0]
    unmarked = marked.replace("mark_default = true\nderived_x = 41\nseed_lines", "derived_x = 41\nseed_lines", 1)
    assert unmarked != marked
    with pytest.raises(StudyError, match="derived_x must be a finite number, with mark_default = true"):
        load_study(write_study(tmp_path / "unmarked", unmarked))
    # A key the scenario gives a value (the output queue's 5) is not derived.
    given = SENS_TOML.replace("mark_default = true\nseed_lines", "mark_default = true\nderived_x = 5\nseed_lines", 1)
    assert given != SENS_TOML
    with pytest.raises(StudyError, match="derived_x: node.output_queue_packets is set to 5 for this figure"):
        load_study(write_study(tmp_path / "given", given))


def test_the_latency_seed_line_must_share_the_plots_unit(tmp_path):
    bad = SENS_TOML.replace('stat = "at_min" }\nmark_default = true\n',
                            'stat = "at_min" }\nmark_default = true\nseed_lines = ["figA:peak"]\n')
    assert bad != SENS_TOML
    with pytest.raises(StudyError, match="figA:peak is in MB/s, plot.y in ns"):
        load_study(write_study(tmp_path / "bad", bad))


# -- reproduce --docs ----------------------------------------------------------------------------


def test_docs_block_is_rewritten_and_the_prose_kept(sens_run):
    _, out, doc, _ = sens_run
    text = doc.read_text()
    assert text.startswith("# A document\n\nHand-written prose, kept.\n\n## Results\n\n")
    assert text.endswith("<!-- end generated: ringlet reproduce sensstudy -->\n\nClosing prose, kept too.\n")
    assert "old generated text" not in text
    block = text.split("<!-- begin generated: ringlet reproduce sensstudy -->\n")[1].split("<!-- end generated")[0]
    # The validation, one level below the last heading before the block.
    md = (out / "validation.md").read_text()
    assert block.count("### Validation: Sensitivity test study") == 1
    assert "#### Findings" in block and "#### Sensitivity to parameters the seed does not give" in block
    assert md.replace("## ", "#### ").replace("# Validation", "### Validation") in block


def test_docs_needs_its_markers_and_a_full_run(tmp_path):
    study = write_study(tmp_path / "sensstudy", SENS_TOML)
    doc = tmp_path / "doc.md"
    doc.write_text("# no markers\n")
    out = tmp_path / "out"
    with pytest.raises(StudyError, match="needs the lines"):
        run_study(study, out, jobs=1, progress=False, docs=doc)
    assert not out.exists()  # refused before anything ran
    doc.write_text(DOC.format(name="another-study"))
    with pytest.raises(StudyError, match="needs the lines"):
        run_study(study, out, jobs=1, progress=False, docs=doc)
    doc.write_text(DOC.format(name="sensstudy"))
    for kwargs in ({"quick": True}, {"only": "figA"}):
        with pytest.raises(StudyError, match="needs a full run"):
            run_study(study, out, jobs=1, progress=False, docs=doc, **kwargs)
    assert not out.exists()
    with pytest.raises(StudyError, match="cannot read it"):
        run_study(study, out, jobs=1, progress=False, docs=tmp_path / "missing.md")


def test_cli_docs(tmp_path):
    study = write_study(tmp_path / "sensstudy", SENS_TOML)
    doc = tmp_path / "doc.md"
    doc.write_text(DOC.format(name="sensstudy"))
    proc = run_cli(["reproduce", study, "--out", tmp_path / "out", "--jobs", "1", "--docs", doc])
    assert proc.returncode == 0, proc.stderr
    assert "and the generated block of" in proc.stdout
    assert "### Validation: Sensitivity test study" in doc.read_text()
    proc = run_cli(["reproduce", study, "--out", tmp_path / "out", "--quick", "--docs", doc])
    assert "needs a full run" in one_error_line(proc)


def test_report_shows_within_noise():
    from ringlet.report.reproduction import _finding_verdict

    assert "within noise" in _finding_verdict({"verdict": "within noise", "holds": True})[1]
    assert _finding_verdict({"verdict": "no", "holds": True})[0] is False  # the verdict wins
    assert _finding_verdict({"verdict": None, "holds": True})[0] is True  # an older table: holds
