"""``ringlet trace-gen``: a trace of a common pattern, for ``traffic.source = "trace"``."""

from __future__ import annotations

import argparse

from .console import wrote
from .parser import CliError


def cmd_trace_gen(args: argparse.Namespace) -> int:
    from ..traces import TraceGenError, trace_gen

    try:
        done = trace_gen(args.pattern, args.out, nodes=args.nodes, count=args.count, gap_ns=args.gap_ns,
                         period_ns=args.period_ns, repeats=args.repeats, priorities=args.priorities,
                         seed=args.seed, to_memories=args.to_memories, transaction=args.transaction,
                         bytes=args.bytes)
    except TraceGenError as e:
        raise CliError(str(e)) from None
    except OSError as e:
        raise CliError(f"--out {args.out}: cannot write: {e.strerror or e}") from None
    wrote(done.path, f": {done.rows:,} rows of {args.pattern}, up to {done.last_ns:,.0f} ns")
    return 0
