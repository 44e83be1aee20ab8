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

Some columns name nodes rather than measure them, and so are never averaged
over replications (a replicated sweep takes replication 0's, as it does the
provenance): a per-priority figure or a total whose figure ends in ``_node``
(``node_latency_ns_p99_max_node``, ``total_min_carried_share_node``), and the report's lists of node numbers
(:data:`NODE_LIST_FIELDS`: ``starved_nodes``), which a row holds as text, the
numbers separated by spaces (``"5 6 7"``), and empty (None; NaN when the whole
column is) when the list is: a CSV file cannot tell an empty text from a missing
one, so the table holds no empty text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional, Sequence

from ..api import schema

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Per-priority figures copied into every row, in order.
PRIORITY_FIELDS = schema.sweep_per_priority()

#: Point-level figures: column name -> figure of the run's summary, in order.
TOTAL_FIELDS = schema.sweep_totals()

#: What a switch family's hardware report adds to its rows (column -> figure of
#: ``hardware``): its switch ports and the payload carried per port, the seed 001's
#: measure of cost-efficiency. A network without switches has none.
HARDWARE_FIELDS = {"switch_ports": "ports", "throughput_mbps_per_port": "throughput_mbps_per_port"}

#: Optional point figures (numbers), in order: in a table only when a row has one.
OPTIONAL_FIELDS = [*schema.names(schema.optional_summary()), *HARDWARE_FIELDS]

#: Provenance columns: enough to re-run a row exactly (from the result's provenance, not the report).
PROVENANCE_FIELDS = ["scenario_hash", "seed", "ringlet_version"]

#: Point figures that are text (why a run stopped).
TEXT_TOTALS = ("stopped_by",)

#: The numeric figures of a row, in column order: what a study may read and a replicated sweep averages.
NUMERIC_FIELDS = [*PRIORITY_FIELDS, *(c for c in TOTAL_FIELDS if c not in TEXT_TOTALS), *OPTIONAL_FIELDS]

#: Lists of node numbers in the report (a top-level list, not a table), copied into a point's rows as
#: text: the numbers separated by spaces; None (empty) for an empty list, as for a result without the list.
NODE_LIST_FIELDS = ["starved_nodes", "stalled_nodes"]

#: Figures that are text (why a run stopped, a list of nodes), the same on every row of a point.
TEXT_FIELDS = [*(c for c in TOTAL_FIELDS if c not in NUMERIC_FIELDS), *NODE_LIST_FIELDS]

#: Point columns that name a node rather than measure: replication 0's in a replicated sweep, never averaged.
NODE_FIELDS = [*(c for c in PRIORITY_FIELDS if c.endswith("_node")),
               *(c for c, figure in TOTAL_FIELDS.items() if figure.endswith("_node") and "_per_node" not in figure),
               *NODE_LIST_FIELDS]

#: Columns that hold one value per point (repeated on every priority row).
POINT_FIELDS = (frozenset(TOTAL_FIELDS) | frozenset(NODE_LIST_FIELDS) | frozenset(OPTIONAL_FIELDS)
                | frozenset(PROVENANCE_FIELDS))


def _units() -> dict[str, str]:
    per_priority = {c["name"]: c["unit"] for c in schema.table("per_priority") or []}
    summary = {c["name"]: c["unit"] for c in schema.summary()}
    hardware = {c["name"]: c["unit"] for c in schema.report_schema()["hardware"]}
    return {**{f: per_priority[f] for f in PRIORITY_FIELDS}, **{c: summary[f] for c, f in TOTAL_FIELDS.items()},
            **{f: "" for f in NODE_LIST_FIELDS}, **{c["name"]: c["unit"] for c in schema.optional_summary()},
            **{c: hardware[f] for c, f in HARDWARE_FIELDS.items()}}


#: Each figure's unit, as the schema gives it (``""`` for counts and text).
UNITS = _units()


def columns(keys: Sequence[str], optional: Sequence[str] = ()) -> list[str]:
    """The sweep table's columns, in order, for swept ``keys`` and the
    :data:`OPTIONAL_FIELDS` in ``optional`` (see :func:`optional_present`)."""
    extra = [f for f in OPTIONAL_FIELDS if f in optional]
    return ["point", *keys, "priority", *PRIORITY_FIELDS, *TOTAL_FIELDS, *NODE_LIST_FIELDS, *extra,
            *PROVENANCE_FIELDS]


def replication_columns(keys: Sequence[str], optional: Sequence[str] = ()) -> list[str]:
    """The per-replication table's columns: the sweep table's, with ``replication`` before ``priority``."""
    return columns([*keys, "replication"], optional)


def frame(rows: Sequence[Mapping[str, Any]], names: Sequence[str]) -> "pd.DataFrame":
    """A table of ``rows`` with the columns ``names``, as every sweep table is made: a
    :data:`NODE_LIST_FIELDS` column that no row has a value of is a column of NaN (as
    ``sweep.csv`` reads it back), not of None, so that such a table (a sweep that starved
    no node) reads back from its CSV and its Parquet exactly."""
    import pandas as pd

    out = pd.DataFrame(rows, columns=list(names))
    for f in NODE_LIST_FIELDS:
        if f in out.columns and out[f].isna().all():
            out[f] = out[f].astype(float)
    return out


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
    totals.update({f: node_list_text(result.get(f)) for f in NODE_LIST_FIELDS})
    totals.update({f: result[f] for f in OPTIONAL_FIELDS if f in result})
    hardware = result.get("hardware") or {}
    if hardware.get("ports"):
        totals.update({c: hardware.get(f) for c, f in HARDWARE_FIELDS.items()})
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


def node_list_text(nodes: Any) -> Optional[str]:
    """A report's list of node numbers as a row holds it: ``[5, 6, 7]`` -> ``"5 6 7"``, ``[]`` -> None."""
    return " ".join(str(n) for n in nodes) if nodes else None


def node_list(value: Any) -> list[int]:
    """The node numbers of a :data:`NODE_LIST_FIELDS` cell, however a table file gave it back:
    ``"5 6 7"``, ``""``, missing (None, NaN), or a lone node that a CSV reader took for a number (``5``, ``5.0``)."""
    if isinstance(value, str):
        return [int(float(t)) for t in value.split()]
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, (int, float)) or hasattr(value, "dtype"):
        f = float(value)
        return [] if f != f else [int(f)]
    return [int(float(t)) for t in str(value).split()]


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
