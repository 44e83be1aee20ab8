"""Replications: independent seed streams per point, and their means with
Student-t confidence intervals across them (docs/sweeps.md)."""

from __future__ import annotations

import hashlib
import math
import statistics
from typing import Any, Mapping, Sequence

from .. import _core
from .table import NODE_FIELDS, NUMERIC_FIELDS, OPTIONAL_FIELDS, TEXT_FIELDS, columns

#: Figures averaged over replications: every numeric figure but those that name a node
#: (``total_min_carried_share_node``), which are replication 0's.
AVERAGED_FIELDS = [f for f in NUMERIC_FIELDS if f not in NODE_FIELDS]

#: Figures averaged over replications that also get a ``<name>_rep_ci95`` column:
#: every averaged figure but the runs' own batch-means half-widths (``*_ci95``),
#: which are only averaged.
REPLICATED_FIELDS = [f for f in AVERAGED_FIELDS if not f.endswith("_ci95")]


def aggregate_columns(keys: Sequence[str], optional: Sequence[str] = ()) -> list[str]:
    """The sweep table's columns with replications: means, then the count and the across-replication CIs
    (of the optional figures, those in ``optional``: see :func:`~ringlet.runs.table.optional_present`)."""
    return [*columns(keys, optional), "replications",
            *(f"{f}_rep_ci95" for f in REPLICATED_FIELDS if f not in OPTIONAL_FIELDS or f in optional)]


def replication_seed(seed: int, replication: int) -> int:
    """The seed of replication ``replication`` of a point whose ``run.seed`` is ``seed``.

    Replication 0 keeps ``seed``, so a one-replication sweep is the plain sweep
    and shares its stored runs. The others hash (seed, replication) with
    BLAKE2b into 63 bits: fixed, different per replication, and far from
    the small consecutive seeds people write by hand.
    """
    if replication == 0:
        return seed
    digest = hashlib.blake2b(f"ringlet-replication/{seed}/{replication}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def aggregate(rep_rows: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> list[dict[str, Any]]:
    """One row per point x priority from per-replication rows: each figure's mean over
    the replications and, as ``<figure>_rep_ci95``, its 95% CI half-width (Student t).

    Identity and provenance columns are replication 0's, and so are the columns
    that name nodes (:data:`~ringlet.runs.table.NODE_FIELDS`: the node with the
    smallest carried share, the starved nodes): an average of node numbers means
    nothing. A text figure (``stopped_by``) lists every value that occurred.
    """
    groups: dict[tuple[Any, Any], list[Mapping[str, Any]]] = {}
    for row in rep_rows:
        groups.setdefault((row["point"], row["priority"]), []).append(row)
    out = []
    for rows_ in groups.values():
        rows_ = sorted(rows_, key=lambda r: r["replication"])
        row = {c: rows_[0].get(c) for c in columns(keys)}
        for f in AVERAGED_FIELDS:
            vals = [r[f] for r in rows_ if r.get(f) is not None]
            row[f] = math.fsum(vals) / len(vals) if vals else None
        for f in (f for f in TEXT_FIELDS if f not in NODE_FIELDS):
            row[f] = ",".join(sorted({str(r[f]) for r in rows_ if r.get(f) is not None})) or None
        row["replications"] = len(rows_)
        for f in REPLICATED_FIELDS:
            vals = [r[f] for r in rows_ if r.get(f) is not None]
            n = len(vals)
            row[f"{f}_rep_ci95"] = _core.t95(n - 1) * statistics.stdev(vals) / math.sqrt(n) if n >= 2 else None
        out.append(row)
    return out
