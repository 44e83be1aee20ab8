"""The sweep table: its columns, a point's rows, and the points that stopped early.

Which figures a row copies comes from the core's report schema
(:mod:`ringlet.api.schema`): the per-priority figures, then the summary
figures under their sweep names. A summary figure that is a number is copied
as ``total_<figure>`` (beside the per-priority figure of the same name); one
that is not (``stopped_by``) keeps its name: that is how the schema's
``sweep.totals`` are named, and how this module tells numbers from text
without a list of its own.

Figures that only some network families report (the schema's ``client``
figures: a GigaRing's ``channel_latency_ns_mean`` and the like) are
**optional** point columns, copied under their own names after the totals.
A table has them only when one of its rows does (:func:`optional_present`),
so a sweep of SCI rings keeps exactly its columns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from ..api import schema

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Per-priority figures copied into every row, in order.
PRIORITY_FIELDS = schema.sweep_per_priority()

#: Point-level figures: column name -> figure of the run's summary, in order.
TOTAL_FIELDS = schema.sweep_totals()

#: Optional point figures (numbers), in order: in a table only when a row has one.
OPTIONAL_FIELDS = schema.names(schema.optional_summary())

#: Provenance columns: enough to re-run a row exactly (from the result's provenance, not the report).
PROVENANCE_FIELDS = ["scenario_hash", "seed", "ringlet_version"]

#: The numeric figures of a row, in column order: what a study may read and a replicated sweep averages.
NUMERIC_FIELDS = [*PRIORITY_FIELDS, *(c for c, figure in TOTAL_FIELDS.items() if c == f"total_{figure}"),
                  *OPTIONAL_FIELDS]

#: Figures that are text (why a run stopped), the same on every row of a point.
TEXT_FIELDS = [c for c in TOTAL_FIELDS if c not in NUMERIC_FIELDS]

#: Columns that hold one value per point (repeated on every priority row).
POINT_FIELDS = frozenset(TOTAL_FIELDS) | frozenset(OPTIONAL_FIELDS) | frozenset(PROVENANCE_FIELDS)


def _units() -> dict[str, str]:
    per_priority = {c["name"]: c["unit"] for c in schema.table("per_priority") or []}
    summary = {c["name"]: c["unit"] for c in schema.summary()}
    return {**{f: per_priority[f] for f in PRIORITY_FIELDS}, **{c: summary[f] for c, f in TOTAL_FIELDS.items()},
            **{c["name"]: c["unit"] for c in schema.optional_summary()}}


#: Each figure's unit, as the schema gives it (``""`` for counts and text).
UNITS = _units()


def columns(keys: Sequence[str], optional: Sequence[str] = ()) -> list[str]:
    """The sweep table's columns, in order, for swept ``keys`` and the
    :data:`OPTIONAL_FIELDS` in ``optional`` (see :func:`optional_present`)."""
    extra = [f for f in OPTIONAL_FIELDS if f in optional]
    return ["point", *keys, "priority", *PRIORITY_FIELDS, *TOTAL_FIELDS, *extra, *PROVENANCE_FIELDS]


def replication_columns(keys: Sequence[str], optional: Sequence[str] = ()) -> list[str]:
    """The per-replication table's columns: the sweep table's, with ``replication`` before ``priority``."""
    return columns([*keys, "replication"], optional)


def optional_present(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """The :data:`OPTIONAL_FIELDS` that some of ``rows`` holds a value of, in order:
    the optional columns a table of these rows has."""
    found: set[str] = set()
    for row in rows:
        found.update(f for f in OPTIONAL_FIELDS if row.get(f) is not None)
    return [f for f in OPTIONAL_FIELDS if f in found]


def rows(point: int, values: Mapping[str, Any], result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The tidy rows of one point: one per priority level.

    A result without per-priority figures still gives one row (priority and
    per-priority figures missing) so no point disappears from the table.
    """
    base = {"point": point, **values}
    totals = {col: result.get(key) for col, key in TOTAL_FIELDS.items()}
    totals.update({f: result[f] for f in OPTIONAL_FIELDS if f in result})
    prov = result.get("provenance", {})
    provenance = {k: prov.get(k) for k in PROVENANCE_FIELDS}
    levels = result.get("per_priority") or [{}]
    if all(level.get("priority") is not None for level in levels):
        levels = sorted(levels, key=lambda level: level["priority"])
    out = []
    for level in levels:
        row = dict(base)
        row["priority"] = level.get("priority")
        row.update({f: level.get(f) for f in PRIORITY_FIELDS})
        row.update(totals)
        row.update(provenance)
        out.append(row)
    return out


def describe(values: Mapping[str, Any]) -> str:
    """``key=value, ...`` of a point's swept values."""
    return ", ".join(f"{k}={v}" for k, v in values.items())


#: Stop reasons that end a run before it has measured its transactions.
EARLY_STOPS = ("time_cap", "backlog", "interrupted")


def early_points(table: "pd.DataFrame", keys: Sequence[str]) -> list[dict[str, Any]]:
    """The points of a sweep table that stopped before measuring their
    transactions: ``point``, ``settings`` (``describe`` of ``keys``),
    ``stopped_by`` and ``transactions`` measured, one per point."""
    found = []
    for r in table.drop_duplicates("point").to_dict("records"):
        # Replications that stopped differently are listed "a,b" (see ``replications.aggregate``).
        if any(reason in EARLY_STOPS for reason in str(r.get("stopped_by") or "").split(",")):
            found.append({"point": r["point"], "settings": describe({k: r[k] for k in keys}),
                          "stopped_by": r["stopped_by"], "transactions": r["total_transactions"]})
    return found


def early_message(early: Sequence[Mapping[str, Any]]) -> str:
    """One line naming each point of :func:`early_points`."""
    listed = "; ".join(f"point {p['point']} ({p['settings']}): {p['stopped_by']}, {p['transactions']:,}"
                       for p in early)
    return (f"{len(early)} point(s) stopped before measuring their transactions "
            f"(time cap or backlog cap; the stopped_by column): {listed}")
