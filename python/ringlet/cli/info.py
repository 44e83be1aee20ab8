"""``ringlet bench`` and ``ringlet params``: what ringlet tells of itself, its
speed on the reference workloads and its scenario keys."""

from __future__ import annotations

import argparse
import json
import sys

from .. import _core
from .console import console


def cmd_bench(args: argparse.Namespace) -> int:
    from .progress import bench_bar

    with bench_bar() as progress:
        text = _core.bench(args.repeats, args.quick, progress)
    if args.json:
        print(text)
    else:
        from .render import bench_view

        console().print(bench_view(json.loads(text)))
    return 0


def cmd_params(args: argparse.Namespace) -> int:
    text = _core.params_markdown()
    if args.markdown:
        sys.stdout.write(text)
    else:
        from rich.markdown import Markdown

        console().print(Markdown(text))
    return 0
