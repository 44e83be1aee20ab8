"""Reading the results store (``results.sqlite``) read-only: the report must never change it."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Optional, Sequence

from ..runs.store import FILENAME, FORMAT, row_damage
from .errors import ReportError, first_line

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd



@dataclass
class StoredRun:
    """One row of the results store (without its result JSON, but with the report
    tables that :func:`read_store` was asked for)."""

    id: int
    ringlet_version: Optional[str]
    replication: Optional[int]
    scenario: Optional[str]
    finished_at: Optional[str]
    #: Report tables of the stored result (``per_switch``, ...), by name: those asked for that it has.
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: The run's wall time and, of it, its set-up (scenario and network), s; ``None`` where not stored.
    wall_time_s: Optional[float] = None
    setup_time_s: Optional[float] = None


def _tables(result: Any, names: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """The report tables ``names`` of a stored result's JSON text that it has (as lists of rows)."""
    if not names or not isinstance(result, str):
        return {}
    try:
        raw = json.loads(result)
    except ValueError:
        return {}
    return {n: [r for r in raw[n] if isinstance(r, dict)] for n in names if isinstance(raw.get(n), list) and raw[n]}


def _seconds(x: Any) -> Optional[float]:
    return float(x) if isinstance(x, (int, float)) else None


def read_store(path: Path, hashes: Iterable[str], tables: Sequence[str] = ()) -> dict[tuple[str, int], list[StoredRun]]:
    """The store's runs of the given scenario hashes, keyed by ``(scenario_hash, seed)``,
    each with the report tables ``tables`` of its result that it has.

    The database is opened read-only (``mode=ro``); nothing is written to it.
    """
    wanted = sorted({str(h) for h in hashes})
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise ReportError(f"{path}: cannot open the results store: {first_line(e)}") from None
    try:
        try:
            row = con.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.Error as e:
            raise ReportError(f"{path}: not a ringlet results store: {first_line(e)}") from None
        if row is None or row[0] != FORMAT:
            found = "none" if row is None else repr(row[0])
            raise ReportError(f"{path}: not a ringlet results store: format {found}, expected {FORMAT!r}")
        runs: dict[tuple[str, int], list[StoredRun]] = {}
        try:
            # Every row is checked as `ringlet results` checks it: a page must
            # not vouch for runs from a store whose results do not hold up.
            damage = row_damage(con)
            if damage is not None:
                raise ReportError(f"{path}: damaged results store: {damage}")
            for i in range(0, len(wanted), 500):
                chunk = wanted[i:i + 500]
                marks = ",".join("?" * len(chunk))
                result = "result" if tables else "NULL"  # (the whole JSON only when a table of it is shown)
                cursor = con.execute(
                    f"SELECT id, scenario_hash, seed, ringlet_version, replication, scenario, finished_at, {result}, "
                    "json_extract(result, '$.wall_time_s'), json_extract(result, '$.setup_time_s') "
                    f"FROM results WHERE scenario_hash IN ({marks}) ORDER BY id", chunk)
                for rid, h, seed, version, replication, scenario, finished, text, wall, setup in cursor:
                    try:
                        key = (str(h), int(seed))
                    except (TypeError, ValueError):
                        continue
                    runs.setdefault(key, []).append(
                        StoredRun(rid, version, replication, scenario, finished, _tables(text, tables),
                                  _seconds(wall), _seconds(setup)))
        except sqlite3.Error as e:
            raise ReportError(f"{path}: damaged results store: {first_line(e)}") from None
        return runs
    finally:
        con.close()


def store_for(folder: Path, frames: Iterable["pd.DataFrame"],
              tables: Sequence[str] = ()) -> Optional[dict[tuple[str, int], list[StoredRun]]]:
    path = folder / FILENAME
    if not path.is_file():
        return None
    hashes: set[str] = set()
    for frame in frames:
        hashes.update(frame["scenario_hash"].astype(str))
    return read_store(path, hashes, tables)


def family_of(frame: "pd.DataFrame", store: Optional[dict[tuple[str, int], list[StoredRun]]]) -> Optional[str]:
    """A sweep's network family (``network.kind``): its swept value if it sweeps one, else
    its stored scenarios' if they agree; ``None`` when not known (what the load key measures
    depends on it: :mod:`ringlet.api.units`)."""
    from ..api.units import kind_of

    if "network.kind" in frame.columns:
        kinds = set(frame["network.kind"].astype(str))
    else:
        kinds = {kind_of(r.scenario) for runs in (store or {}).values() for r in runs}
    return next(iter(kinds)) if len(kinds) == 1 else None
