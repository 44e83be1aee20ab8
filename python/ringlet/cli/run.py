"""``ringlet run`` and ``ringlet trace``: one scenario, run and shown, or traced to a file."""

from __future__ import annotations

import argparse
import sys

from ..api.analytic import disagreement
from ..api.overrides import split_set
from ..api.scenario import Scenario
from .console import show, wrote


def cmd_run(args: argparse.Namespace) -> int:
    scenario = Scenario.load(args.file).with_overrides([split_set(s) for s in args.sets])
    result = scenario._run(progress=True)  # a bar on a terminal only
    parted = disagreement(result.summary)
    if parted:
        print(f"warning: {parted}", file=sys.stderr)
    if args.json:
        print(result.to_json())
    else:
        from .render import result_view

        show(result_view(result.raw), wide=args.wide)
    for w in result.trace_warnings:  # (the view says them too; on stderr, also with --json)
        print(f"warning: trace: {w}", file=sys.stderr)
    if result.summary.get("saturated"):
        print(saturated_line(result.raw), file=sys.stderr)
    return 0


def saturated_line(r: dict) -> str:
    """What a run past its network's saturation (report ``r``) measures, in one line."""
    def mbps(x: float) -> str:  # (three figures where a whole MB/s would say little)
        return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"

    lost = f", {mbps(r['loss_mbps'])} of it lost with the failure" if r.get("loss_mbps") and r.get("reconfiguration") else ""
    return (f"saturated: carries {mbps(r['throughput_mbps'])} of {mbps(r['offered_mbps'])} MB/s offered{lost}; "
            "the peak is what this run measures")


def cmd_trace(args: argparse.Namespace) -> int:
    from ..runs.trace import trace

    scenario = Scenario.load(args.file).with_overrides([split_set(s) for s in args.sets])
    done = trace(scenario, args.out, from_ns=args.from_ns, to_ns=args.to_ns, max_events=args.max_events)
    out = done.path
    info = done.info
    window = f"{info['from_ns']:.0f} ns to {done.result.summary['sim_time_ns']:.0f} ns"
    wrote(out, f": {info['records']} records, {window}; open it in https://ui.perfetto.dev or chrome://tracing")
    if not info["records"] and info["from_ns"] >= done.result.summary["sim_time_ns"]:
        print(f"note: the run ended at {done.result.summary['sim_time_ns']:.0f} ns, before the window began "
              "(lower --from, or raise run.measure_transactions)", file=sys.stderr)
    if done.truncated:
        print(f"note: the trace is full at --max-events {args.max_events}; the run stopped there "
              "(narrow --from/--to or raise --max-events)", file=sys.stderr)
    return 0
