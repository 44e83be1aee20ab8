"""``Result``: the outcome of one simulation point, from the core's JSON."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional

from . import schema

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def _frame(rows: list[dict[str, Any]], columns: list[str]) -> "pd.DataFrame":
    """``rows`` as a DataFrame whose columns are ``columns`` in order, then any others the rows have."""
    import pandas as pd  # imported lazily: the CLI's error paths stay fast

    frame = pd.DataFrame(rows)
    extra = [c for c in frame.columns if c not in columns]
    return frame.reindex(columns=columns + extra)


def _table_property(name: str, doc: str) -> property:
    """The report table ``name`` as a property of :class:`Result`."""
    return property(lambda self: self._table(name), doc=doc)


#: The report's one-row tables: a dict in the core's JSON, one row in the ``Result`` (a
#: GigaRing fold's ``reconfiguration``), its columns from the schema's section of that name.
ONE_ROW_TABLES = ("reconfiguration", "trace", "hardware")


def table_names() -> tuple[str, ...]:
    """Every table a ``Result`` has as an attribute: the schema's tables, then its one-row tables."""
    return (*schema.report_schema()["tables"], *ONE_ROW_TABLES)


def table_columns(name: str) -> Optional[list[str]]:
    """The schema's columns of table ``name``; None if there is no such table."""
    if name in ONE_ROW_TABLES:
        return schema.names(schema.report_schema().get(name, []))
    columns = schema.table(name)
    return None if columns is None else schema.names(columns)


class Result:
    """One run's figures, exactly as the Rust core reported them.

    ``raw`` is the whole JSON object; the other attributes are views of it.

    **Tables, by one rule.** Every table of the report is an attribute of the
    same name that gives a pandas DataFrame, one row per entry, the schema's
    columns first (``ringlet.api.schema.report_schema()``), whatever the
    network family: ``per_priority``, ``per_node``, ``per_link``,
    ``per_ringlet``, ``per_class``, ``per_node_priority``, ``per_inversion``,
    ``per_interval``, ``per_switch``, ``per_port``, ``per_vc``, and
    ``reconfiguration``, a GigaRing fold's figures, ``trace``, a
    trace-driven run's trace beside its windows, and ``hardware``, what the
    network is built of (each one object in the JSON, a one-row table here). A table the run did not report is an empty frame
    with the schema's columns (``per_switch`` of a ring, ``reconfiguration``
    of a run without a fault). ``r.tables`` is the tuple of the names this run
    reported, in the report's order; ``r.table(name)`` gives the same frame
    as the attribute.
    """

    __slots__ = ("_json", "_raw")

    def __init__(self, text: str):
        """Wraps the JSON text returned by ``ringlet._core.run``."""
        self._json = text
        self._raw: dict[str, Any] = json.loads(text)

    @property
    def raw(self) -> dict[str, Any]:
        """The full result as a dict (a copy)."""
        return json.loads(self._json)

    @property
    def summary(self) -> dict[str, Any]:
        """The scalar top-level figures: throughput, latencies, transactions,
        retries, times, ``stopped_by``, ``wall_time_s``."""
        return {k: v for k, v in self._raw.items() if not isinstance(v, (dict, list))}

    def table(self, name: str) -> "pd.DataFrame":
        """The report table ``name`` (any of :func:`table_names`), one row per entry,
        the schema's columns first. A table the run did not report has no rows.
        Raises :class:`KeyError` for a name that is neither a table of the schema
        nor one in this result."""
        if table_columns(name) is None and name not in self.tables:
            raise KeyError(f"{name}: not a report table (the core reports: {', '.join(table_names())})")
        return self._table(name)

    def _table(self, name: str) -> "pd.DataFrame":
        value = self._raw.get(name)
        rows = [value] if isinstance(value, dict) else (value or [])
        return _frame(rows, table_columns(name) or [])

    per_priority = _table_property("per_priority", "One row per priority level.")
    per_link = _table_property("per_link", "One row per link (the link leaving ``from_node``): utilisation.")
    per_node = _table_property("per_node", "One row per node.")
    per_node_priority = _table_property(
        "per_node_priority", "One row per node and priority with packets (several priorities only).")
    per_inversion = _table_property(
        "per_inversion", "One row per kind (output, input) and pair of priorities of the priority inversions the "
                         "run counted: the priority that waited, the one that went first, how often, the mean wait.")
    per_ringlet = _table_property("per_ringlet", "One row per ringlet (ring) of the network.")
    per_class = _table_property("per_class", "One row per traffic class (a GigaRing: per virtual channel).")
    per_switch = _table_property(
        "per_switch", "One row per switch: its B-Link (bus) utilisation, crossings and data across it; "
                      "empty for a network without switches.")
    per_interval = _table_property(
        "per_interval", "One row per interval of the run (``run.series_interval_ns``; a GigaRing run with a "
                        "fault keeps one every 2 us unless set): throughput, packet and transaction latency, "
                        "retransmissions, congestion windows, and a fold's packets sent again, duplicates and "
                        "losses; empty without a series.")
    per_port = _table_property(
        "per_port", "One row per switch port: data to and from the B-Link, its output link's send utilisation; "
                    "empty for a network without switches.")
    per_vc = _table_property(
        "per_vc", "One row per virtual channel of a GigaRing: the data its packets delivered; empty for "
                  "another family.")
    trace = _table_property(
        "trace", "A trace-driven run's trace (``traffic.source = \"trace\"``) as a one-row table: its file and "
                 "SHA-256, rows, span, rows issued in the warm-up and in the measurement window, the window, and "
                 "the warnings where trace and run part; empty for the built-in generator.")
    hardware = _table_property(
        "hardware", "What the network is built of, as a one-row table: endpoints, switches, switch ports, "
                    "B-Links, links and ringlets, and the throughput per switch port (seed 001's cost-efficiency; "
                    "NaN without switches).")
    reconfiguration = _table_property(
        "reconfiguration", "A GigaRing fold (``[faults]``) as a one-row table: when the node failed, when the "
                           "rings folded, throughput and transaction latency before and after, packets sent "
                           "again, transactions lost; empty without a fault.")

    def __getattr__(self, name: str) -> Any:
        # (A table the core reports that has no property above yet: still an attribute.)
        if name.startswith("per_") and table_columns(name) is not None:
            return self._table(name)
        raise AttributeError(f"'Result' object has no attribute {name!r}")

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *table_names()})

    @property
    def tables(self) -> tuple[str, ...]:
        """The names of the report tables this run reported (``per_priority``, ...,
        ``per_switch`` and ``per_port`` for a network of switches, ``per_vc`` and,
        after a fold, ``reconfiguration`` for a GigaRing), in the report's order;
        each is an attribute. A list of plain values (``starved_nodes``) is not a table."""
        return tuple(k for k, v in self._raw.items()
                     if (isinstance(v, list) and (schema.table(k) is not None or any(isinstance(r, dict) for r in v)))
                     or (k in ONE_ROW_TABLES and isinstance(v, dict)))

    @property
    def trace_warnings(self) -> list[str]:
        """Where a trace-driven run's trace and windows part (the trace ends before the
        warm-up does, or the run stopped before the trace was done); ``[]`` if they
        do not, or without a trace."""
        return list((self._raw.get("trace") or {}).get("warnings") or [])

    @property
    def starved_nodes(self) -> list[int]:
        """The sending nodes flagged as starved: each carried less than a tenth of its
        offered load while another carried more than half of its own (``[]`` if none)."""
        return list(self._raw.get("starved_nodes") or [])

    @property
    def stalled_nodes(self) -> list[int]:
        """The sending nodes flagged as stalled: each had transactions outstanding and
        completed none for longer than the run's ``stall_window_ns`` (a tenth of its
        measurement window), judged by its own completions alone (``[]`` if none)."""
        return list(self._raw.get("stalled_nodes") or [])

    @property
    def counters(self) -> dict[str, int]:
        """Event counts that explain the result (retries, busy echoes, ...)."""
        return dict(self._raw.get("counters", {}))

    @property
    def conservation(self) -> dict[str, int]:
        """Transactions generated, completed, queued and in flight."""
        return dict(self._raw.get("conservation", {}))

    @property
    def provenance(self) -> dict[str, Any]:
        """ringlet version, seed, scenario hash and the full scenario TOML."""
        return dict(self._raw.get("provenance", {}))

    def to_json(self) -> str:
        """The result as the core's JSON text (what ``ringlet run --json`` prints)."""
        return self._json

    def __getitem__(self, key: str) -> Any:
        return self._raw[key]

    def __repr__(self) -> str:
        s = self._raw
        return (
            f"Result(throughput_mbps={s.get('throughput_mbps'):.6g}, "
            f"latency_ns_mean={s.get('latency_ns_mean'):.6g}, "
            f"transactions={s.get('transactions')}, stopped_by={s.get('stopped_by')!r}, "
            f"scenario_hash={self.provenance.get('scenario_hash')!r})"
        )
