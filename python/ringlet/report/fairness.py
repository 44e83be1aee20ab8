"""A sweep's fairness in the report: Jain's index and the smallest carried share
against the first swept key, each priority's worst node tail, the priority
inversions per thousand packets (when some point counted one), and the
starved nodes of each point.

The point figures come from the sweep table (``total_fairness_index``,
``total_min_carried_share``, ``total_min_carried_share_node``,
``starved_nodes``, ``node_latency_ns_p99_max``); a starved node's own figures (its carried share, the
transactions it completed, its backlog and the age of its oldest waiting
transaction) from the point's ``per_node`` table in the results store, when
the folder has one. A sweep table written before these columns existed gets
no section.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

from ..runs.table import node_list
from .html import escape, html_table, img, is_missing, number
from .store import StoredRun, family_of
from .switches import FOLD_ROWS, stored_tables
from .tables import is_numeric

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .sweep import PlotPlan

#: The sweep table's fairness figures: column -> (plot title, what the plot shows).
FIGURES = {
    "total_fairness_index": ("Fairness index", "Jain's fairness index over the sending nodes' carried shares "
                                               "(1: every node carries the same share of its offered load; "
                                               "1/n: one of n carries it all)"),
    "total_min_carried_share": ("Smallest carried share", "the smallest share of its offered load a sending "
                                                          "node carried (throughput / offered)"),
}

#: A starved node's figures from its point's stored ``per_node`` row: column -> header.
NODE_COLUMNS = {
    "carried_share": "carried share",
    "transactions": "transactions completed",
    "backlog": "backlog (transactions)",
    "oldest_waiting_ns": "oldest waiting (ns)",
}


#: The per-priority fairness figure: each priority's worst node tail (the sweep table's rows per priority).
WORST_NODE = ("node_latency_ns_p99_max", "Worst node p99 latency",
              "the largest p99 one-way latency of one node's own packets, at each priority (the node is the "
              "sweep table's node_latency_ns_p99_max_node column); a starved node's few packets can make its "
              "own small, so read it beside the starved nodes below")


def _plot(frame: "pd.DataFrame", pp: "PlotPlan", column: str, title: str, what: str, kind: Optional[str] = None) -> str:
    """One figure of ``column`` against the first swept key, with the lines ``pp`` planned
    for ``frame``, or "" when the column has nothing to plot."""
    from .sweep import sweep_plot_svg

    if column not in frame.columns or not frame[column].notna().any():
        return ""
    lines = f"One line per {' and '.join(pp.group_by)}" if pp.group_by else "One line"
    svg = sweep_plot_svg(frame, pp, column, f"{title} vs {pp.x}", kind)
    return (f'<figure class="plot">{img(svg, "image/svg+xml", f"{title} vs {pp.x}")}'
            f"<figcaption>{escape(what[0].upper() + what[1:])}, vs <code>{escape(pp.x)}</code>. "
            f"{escape(lines)}. {escape(pp.note.strip())}</figcaption></figure>")


#: The point figures of priority inversions, drawn when some point counted one (never with one priority).
INVERSIONS = {
    "total_output_inversions_per_kpacket": ("Output inversions per 1000 packets",
                                            "output inversions per thousand packets measured: a node put a "
                                            "lower-priority packet on its link while an own packet of a higher "
                                            "priority waited"),
    "total_input_inversions_per_kpacket": ("Input inversions per 1000 packets",
                                           "input inversions per thousand packets measured: an input queue "
                                           "accepted a packet while one of a higher priority it had busied was "
                                           "not yet accepted"),
}


def _plots(frame: "pd.DataFrame", points: "pd.DataFrame", keys: Sequence[str], kind: Optional[str] = None) -> str:
    """The point figures of :data:`FIGURES` and :data:`INVERSIONS` (when some point counted
    one) from ``points`` (a row per point), the per-priority :data:`WORST_NODE` from ``frame``."""
    from .sweep import plan_plots

    points = points.assign(priority=0)
    pp = plan_plots(points, keys)
    if pp is None:
        return "<p>One point: nothing to plot.</p>"
    out = "".join(_plot(points, pp, column, title, what, kind) for column, (title, what) in FIGURES.items())
    by_priority = plan_plots(frame, keys)
    if by_priority is not None:
        out += _plot(frame, by_priority, *WORST_NODE, kind)
    out += "".join(_plot(points, pp, column, title, what, kind) for column, (title, what) in INVERSIONS.items()
                   if column in points.columns and (points[column].fillna(0) > 0).any())
    return f'<div class="plots">{out}</div>'


def _starved_table(points: "pd.DataFrame", keys: Sequence[str],
                   store: Optional[dict[tuple[str, int], list[StoredRun]]]) -> tuple[str, int, bool]:
    """One row per point and starved node: the point, its swept values, the node and,
    from the stored ``per_node`` tables when there are some, the node's own figures.
    Returns the table, its rows and whether it has the nodes' figures."""
    per_node: dict[int, dict[int, dict[str, Any]]] = {}
    if store is not None:
        for _, p in points.iterrows():
            try:
                key = (str(p["scenario_hash"]), int(p["seed"]))
            except (TypeError, ValueError):
                continue
            rows = stored_tables(store.get(key), p["ringlet_version"]).get("per_node") or []
            per_node[int(p["point"])] = {r.get("node"): r for r in rows}
    detail = any(per_node.values())
    header = ["point", *keys, "starved node", *(NODE_COLUMNS.values() if detail else ())]
    numeric = [True, *(is_numeric(points[k]) for k in keys), True, *([True] * len(NODE_COLUMNS) if detail else [])]
    body = []
    for _, p in points.iterrows():
        for node in node_list(p.get("starved_nodes")):
            row = [escape(number(p[c])) for c in ("point", *keys)] + [escape(number(node))]
            if detail:
                n = per_node.get(int(p["point"]), {}).get(node, {})
                row += [escape(number(n.get(c))) for c in NODE_COLUMNS]
            body.append(row)
    return html_table(header, body, numeric), len(body), detail


def fairness_section(frame: "pd.DataFrame", keys: Sequence[str],
                     store: Optional[dict[tuple[str, int], list[StoredRun]]]) -> Optional[str]:
    """The HTML of a sweep's fairness figures, or None when its table has none of them
    (a table written before ringlet reported them)."""
    present = [c for c in FIGURES if c in frame.columns and frame[c].notna().any()]
    if not present:
        return None
    points = frame.drop_duplicates("point")
    parts = [
        "<p>How evenly each point served its sending nodes. A node's <em>carried share</em> is the data it "
        "delivered over the data it offered (throughput / offered); <em>Jain's index</em> over the sending "
        "nodes' carried shares is 1 when every node carries the same share of its load and 1/n when one of "
        "n carries it all. A node is <em>starved</em> when it carried less than a tenth of its offered load "
        "while another sender carried more than half of its own. Total throughput and mean latency hide a "
        "starved node: its latency figures come only from the few of its transactions that got through, "
        "while the rest wait in its application queue. Read its carried share, its backlog and the age of "
        "its oldest waiting transaction instead.</p>",
        _plots(frame, points, keys, family_of(frame, store)),
    ]
    if "starved_nodes" in points.columns:
        table, n, detail = _starved_table(points, keys, store)
        if n:
            reps = (" With replications, the starved nodes and their figures are the first replication's."
                    if "replications" in points.columns else "")
            source = (" Each node's figures come from its point's <code>per_node</code> table in the results "
                      "store (a transaction still waiting or in flight when the run stopped is in the "
                      "backlog; the oldest waiting is the age of the oldest still in its application queue)."
                      if detail else "")
            flagged = sum(1 for v in points["starved_nodes"] if node_list(v))
            block = f'<div class="scroll">{table}</div>'
            if n > FOLD_ROWS:
                block = f"<details><summary>{n:,} rows</summary>{block}</details>"
            parts.append(f'<h3 id="starved-nodes">Starved nodes</h3><p>{flagged} of {len(points)} points have '
                         f"starved nodes: one row per point and starved node.{source}{reps}</p>{block}")
        else:
            parts.append("<p>No point has a starved node.</p>")
    if "total_min_carried_share_node" in points.columns and not all(
            is_missing(v) for v in points["total_min_carried_share_node"]):
        parts.append("<p>The node with the smallest carried share of each point is the sweep table's "
                     "<code>total_min_carried_share_node</code> column (-1 where no node offers load).</p>")
    return "".join(parts)
