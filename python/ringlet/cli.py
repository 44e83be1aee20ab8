"""The ``ringlet`` command: run, sweep, reproduce, bench, params.

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

from . import _core
from .errors import ScenarioError
from .grid import parse_sets, split_set
from .scenario import Scenario
from .study import StudyError

EXIT_USAGE = 2


class CliError(Exception):
    """A bad command line (reported as one ``ringlet: error:`` line, exit 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are one line raised as :class:`CliError` (no usage dump)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(message)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return value


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
    sweep.add_argument("--processes", type=_positive_int, default=None, metavar="N",
                       help="worker processes (default: one per core; 1 = no worker processes)")

    repro = sub.add_parser("reproduce", help="run a study's figures; write CSVs, plots and a validation table")
    repro.add_argument("study", nargs="?", metavar="STUDY",
                       help="a study shipped with ringlet (e.g. sci-rt) or a study folder")
    repro.add_argument("--out", metavar="DIR", help="output directory (created if needed)")
    repro.add_argument("--jobs", type=_positive_int, default=None, metavar="N",
                       help="worker processes (default: one per core; 1 = no worker processes)")
    repro.add_argument("--quick", action="store_true",
                       help="the study's smoke-test reduction (fewer transactions per point); outputs say so")
    repro.add_argument("--only", metavar="IDS", help="comma-separated figure ids to run, e.g. fig8a,fig11")
    repro.add_argument("--list", action="store_true",
                       help="list the shipped studies, or the figures of STUDY, and run nothing")

    bench = sub.add_parser("bench", help="measure simulator speed on the reference workloads")
    bench.add_argument("--json", action="store_true", help="print the report as one JSON object")
    bench.add_argument("--repeats", type=_positive_int, default=5, metavar="N",
                       help="runs per workload; figures are medians (default 5)")
    bench.add_argument("--quick", action="store_true", help="short workloads (checks the command, not the speed)")

    params = sub.add_parser("params", help="print the scenario key reference")
    params.add_argument("--markdown", action="store_true", help="print the raw Markdown")
    return p


# -- commands ------------------------------------------------------------------


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def cmd_run(args: argparse.Namespace) -> int:
    scenario = Scenario.load(args.file).with_overrides([split_set(s) for s in args.sets])
    result = scenario.run()
    if args.json:
        print(result.to_json())
    else:
        from ._render import result_view

        _console().print(result_view(result.raw))
    return 0


def check_out_dir(out: str) -> Path:
    """Checks that ``out`` is, or can be created as, a writable directory.

    Creates nothing; raises :class:`CliError` naming the problem.
    """
    path = Path(out)
    if path.exists():
        if not path.is_dir():
            raise CliError(f"--out {out}: exists and is not a directory")
        if not os.access(path, os.W_OK | os.X_OK):
            raise CliError(f"--out {out}: directory is not writable")
        for name in ("sweep.csv", "sweep.parquet"):
            if (path / name).is_dir():
                raise CliError(f"--out {out}: {name} exists and is a directory")
        return path
    ancestor = path.absolute().parent
    while not os.path.lexists(ancestor) and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise CliError(f"--out {out}: cannot create directory: {ancestor} is not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise CliError(f"--out {out}: cannot create directory: {ancestor} is not writable")
    return path


def write_tables(frame: Any, out: Path) -> tuple[Path, Path]:
    """Writes ``frame`` as ``out/sweep.csv`` and ``out/sweep.parquet`` (both or neither)."""
    out.mkdir(parents=True, exist_ok=True)
    csv, parquet = out / "sweep.csv", out / "sweep.parquet"
    tmp_csv, tmp_parquet = out / ".sweep.csv.tmp", out / ".sweep.parquet.tmp"
    try:
        frame.to_csv(tmp_csv, index=False)
        frame.to_parquet(tmp_parquet, index=False, engine="pyarrow")
        os.replace(tmp_csv, csv)
        os.replace(tmp_parquet, parquet)
    finally:
        for tmp in (tmp_csv, tmp_parquet):
            tmp.unlink(missing_ok=True)
    return csv, parquet


def cmd_sweep(args: argparse.Namespace) -> int:
    from .sweep import points, sweep

    fixed, axes = parse_sets(args.sets)
    scenario = Scenario.load(args.file).with_overrides(fixed)
    plan = points(scenario, axes)  # validates every point before anything runs
    out = check_out_dir(args.out)
    frame = sweep(scenario, axes, processes=args.processes, progress=True)
    try:
        csv, parquet = write_tables(frame, out)
    except OSError as e:
        raise CliError(f"--out {args.out}: cannot write results: {e.strerror or e}") from None
    print(f"wrote {csv} and {parquet}: {len(plan)} points, {len(frame)} rows")
    return 0


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
    out = check_out_dir(args.out)
    try:
        done = run_study(study, out, jobs=args.jobs, quick=args.quick, only=args.only, progress=True)
    except OSError as e:
        raise CliError(f"--out {args.out}: cannot write results: {e.strerror or e}") from None
    from .validation import validation_view

    console = _console()
    console.print(validation_view(done.validation))
    shared = done.points_requested - done.points_run
    note = f" ({done.points_requested} asked for by the figures; shared points ran once)" if shared else ""
    console.print(
        f"wrote {len(done.figures)} figures and validation.csv/.md to {out}: "
        f"{done.points_run} distinct points run{note}{' (quick run)' if done.quick else ''}, "
        f"in {time.monotonic() - start:.1f} s",
        soft_wrap=True,
    )
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    text = _core.bench(args.repeats, args.quick)
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
            "params": cmd_params}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the ``ringlet`` command; returns its exit status."""
    try:
        args = build_parser().parse_args(argv)
        if args.command is None:
            raise CliError("a command is required: run, sweep, reproduce, bench or params (see ringlet --help)")
        return COMMANDS[args.command](args)
    except (CliError, ScenarioError, StudyError) as e:
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
