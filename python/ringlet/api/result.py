"""``Result``: the outcome of one simulation point, from the core's JSON."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

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


class Result:
    """One run's figures, exactly as the Rust core reported them.

    ``raw`` is the whole JSON object; the other attributes are views of it.
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
        """The report table ``name`` (any table of :func:`ringlet.api.schema.table`), one
        row per entry, the schema's columns first. A table the run did not report
        has no rows. Raises :class:`KeyError` for a name that is neither a table of
        the schema nor one in this result."""
        if schema.table(name) is None and name not in self.tables:
            known = ", ".join(schema.report_schema()["tables"])
            raise KeyError(f"{name}: not a report table (the core reports: {known})")
        return self._table(name)

    def _table(self, name: str) -> "pd.DataFrame":
        # (Tables the core does not have yet give an empty frame: their properties exist already.)
        return _frame(self._raw.get(name) or [], schema.names(schema.table(name) or []))

    per_priority = _table_property("per_priority", "One row per priority level.")
    per_link = _table_property("per_link", "One row per link (the link leaving ``from_node``): utilisation.")
    per_node = _table_property("per_node", "One row per node.")
    per_ringlet = _table_property("per_ringlet", "One row per ringlet (ring) of the network.")
    per_class = _table_property("per_class", "One row per traffic class.")
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

    @property
    def tables(self) -> list[str]:
        """The names of the report tables this run reported (``per_priority``, ...,
        ``per_switch`` and ``per_port`` for a network of switches), in the report's order.
        A list of plain values (``starved_nodes``) is not a table."""
        return [k for k, v in self._raw.items()
                if isinstance(v, list) and (schema.table(k) is not None or any(isinstance(r, dict) for r in v))]

    @property
    def starved_nodes(self) -> list[int]:
        """The sending nodes flagged as starved: each carried less than a tenth of its
        offered load while another carried more than half of its own (``[]`` if none)."""
        return list(self._raw.get("starved_nodes") or [])

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
