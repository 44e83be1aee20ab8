"""The figure of a capacity search: each deadline's figure at the probed
values with its confidence interval, the deadline as a dashed line and the
capacity found as a dotted one; points that meet every deadline filled,
the others hollow."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from .. import _core

if TYPE_CHECKING:  # pragma: no cover
    from .capacity import Capacity

#: A deadline's figure in these units on the y axis (ns shown as us above this).
_US_ABOVE_NS = 10_000.0


def draw(result: "Capacity", path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from .capacity import parse_deadlines

    deadlines = parse_deadlines(result.deadlines)
    probes = sorted(result.probes, key=lambda p: p.value)
    fig = Figure(figsize=(max(6.4, 4.6 * len(deadlines)), 4.6), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(deadlines), squeeze=False)[0]
    for k, (ax, d) in enumerate(zip(axes, deadlines)):
        scale, unit = 1.0, d.unit
        if unit == "ns" and d.limit >= _US_ABOVE_NS:
            scale, unit = 1e-3, "us"
        for meets in (True, False):
            pts = [p for p in probes if p.meets == meets and p.checks[k]["figure"] is not None
                   and not math.isnan(p.checks[k]["figure"])]
            if not pts:
                continue
            ax.errorbar([p.value for p in pts], [p.checks[k]["figure"] * scale for p in pts],
                        yerr=[p.checks[k]["ci95"] * scale for p in pts], fmt="o", capsize=3,
                        color="tab:blue" if meets else "tab:red",
                        markerfacecolor="tab:blue" if meets else "none",
                        label="meets every deadline" if meets else "misses")
        ax.axhline(d.limit * scale, linestyle="--", color="0.3", label=f"deadline {d.text}")
        shown = [p.checks[k]["figure"] for p in probes if p.checks[k]["figure"] and p.checks[k]["figure"] > 0]
        if shown and d.limit > 0 and max(shown + [d.limit]) > 30 * min(shown + [d.limit]):
            ax.set_yscale("log")  # saturated points are orders of magnitude above the deadline
        if result.capacity is not None:
            ax.axvline(result.capacity, linestyle=":", color="tab:green", label=f"capacity {result.capacity:,.6g}")
        ax.set_xlabel(result.key)
        ax.set_ylabel(f"{d.metric} ({unit})" if unit else d.metric)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    where = f", priority {result.priority}" if result.priority is not None else ""
    fig.suptitle(textwrap.fill(f"{result.message()}{where}", 70), fontsize=10)
    fig.text(0.005, 0.005, f"ringlet {_core.version()} · {result.replications} replications per point",
             fontsize=7, color="0.4")
    meta = {"Software": None} if path.suffix == ".png" else {"Date": None, "Creator": None}
    fig.savefig(path, metadata=meta, **({"dpi": 110} if path.suffix == ".png" else {}))
