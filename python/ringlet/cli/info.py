"""``ringlet bench`` and ``ringlet params``: what ringlet tells of itself, its
speed on the reference workloads and its scenario keys."""

from __future__ import annotations

import argparse
import json
import re
import sys

from .. import _core
from .console import show
from .parser import CliError


def cmd_bench(args: argparse.Namespace) -> int:
    from .progress import bench_bar

    with bench_bar() as progress:
        text = _core.bench(args.repeats, args.quick, progress)
    if args.json:
        print(text)
    else:
        from .render import bench_view

        show(bench_view(json.loads(text)), wide=args.wide)
    return 0


#: The heading of a network family's own keys in the reference.
_FAMILY = re.compile(r'^## network\.kind = "([^"]+)"\s*$')


def family_sections(text: str) -> tuple[str, dict[str, str]]:
    """The key reference split: what every scenario has (up to the first
    family's section) and each family's own section, by ``network.kind``."""
    lines = text.splitlines(keepends=True)
    common: list[str] = []
    families: dict[str, list[str]] = {}
    current: "list[str] | None" = None
    for line in lines:
        m = _FAMILY.match(line)
        if m:
            current = families.setdefault(m[1], [])
        elif current is not None and line.startswith("## "):
            current = None  # a later section common to every family
        (common if current is None else current).append(line)
    return "".join(common), {k: "".join(v) for k, v in families.items()}


def params_for(text: str, kind: str) -> str:
    """The reference of one network family: the keys every scenario has, then the family's own."""
    common, families = family_sections(text)
    if kind not in families:
        raise CliError(f"--kind {kind}: unknown network family; choose one of: {', '.join(families)}")
    return common.rstrip("\n") + "\n\n" + families[kind]


def cmd_params(args: argparse.Namespace) -> int:
    text = _core.params_markdown()
    if args.kind is not None:
        text = params_for(text, args.kind)
    if args.markdown:
        sys.stdout.write(text)
    else:
        from .render import markdown_view

        show(markdown_view(text), wide=args.wide)
    return 0
