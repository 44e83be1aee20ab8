"""``ringlet reproduce``: studies as data, run end to end on a tiny study.

The tiny study (4-node base SCI, 3 distinct points of 2000 transactions) is
written into a temporary folder. Expected ringlet values are never hard-coded:
they are recomputed here from the figure CSVs the run wrote.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

import ringlet
from ringlet import _core
from ringlet._core import version as ringlet_core_version
from ringlet.study.reproduce import _draw_all, plan, run_study
from ringlet.runs.store import Store
from ringlet.study import STUDIES_DIR, StudyError, available_studies, load_study, parse_study
from ringlet.runs.grid import points
from ringlet.runs.table import columns
from ringlet.study.validation import COLUMNS

from conftest import one_error_line
from test_files import refuse_rename

BASE_TOML = """\
[network]
nodes = 4
protocol = "sci"

[node]
iqst_ns = 100.0

[traffic]
load_mbps_per_node = 10.0

[run]
seed = 3
warmup_ns = 2000.0
measure_transactions = 2000
"""

# figA and figB share the point at 20 MB/s; figC draws figA's data.
STUDY_TOML = """\
[study]
title = "Tiny test study"
source = "the test suite"
base = "base.toml"
quick = { "run.measure_transactions" = 500 }

[[figure]]
id = "figA"
title = "A: throughput"
fixed = { "node.iqst_ns" = 100 }
[figure.grid]
"network.protocol" = ["sci"]
"traffic.load_mbps_per_node" = [10, 20]
[figure.plot]
x = "traffic.load_mbps_per_node"
y = "total_throughput_mbps"
series = "network.protocol"
series_labels = { sci = "Base SCI" }
xlabel = "Offered load per node (MB/s)"
ylabel = "Throughput (MB/s)"

[[figure.quote]]
id = "peak"
description = "peak throughput"
seed_value = 60
seed_unit = "MiB/s"
value = { stat = "max", column = "total_throughput_mbps", where = { "network.protocol" = "sci" } }

[[figure.quote]]
id = "low-load-latency"
description = "latency at the lowest load"
seed_value = 0.17
seed_unit = "us"
value = { stat = "at_min_x", column = "total_latency_ns_mean" }

[[figure.finding]]
id = "rises"
description = "more offered load, more throughput (true below saturation)"
left = { stat = "at_max_x", column = "total_throughput_mbps" }
op = ">"
right = { stat = "at_min_x", column = "total_throughput_mbps" }

[[figure.finding]]
id = "falls"
description = "more offered load, less throughput (false below saturation)"
left = { stat = "at_max_x", column = "total_throughput_mbps" }
op = "<"
right = { stat = "at_min_x", column = "total_throughput_mbps" }

[[figure]]
id = "figB"
title = "B: shares a point with A"
fixed = { "node.iqst_ns" = 100 }
[figure.grid]
"traffic.load_mbps_per_node" = [20, 30]
[figure.plot]
x = "traffic.load_mbps_per_node"
y = "throughput_mbps"

[[figure.quote]]
id = "drop"
description = "a percent drop between two loads"
seed_value = -50
seed_unit = "%"
value = { drop_pct = [
    { stat = "at_x", x = 20, column = "total_throughput_mbps" },
    { stat = "at_x", x = 30, column = "total_throughput_mbps" },
] }

[[figure]]
id = "figC"
data = "figA"
title = "C: latency from A's points"
[figure.plot]
x = "traffic.load_mbps_per_node"
y = "total_latency_ns_mean"
series = "network.protocol"
logy = true
"""

FIGURES = ["figA", "figB", "figC"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def write_study(folder: Path, study_toml: str = STUDY_TOML) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "base.toml").write_text(BASE_TOML)
    (folder / "study.toml").write_text(study_toml)
    return folder


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    """The tiny study run once through the CLI: (study folder, out dir, completed process)."""
    from conftest import run_cli

    root = tmp_path_factory.mktemp("reproduce")
    study = write_study(root / "tiny")
    out = root / "out"
    proc = run_cli(["reproduce", study, "--out", out, "--jobs", "2"])
    return study, out, proc


def _validation(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "validation.csv")


def _row(table: pd.DataFrame, column: str, ident: str) -> pd.Series:
    rows = table[table[column] == ident]
    assert len(rows) == 1, rows
    return rows.iloc[0]


# -- the CLI, end to end -------------------------------------------------------------


def test_cli_writes_every_output(cli_run):
    _, out, proc = cli_run
    assert proc.returncode == 0, proc.stderr
    for fig in FIGURES:
        for ext in ("csv", "png", "svg"):
            path = out / f"{fig}.{ext}"
            assert path.is_file() and path.stat().st_size > 0, path
        assert (out / f"{fig}.png").read_bytes()[:8] == PNG_SIGNATURE
        assert "<svg" in (out / f"{fig}.svg").read_text()
    assert (out / "validation.csv").stat().st_size > 0
    md = (out / "validation.md").read_text()
    assert "| figA | peak |" in md and "| figA | rises |" in md
    # The summary names every quote and finding, and how many points ran.
    for ident in ("peak", "low-load-latency", "drop", "rises", "falls"):
        assert ident in proc.stdout
    assert "3 distinct points run (4 asked for by the figures; shared points ran once)" in proc.stdout
    # Every point measured its 2000 transactions, and validation.md says so.
    assert "## Points that stopped early\n\nNone: every point measured its transactions" in md
    assert "stopped before measuring" not in proc.stdout


# A figure whose first point hits its time cap (100 us: a few dozen of the 2000
# transactions, at 40 MB/s over the ring) and whose second measures them all.
EARLY_STUDY_TOML = """\
[study]
title = "Early-stop study"
base = "base.toml"

[[figure]]
id = "capped"
title = "capped"
[figure.grid]
"run.max_sim_time_ns" = [100000.0, 1000000000.0]
[figure.plot]
x = "run.max_sim_time_ns"
y = "total_throughput_mbps"
"""


def test_points_that_stop_early_are_listed_and_warned_of(tmp_path):
    from conftest import run_cli

    study = write_study(tmp_path / "early", EARLY_STUDY_TOML)
    out = tmp_path / "out"
    proc = run_cli(["reproduce", study, "--out", out, "--jobs", "1"])
    assert proc.returncode == 0, proc.stderr
    frame = pd.read_csv(out / "capped.csv").drop_duplicates("point")
    assert frame["stopped_by"].tolist() == ["time_cap", "transactions"]
    short = int(frame["total_transactions"].iloc[0])
    assert short < 2000
    md = (out / "validation.md").read_text()
    assert "1 point(s) stopped before measuring their transactions" in md
    assert f"| capped | 0 | run.max_sim_time_ns=100000.0 | time_cap | {short:,} | 2,000 |" in md
    assert "| capped | 1 |" not in md
    assert f"warning: 1 point(s) stopped before measuring their transactions: capped point 0 (time_cap, {short:,} of 2,000)" in proc.stderr
    assert "warning" not in proc.stdout
    # The API gives the same list (from the results store: nothing runs again) ...
    done = run_study(study, out, jobs=1, progress=False)
    assert done.early_stops.to_dict("records") == [{
        "figure": "capped", "point": 0, "settings": "run.max_sim_time_ns=100000.0", "stopped_by": "time_cap",
        "transactions": short, "target_transactions": 2000}]
    # ... and ringlet.reproduce warns with the CLI's words.
    with pytest.warns(UserWarning, match=rf"^1 point\(s\) stopped .*: capped point 0 \(time_cap, {short:,} of 2,000\)"):
        ringlet.reproduce(study, out, jobs=1, progress=False)


def test_figure_csv_is_the_sweep_table(cli_run):
    _, out, _ = cli_run
    a = pd.read_csv(out / "figA.csv")
    assert list(a.columns) == columns(["network.protocol", "traffic.load_mbps_per_node"])
    assert a["traffic.load_mbps_per_node"].tolist() == [10, 20]
    c = pd.read_csv(out / "figC.csv")
    pd.testing.assert_frame_equal(a, c)  # figC draws figA's data
    b = pd.read_csv(out / "figB.csv")
    # The shared point ran once: both figures carry the very same result.
    shared_a = a[a["traffic.load_mbps_per_node"] == 20].iloc[0]
    shared_b = b[b["traffic.load_mbps_per_node"] == 20].iloc[0]
    assert shared_a["total_throughput_mbps"] == shared_b["total_throughput_mbps"]
    assert shared_a["scenario_hash"] == shared_b["scenario_hash"]


def test_validation_matches_the_figure_data(cli_run):
    _, out, _ = cli_run
    table = _validation(out)
    assert set(COLUMNS) <= set(table.columns)
    for col in ("figure", "quote_id", "description", "seed_value", "seed_unit", "seed_value_si", "ringlet_value",
                "unit", "difference", "difference_pct", "finding_id", "holds"):
        assert col in table.columns
    a = pd.read_csv(out / "figA.csv").drop_duplicates("point")
    b = pd.read_csv(out / "figB.csv").drop_duplicates("point")

    peak = _row(table, "quote_id", "peak")
    expected = a["total_throughput_mbps"].max()
    assert peak["ringlet_value"] == pytest.approx(expected, rel=1e-12)
    assert peak["seed_value_si"] == pytest.approx(60 * 1.048576)  # the seed's MB/s is 2^20 B/s
    assert peak["unit"] == "MB/s"
    assert peak["difference"] == pytest.approx(expected - 60 * 1.048576)
    assert peak["difference_pct"] == pytest.approx((expected / (60 * 1.048576) - 1) * 100)
    assert not bool(peak["quick"])

    latency = _row(table, "quote_id", "low-load-latency")
    lowest = a.loc[a["traffic.load_mbps_per_node"].idxmin(), "total_latency_ns_mean"]
    assert latency["ringlet_value"] == pytest.approx(lowest, rel=1e-12)
    assert latency["seed_value_si"] == pytest.approx(170.0)
    assert latency["unit"] == "ns"

    drop = _row(table, "quote_id", "drop")
    at = b.set_index("traffic.load_mbps_per_node")["total_throughput_mbps"]
    assert drop["ringlet_value"] == pytest.approx((at[20] - at[30]) / at[20] * 100, rel=1e-12)
    assert drop["unit"] == "%"


def test_findings_are_computed(cli_run):
    _, out, _ = cli_run
    table = _validation(out)
    a = pd.read_csv(out / "figA.csv").set_index("traffic.load_mbps_per_node")["total_throughput_mbps"]
    rises, falls = _row(table, "finding_id", "rises"), _row(table, "finding_id", "falls")
    assert bool(rises["holds"]) is bool(a[20] > a[10])
    assert bool(falls["holds"]) is bool(a[20] < a[10])
    assert bool(rises["holds"]) != bool(falls["holds"])
    assert rises["ringlet_value"] == pytest.approx(a[20]) and rises["compared_to"] == pytest.approx(a[10])


# -- the Python API ---------------------------------------------------------------------


def test_api_dedupes_shared_points_and_returns_the_table(tmp_path):
    study = write_study(tmp_path / "tiny")
    calls: list[tuple[int, int]] = []
    table = ringlet.reproduce(study, tmp_path / "out", jobs=1, progress=lambda d, t: calls.append((d, t)))
    # figA (10, 20) + figB (20, 30) + figC (figA's): 3 distinct simulations, one progress total.
    assert {t for _, t in calls} == {3}
    assert calls[-1] == (3, 3)
    assert list(table.columns) == COLUMNS
    assert sorted(table["quote_id"].dropna()) == ["drop", "low-load-latency", "peak"]
    written = pd.read_csv(tmp_path / "out" / "validation.csv")
    assert written["ringlet_value"].tolist() == pytest.approx(table["ringlet_value"].tolist(), nan_ok=True)
    assert plan(load_study(study), load_study(study).figures).requested == 4  # figC asks for none
    # The store keeps each point's swept values, so its listing tells the points apart.
    with Store(tmp_path / "out" / "results.sqlite") as store:
        loads = sorted(r.values["traffic.load_mbps_per_node"] for r in store.rows(ringlet_core_version()))
    assert loads == [10, 20, 30]


def test_api_only_and_quick(tmp_path):
    study = write_study(tmp_path / "tiny")
    out = tmp_path / "out"
    table = ringlet.reproduce(study, out, jobs=1, quick=True, only="figC", progress=False)
    # figC needs figA's points, but only figC's files are written.
    assert sorted(p.name for p in out.iterdir()) == ["figC.csv", "figC.png", "figC.svg", "results.sqlite",
                                                     "validation.csv", "validation.md"]
    assert table.empty or table["quick"].all()
    frame = pd.read_csv(out / "figC.csv")
    assert (frame["total_transactions"] <= 500).all()  # the study's [study.quick] reduction
    assert "quick run" in (out / "validation.md").read_text()


def test_outputs_replace_the_last_ones_all_together(tmp_path, monkeypatch):
    """Figures and validation are written through the one policy for result files: when
    one cannot be written, every file of the last reproduction stays as it was."""
    study = write_study(tmp_path / "tiny")
    out = tmp_path / "out"
    ringlet.reproduce(study, out, jobs=1, progress=False)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.name != "results.sqlite"}
    refuse_rename(monkeypatch, "validation.md")
    with pytest.raises(StudyError, match=r"^--out .*validation\.md: cannot write: No space left on device$"):
        ringlet.reproduce(study, out, jobs=1, quick=True, progress=False)  # (quick: other figures, other numbers)
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name != "results.sqlite"} == before


@pytest.mark.parametrize("written", ['"10,20"', '"10:20:10"'])
def test_a_grid_axis_is_read_as_set_reads_it(tmp_path, written):
    axis = '"traffic.load_mbps_per_node" = '
    folder = write_study(tmp_path / "t", STUDY_TOML.replace(f"{axis}[10, 20]", f"{axis}{written}", 1))
    assert load_study(folder).figure("figA").grid["traffic.load_mbps_per_node"] == [10, 20]


def test_api_errors(tmp_path):
    study = write_study(tmp_path / "tiny")
    with pytest.raises(StudyError, match="unknown figure.*available: figA, figB, figC"):
        ringlet.reproduce(study, tmp_path / "out", only=["figZ"], progress=False)
    with pytest.raises(StudyError, match="unknown study 'no-such-study'"):
        ringlet.reproduce("no-such-study", tmp_path / "out", progress=False)
    for nothing in ("", " , ", []):  # naming no figure is a mistake, not "every figure"
        with pytest.raises(StudyError, match=r"^--only: expected figure ids"):
            ringlet.reproduce(study, tmp_path / "out", only=nothing, progress=False)
    assert not (tmp_path / "out").exists()


def test_a_shipped_name_is_found_beside_a_folder_of_that_name(tmp_path, monkeypatch):
    """`ringlet reproduce sci-rt` run where an earlier run left a `sci-rt` output
    folder finds the shipped study; a folder without a study, not shipped, is named."""
    from ringlet.study.format import find_study
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sci-rt").mkdir()
    assert find_study("sci-rt") == STUDIES_DIR / "sci-rt"
    (tmp_path / "mine").mkdir()
    with pytest.raises(StudyError, match="mine: not a study folder"):
        find_study("mine")


def test_api_out_that_cannot_be_a_directory_fails_before_running(tmp_path, monkeypatch):
    """An ``out`` that is a file (or under one), or that holds a directory where an
    output goes, is a StudyError naming the path, before any point runs."""
    study = write_study(tmp_path / "tiny")
    monkeypatch.setattr(sys.modules["ringlet.study.reproduce"], "_run_all",
                        lambda *a, **k: pytest.fail("points ran"))
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(StudyError) as e:
        ringlet.reproduce(study, blocker, progress=False)
    assert str(e.value) == f"--out {blocker}: exists and is not a directory"
    with pytest.raises(StudyError) as e:
        ringlet.reproduce(study, blocker / "sub", progress=False)
    assert str(e.value) == f"--out {blocker / 'sub'}: cannot create directory: {blocker} is not a directory"
    assert blocker.read_text() == "not a directory"
    out = tmp_path / "out"
    (out / "figB.png").mkdir(parents=True)
    with pytest.raises(StudyError) as e:
        ringlet.reproduce(study, out, progress=False)
    assert str(e.value) == f"--out {out}: figB.png exists and is a directory"
    with pytest.raises(StudyError, match=r"^--out: expected a directory name, got ''$"):
        ringlet.reproduce(study, "", progress=False)
    assert [p.name for p in out.iterdir()] == ["figB.png"]


@pytest.mark.parametrize("out", ["", " "])
def test_cli_empty_out_is_refused_not_taken_as_the_current_directory(cli, tmp_path, out):
    study = write_study(tmp_path / "tiny")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    assert one_error_line(cli(["reproduce", study, "--out", out], cwd=cwd)) == \
        f"--out: expected a directory name, got {out!r}"
    assert list(cwd.iterdir()) == []


def test_cli_out_that_is_a_file(cli, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert one_error_line(cli(["reproduce", "sci-rt", "--out", blocker])) == \
        f"--out {blocker}: exists and is not a directory"
    assert blocker.read_text() == ""


# -- CLI errors and --list -----------------------------------------------------------------


def _one_error_line(proc) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ringlet: error: "), proc.stderr
    return lines[0]


def test_cli_unknown_study(cli, tmp_path):
    line = _one_error_line(cli(["reproduce", "no-such-study", "--out", tmp_path / "o"]))
    assert "unknown study 'no-such-study'" in line
    for name in available_studies():
        assert name in line


def test_cli_unknown_figure(cli, tmp_path):
    study = write_study(tmp_path / "tiny")
    line = _one_error_line(cli(["reproduce", study, "--out", tmp_path / "o", "--only", "figA,fig99"]))
    assert "--only fig99" in line and "available: figA, figB, figC" in line
    assert not (tmp_path / "o").exists()


def test_cli_unwritable_out(cli, tmp_path):
    study = write_study(tmp_path / "tiny")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    line = _one_error_line(cli(["reproduce", study, "--out", blocker]))
    assert "--out" in line and "not a directory" in line


def test_cli_needs_a_study_and_out(cli, tmp_path):
    assert "a study is required" in _one_error_line(cli(["reproduce", "--out", tmp_path]))
    assert "--out DIR is required" in _one_error_line(cli(["reproduce", write_study(tmp_path / "t")]))


def test_cli_list(cli, tmp_path):
    proc = cli(["reproduce", "--list"])
    assert proc.returncode == 0, proc.stderr
    assert "sci-rt" in proc.stdout
    proc = cli(["reproduce", write_study(tmp_path / "tiny"), "--list"])
    assert proc.returncode == 0, proc.stderr
    for fig in FIGURES:
        assert fig in proc.stdout
    assert "figA's points" in proc.stdout


# -- the study format's checks (no simulation) ------------------------------------------------


@pytest.mark.parametrize("old, new, message", [
    ('where = { "network.protocol" = "sci" }', 'where = { "network.protocol" = "dfc" }', "'dfc' is not in the grid"),
    ('stat = "max"', 'stat = "maximum"', "stat must be one of"),
    ('seed_unit = "us"', 'seed_unit = "MiB/s"', "seed_unit MiB/s is MB/s but the value is in ns"),
    ('data = "figA"', 'data = "figB2"', "must name a figure that has its own grid"),
    ('y = "throughput_mbps"', 'y = "throughput"', "plot.y 'throughput' is not a result column"),
    ('op = "<"', 'op = "=="', "op must be one of"),
    ('"traffic.load_mbps_per_node" = [20, 30]', '"traffic.load_mbps_per_node" = "30:20:5"', "STOP (20) is below START"),
    ('"traffic.load_mbps_per_node" = [20, 30]', '"traffic.load_mbps_per_node" = 20', "a single value belongs in fixed"),
    ('"traffic.load_mbps_per_node" = [20, 30]', '"traffic.load_mbps_per_node" = "20"', "a single value belongs in fixed"),
])
def test_bad_study_files_name_the_problem(tmp_path, old, new, message):
    assert old in STUDY_TOML
    folder = write_study(tmp_path / "bad", STUDY_TOML.replace(old, new, 1))
    with pytest.raises(StudyError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_study(folder)


@pytest.mark.parametrize("old, new, message", [
    ('logy = true', 'logy = true\nylim = [nan, inf]', "figC: plot: ylim must be [low, high], two finite numbers"),
    ('logy = true', 'logy = true\nylim = [0, -inf]', "figC: plot: ylim must be [low, high], two finite numbers"),
    ('seed_value = 60', 'seed_value = nan', "figA: quote peak: seed_value must be a finite number"),
    ('seed_value = -50', 'seed_value = -inf', "figB: quote drop: seed_value must be a finite number"),
    ('op = "<"', 'op = "<"\nfactor = inf', "figA: finding falls: factor must be a finite number"),
    ('x = 20,', 'x = nan,', 'figB: quote drop: value: drop_pct[0]: stat = "at_x" needs a finite number x'),
    ('"traffic.load_mbps_per_node" = [10, 20]', '"traffic.load_mbps_per_node" = [10, nan]',
     "figA: grid: traffic.load_mbps_per_node: expected a finite number, got nan"),
    ('series = "network.protocol"\nlogy', 'series = "network.protocol"\nseries_values = [inf]\nlogy',
     "figC: plot: series_values must hold finite numbers"),
    ('where = { "network.protocol" = "sci" }', 'where = { priority = nan }',
     "figA: quote peak: value: where 'priority' must hold finite numbers"),
])
def test_non_finite_numbers_are_refused_when_the_study_loads(tmp_path, old, new, message):
    """NaN and infinities in a numeric field fail at load, naming the field (not after every point ran)."""
    assert old in STUDY_TOML
    folder = write_study(tmp_path / "bad", STUDY_TOML.replace(old, new, 1))
    with pytest.raises(StudyError) as e:
        load_study(folder)
    assert str(e.value) == f"{folder / 'study.toml'}: {message}"


def test_parse_rejects_unknown_fields(tmp_path):
    folder = write_study(tmp_path / "t")
    with pytest.raises(StudyError, match="unknown field"):
        parse_study(STUDY_TOML.replace('title = "A: throughput"', 'title = "A"\ncolour = "red"'), folder)


# -- drawing on worker processes ----------------------------------------------------------


def _draw(spec: SimpleNamespace, mark: Path) -> None:
    """A stand-in for ``plots.render``: marks the figure drawn, and fails as its id says."""
    if spec.id == "figBad":
        raise ValueError("no such panel column: 'priority'")
    if spec.id == "figWorkerOnly" and os.getpid() != spec.parent:
        raise OSError("disk full")
    mark.write_text(str(os.getpid()))


@pytest.mark.parametrize("jobs", [1, 2])
def test_figures_are_drawn_on_workers_and_a_drawing_error_names_its_cause(tmp_path, jobs):
    parent = os.getpid()
    specs = [SimpleNamespace(id=f"fig{k}", parent=parent) for k in range(4)]
    _draw_all(_draw, [(s, tmp_path / s.id) for s in specs], jobs)
    pids = {int((tmp_path / s.id).read_text()) for s in specs}
    assert (pids == {parent}) if jobs == 1 else (parent not in pids)

    bad = [(SimpleNamespace(id="figBad", parent=parent), tmp_path / "bad")]
    with pytest.raises(ValueError, match="no such panel column: 'priority'"):  # the error itself, with its traceback
        _draw_all(_draw, [(specs[0], tmp_path / "a")] + bad, jobs)
    if jobs > 1:  # one that fails only in a worker still names the figure and the worker's error
        flaky = [(SimpleNamespace(id="figWorkerOnly", parent=parent), tmp_path / "flaky")]
        with pytest.raises(RuntimeError, match="drawing figure figWorkerOnly failed: OSError: disk full"):
            _draw_all(_draw, [(specs[0], tmp_path / "b")] + flaky, jobs)


# -- the shipped study ----------------------------------------------------------------------


def test_shipped_study_parses():
    assert "sci-rt" in available_studies()
    study = load_study("sci-rt")
    assert study.folder == STUDIES_DIR / "sci-rt"
    assert {"fig8a", "fig8b", "fig9a", "fig9b", "fig10", "fig11", "fig9a-p99"} <= set(study.ids)
    assert study.base.get("run.measure_transactions") >= 200_000  # the floor per point
    quotes = [q for f in study.figures for q in f.quotes]
    assert quotes and all(math.isfinite(q.seed_value_si) for q in quotes)
    assert all(f.findings or f.quotes or f.data or "Beyond" in f.title or f.plot.mark_default for f in study.figures)
    # Every sensitivity figure draws a seed number to compare with (its own or a data figure's owner's).
    sens = [f for f in study.figures if f.plot.mark_default]
    assert sens and all(f.plot.seed_lines for f in sens)
    # The findings quote the seed, with its thresholds: "over twice", "over 50% higher", and
    # "close to" base SCI as a two-sided claim with PPQ below it.
    found = {(f.id, g.id): g for f in study.figures for g in f.findings}
    assert found[("fig8a-latency", "train-latency-high")].factor == 2.0
    assert "over twice" in found[("fig8a-latency", "train-latency-high")].description
    assert found[("fig11", "dfc-well-above")].factor == 1.5
    close = found[("fig8a", "ppq-close-to-sci")]
    assert close.op == "between" and close.factors[1] == 1.0 and close.factors[0] < 1.0


def test_shipped_study_grids_validate():
    """Every point of every figure is a valid scenario, and the study stays within its budget.

    Needs a core that knows the real-time protocols' [ppq]/[train]/[dfc] keys.
    """
    study = load_study("sci-rt")
    for fig in study.figures:
        if fig.data is None:
            assert points(study.scenario(fig), fig.grid)
    work = plan(study, study.figures).work
    # The full reproduction stays a matter of minutes on 2 cores. The seed's
    # figures: about 300 points of 200 000 transactions, their load grids dense
    # around each protocol's saturation so that a quoted peak is the curve's
    # (fewer means figures lost points), and base SCI's 21 beside figs. 9a, 9b
    # and 10's in the inversion figures; the sensitivity figures' points are
    # smaller (20 000-50 000), the hot-spot fairness figures' too (60 000), and
    # all together stay under the transactions of 440 such points.
    asked = [json.loads(_core.scenario_json(text, list(ov)))["run"]["measure_transactions"] for text, ov in work]
    assert 310 <= sum(n >= 200_000 for n in asked) <= 330
    assert sum(asked) <= 440 * 200_000


# -- the shipped study: does a protocol do what it promises? (issue 34) ----------------------

#: Fairness and starvation at fig. 11's 100% hot spot.
FAIRNESS = ("fig11-fairness", "fig11-min-share", "fig11-nodes", "fig11-waiting", "fig11-links",
            "fig11-no-allocation")
#: Priority inversions in the cases of figs. 9a, 9b and 10.
INVERSIONS = ("fig9a-inversions-out", "fig9a-inversions-in", "fig9b-inversions-in", "fig9b-inversions-out",
              "fig10-inversions-out", "fig10-inversions-in")


def test_shipped_study_measures_what_the_protocols_promise():
    """The fairness figures are fig. 11's hot spot with base SCI beside the real-time
    protocols; the inversion figures run fig. 9a's, 9b's and 10's own points plus base SCI's."""
    study = load_study("sci-rt")
    fair, fig11 = study.scenario(study.figure("fig11-fairness")), study.scenario(study.figure("fig11"))
    for key in ("node.iqst_ns", "traffic.destinations", "traffic.hotspot_node"):
        assert fair.get(key) == fig11.get(key), key
    assert fair.get("traffic.hotspot_fraction") == 1.0 and fair.get("traffic.priorities") == 1
    assert study.figure("fig11-fairness").grid["network.protocol"] == ["sci", "ppq", "train", "dfc"]
    for fig_id, table in (("fig11-nodes", "per_node"), ("fig11-waiting", "per_node"), ("fig11-links", "per_link"),
                          ("fig11-no-allocation", "per_node")):
        fig = study.figure(fig_id)
        assert fig.table == table and fig.plot.series in ("node", "link") and fig.plot.panel == "network.protocol"
    assert study.scenario(study.figure("fig11-no-allocation")).get("network.bandwidth_allocation") == "none"
    for fig_id, seed_fig in (("fig9a-inversions-out", "fig9a"), ("fig9b-inversions-in", "fig9b"),
                             ("fig10-inversions-out", "fig10")):
        fig, seed = study.figure(fig_id), study.figure(seed_fig)
        assert fig.grid["network.protocol"] == ["sci", *seed.grid["network.protocol"]]
        # Every point of the seed's figure is one of this figure's: only base SCI's run anew.
        own = len(plan(study, [fig]).work)
        assert len(plan(study, [fig, seed]).work) == own
        assert own - len(plan(study, [seed]).work) == len(seed.grid["traffic.load_mbps_per_node"])
    # Every claim is marked as beyond the seed, none is typed by hand (a recipe each side).
    findings = [g for f in (*FAIRNESS, *INVERSIONS) for g in study.figure(f).findings]
    assert len(findings) >= 20 and all(g.description.startswith("Beyond the seed") for g in findings)


@pytest.fixture(scope="module")
def quick_promises(tmp_path_factory):
    out = tmp_path_factory.mktemp("sci-rt-promises") / "out"
    table = ringlet.reproduce("sci-rt", out, jobs=2, quick=True, only=[*FAIRNESS, *INVERSIONS], progress=False)
    return out, table


def test_quick_run_draws_the_fairness_and_inversion_figures(quick_promises):
    out, table = quick_promises
    for fig in (*FAIRNESS, *INVERSIONS):
        for ext in ("csv", "png", "svg"):
            assert (out / f"{fig}.{ext}").stat().st_size > 0, (fig, ext)
    fair = pd.read_csv(out / "fig11-fairness.csv")
    nodes = pd.read_csv(out / "fig11-nodes.csv")
    assert len(nodes) == fair["point"].nunique() * 8 and nodes["carried_share"].notna().all()
    # The sweep table's starved nodes are the report's rule applied to the per-node shares:
    # under a tenth of the offered load while another sender carries over half of its own.
    for point, rows in nodes.groupby("point"):
        shares = rows.set_index("node")["carried_share"]
        expected = [n for n, s in shares.items() if s < 0.1 and (shares.drop(n) > 0.5).any()]
        flagged = fair.loc[fair["point"] == point, "starved_nodes"].iloc[0]
        assert ([] if pd.isna(flagged) else [int(float(n)) for n in str(flagged).split()]) == expected, point
        jain = shares.sum() ** 2 / (len(shares) * (shares ** 2).sum())
        assert fair.loc[fair["point"] == point, "total_fairness_index"].iloc[0] == pytest.approx(jain, rel=1e-6)
    inv = pd.read_csv(out / "fig9a-inversions-out.csv").drop_duplicates("point")
    assert set(inv["network.protocol"]) == {"sci", "ppq", "train", "dfc"}
    assert (inv["total_output_inversions_per_kpacket"] >= 0).all()


def test_quick_run_evaluates_every_promise_from_the_data(quick_promises):
    out, table = quick_promises
    found = table[table["kind"] == "finding"].set_index(["figure", "finding_id"])
    assert set(found.index.get_level_values("figure")) == {f for f in (*FAIRNESS, *INVERSIONS)
                                                           if load_study("sci-rt").figure(f).findings}
    # Each claim reads its numbers off the runs: none is left without a value or a verdict.
    assert found["ringlet_value"].notna().all() and found["verdict"].isin(["yes", "no"]).all()
    # Recomputed from the CSV: under every protocol the hot node is starved at the highest load.
    nodes = pd.read_csv(out / "fig11-nodes.csv")
    hot = nodes[nodes["node"] == 0].groupby("traffic.load_mbps_per_node")["carried_share"]
    row = found.loc[("fig11-nodes", "hot-node-starved")]
    assert row["ringlet_value"] == pytest.approx(hot.max().iloc[-1])
    assert row["compared_to"] == pytest.approx(0.1 * hot.min().iloc[0])
    # Claims whose margins are wide enough to hold on a quick run too.
    for key, verdict in [(("fig11-nodes", "hot-node-starved"), "yes"),
                         (("fig11-links", "dfc-fills-the-hot-link"), "yes"),
                         (("fig11-no-allocation", "sci-hot-node-captures"), "yes"),
                         (("fig9a-inversions-out", "fewer-than-sci"), "yes"),
                         (("fig9a-inversions-out", "dfc-none"), "no"),
                         (("fig9a-inversions-in", "ppq-train-none"), "yes"),
                         (("fig10-inversions-in", "ppq-train-none"), "yes")]:
        assert found.loc[key, "verdict"] == verdict, key
    # "None" is a bound of zero: 0 x base SCI's.
    assert found.loc[("fig9a-inversions-out", "ppq-none"), "compared_to"] == 0
