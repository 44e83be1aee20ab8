"""Each point's provenance table, shared by the sweep and the reproduction sections."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

from ..runs.table import TEXT_FIELDS
from .html import escape, html_table, number
from .store import StoredRun
from .tables import is_numeric

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


def _seed(x: Any) -> Optional[int]:
    try:
        return int(x)
    except (TypeError, ValueError):
        return None


def wall_split(wall_s: float, setup_s: Optional[float]) -> str:
    """A run's wall time and its split: ``1.24 s wall (0.95 s set-up, 0.29 s run)``; the
    set-up is the scenario's reading and the network's building, the run the simulation."""
    if setup_s is None:  # (a result from before the split was kept)
        return f"{wall_s:.2f} s wall"
    return f"{wall_s:.2f} s wall ({setup_s:.2f} s set-up, {max(wall_s - setup_s, 0.0):.2f} s run)"


def _toml_details(runs: Optional[list[StoredRun]], version: Any) -> str:
    """The stored scenario of a point, collapsible, with the store's run records."""
    if not runs:
        return '<span class="muted">not in the store</span>'
    same = [r for r in runs if r.ringlet_version == version] or runs
    scenario = next((r.scenario for r in same if r.scenario), None)
    records = "; ".join(
        f"run {r.id}" + (f", replication {r.replication}" if r.replication is not None else "")
        + (f", ringlet {r.ringlet_version}" if r.ringlet_version else "")
        + (f", finished {r.finished_at}" if r.finished_at else "")
        + (f", {wall_split(r.wall_time_s, r.setup_time_s)}" if r.wall_time_s is not None else "")
        for r in runs)
    body = f"<pre>{escape(scenario)}</pre>" if scenario else '<p class="muted">no scenario stored</p>'
    return (f'<details><summary>scenario TOML</summary><p class="muted">{escape(records)}</p>{body}</details>')


def provenance_table(frame: "pd.DataFrame", keys: Sequence[str],
                      store: Optional[dict[tuple[str, int], list[StoredRun]]]) -> str:
    """One row per point: its swept values, headline figures and provenance (and stored TOML)."""
    points = frame.drop_duplicates("point")
    header = ["point", *keys]
    extra = [c for c in ("total_throughput_mbps", "total_latency_ns_mean", "stopped_by") if c in frame.columns]
    header += extra + ["scenario_hash", "seed", "ringlet_version"]
    numeric = [True] + [is_numeric(frame[k]) for k in keys] + [c not in TEXT_FIELDS for c in extra]
    numeric += [False, True, False]
    if store is not None:
        header.append("scenario (results store)")
    rows = []
    for _, r in points.iterrows():
        cells = [escape(number(r[c])) for c in ("point", *keys, *extra)]
        cells += [f"<code>{escape(r['scenario_hash'])}</code>", escape(number(r["seed"])), escape(r["ringlet_version"])]
        if store is not None:
            cells.append(_toml_details(store.get((str(r["scenario_hash"]), _seed(r["seed"]))), r["ringlet_version"]))
        rows.append(cells)
    return html_table(header, rows, numeric, cls="provenance")
