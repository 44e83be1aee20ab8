"""The analytic model beside a run (``model_*`` figures, docs/analytic.md): well
below saturation simulation and model should agree; where they part, that hints
at a fault of the model or of the simulator, and ``ringlet run`` says so."""

from __future__ import annotations

import math
from typing import Any, Mapping, Optional

#: Below this utilisation of the model's busiest resource the two are compared.
WELL_BELOW = 0.2
#: How far they may part there, as a fraction of the model's value, beyond the
#: simulation's 95% confidence half-width (docs/analytic.md: every shipped
#: scenario at 20% of its saturation is within 3% and 18%).
THROUGHPUT_MARGIN = 0.05
LATENCY_MARGIN = 0.25
#: Runs that end having measured their transactions or their precision, in at least
#: as many batches as the core trusts a confidence interval from.
MEASURED = ("transactions", "precision")
MIN_BATCHES = 10


def _number(x: Any) -> Optional[float]:
    return float(x) if isinstance(x, (int, float)) and math.isfinite(x) else None


def disagreement(summary: Mapping[str, Any]) -> Optional[str]:
    """A one-line description of how a run's throughput or mean latency parts from
    the model's beyond the stated margins, well below saturation; None if it does
    not (or the run is not well below saturation, has no model, or stopped short
    of its measurement: a time cap, fewer than ten batches)."""
    util = _number(summary.get("model_utilization"))
    if util is None or util > WELL_BELOW or not summary.get("transactions"):
        return None
    # Only a run that measured what it set out to, with a confidence interval to go by.
    if summary.get("stopped_by") not in MEASURED or (_number(summary.get("batches")) or 0) < MIN_BATCHES:
        return None
    parts = []
    for what, key, margin, unit in (("throughput", "throughput_mbps", THROUGHPUT_MARGIN, "MB/s"),
                                    ("mean latency", "latency_ns_mean", LATENCY_MARGIN, "ns")):
        sim, model = _number(summary.get(key)), _number(summary.get(f"model_{key}"))
        if sim is None or not model:
            continue
        ci = _number(summary.get(f"{key}_ci95")) or 0.0
        if abs(sim - model) - ci > margin * model:
            parts.append(f"{what} {sim:,.1f} {unit} against the model's {model:,.1f} "
                         f"({100 * (sim - model) / model:+.0f}%, margin {100 * margin:.0f}%)")
    if not parts:
        return None
    return (f"simulation and analytic model part at {100 * util:.0f}% of the model's saturation: "
            + "; ".join(parts) + " — a hint of a model or simulator fault (docs/analytic.md)")
