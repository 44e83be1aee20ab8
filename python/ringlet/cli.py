"""The ``ringlet`` command: run, sweep, bench, params.

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


COMMANDS = {"run": cmd_run, "sweep": cmd_sweep, "bench": cmd_bench, "params": cmd_params}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the ``ringlet`` command; returns its exit status."""
    try:
        args = build_parser().parse_args(argv)
        if args.command is None:
            raise CliError("a command is required: run, sweep, bench or params (see ringlet --help)")
        return COMMANDS[args.command](args)
    except (CliError, ScenarioError) as e:
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
