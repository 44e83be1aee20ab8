"""``ringlet reproduce``: a study's figures run, drawn and checked (:mod:`ringlet.study`),
or the shipped studies and a study's figures listed."""

from __future__ import annotations

import argparse
import time
from typing import Optional

from .console import console, show
from .parser import CliError
from .render import counted


def _list_studies(study_arg: Optional[str]) -> None:
    from ..study import available_studies, load_study

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
            points = f"{count} points" + (f" x {fig.draws} draws" if fig.draws > 1 else "")
        else:
            points = f"{fig.data}'s points"
        extras = f"{counted(len(fig.quotes), 'quote')}, {counted(len(fig.findings), 'finding')}"
        print(f"  {fig.id:<{width}}  {fig.title}  [{points}; {extras}]")


def cmd_reproduce(args: argparse.Namespace) -> int:
    from ..study import available_studies, load_study
    from ..study.reproduce import run_study, split_ids

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
    page_verdicts = None
    if args.check is not None:
        from ..study import check

        if args.quick:
            raise CliError("reproduce: --check compares a full run's verdicts with the page: not with --quick")
        page = args.check or check.default_page(study.name)
        page_verdicts = check.verdicts_of_page(page, study.name)  # (read before --docs may rewrite it)
    # run_study checks --out, and the files it will write there, before running.
    done = run_study(study, args.out, jobs=args.jobs, quick=args.quick, only=args.only, progress=True,
                     docs=args.docs)
    from ..study.validation import early_stops_message
    from .render import validation_view

    show(validation_view(done.validation), wide=args.wide)
    out = console()
    if not done.early_stops.empty:
        from rich.markup import escape

        # On stderr, as the sweep's: a pipe of the tables stays the tables.
        console(stderr=True).print(f"[yellow]warning:[/] {escape(early_stops_message(done.early_stops))}",
                                   soft_wrap=True)
    shared = done.points_requested - done.points_run
    note = f" ({done.points_requested} asked for by the figures; shared points ran once)" if shared else ""
    out.print(
        f"wrote {len(done.figures)} figures, validation.csv/.md and sensitivity.csv to {args.out}"
        f"{f' and the generated block of {args.docs}' if args.docs else ''}: "
        f"{done.points_run} distinct points run{note}{' (quick run)' if done.quick else ''}, "
        f"in {time.monotonic() - start:.1f} s",
        soft_wrap=True,  # (a sentence naming files: whole, not wrapped)
    )
    if page_verdicts is None:
        return 0
    differ = check.differences(page_verdicts, check.verdicts_of_table(done.validation), {f.id for f in done.figures})
    if not differ:
        out.print(f"check: every verdict as {page} gives it ({counted(len(done.validation), 'verdict')})", soft_wrap=True)
        return 0
    err = console(stderr=True)
    from rich.markup import escape

    verb = "differs" if len(differ) == 1 else "differ"
    err.print(f"check: {len(differ)} of {counted(len(done.validation), 'verdict')} {verb} from {page}:", soft_wrap=True)
    for line in differ:
        err.print(f"  {escape(line)}", soft_wrap=True, highlight=False)
    return 1
