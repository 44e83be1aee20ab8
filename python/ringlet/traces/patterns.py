"""The patterns ``ringlet trace-gen`` writes, each a generator of rows
``(time_ns, src, dst, priority)`` in time order (one transaction each; the kind is
the same for every row, written by :mod:`.write`).

Every pattern runs over ``nodes`` endpoints numbered 0..nodes-1 that both send and
receive (a ring, a GigaRing channel); ``to_memories`` numbers destinations as a
switch or Banyan network's memories (``nodes + d``), so processor ``k`` may send to
its own memory. A burst of ``count`` transactions from one node is spaced
``gap_ns`` apart.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Iterator

Row = tuple[float, int, int, int]


class TraceGenError(ValueError):
    """A pattern's options are out of range (one line naming the option)."""


@dataclass(frozen=True)
class Options:
    nodes: int = 8
    count: int = 4            # transactions per message (a chunk, a burst, a node's frame share)
    gap_ns: float = 100.0     # between the transactions of one message
    period_ns: float = 10_000.0
    repeats: int = 1          # rounds, frames or bursts
    priorities: int = 1
    seed: int = 1
    to_memories: bool = False

    def check(self) -> None:
        if self.nodes < 2:
            raise TraceGenError(f"--nodes: expected an integer >= 2, got {self.nodes}")
        for name in ("count", "repeats", "priorities"):
            if getattr(self, name) < 1:
                raise TraceGenError(f"--{name}: expected an integer >= 1, got {getattr(self, name)}")
        if not self.gap_ns >= 0:
            raise TraceGenError(f"--gap-ns: expected a time >= 0, got {self.gap_ns}")
        if not self.period_ns > 0:
            raise TraceGenError(f"--period-ns: expected a time > 0, got {self.period_ns}")

    def dst(self, d: int) -> int:
        return self.nodes + d if self.to_memories else d


def _messages(o: Options, start: float, pairs: list[tuple[int, int, int]]) -> Iterator[Row]:
    """``count`` transactions for each ``(src, dst, priority)`` of ``pairs``, all
    starting at ``start``, interleaved in time order."""
    for j in range(o.count):
        t = start + j * o.gap_ns
        for src, dst, prio in pairs:
            yield (t, src, o.dst(dst), prio)


def all_reduce(o: Options) -> Iterator[Row]:
    """Ring all-reduce: 2 (nodes - 1) steps (reduce-scatter, then all-gather), each
    node sending a chunk (``count`` transactions) to the next, a step every
    ``period_ns``; ``repeats`` rounds."""
    n = o.nodes
    steps = 2 * (n - 1)
    for r in range(o.repeats):
        for s in range(steps):
            yield from _messages(o, (r * steps + s) * o.period_ns, [(k, (k + 1) % n, 0) for k in range(n)])


def all_to_all(o: Options) -> Iterator[Row]:
    """All-to-all personalized exchange: in phase p (1..nodes-1) node k sends a
    message of ``count`` transactions to node k + p (no two to one node at once),
    a phase every ``period_ns``; ``repeats`` rounds."""
    n = o.nodes
    for r in range(o.repeats):
        for p in range(1, n):
            yield from _messages(o, (r * (n - 1) + p - 1) * o.period_ns, [(k, (k + p) % n, 0) for k in range(n)])


def frame(o: Options) -> Iterator[Row]:
    """A periodic real-time frame: every ``period_ns`` each node sends, at every
    priority 0..priorities-1, a message of ``count`` transactions to the node
    1 + priority downstream (the highest priority first in each instant);
    ``repeats`` frames."""
    n = o.nodes
    for f in range(o.repeats):
        pairs = [(k, (k + 1 + q) % n if (k + 1 + q) % n != k else (k + 1) % n, q)
                 for q in reversed(range(o.priorities)) for k in range(n)]
        yield from _messages(o, f * o.period_ns, pairs)


def bursts(o: Options) -> Iterator[Row]:
    """Bursts: in each of ``repeats`` periods every node sends one burst of ``count``
    transactions to one other node, the destination and the burst's start within
    the period drawn uniformly (``seed``)."""
    n, rng = o.nodes, random.Random(o.seed)
    last = o.period_ns - (o.count - 1) * o.gap_ns
    if last < 0:
        raise TraceGenError(f"--period-ns: a burst of --count {o.count} at --gap-ns {o.gap_ns} does not fit "
                            f"in {o.period_ns} ns")
    for b in range(o.repeats):
        starts = []
        for k in range(n):
            start = b * o.period_ns + round(rng.uniform(0, last), 3)
            dst = rng.randrange(n - 1)
            starts.append((start, k, dst + (dst >= k)))
        rows = [(s + j * o.gap_ns, k, o.dst(d), 0) for s, k, d in starts for j in range(o.count)]
        rows.sort(key=lambda r: (r[0], r[1]))
        yield from rows


#: Pattern name -> (rows, one line on it).
PATTERNS: dict[str, tuple[Callable[[Options], Iterator[Row]], str]] = {
    "all-reduce": (all_reduce, "ring all-reduce: each node sends a chunk to the next, 2 (nodes - 1) steps a round"),
    "all-to-all": (all_to_all, "all-to-all: in phase p node k sends to node k + p, nodes - 1 phases a round"),
    "frame": (frame, "a periodic real-time frame: every node sends a message per priority each period"),
    "bursts": (bursts, "bursts: every node one burst to a random node per period, at a random start"),
}
