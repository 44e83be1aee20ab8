"""The ``ringlet`` command line: its subcommands, options and argument checks.

argparse's errors become one line (:class:`CliError`), so the command's every
bad input reads the same: ``ringlet: error: <message>``, exit status 2.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from .. import _core
from ..api.literal import MAX_INT
from ..runs.limits import MAX_PROCESSES, MAX_REPLICATIONS


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
    return _positive_int(text, MAX_REPLICATIONS)


def _processes(text: str) -> int:
    return _positive_int(text, MAX_PROCESSES)


WIDE_HELP = ("print each table whole, a row to a line, however wide (default: tables fit the terminal, "
             "or COLUMNS, or 80 columns: abbreviated with a legend or split, never cut)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``ringlet`` command."""
    p = _Parser(prog="ringlet", description="Cycle-accurate simulator of SCI-family interconnects: SCI (IEEE 1596) rings "
                                              "with real-time protocols, SCI switches and Banyan networks, and "
                                              "Cray's GigaRing channel.")
    p.add_argument("--version", action="version", version=f"ringlet {_core.version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", help="run one simulation point and print its figures")
    run.add_argument("file", metavar="FILE", help="scenario TOML file")
    run.add_argument("--json", action="store_true", help="print the result as one JSON object")
    run.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                     help="override a scenario key, e.g. traffic.load_mbps_per_node=120 (repeatable)")
    run.add_argument("--wide", action="store_true", help=WIDE_HELP)

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

    cap = sub.add_parser("capacity", help="search the highest load (or any key) at which a deadline holds, e.g. p99<=2us")
    cap.add_argument("file", metavar="FILE", help="scenario TOML file")
    cap.add_argument("--deadline", action="append", required=True, metavar="DEADLINE",
                     help="FIGURE<=NUMBER UNIT: mean, p50, p99, p99.9 or max latency (per priority level), "
                          "transaction.mean/.p99 and channel.mean/.p99 (GigaRing), loss (MB/s); or fairness>=X. "
                          "Repeatable or comma-separated: all must hold")
    cap.add_argument("--priority", type=int, default=None, metavar="K",
                     help="the priority level the latency deadlines apply to (default: every level)")
    cap.add_argument("--key", default="traffic.load_mbps_per_node", metavar="KEY",
                     help="the numeric key searched (default traffic.load_mbps_per_node)")
    cap.add_argument("--range", default=None, metavar="LO:HI",
                     help="search between LO and HI (default: from the scenario's value, doubling or halving)")
    cap.add_argument("--tolerance", default="2%", metavar="PCT",
                     help="stop when the answer is bracketed within this (default 2%%)")
    cap.add_argument("--replications", type=_replications, default=5, metavar="K",
                     help="seeds per point; a point meets a deadline when its 95%% CI's bound does (default 5)")
    cap.add_argument("--processes", type=_processes, default=None, metavar="N",
                     help=f"worker processes, at most {MAX_PROCESSES} (default: one per core)")
    cap.add_argument("--executor", default="local", metavar="NAME",
                     help="where points run: local (worker processes, the default) or dask (Dask distributed)")
    cap.add_argument("--scheduler", default=None, metavar="ADDRESS",
                     help="with --executor dask: a running Dask scheduler (default: start a local cluster)")
    cap.add_argument("--out", required=True, metavar="DIR",
                     help="output directory: its results store (a second call runs nothing new), capacity.json, "
                          "capacity.csv and the figure capacity.png/.svg")
    cap.add_argument("--json", action="store_true", help="print the answer and the probed points as one JSON object")
    cap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                     help="override a scenario key (repeatable)")

    results = sub.add_parser("results", help="list a sweep's results store, or export it as CSV or Parquet")
    results.add_argument("dir", metavar="DIR", help="a `ringlet sweep --out` folder (or its results.sqlite)")
    results.add_argument("--csv", metavar="FILE", help="write the store's tidy table as CSV")
    results.add_argument("--parquet", metavar="FILE", help="write the store's tidy table as Parquet")
    results.add_argument("--version", dest="ringlet_version", metavar="V",
                         help="the rows of ringlet version V (default: this version's)")
    results.add_argument("--last", type=_positive_int, default=None, metavar="N",
                         help="list only the N most recent rows of each version (default: all)")
    results.add_argument("--wide", action="store_true", help=WIDE_HELP)

    rerun = sub.add_parser("rerun", help="re-run one stored result from its provenance; check it is bit-identical")
    rerun.add_argument("dir", metavar="DIR", help="a `ringlet sweep --out` folder (or its results.sqlite)")
    rerun.add_argument("id", metavar="ID", type=_positive_int, help="the row id, as `ringlet results DIR` lists it")
    rerun.add_argument("--json", action="store_true", help="print the new result as one JSON object")
    rerun.add_argument("--wide", action="store_true", help=WIDE_HELP)

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
    repro.add_argument("--docs", metavar="FILE",
                       help="also rewrite FILE's block between '<!-- begin generated: ringlet reproduce STUDY -->' "
                            "and '<!-- end generated: ringlet reproduce STUDY -->' with the validation, e.g. "
                            "docs/validation/sci-rt.md (a full run only: not with --quick or --only)")
    repro.add_argument("--check", nargs="?", const="", metavar="PAGE",
                       help="exit 1 if a quote's or finding's verdict differs from the committed validation page "
                            "PAGE (default: docs/validation/STUDY.md), each difference on one line; "
                            "not with --quick")
    repro.add_argument("--list", action="store_true",
                       help="list the shipped studies, or the figures of STUDY, and run nothing")
    repro.add_argument("--wide", action="store_true", help=WIDE_HELP)

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
    bench.add_argument("--wide", action="store_true", help=WIDE_HELP)

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

    gen = sub.add_parser("trace-gen", help="write a trace of a common traffic pattern (CSV or Parquet) for "
                                           "traffic.source = \"trace\"")
    gen.add_argument("pattern", choices=["all-reduce", "all-to-all", "frame", "bursts"], metavar="PATTERN",
                     help="all-reduce (ring all-reduce), all-to-all, frame (a periodic real-time frame of messages "
                          "per priority) or bursts")
    gen.add_argument("--out", required=True, metavar="FILE", help="trace file to write: .csv or .parquet")
    gen.add_argument("--nodes", type=_positive_int, default=8, metavar="N", help="endpoints 0..N-1 (default 8)")
    gen.add_argument("--count", type=_positive_int, default=4, metavar="N",
                     help="transactions per message: a chunk, a burst, a node's share of a frame (default 4)")
    gen.add_argument("--gap-ns", type=float, default=100.0, metavar="NS",
                     help="between the transactions of one message (default 100)")
    gen.add_argument("--period-ns", type=float, default=10_000.0, metavar="NS",
                     help="between steps, phases, frames or bursts (default 10000)")
    gen.add_argument("--repeats", type=_positive_int, default=1, metavar="N",
                     help="rounds, frames or bursts (default 1)")
    gen.add_argument("--priorities", type=_positive_int, default=1, metavar="N",
                     help="frame: priority levels, a message each (default 1; with more, a priority column)")
    gen.add_argument("--seed", type=int, default=1, help="bursts: seed of the starts and destinations (default 1)")
    gen.add_argument("--to-memories", action="store_true",
                     help="destinations numbered as a switch or Banyan network's memories (N + d)")
    kind = gen.add_mutually_exclusive_group()
    kind.add_argument("--transaction", default=None, metavar="NAME",
                      help="each row's kind of transaction by the family's name (read64, dmove64, readblk, ...)")
    kind.add_argument("--bytes", type=_positive_int, default=64, metavar="N",
                      help="each row's kind by its payload (default 64: an SCI ring's or switch's transactions)")

    params = sub.add_parser("params", help="print the scenario key reference")
    params.add_argument("--markdown", action="store_true", help="print the raw Markdown")
    params.add_argument("--kind", default=None, metavar="KIND",
                        help="only the keys of network family KIND (network.kind, e.g. sci-switch) besides those "
                             "every scenario has")
    params.add_argument("--wide", action="store_true", help=WIDE_HELP)
    return p
