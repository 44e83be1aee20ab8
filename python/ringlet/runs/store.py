"""The results store: every finished sweep run, kept in ``DIR/results.sqlite``.

SQLite because a run is then stored whole or not at all (one transaction per
run), so a sweep killed at any moment leaves a store that a second identical
command resumes from; and it is one file that any SQLite tool can read.

A row's key is its provenance: (scenario hash, seed, ringlet version). Rows of
another ringlet version are kept but never reused. A store that fails any
check is reported as :class:`StoreError` and left exactly as it was: results
are only ever added, never changed or deleted.
"""

from __future__ import annotations

import datetime
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional

from .table import columns, frame, optional_present, replication_columns, rows as tidy_rows

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: ``meta.format`` of a ringlet store; another value is not ours to read.
FORMAT = "ringlet-results/1"

#: The store's file name inside a sweep's output directory.
FILENAME = "results.sqlite"

_MAGIC = b"SQLite format 3\x00"

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE results(
    id INTEGER PRIMARY KEY,
    scenario_hash TEXT NOT NULL,
    seed INTEGER NOT NULL,
    ringlet_version TEXT NOT NULL,
    replication INTEGER NOT NULL DEFAULT 0,
    values_json TEXT,
    scenario TEXT NOT NULL,
    result TEXT NOT NULL,
    finished_at TEXT,
    point_hash TEXT,
    UNIQUE(scenario_hash, seed, ringlet_version)
);
"""

#: Columns other code reads; a store without them is not trusted.
REQUIRED_COLUMNS = {"id", "scenario_hash", "seed", "ringlet_version", "replication", "values_json",
                    "scenario", "result", "finished_at"}

#: (scenario hash, seed, ringlet version)
Key = tuple[str, int, str]


class StoreError(ValueError):
    """A results store that cannot be used: damaged, not ours, or not writable (one line)."""


@dataclass(frozen=True)
class Row:
    """One stored run."""

    id: int
    scenario_hash: str
    seed: int
    ringlet_version: str
    replication: int
    values: dict[str, Any]
    scenario: str
    result: str
    finished_at: Optional[str]
    point_hash: Optional[str]

    @property
    def key(self) -> Key:
        return (self.scenario_hash, self.seed, self.ringlet_version)


def path_of(location: "str | os.PathLike[str]") -> Path:
    """The store file of ``location``: a ``.sqlite`` file itself, else ``location/results.sqlite``."""
    path = Path(location)
    if path.suffix == ".sqlite" and not path.is_dir():
        return path
    return path / FILENAME


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def result_key(text: str) -> Optional[Key]:
    """The key a run's JSON carries in its provenance, or None if it carries none."""
    try:
        prov = json.loads(text).get("provenance")
        key = (prov["scenario_hash"], prov["seed"], prov["ringlet_version"])
    except (ValueError, AttributeError, TypeError, KeyError):
        return None
    return key if isinstance(key[1], int) else None


def row_damage(conn: sqlite3.Connection) -> Optional[str]:
    """The first row whose result does not parse, or does not carry in its
    provenance the key and scenario the row is filed under, as a message
    (``row 7: ...``); None if every row is sound. (The report checks with this too.)"""
    for rid, h, seed, version, scenario, result in conn.execute(
        "SELECT id, scenario_hash, seed, ringlet_version, scenario, result FROM results"
    ):
        try:
            prov = json.loads(result)["provenance"]
        except (ValueError, TypeError, KeyError):
            return f"row {rid}: stored result does not parse"
        if not isinstance(prov, dict) or result_key(result) != (h, seed, version):
            return f"row {rid}: the result's provenance disagrees with the row's key ({h}, seed {seed}, ringlet {version})"
        if prov.get("scenario") != scenario:
            return f"row {rid}: stored scenario is not the result's"
    return None


class Store:
    """A ringlet results store at ``path`` (a ``.sqlite`` file).

    An existing file is checked completely when the store is opened (see
    :meth:`check`). A missing one is created, atomically, on the first
    :meth:`put`, so a command that fails early leaves nothing behind.
    """

    def __init__(self, path: "str | os.PathLike[str]"):
        self.path = Path(path)
        self._conn: Optional[sqlite3.Connection] = None
        if os.path.lexists(self.path):
            self._conn = self._open_existing()

    @classmethod
    def at(cls, location: "str | os.PathLike[str]") -> "Store":
        """The store of a sweep output directory, or of a ``.sqlite`` path."""
        return cls(path_of(location))

    @property
    def exists(self) -> bool:
        return self._conn is not None

    # -- opening and checking ------------------------------------------------

    def _fail(self, what: str) -> StoreError:
        return StoreError(f"{self.path}: {what}; the file was left untouched (move it away to start a new store)")

    def _open_existing(self) -> sqlite3.Connection:
        if self.path.is_dir():
            raise StoreError(f"{self.path}: is a directory, not a results store")
        try:
            with open(self.path, "rb") as f:
                head = f.read(len(_MAGIC))
        except OSError as e:
            raise StoreError(f"{self.path}: cannot read results store: {e.strerror or e}") from None
        if not head:
            raise self._fail("not a ringlet results store (empty file)")
        if head != _MAGIC:
            raise self._fail("not a ringlet results store (not an SQLite database)")
        # mode=rw: never create; reads only until every check has passed.
        uri = self.path.absolute().as_uri() + "?mode=rw"
        try:
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=60)
        except sqlite3.Error as e:
            raise self._fail(f"cannot open results store: {e}") from None
        try:
            self.check(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def check(self, conn: Optional[sqlite3.Connection] = None) -> None:
        """Raises :class:`StoreError` unless the store passes SQLite's integrity
        check, is a ``ringlet-results/1`` store, and every row's result parses and
        carries in its provenance the key and scenario the row is filed under."""
        conn = conn or self._conn
        if conn is None:
            return
        try:
            problems = [r[0] for r in conn.execute("PRAGMA integrity_check")]
        except sqlite3.DatabaseError as e:
            raise self._fail(f"damaged results store: {e}") from None
        if problems != ["ok"]:
            raise self._fail(f"damaged results store: integrity check failed: {problems[0]}")
        try:
            fmt = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
            cols = {r[1] for r in conn.execute("PRAGMA table_info(results)")}
        except sqlite3.DatabaseError as e:
            raise self._fail(f"not a ringlet results store ({e})") from None
        if fmt is None:
            raise self._fail("not a ringlet results store (no format in its meta table)")
        if fmt[0] != FORMAT:
            raise self._fail(f"results store of format {fmt[0]!r}; this ringlet reads {FORMAT!r}")
        missing = REQUIRED_COLUMNS - cols
        if missing:
            raise self._fail(f"damaged results store: table results lacks {', '.join(sorted(missing))}")
        try:
            damage = row_damage(conn)
        except sqlite3.DatabaseError as e:
            raise self._fail(f"damaged results store: {e}") from None
        if damage is not None:
            raise self._fail(f"damaged results store: {damage}")

    def check_writable(self) -> None:
        """Raises :class:`StoreError` if runs could not be added (checked before a sweep runs)."""
        if self.exists and not os.access(self.path, os.W_OK):
            raise StoreError(f"{self.path}: results store is not writable")

    def _create(self) -> sqlite3.Connection:
        """Makes the store in a temporary file and links it into place: it appears complete or not at all."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        from .. import _core

        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        tmp.unlink(missing_ok=True)
        try:
            conn = sqlite3.connect(tmp, isolation_level=None)
            try:
                conn.executescript("BEGIN;" + SCHEMA + "COMMIT;")
                conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)",
                                 [("format", FORMAT), ("created_at", _now()),
                                  ("created_by", f"ringlet {_core.version()}")])
            finally:
                conn.close()
            try:
                os.link(tmp, self.path)
            except FileExistsError:
                pass  # another process made one meanwhile: use it (it is checked below)
            except OSError:  # a file system without hard links
                if not os.path.lexists(self.path):
                    os.replace(tmp, self.path)
        finally:
            tmp.unlink(missing_ok=True)
        return self._open_existing()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- reading ------------------------------------------------------------

    def _rows(self, where: str = "", args: Iterable[Any] = ()) -> list[Row]:
        if self._conn is None:
            return []
        cur = self._conn.execute(
            "SELECT id, scenario_hash, seed, ringlet_version, replication, values_json, scenario, result, "
            f"finished_at, point_hash FROM results {where} ORDER BY id", tuple(args)
        )
        out = []
        for rid, h, seed, version, rep, values, scenario, result, finished, point_hash in cur:
            try:
                vals = json.loads(values) if values else {}
            except ValueError:
                vals = {}
            out.append(Row(rid, h, seed, version, rep, vals if isinstance(vals, dict) else {}, scenario, result,
                           finished, point_hash))
        return out

    def rows(self, version: Optional[str] = None) -> list[Row]:
        """Stored runs in insertion order; only those of ``version`` if given."""
        if version is None:
            return self._rows()
        return self._rows("WHERE ringlet_version = ?", [version])

    def row(self, rid: int) -> Optional[Row]:
        found = self._rows("WHERE id = ?", [rid])
        return found[0] if found else None

    def versions(self) -> dict[str, int]:
        """Rows per ringlet version."""
        if self._conn is None:
            return {}
        return dict(self._conn.execute(
            "SELECT ringlet_version, COUNT(*) FROM results GROUP BY ringlet_version ORDER BY MIN(id)"))

    def lookup(self, keys: Iterable[Key]) -> dict[Key, str]:
        """The stored result JSON of each of ``keys`` that the store holds."""
        if self._conn is None:
            return {}
        wanted = set(keys)
        out: dict[Key, str] = {}
        for version in {k[2] for k in wanted}:
            for h, seed, result in self._conn.execute(
                "SELECT scenario_hash, seed, result FROM results WHERE ringlet_version = ?", (version,)
            ):
                if (h, seed, version) in wanted:
                    out[(h, seed, version)] = result
        return out

    # -- writing ------------------------------------------------------------

    def put(self, key: Key, result: str, *, replication: int = 0, values: Optional[Mapping[str, Any]] = None,
            point_hash: Optional[str] = None) -> bool:
        """Stores one finished run in its own transaction; True if it was new.

        A row already filed under ``key`` is kept as it is (same scenario and
        seed give the same result, so there is nothing to overwrite).
        """
        got = result_key(result)
        if got != key:
            raise ValueError(f"result provenance {got} does not match the key {key}")
        scenario = json.loads(result)["provenance"]["scenario"]
        if self._conn is None:
            try:
                self._conn = self._create()
            except (OSError, sqlite3.Error) as e:
                raise StoreError(f"{self.path}: cannot create results store: {getattr(e, 'strerror', None) or e}") \
                    from None
        try:
            cur = self._conn.execute(
                "INSERT OR IGNORE INTO results(scenario_hash, seed, ringlet_version, replication, values_json, "
                "scenario, result, finished_at, point_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key[0], key[1], key[2], replication, json.dumps(dict(values or {})), scenario, result, _now(),
                 point_hash),
            )
        except sqlite3.Error as e:
            raise StoreError(f"{self.path}: cannot write to results store: {e}") from None
        return cur.rowcount == 1

    # -- tables -------------------------------------------------------------

    def table(self, version: str) -> "pd.DataFrame":
        """The tidy table of ``version``'s rows (the columns of ``sweep.csv``).

        Points are numbered in the order of their swept values (a row keeps the
        values of the sweep that computed it). A ``replication`` column follows
        the swept keys when the store holds more than replication 0.
        """
        stored = self.rows(version)
        keys: list[str] = []
        for r in stored:
            keys.extend(k for k in r.values if k not in keys)

        def order(value: Any) -> tuple:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return (1, 0, str(value)) if value is not None else (2, 0, "")
            return (0, value, "")

        def point_of(r: Row) -> tuple:
            return (tuple(order(r.values.get(k)) for k in keys), r.point_hash or r.scenario_hash)

        points = {p: i for i, p in enumerate(sorted({point_of(r) for r in stored}))}
        stored.sort(key=lambda r: (points[point_of(r)], r.replication, r.id))
        with_reps = any(r.replication for r in stored)
        table: list[dict[str, Any]] = []
        for r in stored:
            values = {k: r.values.get(k) for k in keys}
            for row in tidy_rows(points[point_of(r)], values, json.loads(r.result)):
                if with_reps:
                    row["replication"] = r.replication
                table.append(row)
        optional = optional_present(table)
        cols = replication_columns(keys, optional) if with_reps else columns(keys, optional)
        return frame(table, cols)


#: The figures of a result that are not simulated: its wall time and, of it, its set-up.
WALL_FIELDS = ("wall_time_s", "setup_time_s")


def compare_results(stored: str, new: str) -> list[str]:
    """Where two runs' JSON differ, ignoring :data:`WALL_FIELDS` (the figures that are
    not simulated); empty when they are bit-identical. Floats are compared by
    their shortest round-trip text, so distinct doubles always differ."""
    diffs: list[str] = []

    def walk(a: Any, b: Any, where: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for k in list(a) + [k for k in b if k not in a]:
                if where == "" and k in WALL_FIELDS:
                    continue
                if k not in a or k not in b:
                    diffs.append(f"{where}{k}: only in the {'new' if k in b else 'stored'} result")
                else:
                    walk(a[k], b[k], f"{where}{k}.")
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                walk(x, y, f"{where}{i}.")
        elif json.dumps(a) != json.dumps(b) or type(a) is not type(b):
            diffs.append(f"{where.rstrip('.')}: stored {json.dumps(a)[:40]}, now {json.dumps(b)[:40]}")

    walk(json.loads(stored), json.loads(new), "")
    return diffs
