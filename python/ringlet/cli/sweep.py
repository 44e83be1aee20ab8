"""``ringlet sweep``: a grid of points into an output directory, through the same
code as ``ringlet.sweep(..., out=DIR)`` (:mod:`ringlet.runs.sweep`,
:mod:`ringlet.runs.output`); this module says what happened."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .. import files
from ..api.scenario import Scenario
from ..runs.grid import parse_sets


def cmd_sweep(args: argparse.Namespace) -> int:
    from ..runs.output import TABLE, write_tables
    from ..runs.store import FILENAME
    from ..runs.sweep import run_sweep
    from ..runs.table import describe, early_message, early_points

    fixed, axes = parse_sets(args.sets)
    scenario = Scenario.load(args.file).with_overrides(fixed)
    try:
        # Every point, the options and --out are checked before anything runs. An existing
        # store is checked in full then; a new one appears with the first finished point.
        done = run_sweep(scenario, axes, processes=args.processes, progress=True, executor=args.executor,
                         scheduler=args.scheduler, replications=args.replications, out=args.out)
    except KeyboardInterrupt:
        store = Path(args.out) / FILENAME
        if os.path.lexists(store):
            print(f"ringlet: finished points are kept in {store}: run the same command to resume", file=sys.stderr)
        else:
            print(f"ringlet: no point had finished; nothing was kept ({store} was not created)", file=sys.stderr)
        raise
    with done.store:
        o = done.outcome
        tally = f"{o.computed} computed, {o.from_store} from {done.store.path}"
        if o.failures:  # the others are stored; a table without these points would mislead
            unit = "runs" if done.replications > 1 else "points"
            print(f"ringlet: error: {len(o.failures)} of {len(done.runs)} {unit} failed ({tally}); "
                  "sweep.csv not written:", file=sys.stderr)
            for point, rep, values, msg in done.failures:
                where = f"point {point}" + (f" replication {rep}" if done.replications > 1 else "")
                print(f"  {where}" + (f" ({describe(values)})" if values else "") + f": {msg}", file=sys.stderr)
            return 1
    try:
        table = write_tables(done, done.out)
    except KeyboardInterrupt:  # every point is stored: only the tables are missing
        print(f"ringlet: all {len(done.runs)} runs are kept in {done.store.path}: run the same command to write "
              "the tables from them", file=sys.stderr)
        raise
    csv, parquet = (done.out / f"{TABLE}.{kind}" for kind in files.TABLE_KINDS)
    reps = ""
    if done.replications > 1:
        reps = f" x {done.replications} replications (means and 95% CIs; each replication in sweep-replications.csv)"
    print(f"wrote {csv} and {parquet}: {done.points} points{reps}, {len(table)} rows; {tally}")
    early = early_points(table, done.keys)
    if early:
        print(f"warning: {early_message(early)}", file=sys.stderr)
    if done.trace_message():
        print(f"warning: {done.trace_message()}", file=sys.stderr)
    return 0
