"""``ringlet results`` and ``ringlet rerun``: what a results store holds, its
tidy table exported, and one stored run re-run and compared."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .. import _core, files
from ..api.scenario import Scenario
from .console import show, wrote
from .parser import CliError


def _store_at(location: str) -> Any:
    """The existing store of ``location``, checked; CliError if there is none."""
    from ..runs.store import Store, path_of

    path = path_of(location)
    if not os.path.lexists(path):
        raise CliError(f"{location}: no results store ({path} does not exist)")
    return Store(path)


def cmd_results(args: argparse.Namespace) -> int:
    from .render import store_view

    exports = [(target, kind) for target, kind in ((args.csv, "csv"), (args.parquet, "parquet")) if target is not None]
    if args.last is not None and exports:
        raise CliError("--last shortens the listing; an export (--csv, --parquet) has every row")
    for target, kind in exports:  # before reading anything
        files.check_out_file(target, CliError, option=f"--{kind}")
    with _store_at(args.dir) as store:
        version = args.ringlet_version or _core.version()
        if not exports:
            show(store_view(store, _core.version(), last=args.last), wide=args.wide)
            return 0
        if args.ringlet_version is not None and version not in (versions := store.versions()):
            held = ", ".join(sorted(versions)) or "none"
            raise CliError(f"--version {version}: no runs of that ringlet version in {args.dir} (it holds: {held})")
        frame = store.table(version)
    for target, kind in exports:
        path = Path(target)
        files.write_atomic(path, files.table_bytes(frame, kind), CliError, option=f"--{kind}")
        wrote(path, f": {len(frame)} rows of ringlet {version}")
    return 0


def cmd_rerun(args: argparse.Namespace) -> int:
    from ..runs.store import compare_results

    with _store_at(args.dir) as store:
        row = store.row(args.id)
    if row is None:
        raise CliError(f"{store.path}: no row {args.id} (see ringlet results {args.dir})")
    result = Scenario.from_toml(row.scenario).run()
    if args.json:
        print(result.to_json())
    else:
        from .render import result_view

        show(result_view(result.raw), wide=args.wide)
    diffs = compare_results(row.result, result.to_json())
    note = "" if row.ringlet_version == _core.version() else \
        f" (stored by ringlet {row.ringlet_version}, re-run with ringlet {_core.version()})"
    if not diffs:
        print(f"row {row.id}: bit-identical to the stored result{note}", file=sys.stderr if args.json else sys.stdout)
        return 0
    print(f"ringlet: row {row.id}: the re-run DIFFERS from the stored result{note}: " + "; ".join(diffs[:5])
          + (f"; and {len(diffs) - 5} more" if len(diffs) > 5 else ""), file=sys.stderr)
    return 1
