"""The ``ringlet`` command: run, sweep, results, rerun, reproduce, report, bench, params.

Any bad input prints one line ``ringlet: error: <message>`` on stderr and
exits with status 2, with no traceback and no output file written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn, Optional, Sequence

from . import _core, _files
from .errors import ScenarioError
from ._files import check_out_file
from ._literal import MAX_INT
from .executors import MAX_PROCESSES, ExecutorError
from .grid import parse_sets, split_set
from .scenario import Scenario
from .store import StoreError
from .study import StudyError

EXIT_USAGE = 2


class CliError(Exception):
    """A bad command line (reported as one ``ringlet: error:`` line, exit 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are one line raised as :class:`CliError` (no usage dump)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(message)


def _positive_int(text: str, most: int = MAX_INT) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    if value > most:
        raise argparse.ArgumentTypeError(f"expected an integer in 1..{most}, got {text!r}")
    return value


def _replications(text: str) -> int:
    from .sweep import MAX_REPLICATIONS

    return _positive_int(text, MAX_REPLICATIONS)


def _processes(text: str) -> int:
    return _positive_int(text, MAX_PROCESSES)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``ringlet`` command."""
    p = _Parser(prog="ringlet", description="Cycle-accurate simulator of SCI (IEEE 1596) ring interconnects.")
    p.add_argument("--version", action="version", version=f"ringlet {_core.version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", help="run one simulation point and print its figures")
    run.add_argument("file", metavar="FILE", help="scenario TOML file")
    run.add_argument("--json", action="store_true", help="print the result as one JSON object")
    run.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                     help="override a scenario key, e.g. traffic.load_mbps_per_node=120 (repeatable)")

    sweep = sub.add_parser("sweep", help="run a grid of points; write sweep.csv and sweep.parquet")
    sweep.add_argument("file", metavar="FILE", help="scenario TOML file")
    sweep.add_argument("--set", dest="sets", action="append", default=[],
                       metavar="KEY=START:STOP:STEP|V1,V2,...|VALUE",
                       help="a sweep axis (inclusive range or comma list) or a fixed override (repeatable)")
    sweep.add_argument("--out", required=True, metavar="DIR", help="output directory (created if needed)")
    sweep.add_argument("--processes", type=_processes, default=None, metavar="N",
                       help=f"worker processes, at most {MAX_PROCESSES} (default: one per core; 1 = no worker "
                            "processes); with --executor dask, the local cluster's workers")
    sweep.add_argument("--executor", default="local", metavar="NAME",
                       help="where points run: local (worker processes, the default) or dask (Dask distributed)")
    sweep.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="with --executor dask: a running Dask scheduler, e.g. tcp://10.0.0.5:8786, or its "
                            "scheduler file (default: start a local cluster)")
    sweep.add_argument("--replications", type=_replications, default=1, metavar="K",
                       help="independent seed streams per point; the table gets means and 95%% CIs (default 1)")

    results = sub.add_parser("results", help="list a sweep's results store, or export it as CSV or Parquet")
    results.add_argument("dir", metavar="DIR", help="a `ringlet sweep --out` folder (or its results.sqlite)")
    results.add_argument("--csv", metavar="FILE", help="write the store's tidy table as CSV")
    results.add_argument("--parquet", metavar="FILE", help="write the store's tidy table as Parquet")
    results.add_argument("--version", dest="ringlet_version", metavar="V",
                         help="the rows of ringlet version V (default: this version's)")
    results.add_argument("--last", type=_positive_int, default=None, metavar="N",
                         help="list only the N most recent rows of each version (default: all)")

    rerun = sub.add_parser("rerun", help="re-run one stored result from its provenance; check it is bit-identical")
    rerun.add_argument("dir", metavar="DIR", help="a `ringlet sweep --out` folder (or its results.sqlite)")
    rerun.add_argument("id", metavar="ID", type=_positive_int, help="the row id, as `ringlet results DIR` lists it")
    rerun.add_argument("--json", action="store_true", help="print the new result as one JSON object")

    repro = sub.add_parser("reproduce", help="run a study's figures; write CSVs, plots and a validation table")
    repro.add_argument("study", nargs="?", metavar="STUDY",
                       help="a study shipped with ringlet (e.g. sci-rt) or a study folder")
    repro.add_argument("--out", metavar="DIR", help="output directory (created if needed)")
    repro.add_argument("--jobs", type=_processes, default=None, metavar="N",
                       help=f"worker processes, at most {MAX_PROCESSES} (default: one per core; "
                            "1 = no worker processes)")
    repro.add_argument("--quick", action="store_true",
                       help="the study's smoke-test reduction (fewer transactions per point); outputs say so")
    repro.add_argument("--only", metavar="IDS", help="comma-separated figure ids to run, e.g. fig8a,fig11")
    repro.add_argument("--list", action="store_true",
                       help="list the shipped studies, or the figures of STUDY, and run nothing")

    report = sub.add_parser("report", help="write one self-contained HTML page of a sweep's or reproduction's results")
    report.add_argument("dir", metavar="DIR", help="a `ringlet sweep --out` or `ringlet reproduce --out` folder")
    report.add_argument("--out", required=True, metavar="FILE", help="the HTML file to write, e.g. report.html")
    report.add_argument("--tolerance", type=float, default=10.0, metavar="PCT",
                        help="a quoted number agrees with the seed within PCT %% of it (default 10)")

    bench = sub.add_parser("bench", help="measure simulator speed on the reference workloads")
    bench.add_argument("--json", action="store_true", help="print the report as one JSON object")
    bench.add_argument("--repeats", type=_positive_int, default=5, metavar="N",
                       help="runs per workload; figures are medians (default 5)")
    bench.add_argument("--quick", action="store_true", help="short workloads (checks the command, not the speed)")

    trace = sub.add_parser("trace", help="write one point's packet lifetimes as a Chrome trace (Perfetto, chrome://tracing)")
    trace.add_argument("file", metavar="FILE", help="scenario TOML file")
    trace.add_argument("--out", required=True, metavar="FILE", help="trace file to write (JSON)")
    trace.add_argument("--from", dest="from_ns", type=float, default=0.0, metavar="NS",
                       help="start of the traced window, simulated ns (default 0)")
    trace.add_argument("--to", dest="to_ns", type=float, default=None, metavar="NS",
                       help="end of the traced window, simulated ns; the run stops there (default: the run's own end)")
    trace.add_argument("--max-events", type=_positive_int, default=200_000, metavar="N",
                       help="records kept at most; the run stops when the trace is full (default 200000)")
    trace.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                       help="override a scenario key (repeatable)")

    params = sub.add_parser("params", help="print the scenario key reference")
    params.add_argument("--markdown", action="store_true", help="print the raw Markdown")
    return p


# -- commands ------------------------------------------------------------------


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def cmd_run(args: argparse.Namespace) -> int:
    scenario = Scenario.load(args.file).with_overrides([split_set(s) for s in args.sets])
    result = scenario.run(progress=True)  # a bar on a terminal only
    if args.json:
        print(result.to_json())
    else:
        from ._render import result_view

        _console().print(result_view(result.raw))
    return 0


def _wrote(path: Path, what: str) -> None:
    """Says ``wrote PATH`` and ``what``; on stderr when ``path`` is /dev/stdout
    or a pipe, where the note would join the data."""
    note = sys.stderr if _files.in_place(path) else sys.stdout
    print(f"wrote {path}{what}", file=note)


def cmd_trace(args: argparse.Namespace) -> int:
    from .trace import trace

    scenario = Scenario.load(args.file).with_overrides([split_set(s) for s in args.sets])
    done = trace(scenario, args.out, from_ns=args.from_ns, to_ns=args.to_ns, max_events=args.max_events)
    out = done.path
    info = done.info
    window = f"{info['from_ns']:.0f} ns to {done.result.summary['sim_time_ns']:.0f} ns"
    _wrote(out, f": {info['records']} records, {window}; open it in https://ui.perfetto.dev or chrome://tracing")
    if not info["records"] and info["from_ns"] >= done.result.summary["sim_time_ns"]:
        print(f"note: the run ended at {done.result.summary['sim_time_ns']:.0f} ns, before the window began "
              "(lower --from, or raise run.measure_transactions)", file=sys.stderr)
    if done.truncated:
        print(f"note: the trace is full at --max-events {args.max_events}; the run stopped there "
              "(narrow --from/--to or raise --max-events)", file=sys.stderr)
    return 0


#: The files ``ringlet sweep`` writes (or removes) in its ``--out`` directory.
SWEEP_FILES = ("sweep.csv", "sweep.parquet", "sweep-replications.csv", "sweep-replications.parquet")


def table_bytes(frame: Any, kind: str) -> bytes:
    """``frame`` as the bytes of a ``"csv"`` or ``"parquet"`` file. Built in
    memory: pyarrow seeks in a file it writes (a pipe cannot), and deletes a
    path it failed to write (/dev/stdout once)."""
    if kind == "csv":
        return frame.to_csv(index=False).encode("utf-8")
    return frame.to_parquet(None, index=False, engine="pyarrow")


def tables(frame: Any, out: Path, name: str = "sweep") -> list[tuple[Path, bytes]]:
    """``frame`` as ``out/<name>.csv`` and ``out/<name>.parquet``, rendered, for :func:`_files.write_together`."""
    return [(out / f"{name}.{kind}", table_bytes(frame, kind)) for kind in ("csv", "parquet")]


def cmd_sweep(args: argparse.Namespace) -> int:
    from .executors import make_executor
    from .store import FILENAME, Store
    from .sweep import describe, points, run_sweep

    fixed, axes = parse_sets(args.sets)
    scenario = Scenario.load(args.file).with_overrides(fixed)
    points(scenario, axes, args.replications)  # validates every point before anything runs
    make_executor(args.executor, args.processes, args.scheduler)  # checks the options; starts nothing
    out = _files.check_out_dir(args.out, CliError, SWEEP_FILES)
    # An existing store is checked in full now; a new one appears with the first finished point.
    with Store(out / FILENAME) as store:
        try:
            done = run_sweep(scenario, axes, processes=args.processes, progress=True, store=store,
                             executor=args.executor, scheduler=args.scheduler, replications=args.replications)
        except KeyboardInterrupt:
            if os.path.lexists(store.path):
                print(f"ringlet: finished points are kept in {store.path}: run the same command to resume",
                      file=sys.stderr)
            else:
                print(f"ringlet: no point had finished; nothing was kept ({store.path} was not created)",
                      file=sys.stderr)
            raise
        o = done.outcome
        tally = f"{o.computed} computed, {o.from_store} from {store.path}"
        if o.failures:  # the others are stored; a table without these points would mislead
            unit = "runs" if done.replications > 1 else "points"
            print(f"ringlet: error: {len(o.failures)} of {len(done.runs)} {unit} failed ({tally}); "
                  "sweep.csv not written:", file=sys.stderr)
            for point, rep, values, msg in done.failures:
                where = f"point {point}" + (f" replication {rep}" if done.replications > 1 else "")
                print(f"  {where}" + (f" ({describe(values)})" if values else "") + f": {msg}", file=sys.stderr)
            return 1
    try:
        _write_sweep_tables(done, out, args.out, tally)
    except KeyboardInterrupt:  # every point is stored: only the tables are missing
        print(f"ringlet: all {len(done.runs)} runs are kept in {store.path}: run the same command to write "
              "the tables from them", file=sys.stderr)
        raise
    return 0


def _write_sweep_tables(done: Any, out: Path, out_arg: str, tally: str) -> None:
    """Writes a finished sweep's tables into ``out`` and says what was written."""
    from .sweep import early_message, early_points

    frame = done.table()
    # The tables of one sweep replace the last sweep's all together (a
    # sweep.csv never sits beside another sweep's Parquet file or per-replication table).
    files = tables(frame, out)
    csv, parquet = files[0][0], files[1][0]
    stale: list[Path] = []
    if done.replications > 1:
        files += tables(done.replication_table(), out, "sweep-replications")
    else:
        stale = [out / "sweep-replications.csv", out / "sweep-replications.parquet"]
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CliError(f"--out {out_arg}: cannot create directory: {e.strerror or e}") from None
    _files.write_together(files, CliError, remove=stale)
    reps = ""
    if done.replications > 1:
        reps = f" x {done.replications} replications (means and 95% CIs; each replication in sweep-replications.csv)"
    print(f"wrote {csv} and {parquet}: {done.points} points{reps}, {len(frame)} rows; {tally}")
    early = early_points(frame, done.keys)
    if early:
        print(f"warning: {early_message(early)}")


def _store_at(location: str) -> Any:
    """The existing store of ``location``, checked; CliError if there is none."""
    from .store import Store, path_of

    path = path_of(location)
    if not os.path.lexists(path):
        raise CliError(f"{location}: no results store ({path} does not exist)")
    return Store(path)


def cmd_results(args: argparse.Namespace) -> int:
    from ._render import store_view

    exports = [(target, kind) for target, kind in ((args.csv, "csv"), (args.parquet, "parquet")) if target is not None]
    if args.last is not None and exports:
        raise CliError("--last shortens the listing; an export (--csv, --parquet) has every row")
    for target, kind in exports:  # before reading anything
        check_out_file(target, CliError, option=f"--{kind}")
    with _store_at(args.dir) as store:
        version = args.ringlet_version or _core.version()
        if not exports:
            _console().print(store_view(store, _core.version(), last=args.last))
            return 0
        if args.ringlet_version is not None and version not in (versions := store.versions()):
            held = ", ".join(sorted(versions)) or "none"
            raise CliError(f"--version {version}: no runs of that ringlet version in {args.dir} (it holds: {held})")
        frame = store.table(version)
    for target, kind in exports:
        path = Path(target)
        _files.write_atomic(path, table_bytes(frame, kind), CliError, option=f"--{kind}")
        _wrote(path, f": {len(frame)} rows of ringlet {version}")
    return 0


def cmd_rerun(args: argparse.Namespace) -> int:
    from .store import compare_results

    with _store_at(args.dir) as store:
        row = store.row(args.id)
    if row is None:
        raise CliError(f"{store.path}: no row {args.id} (see ringlet results {args.dir})")
    result = Scenario.from_toml(row.scenario).run()
    if args.json:
        print(result.to_json())
    else:
        from ._render import result_view

        _console().print(result_view(result.raw))
    diffs = compare_results(row.result, result.to_json())
    note = "" if row.ringlet_version == _core.version() else \
        f" (stored by ringlet {row.ringlet_version}, re-run with ringlet {_core.version()})"
    if not diffs:
        print(f"row {row.id}: bit-identical to the stored result{note}", file=sys.stderr if args.json else sys.stdout)
        return 0
    print(f"ringlet: row {row.id}: the re-run DIFFERS from the stored result{note}: " + "; ".join(diffs[:5])
          + (f"; and {len(diffs) - 5} more" if len(diffs) > 5 else ""), file=sys.stderr)
    return 1


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _list_studies(study_arg: Optional[str]) -> None:
    from .study import available_studies, load_study

    if study_arg is None:
        for name in available_studies():
            study = load_study(name)
            print(f"{name}: {study.title} ({len(study.figures)} figures)")
        return
    study = load_study(study_arg)
    print(f"{study.name}: {study.title}")
    width = max(len(i) for i in study.ids)
    for fig in study.figures:
        if fig.data is None:
            count = 1
            for values in fig.grid.values():
                count *= len(values)
            points = f"{count} points"
        else:
            points = f"{fig.data}'s points"
        extras = f"{_count(len(fig.quotes), 'quote')}, {_count(len(fig.findings), 'finding')}"
        print(f"  {fig.id:<{width}}  {fig.title}  [{points}; {extras}]")


def cmd_reproduce(args: argparse.Namespace) -> int:
    import time

    from .reproduce import run_study, split_ids
    from .study import available_studies, load_study

    if args.list:
        _list_studies(args.study)
        return 0
    if args.study is None:
        shipped = ", ".join(available_studies()) or "none"
        raise CliError(f"reproduce: a study is required: a study folder or one of: {shipped}")
    if args.out is None:
        raise CliError("reproduce: --out DIR is required")
    start = time.monotonic()
    study = load_study(args.study)
    study.select(split_ids(args.only))  # unknown figure ids fail before anything else
    try:
        # run_study checks --out, and the files it will write there, before running.
        done = run_study(study, args.out, jobs=args.jobs, quick=args.quick, only=args.only, progress=True)
    except OSError as e:
        raise CliError(f"--out {args.out}: cannot write results: {e.strerror or e}") from None
    from .validation import early_stops_message, validation_view

    console = _console()
    console.print(validation_view(done.validation))
    if not done.early_stops.empty:
        from rich.markup import escape

        console.print(f"[yellow]warning:[/] {escape(early_stops_message(done.early_stops))}", soft_wrap=True)
    shared = done.points_requested - done.points_run
    note = f" ({done.points_requested} asked for by the figures; shared points ran once)" if shared else ""
    console.print(
        f"wrote {len(done.figures)} figures and validation.csv/.md to {args.out}: "
        f"{done.points_run} distinct points run{note}{' (quick run)' if done.quick else ''}, "
        f"in {time.monotonic() - start:.1f} s",
        soft_wrap=True,
    )
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from .report import ReportError, report

    try:
        out = report(args.dir, args.out, tolerance_pct=args.tolerance)
    except ReportError as e:
        raise CliError(str(e)) from None
    _wrote(out, "" if _files.in_place(out) else f" ({out.stat().st_size:,} bytes)")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from ._run_progress import bench_bar

    with bench_bar() as progress:
        text = _core.bench(args.repeats, args.quick, progress)
    if args.json:
        print(text)
    else:
        from ._render import bench_view

        _console().print(bench_view(json.loads(text)))
    return 0


def cmd_params(args: argparse.Namespace) -> int:
    text = _core.params_markdown()
    if args.markdown:
        sys.stdout.write(text)
    else:
        from rich.markdown import Markdown

        _console().print(Markdown(text))
    return 0


COMMANDS = {"run": cmd_run, "sweep": cmd_sweep, "reproduce": cmd_reproduce, "bench": cmd_bench,
            "params": cmd_params, "report": cmd_report, "trace": cmd_trace, "results": cmd_results, "rerun": cmd_rerun}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the ``ringlet`` command; returns its exit status."""
    try:
        args = build_parser().parse_args(argv)
        if args.command is None:
            raise CliError("a command is required: run, sweep, results, rerun, reproduce, trace, report, bench "
                           "or params (see ringlet --help)")
        return COMMANDS[args.command](args)
    except (CliError, ScenarioError, StudyError, StoreError, ExecutorError) as e:
        print(f"ringlet: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ringlet: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
