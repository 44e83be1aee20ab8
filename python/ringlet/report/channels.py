"""A sweep's GigaRing figures in the report: each point's virtual channels (``per_vc``)
and rings (``per_ringlet``), from the results store, and a plot of each virtual
channel's throughput.

Like the switch section (:mod:`.switches`), these come from each point's whole
result in the results store. Only points whose result has virtual channels (a
GigaRing channel) count: an SCI ring also reports ``per_ringlet``, but its one
ringlet is the ring the rest of the page describes, so a sweep of rings gets
no section.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

from .html import escape
from .store import StoredRun
from .switches import points_tables, tables_html

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: Report tables the section shows per point: table -> (heading, what a row is).
TABLES = {
    "per_vc": ("Per virtual channel", "one row per point and virtual channel: the data its packets delivered"),
    "per_ringlet": ("Per ring", "one row per point and ring (ringlet 0 is ring 0): the utilisation of its links, "
                                "by send packets and by all symbols (echoes and passing packets too)"),
}


def _plot(points: "pd.DataFrame", keys: Sequence[str], found: dict[int, list[dict[str, Any]]]) -> str:
    """Each virtual channel's throughput against the first swept key, a line per channel."""
    import pandas as pd

    from .html import img
    from .sweep import plan_plots, sweep_plot_svg

    rows = []
    for _, p in points.iterrows():
        for vc in found.get(int(p["point"]), []):
            if vc.get("throughput_mbps") is not None:
                rows.append({"point": p["point"], **{k: p[k] for k in keys}, "virtual channel": vc.get("name"),
                             "priority": 0, "throughput_mbps": vc["throughput_mbps"]})
    frame = pd.DataFrame(rows)
    pp = plan_plots(frame, [*keys, "virtual channel"]) if len(frame) and keys else None
    if pp is None or pp.x == "virtual channel":
        return ""
    title = f"Throughput per virtual channel vs {pp.x}"
    svg = sweep_plot_svg(frame, pp, "throughput_mbps", title, "gigaring")
    return (f'<div class="plots"><figure class="plot">{img(svg, "image/svg+xml", title)}'
            f"<figcaption>Data delivered per virtual channel vs <code>{escape(pp.x)}</code>, one line per "
            f"{escape(' and '.join(pp.group_by))}. {escape(pp.note.strip())}</figcaption></figure></div>")


def channel_section(frame: "pd.DataFrame", keys: Sequence[str],
                    store: Optional[dict[tuple[str, int], list[StoredRun]]]) -> Optional[str]:
    """The HTML of the virtual-channel and ring figures of a sweep's points, or None when no
    stored result has virtual channels (or there is no store)."""
    if store is None:
        return None
    points = frame.drop_duplicates("point")
    found = points_tables(points, store, list(TABLES), require="per_vc")
    if not found["per_vc"]:
        return None
    parts = ["<p>Each point's virtual channels and rings, from its result in the results store (with "
             "replications, the first replication's). The four virtual channels carry read requests, read "
             "responses, write requests and write responses (messages go on the write-request channel); "
             "a channel's MB/s is the data its packets delivered.</p>",
             _plot(points, keys, found["per_vc"])]
    parts += tables_html(points, keys, found, TABLES)
    return "".join(parts)
