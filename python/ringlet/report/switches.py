"""A sweep's switch figures in the report: the ``per_switch`` and ``per_port`` tables
of each point's stored result, and a plot of the B-Link utilisation.

The sweep table holds one row per point and priority, so the figures of a
network's switches (each one's B-Link, each port's traffic to and from it)
come from the results store, where every point's whole result is kept. A
point whose result has none of these tables (an SCI ring) adds nothing, so a
sweep of rings gets no section.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

from ..api import schema
from .html import escape, html_table, number
from .store import StoredRun
from .tables import is_numeric

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Report tables the page shows per point when the stored results have them:
#: table -> (heading, what a row is).
TABLES = {
    "per_switch": ("Per switch", "one row per point and switch: its B-Link (the bus its ports share)"),
    "per_port": ("Per switch port", "one row per point and switch port: data to and from the B-Link, and "
                                    "the send utilisation of the link leaving the port"),
}

#: A per-port table longer than this is folded away (a Banyan has many ports per point).
FOLD_ROWS = 64


def stored_tables(run_list: Optional[list[StoredRun]], version: Any) -> dict[str, list[dict[str, Any]]]:
    """The tables of a point's stored run: its ringlet version's first replication."""
    if not run_list:
        return {}
    same = [r for r in run_list if r.ringlet_version == version] or run_list
    same = sorted(same, key=lambda r: (r.replication or 0, r.id))
    return same[0].tables


def points_tables(points: "pd.DataFrame", store: dict[tuple[str, int], list[StoredRun]], tables: Sequence[str],
                  require: Optional[str] = None) -> dict[str, dict[int, list[dict[str, Any]]]]:
    """Each of ``tables`` of each point's stored run, by table and point (only the points
    whose run has table ``require``, when given)."""
    found: dict[str, dict[int, list[dict[str, Any]]]] = {t: {} for t in tables}
    for _, p in points.iterrows():
        try:
            key = (str(p["scenario_hash"]), int(p["seed"]))
        except (TypeError, ValueError):
            continue
        stored = stored_tables(store.get(key), p["ringlet_version"])
        if require is not None and not stored.get(require):
            continue
        for t in tables:
            if stored.get(t):
                found[t][int(p["point"])] = stored[t]
    return found


def tables_html(points: "pd.DataFrame", keys: Sequence[str], found: dict[str, dict[int, list[dict[str, Any]]]],
                titles: dict[str, tuple[str, str]]) -> list[str]:
    """A titled table (folded when long) of every point's rows, for each table found."""
    parts = []
    for t, (title, what) in titles.items():
        if not found[t]:
            continue
        table, n = table_html(t, points, keys, found[t])
        block = f'<div class="scroll">{table}</div>'
        if n > FOLD_ROWS:
            block = f"<details><summary>{n:,} rows</summary>{block}</details>"
        parts.append(f'<h3 id="{escape(t)}">{escape(title)} (<code>{escape(t)}</code>)</h3>'
                     f"<p>{escape(what[0].upper() + what[1:])}.</p>{block}")
    return parts


def _header(name: str, table: str) -> str:
    unit = next((c.get("unit") for c in schema.table(table) or [] if c["name"] == name), "")
    return f"{name} ({unit})" if unit else name


def table_html(table: str, points: "pd.DataFrame", keys: Sequence[str],
                found: dict[int, list[dict[str, Any]]]) -> tuple[str, int]:
    """One table of every point's rows, headed by the point and its swept values."""
    columns = schema.names(schema.table(table) or [])
    for rows in found.values():  # columns the core added that the schema of this build lacks
        for r in rows:
            columns += [c for c in r if c not in columns]
    header = ["point", *keys, *(_header(c, table) for c in columns)]
    numeric = [True, *(is_numeric(points[k]) for k in keys), *([True] * len(columns))]
    body = []
    for _, p in points.iterrows():
        for r in found.get(int(p["point"]), []):
            body.append([escape(number(p[c])) for c in ("point", *keys)]
                        + [escape(number(r.get(c))) for c in columns])
    return html_table(header, body, numeric), len(body)


def _plot(points: "pd.DataFrame", keys: Sequence[str], found: dict[int, list[dict[str, Any]]]) -> str:
    """The busiest and the mean B-Link utilisation of each point against the first swept key."""
    import pandas as pd

    from .html import img
    from .sweep import plan_plots, sweep_plot_svg

    rows = []
    for _, p in points.iterrows():
        util = [u for s in found.get(int(p["point"]), []) if (u := s.get("bus_utilization")) is not None]
        if util:
            rows.append({"point": p["point"], **{k: p[k] for k in keys}, "priority": 0,
                         "bus_utilization_max": max(util), "bus_utilization_mean": sum(util) / len(util)})
    frame = pd.DataFrame(rows)
    pp = plan_plots(frame, keys) if len(frame) else None
    if pp is None:
        return ""
    out = ""
    for column, title in (("bus_utilization_max", "Busiest B-Link utilisation"),
                          ("bus_utilization_mean", "Mean B-Link utilisation")):
        svg = sweep_plot_svg(frame, pp, column, f"{title} vs {pp.x}", "sci-switch")  # (a switch family's load is raw)
        lines = f"One line per {' and '.join(pp.group_by)}" if pp.group_by else "One line"
        out += (f'<figure class="plot">{img(svg, "image/svg+xml", f"{title} vs {pp.x}")}'
                f"<figcaption>{escape(title)} (over the point's switches) vs <code>{escape(pp.x)}</code>. "
                f"{escape(lines)}. {escape(pp.note.strip())}</figcaption></figure>")
    return f'<div class="plots">{out}</div>'


def switch_section(frame: "pd.DataFrame", keys: Sequence[str],
                   store: Optional[dict[tuple[str, int], list[StoredRun]]]) -> Optional[str]:
    """The HTML of the switch figures of a sweep's points, or None when no stored
    result has a table of :data:`TABLES` (or there is no store)."""
    if store is None:
        return None
    points = frame.drop_duplicates("point")
    found = points_tables(points, store, list(TABLES))
    if not any(found.values()):
        return None
    parts = ["<p>Each point's switches, from its result in the results store (with replications, the "
             "first replication's). A switch's ports share one bus, the B-Link: its utilisation is the "
             "fraction of the measured time it was busy, its MB/s the data that crossed it.</p>"]
    if found["per_switch"]:
        parts.append(_plot(points, keys, found["per_switch"]))
    parts += tables_html(points, keys, found, TABLES)
    return "".join(parts)
