"""The results store: resume after an interruption, nothing computed twice,
versions kept apart, damaged stores refused and left alone, results and rerun."""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest

import ringlet
from ringlet import Scenario
from ringlet.runs.store import FORMAT, Store, StoreError

from conftest import BASE, SMALL_TOML, one_error_line, run_cli
from storetools import (LONG_POINTS, LONG_SETS, OPEN_POINTS, SHORT_POINTS, SHORT_SETS, children, count_rows, kill_all,
                        popen_gated_cli, store_rows, sweep_args, wait_for_rows, wait_gone)

sweep_module = sys.modules["ringlet.runs.sweep"]
LOAD = "traffic.load_mbps_per_node"



def _digest(directory: Path) -> dict[str, str]:
    """Every file of a directory with a hash of its bytes: to prove nothing was touched."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir())}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """The long sweep, uninterrupted: what an interrupted one must end up equal to."""
    out = tmp_path_factory.mktemp("reference")
    p = run_cli(sweep_args(out, LONG_SETS, "--processes", "2"))
    assert p.returncode == 0, p.stderr
    assert f"{LONG_POINTS} computed, 0 from" in p.stdout
    return out


@pytest.fixture(scope="module")
def short_store(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("short")
    p = run_cli(sweep_args(out, SHORT_SETS, "--processes", "2"))
    assert p.returncode == 0, p.stderr
    return out


def _same_as_reference(out: Path, reference: Path) -> None:
    assert store_rows(out / "results.sqlite") == store_rows(reference / "results.sqlite")
    pd.testing.assert_frame_equal(pd.read_csv(out / "sweep.csv"), pd.read_csv(reference / "sweep.csv"))
    pd.testing.assert_frame_equal(pd.read_parquet(out / "sweep.parquet"), pd.read_parquet(reference / "sweep.parquet"))


# -- the schema other code reads ---------------------------------------------------------------------


def test_store_schema_and_rows(short_store):
    conn = sqlite3.connect(short_store / "results.sqlite")
    assert conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() == (FORMAT,)
    cols = [r[1] for r in conn.execute("PRAGMA table_info(results)")]
    assert cols[:9] == ["id", "scenario_hash", "seed", "ringlet_version", "replication", "values_json", "scenario",
                        "result", "finished_at"]
    rows = conn.execute("SELECT scenario_hash, seed, ringlet_version, replication, values_json, scenario, result "
                        "FROM results").fetchall()
    assert len(rows) == SHORT_POINTS
    values = set()
    for h, seed, version, rep, values_json, scenario, result in rows:
        prov = json.loads(result)["provenance"]
        assert (prov["scenario_hash"], prov["seed"], prov["ringlet_version"]) == (h, seed, version)
        assert version == ringlet.__version__ and rep == 0 and seed == 1
        assert Scenario.from_toml(scenario).hash == h  # the full TOML re-runs the point
        values.add(tuple(json.loads(values_json).items()))
    assert values == {((LOAD, a), ("traffic.priorities", b)) for a in (10, 30) for b in (1, 2)}
    with pytest.raises(sqlite3.IntegrityError):  # the key is unique
        conn.execute("INSERT INTO results(scenario_hash, seed, ringlet_version, scenario, result) "
                     "SELECT scenario_hash, seed, ringlet_version, scenario, result FROM results LIMIT 1")
    conn.close()


# -- resume and repeat -------------------------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_interrupted_sweep_resumes_and_equals_an_uninterrupted_one(tmp_path, reference, sig):
    out = tmp_path / "out"
    db = out / "results.sqlite"
    proc = popen_gated_cli(sweep_args(out, LONG_SETS, "--processes", "2"), tmp_path / "gate")  # never opened
    workers: list[int] = []
    try:
        wait_for_rows(db, OPEN_POINTS, proc)
        workers = children(proc.pid)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    if sig == signal.SIGINT:
        assert proc.returncode == 130, err
        assert "ringlet: interrupted" in err and "run the same command to resume" in err
        assert "Traceback" not in err
    else:
        assert proc.returncode == -signal.SIGKILL
    leftover = wait_gone(workers)
    kill_all(leftover)
    assert leftover == []  # the workers die with the sweep
    stored = count_rows(db)
    assert stored == OPEN_POINTS  # interrupted partway, finished points kept
    assert not (out / "sweep.csv").exists()

    p = run_cli(sweep_args(out, LONG_SETS, "--processes", "2"))
    assert p.returncode == 0, p.stderr
    assert f"{LONG_POINTS - stored} computed, {stored} from" in p.stdout
    _same_as_reference(out, reference)


def test_ctrl_c_while_the_tables_are_written_keeps_every_point(tmp_path, monkeypatch, capsys):
    """After the last point, only the tables are left to do: the message says the same command writes them."""
    from ringlet import cli, files

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(files, "write_together", interrupted)
    out = tmp_path / "out"
    assert cli.main(sweep_args(out, SHORT_SETS, "--processes", "1")) == 130
    err = capsys.readouterr().err
    assert f"ringlet: all {SHORT_POINTS} runs are kept in {out / 'results.sqlite'}: run the same command to write " \
           "the tables from them" in err and err.rstrip().endswith("ringlet: interrupted")
    assert count_rows(out / "results.sqlite") == SHORT_POINTS and not (out / "sweep.csv").exists()
    monkeypatch.undo()
    p = run_cli(sweep_args(out, SHORT_SETS, "--processes", "1"))
    assert p.returncode == 0 and f"0 computed, {SHORT_POINTS} from" in p.stdout, p.stderr
    assert (out / "sweep.csv").exists()


def test_repeated_sweep_computes_nothing(tmp_path, monkeypatch):
    """Counted at the one function that runs a point (in this process, processes=1)."""
    calls = []
    real = sweep_module._run_point

    def counting(text, overrides):
        calls.append(overrides)
        return real(text, overrides)

    monkeypatch.setattr(sweep_module, "_run_point", counting)
    s = Scenario.from_toml(SMALL_TOML).set("run.measure_transactions", 2000)
    grid = {LOAD: [10, 30, 50], "traffic.priorities": [1, 2]}
    first = ringlet.sweep(s, grid, processes=1, store=tmp_path)
    assert len(calls) == 6
    second = ringlet.sweep(s, grid, processes=1, store=tmp_path)
    assert len(calls) == 6  # not one more point ran
    pd.testing.assert_frame_equal(first, second)
    bigger = ringlet.sweep(s, {LOAD: [10, 30, 50, 70], "traffic.priorities": [1, 2]}, processes=1, store=tmp_path)
    assert len(calls) == 8  # only the two new points
    pd.testing.assert_frame_equal(bigger[bigger[LOAD] != 70].reset_index(drop=True), first)
    assert count_rows(tmp_path / "results.sqlite") == 8


def test_repeated_cli_sweep_reports_zero_computed(tmp_path, short_store):
    out = tmp_path / "again"
    out.mkdir()
    (out / "results.sqlite").write_bytes((short_store / "results.sqlite").read_bytes())
    before = store_rows(out / "results.sqlite")
    p = run_cli(sweep_args(out, SHORT_SETS, "--processes", "2"))
    assert p.returncode == 0, p.stderr
    assert f"0 computed, {SHORT_POINTS} from" in p.stdout
    assert f"({SHORT_POINTS} from store)" in p.stderr
    assert store_rows(out / "results.sqlite") == before
    pd.testing.assert_frame_equal(pd.read_csv(out / "sweep.csv"), pd.read_csv(short_store / "sweep.csv"))


# -- versions ----------------------------------------------------------------------------------------


def test_rows_of_another_version_are_kept_apart(tmp_path, short_store):
    out = tmp_path / "out"
    out.mkdir()
    db = out / "results.sqlite"
    db.write_bytes((short_store / "results.sqlite").read_bytes())
    conn = sqlite3.connect(db)
    for rid, result in conn.execute("SELECT id, result FROM results").fetchall():
        r = json.loads(result)
        r["provenance"]["ringlet_version"] = "0.0.1-old"
        conn.execute("UPDATE results SET ringlet_version = '0.0.1-old', result = ? WHERE id = ?", (json.dumps(r), rid))
    conn.commit()
    conn.close()

    p = run_cli(sweep_args(out, SHORT_SETS, "--processes", "2"))
    assert p.returncode == 0, p.stderr
    assert f"{SHORT_POINTS} computed, 0 from" in p.stdout  # nothing reused
    table = pd.read_csv(out / "sweep.csv")
    assert set(table["ringlet_version"]) == {ringlet.__version__}
    with Store(db) as store:
        assert store.versions() == {"0.0.1-old": SHORT_POINTS, ringlet.__version__: SHORT_POINTS}

    listing = run_cli(["results", out])
    assert listing.returncode == 0, listing.stderr
    assert f"ringlet {ringlet.__version__} (this version): {SHORT_POINTS} runs" in listing.stdout
    assert f"ringlet 0.0.1-old (another version: kept apart, not reused): {SHORT_POINTS} runs" in listing.stdout

    mine = run_cli(["results", out, "--csv", tmp_path / "mine.csv"])
    old = run_cli(["results", out, "--csv", tmp_path / "old.csv", "--version", "0.0.1-old"])
    assert mine.returncode == 0 and old.returncode == 0, mine.stderr + old.stderr
    mine_t, old_t = pd.read_csv(tmp_path / "mine.csv"), pd.read_csv(tmp_path / "old.csv")
    assert set(mine_t["ringlet_version"]) == {ringlet.__version__}
    assert set(old_t["ringlet_version"]) == {"0.0.1-old"}
    pd.testing.assert_frame_equal(mine_t, table)


# -- damaged stores ----------------------------------------------------------------------------------


def _garbage(db: Path) -> None:
    db.write_bytes(b"this is not a database\n" * 100)


def _empty(db: Path) -> None:
    db.write_bytes(b"")


def _truncated(db: Path) -> None:
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])


def _foreign(db: Path) -> None:
    db.unlink()
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE photos(id INTEGER PRIMARY KEY, name TEXT)")
    conn.commit()
    conn.close()


def _sql(statement: str):
    def damage(db: Path) -> None:
        conn = sqlite3.connect(db)
        conn.execute(statement)
        conn.commit()
        conn.close()
    return damage


DAMAGES = {
    "garbage": (_garbage, "not a ringlet results store (not an SQLite database)"),
    "empty": (_empty, "not a ringlet results store (empty file)"),
    "truncated": (_truncated, "damaged results store"),
    "foreign-database": (_foreign, "not a ringlet results store"),
    "other-format": (_sql("UPDATE meta SET value = 'ringlet-results/9' WHERE key = 'format'"),
                     "results store of format 'ringlet-results/9'"),
    "result-does-not-parse": (_sql("UPDATE results SET result = '{\"throughput' WHERE id = 2"),
                              "row 2: stored result does not parse"),
    "provenance-disagrees": (_sql("UPDATE results SET scenario_hash = '0123456789abcdef' WHERE id = 3"),
                             "row 3: the result's provenance disagrees with the row's key"),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_damaged_store_is_reported_not_trusted_and_left_untouched(tmp_path, short_store, damage):
    out = tmp_path / "out"
    out.mkdir()
    db = out / "results.sqlite"
    db.write_bytes((short_store / "results.sqlite").read_bytes())
    make, fragment = DAMAGES[damage]
    make(db)
    before = _digest(out)
    for args in (sweep_args(out, SHORT_SETS, "--processes", "1"), ["results", out], ["rerun", out, "1"],
                 ["results", out, "--csv", tmp_path / "x.csv"]):
        msg = one_error_line(run_cli(args))
        assert msg.startswith(f"{db}: "), msg
        assert fragment in msg, msg
        assert _digest(out) == before  # not written, not deleted, no journal left
    assert not (tmp_path / "x.csv").exists()
    with pytest.raises(StoreError):
        ringlet.sweep(BASE, {LOAD: [10]}, processes=1, store=out)
    assert _digest(out) == before


# -- results and rerun -------------------------------------------------------------------------------


def test_results_lists_and_exports_the_sweep_table(tmp_path, short_store):
    p = run_cli(["results", short_store])
    assert p.returncode == 0, p.stderr
    assert f"{SHORT_POINTS} runs" in p.stdout
    for h in pd.read_csv(short_store / "sweep.csv")["scenario_hash"]:
        assert h in p.stdout
    # --last N lists only the most recent rows, and says so.
    with Store(short_store / "results.sqlite") as store:
        hashes = [r.scenario_hash for r in store.rows()]
    assert len(set(hashes)) == SHORT_POINTS
    p = run_cli(["results", short_store, "--last", "1"])
    assert p.returncode == 0, p.stderr
    assert f"the last 1 of {SHORT_POINTS} rows" in p.stdout
    assert hashes[-1] in p.stdout and not any(h in p.stdout for h in hashes[:-1])
    assert "--last" in one_error_line(run_cli(["results", short_store, "--last", "0"]))
    assert "--last" in one_error_line(run_cli(["results", short_store, "--last", "1", "--csv", tmp_path / "l.csv"]))
    assert not (tmp_path / "l.csv").exists()
    p = run_cli(["results", short_store, "--csv", tmp_path / "t.csv", "--parquet", tmp_path / "t.parquet"])
    assert p.returncode == 0, p.stderr
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "t.csv"), pd.read_csv(short_store / "sweep.csv"))
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "t.parquet"),
                                  pd.read_parquet(short_store / "sweep.parquet"))
    # Bad export targets and versions: one line, checked before anything is written.
    (tmp_path / "a-file").write_text("x")
    before = sorted(p.name for p in tmp_path.iterdir())
    for args, message in [
        (["--csv", tmp_path / "a-file" / "x.csv"], f"--csv {tmp_path / 'a-file' / 'x.csv'}: {tmp_path / 'a-file'} "
                                                   "is not a directory"),
        (["--parquet", tmp_path], f"--parquet {tmp_path}: is a directory"),
        (["--csv", ""], "--csv: expected a file name, got ''"),
        (["--csv", tmp_path / "v.csv", "--version", "nope"], "--version nope: no runs of that ringlet version in "),
    ]:
        assert message in one_error_line(run_cli(["results", short_store, *args]))
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_results_export_into_a_pipe_keeps_its_note_off_the_data(tmp_path, short_store):
    """``--csv``/``--parquet`` into a pipe (a FIFO here; ``/dev/stdout`` is
    one too): the data alone go through it, written in place and not replaced,
    and the ``wrote`` note goes to stderr."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for kind, read in (("csv", lambda b: pd.read_csv(io.BytesIO(b))),
                       ("parquet", lambda b: pd.read_parquet(io.BytesIO(b)))):
        got: list[bytes] = []
        reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
        reader.start()
        p = run_cli(["results", short_store, f"--{kind}", fifo])
        reader.join(timeout=60)
        assert p.returncode == 0, p.stderr
        assert p.stdout == "" and p.stderr.startswith(f"wrote {fifo}: ") and "rows of ringlet" in p.stderr
        pd.testing.assert_frame_equal(read(got[0]), getattr(pd, f"read_{kind}")(short_store / f"sweep.{kind}"))
        assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_rerun_is_bit_identical_and_detects_a_changed_result(tmp_path, short_store):
    p = run_cli(["rerun", short_store, "2", "--json"])
    assert p.returncode == 0, p.stderr
    assert "row 2: bit-identical to the stored result" in p.stderr
    conn = sqlite3.connect(short_store / "results.sqlite")
    stored = json.loads(conn.execute("SELECT result FROM results WHERE id = 2").fetchone()[0])
    conn.close()
    new = json.loads(p.stdout)
    assert new.pop("wall_time_s") >= 0 and stored.pop("wall_time_s") >= 0
    assert new.pop("setup_time_s") >= 0 and stored.pop("setup_time_s") >= 0
    assert new == stored

    table = run_cli(["rerun", short_store, "2"])
    assert table.returncode == 0 and "ringlet run" in table.stdout and "bit-identical" in table.stdout

    out = tmp_path / "out"
    out.mkdir()
    db = out / "results.sqlite"
    db.write_bytes((short_store / "results.sqlite").read_bytes())
    conn = sqlite3.connect(db)
    result = json.loads(conn.execute("SELECT result FROM results WHERE id = 2").fetchone()[0])
    result["throughput_mbps"] = result["throughput_mbps"] * (1 + 1e-15)  # one ulp or so: still not identical
    conn.execute("UPDATE results SET result = ? WHERE id = 2", (json.dumps(result),))
    conn.commit()
    conn.close()
    before = _digest(out)
    p = run_cli(["rerun", out, "2"])
    assert p.returncode == 1
    assert "row 2: the re-run DIFFERS from the stored result" in p.stderr and "throughput_mbps" in p.stderr
    assert _digest(out) == before
    assert "no row 99" in one_error_line(run_cli(["rerun", out, "99"]))


# -- failed points -----------------------------------------------------------------------------------

#: Runs the CLI with a model error injected into the point at 30 MB/s per node
#: (forked workers inherit the patch).
FAILING_CLI = """
import sys
from ringlet import cli
from ringlet.api.errors import ScenarioError
sweep = sys.modules["ringlet.runs.sweep"]
real = sweep._run_point
def failing(text, overrides):
    if ("traffic.load_mbps_per_node", "30") in overrides:
        raise ScenarioError("model says no: injected failure")
    return real(text, overrides)
sweep._run_point = failing
sys.exit(cli.main(sys.argv[1:]))
"""


@pytest.mark.parametrize("processes", ["1", "2"])
def test_failed_point_does_not_stop_the_others(tmp_path, processes):
    out = tmp_path / "out"
    args = sweep_args(out, SHORT_SETS, "--processes", processes)
    p = subprocess.run([sys.executable, "-c", FAILING_CLI, *args], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    assert "sweep 4/4 points in" in p.stderr and "(2 failed)" in p.stderr  # the progress line
    lines = [line for line in p.stderr.splitlines() if not line.startswith("sweep ")]
    assert lines[0].startswith("ringlet: error: 2 of 4 points failed (2 computed, 0 from")
    assert "sweep.csv not written" in lines[0] and len(lines) == 3
    assert f"  point 2 ({LOAD}=30, traffic.priorities=1): model says no: injected failure" in lines
    assert f"  point 3 ({LOAD}=30, traffic.priorities=2): model says no: injected failure" in lines
    assert "Traceback" not in p.stderr
    assert count_rows(out / "results.sqlite") == 2  # the others finished and are stored
    assert not (out / "sweep.csv").exists()
    fixed = run_cli(args)  # the failure fixed: only the failed points run
    assert fixed.returncode == 0, fixed.stderr
    assert "2 computed, 2 from" in fixed.stdout


def test_api_failed_point_raises_after_the_others_are_stored(tmp_path, monkeypatch):
    real = sweep_module._run_point

    def failing(text, overrides):
        if (LOAD, "30") in overrides:
            raise ringlet.ScenarioError("model says no")
        return real(text, overrides)

    monkeypatch.setattr(sweep_module, "_run_point", failing)
    s = Scenario.from_toml(SMALL_TOML).set("run.measure_transactions", 2000)
    with pytest.raises(sweep_module.SweepError) as e:
        ringlet.sweep(s, {LOAD: [10, 30, 50]}, processes=1, store=tmp_path)
    assert str(e.value).startswith(f"1 of 3 points failed; the other 2 are stored in {tmp_path / 'results.sqlite'}")
    assert e.value.failures == [(1, 0, {LOAD: 30}, "model says no")]
    assert count_rows(tmp_path / "results.sqlite") == 2


# -- bad input ----------------------------------------------------------------------------------------


def test_store_path_that_is_a_directory(tmp_path):
    out = tmp_path / "out"
    (out / "results.sqlite").mkdir(parents=True)
    msg = one_error_line(run_cli(sweep_args(out)))
    assert msg == f"{out / 'results.sqlite'}: is a directory, not a results store"
    assert not (out / "sweep.csv").exists()


def test_results_and_rerun_without_a_store(tmp_path):
    assert one_error_line(run_cli(["results", tmp_path])) == \
        f"{tmp_path}: no results store ({tmp_path / 'results.sqlite'} does not exist)"
    assert "no results store" in one_error_line(run_cli(["rerun", tmp_path, "1"]))
    assert list(tmp_path.iterdir()) == []


# -- reproduce keeps its points in a store too ---------------------------------------------------------


def test_repeated_reproduce_runs_nothing(tmp_path, monkeypatch):
    from test_reproduce import write_study

    calls = []
    real = sweep_module._run_point
    monkeypatch.setattr(sweep_module, "_run_point", lambda t, ov: calls.append(ov) or real(t, ov))
    study = write_study(tmp_path / "tiny")
    first = ringlet.reproduce(study, tmp_path / "out", jobs=1, progress=False)
    assert len(calls) == 3  # the tiny study's distinct points
    assert count_rows(tmp_path / "out" / "results.sqlite") == 3
    second = ringlet.reproduce(study, tmp_path / "out", jobs=1, progress=False)
    assert len(calls) == 3
    pd.testing.assert_frame_equal(first, second)
