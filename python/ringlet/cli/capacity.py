"""``ringlet capacity``: the highest value of a key (the load by default) at
which every deadline holds, through :func:`ringlet.runs.capacity.capacity`;
this module reads the options and says what was probed and found."""

from __future__ import annotations

import argparse
import json
import sys

from ..api.overrides import split_set
from ..api.scenario import Scenario
from ..runs.capacity import CapacityError, Probe, capacity
from .parser import CliError
from .render import counted


def _range(text: str) -> tuple[float, float]:
    lo, sep, hi = text.partition(":")
    try:
        if not sep:
            raise ValueError
        return float(lo), float(hi)
    except ValueError:
        raise CliError(f"--range: expected LO:HI, e.g. 10:400, got {text!r}") from None


def _tolerance(text: str) -> float:
    t = text.strip()
    try:
        return float(t[:-1]) / 100 if t.endswith("%") else float(t)
    except ValueError:
        raise CliError(f"--tolerance: expected a percentage (2%) or a fraction (0.02), got {text!r}") from None


def _say(probe: Probe) -> None:
    parts = []
    for c in probe.checks:
        unit = f" {c['unit']}" if c["unit"] else ""
        fig = "-" if c["figure"] is None else f"{c['figure']:,.4g}{unit}"
        ci = f" ±{c['ci95']:,.3g}" if c["ci95"] else ""
        at = f" (priority {c['priority']})" if c.get("priority") is not None else ""
        parts.append(f"{c['deadline']}: {fig}{ci}{at}")
    early = "" if probe.stopped_by in ("transactions", "ci") else f", stopped by {probe.stopped_by}"
    verdict = "meets" if probe.meets else "misses"
    print(f"  {probe.value:>12,.6g}  {verdict:<6}  {'; '.join(parts)}{early}", file=sys.stderr, flush=True)


def cmd_capacity(args: argparse.Namespace) -> int:
    scenario = Scenario.load(args.file).with_overrides([split_set(s) for s in args.sets])
    rng = _range(args.range) if args.range else None
    said = False

    def say(probe: Probe) -> None:
        # The header comes with the first probe, so that an error in the options stays one line.
        nonlocal said
        if not said:
            print(f"probing {args.key} ({counted(args.replications, 'replication')} per point):", file=sys.stderr, flush=True)
            said = True
        _say(probe)

    try:
        result = capacity(scenario, args.deadline, key=args.key, range=rng, tolerance=_tolerance(args.tolerance),
                          priority=args.priority, replications=args.replications, processes=args.processes,
                          out=args.out, progress=say, executor=args.executor, scheduler=args.scheduler)
    except CapacityError as e:
        raise CliError(str(e)) from None
    except KeyboardInterrupt:
        print(f"ringlet: the probes finished so far are kept in {args.out}: run the same command to resume",
              file=sys.stderr)
        raise
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(result.message())
        print(f"{len(result.probes)} points probed, {result.computed} runs made (the rest from the results store); "
              f"wrote capacity.json, capacity.csv and capacity.png in {args.out}")
    return 0
