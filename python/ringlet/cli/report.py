"""``ringlet report``: one self-contained HTML page of a sweep's or a reproduction's
results (:mod:`ringlet.report`)."""

from __future__ import annotations

import argparse

from .. import files
from .console import wrote
from .parser import CliError


def cmd_report(args: argparse.Namespace) -> int:
    from ..report import ReportError, report

    try:
        out = report(args.dir, args.out, tolerance_pct=args.tolerance)
    except ReportError as e:
        raise CliError(str(e)) from None
    wrote(out, "" if files.in_place(out) else f" ({out.stat().st_size:,} bytes)")
    return 0
