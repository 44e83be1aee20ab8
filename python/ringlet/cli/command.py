"""The ``ringlet`` command: run, sweep, capacity, results, rerun, reproduce, trace, trace-gen, report, bench, params.

Any bad input prints one line ``ringlet: error: <message>`` on stderr and
exits with status 2, with no traceback and no output file written. This
module dispatches to the commands' modules and turns their errors into that line.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any, Optional, Sequence

from ..api.errors import ScenarioError
from ..api.preflight import PreflightWarning
from ..runs.executors import ExecutorError
from ..runs.store import StoreError
from ..study import StudyError
from .capacity import cmd_capacity
from .info import cmd_bench, cmd_params
from .parser import CliError, build_parser
from .report import cmd_report
from .reproduce import cmd_reproduce
from .results import cmd_rerun, cmd_results
from .run import cmd_run, cmd_trace
from .sweep import cmd_sweep
from .trace_gen import cmd_trace_gen

EXIT_USAGE = 2

COMMANDS = {"run": cmd_run, "sweep": cmd_sweep, "reproduce": cmd_reproduce, "bench": cmd_bench,
            "params": cmd_params, "report": cmd_report, "capacity": cmd_capacity, "trace": cmd_trace, "results": cmd_results, "rerun": cmd_rerun,
            "trace-gen": cmd_trace_gen}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the ``ringlet`` command; returns its exit status."""
    with warnings.catch_warnings():
        python_way = warnings.showwarning

        def show(message: Any, category: type, *rest: Any) -> None:
            # A pre-flight warning is shown as the command's other warnings: one line on stderr.
            if issubclass(category, PreflightWarning):
                print(f"warning: {message}", file=sys.stderr, flush=True)
            else:
                python_way(message, category, *rest)

        warnings.showwarning = show
        return _main(argv)


def _main(argv: Optional[Sequence[str]]) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command is None:
            raise CliError("a command is required: run, sweep, capacity, results, rerun, reproduce, trace, trace-gen, "
                           "report, bench or params (see ringlet --help)")
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
