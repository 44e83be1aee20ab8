"""The ``ringlet`` command end to end, through subprocesses."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import ringlet

from conftest import QUICK, one_error_line

SETS = [a for q in QUICK for a in ("--set", q)]

LOAD = "traffic.load_mbps_per_node"



# -- version, params ---------------------------------------------------------------


def test_version(cli):
    p = cli(["--version"])
    assert p.returncode == 0
    assert p.stdout.strip() == f"ringlet {ringlet.__version__}"


def test_installed_script_runs():
    exe = shutil.which("ringlet")
    assert exe, "the ringlet console script is not on PATH (pip install -e .)"
    p = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.strip() == f"ringlet {ringlet.__version__}"


def test_params(cli):
    raw = cli(["params", "--markdown"])
    assert raw.returncode == 0
    assert raw.stdout == ringlet._core.params_markdown()
    assert "load_mbps_per_node" in raw.stdout
    pretty = cli(["params"])
    assert pretty.returncode == 0 and "load_mbps_per_node" in pretty.stdout
    # The families, each with its own keys, come from the registry.
    assert '## network.kind = "sci-ring"' in raw.stdout and "| `kind` | `sci-ring` \\|" in raw.stdout
    assert 'network.kind = "sci-ring"' in pretty.stdout


# -- run -----------------------------------------------------------------------------


def test_a_run_past_saturation_says_it_measures_a_peak(cli, base_path):
    """Below saturation (the base ring at its default load) a run says nothing more; far
    past it (ten times, IQST 1 us) it says on stderr, in one line, what it carries of what it
    was offered, and its JSON has ``saturated``."""
    quiet = cli(["run", base_path, "--json", *SETS])
    assert quiet.returncode == 0 and json.loads(quiet.stdout)["saturated"] is False
    assert "saturated" not in quiet.stderr
    past = cli(["run", base_path, "--json", *SETS, "--set", "node.iqst_ns=1000", "--set", f"{LOAD}=80"])
    out = json.loads(past.stdout)
    assert past.returncode == 0 and out["saturated"] is True
    lines = [line for line in past.stderr.splitlines() if line.startswith("saturated:")]
    assert lines == [f"saturated: carries {out['throughput_mbps']:.3g} of {out['offered_mbps']:,.0f} MB/s offered; "
                     "the peak is what this run measures"], past.stderr
    assert out["throughput_mbps"] < 0.9 * out["offered_mbps"]


def test_run_json_is_the_cores_object(cli, base_path):
    p = cli(["run", base_path, "--json", *SETS])
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)  # exactly one JSON object
    for key in ("throughput_mbps", "latency_ns_mean", "latency_ns_p99", "transactions", "retries",
                "sim_time_ns", "per_priority", "per_link", "provenance"):
        assert key in out, key
    for key in ("ringlet_version", "seed", "scenario_hash"):
        assert key in out["provenance"]
    assert out["provenance"]["scenario_hash"] == ringlet.Scenario.load(base_path).with_overrides(
        [tuple(q.split("=")) for q in QUICK]).hash
    assert len(out["per_priority"]) == 1
    for key in ("priority", "throughput_mbps", "latency_ns_mean", "latency_ns_p99"):
        assert key in out["per_priority"][0]
    assert out["transactions"] >= 4000
    # Per node (agent): its share of the bandwidth, its latencies, its retries; they add up.
    nodes = out["per_node"]
    assert [n["node"] for n in nodes] == list(range(8))
    for key in ("throughput_mbps", "latency_ns_mean", "latency_ns_p99", "retries", "transactions"):
        assert all(key in n for n in nodes), key
    assert abs(sum(n["throughput_mbps"] for n in nodes) - out["throughput_mbps"]) < 1e-6 * out["throughput_mbps"]
    assert sum(n["transactions"] for n in nodes) == out["transactions"]
    assert [r["ringlet"] for r in out["per_ringlet"]] == [0] and out["per_ringlet"][0]["interfaces"] == 8
    assert [c["name"] for c in out["per_class"]] == ["request", "response"]


def test_run_json_matches_the_python_api(cli, small_file):
    p = cli(["run", small_file, "--json"])
    api = ringlet.Scenario.load(small_file).run().raw
    out = json.loads(p.stdout)
    for wall in ("wall_time_s", "setup_time_s"):  # (not simulated)
        out.pop(wall), api.pop(wall)
    assert out == api


def test_run_text_summary(cli, small_file):
    p = cli(["run", small_file, "--set", "traffic.priorities=2"])
    assert p.returncode == 0, p.stderr
    for word in ("throughput", "latency mean", "p99", "p99.9", "transactions", "retries", "stopped by",
                 "per priority", "seed 1", ringlet.Scenario.load(small_file).set("traffic.priorities", 2).hash):
        assert word in p.stdout, word
    assert "±" in p.stdout


def test_run_that_measured_nothing_says_so(cli, small_file):
    """The time cap ends the run 1 ns after its warm-up: no transaction is measured."""
    p = cli(["run", small_file, "--set", "run.max_sim_time_ns=2001"])
    assert p.returncode == 0 and not p.stderr, p.stderr
    assert "nothing was measured" in p.stdout and "stopped by" in p.stdout


def test_run_cut_by_the_time_cap_says_so(cli, small_file):
    """20 us after a 2 us warm-up measures a few hundred of the 4000 transactions."""
    p = cli(["run", small_file, "--set", "run.max_sim_time_ns=20000"])
    assert p.returncode == 0 and not p.stderr, p.stderr
    text = " ".join(p.stdout.split())  # rich wraps long lines at the console's width
    assert "stopped at the time cap (run.max_sim_time_ns) before measuring run.measure_transactions" in text
    assert "nothing was measured" not in text
    # A run that measured them all says nothing of the kind.
    assert "time cap" not in cli(["run", small_file]).stdout


def test_overload_stops_at_the_backlog_cap_and_says_so(cli, small_file):
    """A load far past saturation (750 times it: beyond 1,000 it is refused) ends at the
    backlog cap instead of filling memory."""
    p = cli(["run", small_file, "--json", "--set", "traffic.load_mbps_per_node=1e5",
             "--set", "run.max_backlog_transactions=3000"])
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["stopped_by"] == "backlog"
    assert out["conservation"]["generated"] - out["conservation"]["completed"] == 3001
    p = cli(["run", small_file, "--set", "traffic.load_mbps_per_node=1e5", "--set", "run.max_backlog_transactions=3000"])
    assert p.returncode == 0, p.stderr
    assert "backlog cap" in p.stdout and "run.max_backlog_transactions" in p.stdout


# -- sweep ---------------------------------------------------------------------------


def test_sweep_writes_csv_and_parquet(cli, small_file, tmp_path):
    out = tmp_path / "results" / "nested"
    p = cli(["sweep", small_file, "--set", f"{LOAD}=10:30:20", "--set", "traffic.priorities=1,2",
             "--set", "run.measure_transactions=2000", "--out", out, "--processes", "2"])
    assert p.returncode == 0, p.stderr
    csv, parquet = out / "sweep.csv", out / "sweep.parquet"
    assert str(csv) in p.stdout and str(parquet) in p.stdout
    assert "4/4" in p.stderr  # the progress bar reached the end
    a, b = pd.read_csv(csv), pd.read_parquet(parquet)
    pd.testing.assert_frame_equal(a, b, check_dtype=False)
    assert list(a.columns[:4]) == ["point", LOAD, "traffic.priorities", "priority"]
    assert a[LOAD].tolist() == [10, 10, 10, 30, 30, 30]
    assert a["traffic.priorities"].tolist() == [1, 2, 2, 1, 2, 2]
    assert len(a) == 6
    assert "run.measure_transactions" not in a.columns  # a fixed override is not an axis
    assert sorted(p.name for p in out.iterdir()) == ["results.sqlite", "sweep.csv", "sweep.parquet"]
    assert "warning" not in p.stdout + p.stderr  # every point measured its transactions


def test_sweep_warns_of_points_that_stop_early(cli, small_file, tmp_path):
    # 20 us of simulated time holds a few hundred of the 2000 transactions; 1 s holds them all.
    p = cli(["sweep", small_file, "--set", "run.max_sim_time_ns=20000,1e9", "--set", "run.measure_transactions=2000",
             "--out", tmp_path / "out", "--processes", "1"])
    assert p.returncode == 0, p.stderr
    table = pd.read_csv(tmp_path / "out" / "sweep.csv")
    assert table["stopped_by"].tolist() == ["time_cap", "transactions"]
    short = int(table["total_transactions"].iloc[0])
    assert 0 < short < 2000
    assert (f"warning: 1 point(s) stopped before measuring their transactions (time cap or backlog cap; "
            f"the stopped_by column): point 0 (run.max_sim_time_ns=20000.0): time_cap, {short:,}\n") in p.stderr
    assert "warning" not in p.stdout


def test_sweep_table_is_the_api_table(cli, small_file, tmp_path):
    p = cli(["sweep", small_file, "--set", f"{LOAD}=5,15", "--set", "run.measure_transactions=1000",
             "--out", tmp_path / "o", "--processes", "1"])
    assert p.returncode == 0, p.stderr
    api = ringlet.sweep(ringlet.Scenario.load(small_file).set("run.measure_transactions", 1000),
                        {LOAD: [5, 15]}, processes=1)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "o" / "sweep.parquet"), api)


# -- bench ---------------------------------------------------------------------------


def test_bench_json(cli):
    p = cli(["bench", "--quick", "--json", "--repeats", "1"])
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    for key in ("packet_hops_per_s", "transactions_per_s", "sim_to_wall", "floor_ratio", "workloads"):
        assert key in out
    assert out["workloads"] and all(w["repeats"] == 1 for w in out["workloads"])
    assert out["packet_hops_per_s"] > 0 and out["sim_to_wall"] > 0
    # Each workload against the yardstick loop run after it, on its nodes.
    for w in out["workloads"]:
        assert w["floor_ratio"] == pytest.approx(w["packet_hops_per_s"] / w["floor_packet_hops_per_s"])
        shape = w["workload"].split("-")[-1]
        if shape.endswith("node"):  # a ring of that many nodes (switch and Banyan workloads: more interfaces)
            assert w["floor_nodes"] == int(shape.removesuffix("node"))
        assert w["floor_nodes"] > 0 and w["floor_packets"] > 0
        # Events per packet-hop, and by kind: every run decides outputs and strips packets.
        kinds = w["events_per_hop_by_kind"]
        assert sum(kinds.values()) == pytest.approx(w["events_per_hop"])
        assert kinds["output_free"] > 0 and kinds["head_arrive"] > 0 and all(v > 0 for v in kinds.values()), kinds
    assert out["floor_ratio"] == out["workloads"][0]["floor_ratio"]
    by_name = {w["workload"]: w for w in out["workloads"]}
    # Only a network with switches crosses buses.
    assert "bus_free" not in by_name["reference-8node"]["events_per_hop_by_kind"]
    assert "bus_free" in by_name["banyan-bO2nS256"]["events_per_hop_by_kind"]


def test_bench_table(cli):
    p = cli(["bench", "--quick", "--repeats", "1"])
    assert p.returncode == 0, p.stderr
    assert "reference-8node" in p.stdout and "Mhops/s" in p.stdout and "range" in p.stdout and "x loop" in p.stdout
    assert "events/hop" in p.stdout
    assert "medians of 1 run)" in p.stdout and "…" not in p.stdout  # nothing cut off at 80 columns


def test_bench_takes_the_workloads_in_turn_and_reports_each_run():
    from ringlet import _core

    seen = []
    out = json.loads(_core.bench(2, True, lambda done, total, name: seen.append((done, total, name))))
    names = [w["workload"] for w in out["workloads"]]
    # Every family's workloads (the ring's three, then the switch's and the Banyan's), each run in turn.
    assert names[:3] == ["reference-8node", "sci-8node", "ring-64node"] and len(set(names)) == len(names)
    assert any(n.startswith("switch-") for n in names) and any(n.startswith("banyan-") for n in names)
    assert seen == [(k + 1, 2 * len(names), n) for k, n in enumerate(names + names)]
    assert all(w["repeats"] == 2 and len(w["wall_s_all"]) == 2 for w in out["workloads"])


def test_bench_stops_on_an_error_in_its_progress_callback():
    from ringlet import _core

    calls = []

    def fail(done, total, name):
        calls.append(done)
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        _core.bench(3, True, fail)
    assert calls == [1]


def test_bench_range_spans_the_slowest_and_fastest_repeat():
    from ringlet.cli.render import hops_range

    w = {"packet_hops": 4_000_000, "wall_s_all": [0.5, 0.4, 0.8]}
    assert hops_range(w) == "5.00-10.00"
    assert hops_range({"packet_hops": 4_000_000, "wall_s_all": []}) == "-"


# -- bad input: one line, exit 2, no traceback, no output ---------------------------


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("[network]\nnodes = = 3\n", "malformed TOML at line 2, column"),
        ("[network]\nnodez = 3\n", "network.nodez: unknown key"),
        ('[traffic]\nload_mbps_per_node = "fast"\n', 'traffic.load_mbps_per_node: expected a number >= 0, got "fast"'),
        ("[network]\nnodes = 1\n", "network.nodes: expected an integer in 2..4096, got 1"),
        ("[traffic]\nload_mbps_per_node = -5\n", "traffic.load_mbps_per_node: expected a number >= 0, got -5"),
    ],
)
@pytest.mark.parametrize("command", ["run", "sweep"])
def test_bad_scenario_files(cli, tmp_path, text, fragment, command):
    args = [command, _write(tmp_path, text)]
    out = tmp_path / "out"
    if command == "sweep":
        args += ["--set", f"{LOAD}=1,2", "--out", out]
    message = one_error_line(cli(args))
    # A syntax error's line and column come with the file they are in.
    where = f"{tmp_path / 'bad.toml'}: " if fragment.startswith("malformed") else ""
    assert message.startswith(where + fragment), message
    assert not out.exists()


def test_missing_file(cli, tmp_path):
    missing = tmp_path / "missing.toml"
    assert str(missing) in one_error_line(cli(["run", missing]))
    assert str(missing) in one_error_line(cli(["sweep", missing, "--set", f"{LOAD}=1,2", "--out", tmp_path / "o"]))
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "sets, fragment",
    [
        (["traffic.load_mbps_per_node"], "--set traffic.load_mbps_per_node: expected KEY=VALUE"),
        (["load=5"], "--set load=5: expected SECTION.KEY=VALUE"),
        (["traffic.speed=5"], "traffic.speed: unknown key"),
        (["network.nodes=1"], "network.nodes: expected an integer in 2..4096, got 1"),
        (["traffic.load_mbps_per_node=-1"], "traffic.load_mbps_per_node: expected a number >= 0, got -1"),
        (["traffic.load_mbps_per_node=fast"], 'traffic.load_mbps_per_node: expected a number >= 0, got "fast"'),
    ],
)
def test_run_bad_set(cli, small_file, sets, fragment):
    args = ["run", small_file]
    for s in sets:
        args += ["--set", s]
    assert one_error_line(cli(args)).startswith(fragment)


@pytest.mark.parametrize(
    "value, fragment",
    [
        ("5:1:1", 'traffic.load_mbps_per_node: bad range "5:1:1": STOP (1) is below START (5)'),
        ("0:10:0", 'traffic.load_mbps_per_node: bad range "0:10:0": STEP must be > 0'),
        ("1:10", 'traffic.load_mbps_per_node: bad range "1:10": expected START:STOP:STEP'),
        ("x:10:1", "traffic.load_mbps_per_node: bad range"),
        ("-10:10:10", "traffic.load_mbps_per_node: expected a number >= 0, got -10"),
        ("10,fast", 'traffic.load_mbps_per_node: expected a number >= 0, got "fast"'),
    ],
)
def test_sweep_bad_axis(cli, small_file, tmp_path, value, fragment):
    out = tmp_path / "out"
    p = cli(["sweep", small_file, "--set", f"{LOAD}={value}", "--out", out])
    assert one_error_line(p).startswith(fragment)
    assert not out.exists()


def test_sweep_unwritable_out(cli, small_file, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    msg = one_error_line(cli(["sweep", small_file, "--set", f"{LOAD}=1,2", "--out", blocker / "sub"]))
    assert msg.startswith(f"--out {blocker / 'sub'}: cannot create directory")
    msg = one_error_line(cli(["sweep", small_file, "--set", f"{LOAD}=1,2", "--out", blocker]))
    assert msg == f"--out {blocker}: exists and is not a directory"
    assert blocker.read_text() == "not a directory"


def test_sweep_validates_every_point_before_running(cli, small_file, tmp_path):
    """The bad point is the last one: nothing may have run or been written."""
    out = tmp_path / "out"
    p = cli(["sweep", small_file, "--set", f"{LOAD}=10,20", "--set", "network.nodes=8,4,1", "--out", out])
    assert one_error_line(p) == "network.nodes: expected an integer in 2..4096, got 1"
    assert not out.exists()


def test_sweep_run_time_rejection_writes_nothing(cli, small_file, tmp_path):
    """A key the model rejects only when it runs still gives one line and no file."""
    out = tmp_path / "out"
    p = cli(["sweep", small_file, "--set", f"{LOAD}=10,20", "--set", "network.bypass_fifo_symbols=3",
             "--out", out, "--processes", "1"])
    assert one_error_line(p).startswith("network.bypass_fifo_symbols:")
    assert not (out / "sweep.csv").exists() and not (out / "sweep.parquet").exists()


@pytest.mark.parametrize(
    "args, fragment",
    [
        ([], "a command is required"),
        (["frob"], "invalid choice: 'frob'"),
        (["run"], "the following arguments are required: FILE"),
        (["sweep", "x.toml"], "the following arguments are required: --out"),
        (["bench", "--repeats", "0"], "argument --repeats: expected an integer >= 1, got '0'"),
        (["bench", "--repeats", "99999999999999999999999"],
         "argument --repeats: expected an integer in 1..9223372036854775807, got '99999999999999999999999'"),
        (["sweep", "x.toml", "--out", "o", "--replications", "100001"],
         "argument --replications: expected an integer in 1..100000, got '100001'"),
        (["rerun", "o", "99999999999999999999999"], "argument ID: expected an integer in 1..9223372036854775807"),
        (["sweep", "x.toml", "--out", "o", "--processes", "two"], "argument --processes: expected an integer >= 1"),
        (["run", "x.toml", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_command_lines(cli, tmp_path, args, fragment):
    assert fragment in one_error_line(cli(args, cwd=tmp_path))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("out", ["", " "], ids=["empty", "blank"])
@pytest.mark.parametrize(
    "command, kind",
    [
        (["sweep", "{file}", "--set", f"{LOAD}=1,2"], "directory"),
        (["report", "."], "file"),
        (["trace", "{file}"], "file"),
    ],
    ids=["sweep", "report", "trace"],
)
def test_empty_out_is_refused_not_taken_as_the_current_directory(cli, small_file, tmp_path, command, kind, out):
    """``--out ''`` would mean the current directory; it is refused before anything runs
    (``reproduce --out ''``: test_reproduce.py)."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    args = [str(small_file) if a == "{file}" else a for a in command]
    assert one_error_line(cli([*args, "--out", out], cwd=cwd)) == f"--out: expected a {kind} name, got {out!r}"
    assert list(cwd.iterdir()) == []


def test_ctrl_c_before_any_point_finished_says_nothing_was_kept(small_file, tmp_path, monkeypatch, capsys):
    """The interrupt message says what is true: with no store yet, nothing was kept."""
    from ringlet import cli as cli_module

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sys.modules["ringlet.runs.sweep"], "run_sweep", interrupted)
    out = tmp_path / "out"
    assert cli_module.main(["sweep", str(small_file), "--set", f"{LOAD}=1,2", "--out", str(out)]) == 130
    err = capsys.readouterr().err
    assert "kept in" not in err and "run the same command to resume" not in err
    assert f"nothing was kept ({out / 'results.sqlite'} was not created)" in err
    assert not (out / "results.sqlite").exists()


@pytest.mark.parametrize("replications, blocked", [
    (2, "sweep-replications.csv"),
    (2, "sweep-replications.parquet"),
    (1, "sweep-replications.csv"),  # a stale table the sweep would remove
])
def test_sweep_output_file_that_is_a_directory_fails_before_running(cli, small_file, tmp_path, replications, blocked):
    out = tmp_path / "out"
    (out / blocked).mkdir(parents=True)
    p = cli(["sweep", small_file, "--set", f"{LOAD}=1,2", "--replications", replications, "--out", out])
    assert one_error_line(p) == f"--out {out}: {blocked} exists and is a directory"
    assert sorted(x.name for x in out.iterdir()) == [blocked]  # nothing ran: no store


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--set", f"{LOAD}=1:10000:1", "--set", "node.iqst_ns=1:10000:1"],
         "the grid has 100000000 points (10000 x 10000); a sweep may have at most 1000000 points"),
        (["--set", f"{LOAD}=1:1000:1", "--set", "node.iqst_ns=1:1001:1"],
         "the grid has 1001000 points (1000 x 1001); a sweep may have at most 1000000 points"),
        (["--set", f"{LOAD}=1:1000:1", "--replications", "1001"],
         "the grid has 1000 points x 1001 replications = 1001000 runs; a sweep may have at most 1000000 runs"),
        (["--set", f"{LOAD}=1,2", "--processes", str(10**12)],  # (with --executor dask, as many workers)
         f"argument --processes: expected an integer in 1..4096, got '{10**12}'"),
        (["--set", f"{LOAD}=1,2", "--processes", "4097"], "argument --processes: expected an integer in 1..4096"),
    ],
    ids=["huge-grid", "just-over", "replications", "processes", "processes-4097"],
)
def test_sweep_too_big_is_refused_before_planning(cli, small_file, tmp_path, extra, message):
    out = tmp_path / "out"
    assert one_error_line(cli(["sweep", small_file, *extra, "--out", out], timeout=30)).startswith(message)
    assert not out.exists()


def test_reproduce_jobs_are_bounded(cli, tmp_path):
    p = cli(["reproduce", "no-such-study", "--out", tmp_path / "out", "--jobs", str(10**12)])  # checked first
    assert one_error_line(p) == f"argument --jobs: expected an integer in 1..4096, got '{10**12}'"
    assert not (tmp_path / "out").exists()
