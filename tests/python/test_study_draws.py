"""A study's figures run over several independent draws (``draws = N``): each
point runs N times with its own ``run.seed``, and the figure's values are the
means over the draws with a Student-t interval from the spread between them.

A tiny study (a 4-node ring, 2000 transactions per point, 3 draws) runs once;
every expected value is recomputed here from the per-draw rows of the CSV it
wrote, never typed in.
"""

from __future__ import annotations

import math
import statistics

import pandas as pd
import pytest

from ringlet.runs.replications import replication_seed
from ringlet.study import StudyError, load_study, parse_study
from ringlet.study.curves import curve
from ringlet.study.format import WITHIN_NOISE, YES
from ringlet.study.reproduce import run_study
from ringlet.study.validation import validation_table

from conftest import one_error_line, run_cli
from test_reproduce import write_study

DRAWS = 3
T_975_2 = 4.303  # Student t, 97.5% quantile, 2 degrees of freedom (3 draws; the 3-decimal table value)
LOAD = "traffic.load_mbps_per_node"

# figD runs 2 protocols x 2 loads, each over 3 draws; figD-nodes draws figD's
# per_node table in the first draw only.
DRAWS_TOML = f"""\
[study]
title = "Draws"
base = "base.toml"

[[figure]]
id = "figD"
title = "D: over draws"
draws = {DRAWS}
[figure.grid]
"network.protocol" = ["sci", "dfc"]
"traffic.load_mbps_per_node" = [40, 160]
[figure.plot]
x = "traffic.load_mbps_per_node"
y = "total_latency_ns_mean"
series = "network.protocol"

[[figure.quote]]
id = "peak"
description = "base SCI's peak throughput"
seed_value = 500
seed_unit = "MB/s"
value = {{ stat = "max", column = "total_throughput_mbps", where = {{ "network.protocol" = "sci" }} }}

[[figure.finding]]
id = "rises"
description = "base SCI's latency rises with the load"
left = {{ stat = "at_max_x", column = "total_latency_ns_mean", where = {{ "network.protocol" = "sci" }} }}
op = ">"
right = {{ stat = "at_min_x", column = "total_latency_ns_mean", where = {{ "network.protocol" = "sci" }} }}

[[figure]]
id = "figD-nodes"
data = "figD"
table = "per_node"
title = "each node's carried share, first draw"
[figure.plot]
x = "traffic.load_mbps_per_node"
y = "carried_share"
where = {{ draw = 0, "network.protocol" = "sci" }}
series = "node"
"""


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    """The tiny study with draws, run once: (study, out dir, the reproduction)."""
    root = tmp_path_factory.mktemp("draws")
    folder = write_study(root / "study", DRAWS_TOML)
    out = root / "out"
    done = run_study(folder, out, jobs=2, progress=False)
    return load_study(folder), out, done


def _csv(out, fig: str) -> pd.DataFrame:
    return pd.read_csv(out / f"{fig}.csv")


def _per_draw(frame: pd.DataFrame, protocol: str, load: "float | None" = None, stat: str = "max",
              column: str = "total_throughput_mbps") -> list[float]:
    """A figure's value in each draw, read off its CSV by hand."""
    out = []
    for d in range(DRAWS):
        rows = frame[(frame["draw"] == d) & (frame["network.protocol"] == protocol)]
        if load is not None:
            rows = rows[rows[LOAD] == load]
        out.append(float(getattr(rows[column], stat)()))
    return out


def _t_half_width(values: list[float]) -> float:
    return T_975_2 * statistics.stdev(values) / math.sqrt(len(values))


def test_each_draw_is_every_point_with_its_own_seed(drawn):
    study, out, done = drawn
    frame = _csv(out, "figD")
    assert sorted(frame["draw"].unique()) == list(range(DRAWS))
    assert frame["point"].is_unique  # one row per run: every point is one run of one draw
    seeds = frame.groupby("draw")["seed"].unique()
    base_seed = study.base.get("run.seed")
    # Draw 0 is the scenario's own run.seed; the others are a sweep's replications' seeds.
    assert [list(s) for s in seeds] == [[replication_seed(base_seed, d)] for d in range(DRAWS)]
    assert seeds[0][0] == base_seed
    for d in range(DRAWS):
        rows = frame[frame["draw"] == d]
        assert sorted(zip(rows["network.protocol"], rows[LOAD])) == sorted(
            (p, load) for p in ("sci", "dfc") for load in (40, 160))
    assert done.points_run == 4 * DRAWS
    # The draws differ: each drew its own traffic.
    assert len(set(_per_draw(frame, "sci"))) == DRAWS


def test_a_quote_is_the_mean_over_the_draws_with_the_spread_between_them(drawn):
    _, out, _ = drawn
    frame = _csv(out, "figD")
    peaks = _per_draw(frame, "sci")
    row = pd.read_csv(out / "validation.csv").set_index("quote_id").loc["peak"]
    assert row["ringlet_value"] == pytest.approx(statistics.mean(peaks), rel=1e-12)
    assert row["ringlet_ci95"] == pytest.approx(_t_half_width(peaks), rel=1e-3)
    assert row["draws"] == DRAWS
    # Not the runs' own batch-means half-widths, combined:
    within = [float(frame[(frame["draw"] == d) & (frame["network.protocol"] == "sci")]
                    .sort_values("total_throughput_mbps")["total_throughput_mbps_ci95"].iloc[-1])
              for d in range(DRAWS)]
    assert row["ringlet_ci95"] != pytest.approx(math.sqrt(sum(c * c for c in within)) / DRAWS, rel=1e-3)
    md = (out / "validation.md").read_text()
    assert f"(mean of {DRAWS} draws)" in md and "Student t over the draws' values" in md


def test_a_findings_noise_is_the_spread_of_the_draws_differences(drawn):
    _, out, _ = drawn
    frame = _csv(out, "figD")
    high = _per_draw(frame, "sci", 160, "mean", "total_latency_ns_mean")
    low = _per_draw(frame, "sci", 40, "mean", "total_latency_ns_mean")
    row = pd.read_csv(out / "validation.csv").set_index("finding_id").loc["rises"]
    assert row["ringlet_value"] == pytest.approx(statistics.mean(high), rel=1e-12)
    assert row["ringlet_ci95"] == pytest.approx(_t_half_width(high), rel=1e-3)
    assert row["compared_to"] == pytest.approx(statistics.mean(low), rel=1e-12)
    assert row["compared_to_ci95"] == pytest.approx(_t_half_width(low), rel=1e-3)
    assert row["noise"] == pytest.approx(_t_half_width([h - lo for h, lo in zip(high, low)]), rel=1e-3)
    assert row["held_in_draws"] == sum(h > lo for h, lo in zip(high, low)) == DRAWS
    assert row["verdict"] == YES  # far above: a queue at 160 MB/s per node, none at 40
    md = (out / "validation.md").read_text()
    assert f"| figD | rises | base SCI's latency rises with the load | yes | {DRAWS} of {DRAWS} draws |" in md
    assert "## Findings that depend on the draw" in md


def test_a_finding_inside_the_spread_between_draws_is_within_noise(drawn, tmp_path):
    """Base SCI's peak against dfc's, its bound put at the mean of the draws' own values
    (the factor computed from the CSV): in each draw one side or the other is ahead,
    and the difference is inside the draws' spread."""
    _, out, _ = drawn
    frame = _csv(out, "figD")
    sci, dfc = _per_draw(frame, "sci"), _per_draw(frame, "dfc")
    factor = statistics.mean(sci) / statistics.mean(dfc)
    diffs = [a - factor * b for a, b in zip(sci, dfc)]
    assert statistics.stdev(diffs) > 0  # the draws disagree, so the spread is not zero
    finding = f"""[[figure.finding]]
id = "level"
description = "base SCI's peak at the mean level of dfc's (a bound inside the draws' spread)"
left = {{ stat = "max", column = "total_throughput_mbps", where = {{ "network.protocol" = "sci" }} }}
op = ">"
factor = {factor!r}
right = {{ stat = "max", column = "total_throughput_mbps", where = {{ "network.protocol" = "dfc" }} }}

"""
    text = _with(tmp_path, '[[figure]]\nid = "figD-nodes"', finding + '[[figure]]\nid = "figD-nodes"')
    study = parse_study(text, write_study(tmp_path / "level", text))
    # The same runs' data, read back from the CSV: no new run.
    table = validation_table([study.figure("figD")], {"figD": frame}, False, "test")
    row = table.set_index("finding_id").loc["level"]
    assert row["verdict"] == WITHIN_NOISE
    assert row["noise"] == pytest.approx(_t_half_width(diffs), rel=1e-3)
    assert abs(row["ringlet_value"] - row["compared_to"]) <= row["noise"]
    # Its differences sum to zero, not all zero: it held in some draws and not in others.
    assert 0 < row["held_in_draws"] < DRAWS and row["held_in_draws"] == sum(d > 0 for d in diffs)


def test_a_drawn_line_is_the_mean_over_draws_and_a_plot_may_pick_one(drawn):
    study, out, _ = drawn
    frame = _csv(out, "figD")
    line = curve(frame, study.figure("figD").plot, None, "sci")
    for load in (40, 160):
        values = _per_draw(frame, "sci", load, "mean", "total_latency_ns_mean")
        at = line[line["x"] == load].iloc[0]
        assert at["y"] == pytest.approx(statistics.mean(values), rel=1e-12)
        assert at["ci95"] == pytest.approx(_t_half_width(values), rel=1e-3)
    # figD-nodes draws the first draw's per_node rows alone: their values, no spread.
    nodes = _csv(out, "figD-nodes")
    assert sorted(nodes["draw"].unique()) == list(range(DRAWS))
    first = curve(nodes, study.figure("figD-nodes").plot, None, 1)
    mine = nodes[(nodes["draw"] == 0) & (nodes["network.protocol"] == "sci") & (nodes["node"] == 1)]
    assert first["y"].tolist() == pytest.approx(mine.sort_values(LOAD)["carried_share"].tolist())
    assert first["ci95"].isna().all()


def test_the_listing_counts_the_draws(drawn):
    study, _, _ = drawn
    proc = run_cli(["reproduce", study.folder, "--list"])
    assert proc.returncode == 0, proc.stderr
    assert f"[4 points x {DRAWS} draws;" in proc.stdout


# -- bad draws --------------------------------------------------------------------------------


def _with(tmp_path, old: str, new: str) -> str:
    assert old in DRAWS_TOML
    return DRAWS_TOML.replace(old, new, 1)


@pytest.mark.parametrize("value", ["1", "0", "-2", "true", "2.5", '"5"', "[3]", "1000000"])
def test_a_bad_draws_value_is_refused_naming_the_field(tmp_path, value):
    text = _with(tmp_path, f"draws = {DRAWS}", f"draws = {value}")
    with pytest.raises(StudyError, match=r"figD: draws must be an integer from 2 to \d+"):
        parse_study(text, write_study(tmp_path / "bad", text))


@pytest.mark.parametrize("old, new, message", [
    # A figure that draws another's data has that figure's draws.
    ('data = "figD"\n', 'data = "figD"\ndraws = 4\n', r"figD-nodes: draws: a figure with data = 'figD' has that"),
    # Each draw sets run.seed.
    ('"traffic.load_mbps_per_node" = [40, 160]', '"traffic.load_mbps_per_node" = [40, 160]\n"run.seed" = [1, 2]',
     r"figD: draws: each draw sets run.seed, so the grid cannot sweep it"),
    # A recipe reads every draw; only the plot picks one.
    ('where = { "network.protocol" = "sci" } }\n\n[[figure.finding]]',
     'where = { "network.protocol" = "sci", draw = 1 } }\n\n[[figure.finding]]',
     r"figD: peak: where 'draw': a recipe reads every draw"),
    ("where = { draw = 0,", "where = { draw = 3,", r"figD-nodes: plot.where: where draw = 3: the draws are 0 to 2"),
])
def test_draws_out_of_place_are_refused(tmp_path, old, new, message):
    text = _with(tmp_path, old, new)
    with pytest.raises(StudyError, match=message):
        parse_study(text, write_study(tmp_path / "bad", text))


def test_draws_on_a_capacity_figure_are_refused(tmp_path):
    text = """\
[study]
title = "capacity"
base = "base.toml"
[[figure]]
id = "cap"
title = "cap"
draws = 3
[figure.grid]
"network.protocol" = ["sci"]
[figure.capacity]
deadlines = ["p99<=2us"]
[figure.plot]
x = "deadline_value"
y = "capacity"
"""
    with pytest.raises(StudyError, match=r"cap: draws: a capacity figure has its own replications"):
        parse_study(text, write_study(tmp_path / "cap", text))


def test_the_cli_refuses_bad_draws_in_one_line(tmp_path):
    folder = write_study(tmp_path / "bad", _with(tmp_path, f"draws = {DRAWS}", "draws = 1"))
    message = one_error_line(run_cli(["reproduce", folder, "--list"]))
    assert "figD: draws must be an integer from 2 to" in message
