//! The stretches of idles nodes converted while repaying their debts that
//! are still travelling round the ringlet. A node's stretches do not
//! overlap, so at most one of each node's reaches a given place at a given
//! time: the latest to have left the node by then. Each node's latest is
//! kept in one short list that a decision runs through; its earlier ones,
//! looked at only where its latest had not yet left it, wait per node (a
//! 128-node ring with a 181 µs revolution keeps thousands travelling, a
//! few per node on a short ring).

use ringlet_engine::Time;
use ringlet_fabric::protocol::RingletView;
use std::collections::VecDeque;

/// A stretch of idles a node converted while repaying: the go bits of
/// `level` and below it withheld from `from` to `to` (as they leave it).
#[derive(Clone, Copy, Debug)]
pub(super) struct Stretch {
    pub(super) from: Time,
    pub(super) to: Time,
    pub(super) node: u32,
    pub(super) level: u16,
    /// The node's offset on the ringlet (`RingletView::offset`).
    offset: Time,
    /// Kept with a node's latest: whether it has earlier ones (most of
    /// the time it has not, and a decision need not look).
    has_older: bool,
}

/// Not in `latest`.
const NONE: u32 = u32::MAX;

/// The stretches of converted idles that some node may still see.
pub(super) struct Stretches {
    /// Each node's latest stretch, for the nodes that have any, in no order.
    latest: Vec<Stretch>,
    /// Per node: where its latest is in `latest` (`NONE`: it has none).
    slot: Vec<u32>,
    /// Per node: its earlier stretches, oldest first.
    older: Vec<VecDeque<Stretch>>,
}

impl Stretches {
    /// No stretches yet, on a ringlet of `n` nodes.
    pub(super) fn new(n: usize) -> Self {
        Stretches { latest: Vec::new(), slot: vec![NONE; n], older: (0..n).map(|_| VecDeque::new()).collect() }
    }

    /// A stretch of `node`'s, whose offset on the ringlet is `offset`.
    pub(super) fn push(&mut self, node: usize, offset: Time, from: Time, to: Time, level: u16) {
        let mut s = Stretch { from, to, node: node as u32, level, offset, has_older: false };
        match self.slot[node] {
            NONE => {
                self.slot[node] = self.latest.len() as u32;
                self.latest.push(s);
            }
            k => {
                s.has_older = true;
                let before = std::mem::replace(&mut self.latest[k as usize], s);
                // (A node converts idles only once its last repayment ended or was cut short.)
                debug_assert!(before.to <= from, "node {node}'s stretches overlap");
                self.older[node].push_back(before);
            }
        }
    }

    /// Forgets `node`'s stretches that ended by `horizon`.
    pub(super) fn forget(&mut self, node: usize, horizon: Time) {
        let older = &mut self.older[node];
        // In time order: the ended ones come first.
        while older.front().is_some_and(|s| s.to <= horizon) {
            older.pop_front();
        }
        let k = self.slot[node];
        if k != NONE {
            if self.latest[k as usize].to <= horizon {
                self.drop_latest(k as usize);
            } else {
                self.latest[k as usize].has_older = !older.is_empty();
            }
        }
    }

    /// Forgets the latest stretch at `k` in `latest`, and its node's earlier
    /// ones: it has ended, so have they.
    fn drop_latest(&mut self, k: usize) {
        let node = self.latest.swap_remove(k).node as usize;
        if let Some(moved) = self.latest.get(k) {
            self.slot[moved.node as usize] = k as u32;
        }
        self.slot[node] = NONE;
        self.older[node].clear();
    }

    pub(super) fn latest_mut(&mut self, node: usize) -> Option<&mut Stretch> {
        match self.slot[node] {
            NONE => None,
            k => Some(&mut self.latest[k as usize]),
        }
    }

    /// Calls `f`, for every node with stretches, with the one of its whose
    /// idles may be reaching position `j` of `view` at `now` (the latest
    /// one to have left the node by the time `left` = `now` - travel, if
    /// any), the travel from the node to `j` and `left`; `f` judges it (it
    /// may have ended by `left`, the travel be longer than the time so far,
    /// so that `left` wrapped, or the node be `j` itself). Forgets the
    /// nodes whose stretches all ended by `horizon`.
    #[inline]
    pub(super) fn visit(&mut self, now: Time, horizon: Time, view: &RingletView, j: usize, mut f: impl FnMut(&Stretch, Time, Time)) {
        let (at, round) = (view.offset(j), view.round());
        let mut ended = false;
        for s in &self.latest {
            if s.to <= horizon {
                ended = true;
                continue;
            }
            // Downstream from the node to `j`, round the ring if `j` is before it.
            let wraps = (j < s.node as usize) as Time;
            let d = at.wrapping_sub(s.offset).wrapping_add(wraps * round);
            let left = now.wrapping_sub(d);
            // (One call of `f`, so that it is inlined.)
            let c = if s.from <= left {
                s
            } else if !s.has_older {
                continue;
            } else {
                match Self::earlier(&self.older[s.node as usize], left) {
                    Some(c) => c,
                    None => continue,
                }
            };
            f(c, d, left);
        }
        if ended {
            self.forget_ended(horizon);
        }
    }

    /// Of a node's earlier stretches, the latest to have left it by `left`.
    #[cold]
    fn earlier(older: &VecDeque<Stretch>, left: Time) -> Option<&Stretch> {
        let after = older.partition_point(|s| s.from <= left);
        after.checked_sub(1).map(|k| &older[k])
    }

    /// Forgets the nodes whose latest stretch ended by `horizon`: seen by
    /// nobody any more (every node sees it within the ringlet's longest
    /// travel), nor their earlier ones.
    #[cold]
    fn forget_ended(&mut self, horizon: Time) {
        let mut k = 0;
        while k < self.latest.len() {
            if self.latest[k].to <= horizon {
                self.drop_latest(k);
            } else {
                k += 1;
            }
        }
    }

    /// How many stretches it keeps.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.latest.len() + self.older.iter().map(VecDeque::len).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each node's ended stretches are forgotten (its own by `forget`,
    /// everyone's by a visit), its latest is the one its repayment changes,
    /// and a visit gives, per node, the latest stretch to have left it by
    /// the time its idles would reach the place.
    #[test]
    fn a_visit_gives_each_nodes_stretch_reaching_the_place() {
        let view = crate::ring::view_of(4, 2000);
        let mut w = Stretches::new(view.len());
        w.push(0, view.offset(0), 10, 20, 1);
        w.push(1, view.offset(1), 15, 40, 1);
        w.push(0, view.offset(0), 30, 50, 1);
        // Node 0's first stretch ends by 25: forgotten; node 1's is kept.
        w.forget(0, 25);
        assert_eq!((w.len(), w.older[0].len(), w.slot[1] != NONE), (2, 0, true));
        w.latest_mut(0).expect("node 0's latest").to = 60;
        w.latest_mut(1).expect("node 1's latest").to = 45;
        let mut seen = Vec::new();
        // At position 2 at 4 035: node 0's idles left it 4 ns before (at 35), node 1's 2 ns before.
        w.visit(4_035, 0, &view, 2, |s, d, _| seen.push((s.node, s.from, s.to, d)));
        seen.sort();
        assert_eq!(seen, vec![(0, 30, 60, 4000), (1, 15, 45, 2000)]);
        // By 45 node 1's has ended for everyone: dropped, node 0's kept.
        let mut seen = Vec::new();
        w.visit(2_035, 45, &view, 1, |s, d, _| seen.push((s.node, d)));
        assert_eq!(seen, vec![(0, 2000)]);
        assert_eq!((w.older[1].len(), w.slot[1], w.latest_mut(1).is_none()), (0, NONE, true));
        assert_eq!(w.latest_mut(0).map(|s| s.to), Some(60));
        // Of node 0's two, the one that had left it by then; none before the first.
        w.push(0, view.offset(0), 60, 70, 1);
        for (now, from) in [(4_065, Some(60)), (4_060, Some(60)), (4_045, Some(30)), (4_029, None)] {
            let mut seen = Vec::new();
            w.visit(now, 0, &view, 2, |s, _, _| seen.push(s.from));
            assert_eq!(seen.first().copied(), from, "at {now}");
        }
        // Travel from node 3 round to positions 0 and 2 wraps the ring:
        // one hop and three; node 0 to itself none.
        w.push(3, view.offset(3), 70, 80, 1);
        let mut seen = Vec::new();
        w.visit(10_000, 0, &view, 0, |s, d, _| seen.push((s.node, d)));
        seen.sort();
        assert_eq!(seen, vec![(0, 0), (3, 2000)]);
        let mut seen = Vec::new();
        w.visit(10_000, 0, &view, 2, |s, d, _| seen.push((s.node, d)));
        seen.sort();
        assert_eq!(seen, vec![(0, 4000), (3, 6000)]);
    }

    /// The travel a visit gives is the view's, on a ringlet of uneven
    /// hops, from every node to every position (either side of the wrap).
    #[test]
    fn a_visit_gives_the_views_travel() {
        use ringlet_fabric::topology::TopologyBuilder;
        let mut b = TopologyBuilder::new();
        let hops = [1_000, 7_000, 2_000, 30_000, 5_000];
        let members: Vec<_> = hops.iter().enumerate().map(|(k, &hop)| (b.agent(format!("n{k}"), true), hop)).collect();
        b.ringlet(&members);
        let view = b.build().expect("one ringlet").view(0);
        let mut w = Stretches::new(view.len());
        for node in 0..hops.len() {
            w.push(node, view.offset(node), 0, 1_000_000, 1);
        }
        for j in 0..hops.len() {
            let mut seen = Vec::new();
            w.visit(100_000, 0, &view, j, |s, d, _| seen.push((s.node as usize, d)));
            assert_eq!(seen.len(), hops.len());
            for (node, d) in seen {
                assert_eq!(d, view.travel(node, j), "from {node} to {j}");
            }
        }
    }

    /// Whatever the stretches, the ones a visit gives that reach the place
    /// (left their node within them) are those a look at every stretch
    /// finds, as repayments push, extend, cut short and forget them.
    #[test]
    fn a_visit_finds_what_a_look_at_every_stretch_finds() {
        let view = crate::ring::view_of(6, 3000);
        let n = view.len();
        let mut w = Stretches::new(n);
        let mut all: Vec<Stretch> = Vec::new();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        let (mut now, mut free_from) = (0, vec![0; n]);
        for _ in 0..4_000 {
            now += next(700);
            let node = next(n as u64) as usize;
            match next(4) {
                0 | 1 if free_from[node] <= now => {
                    let to = now + 1 + next(2_000);
                    w.push(node, view.offset(node), now, to, next(3) as u16);
                    all.push(Stretch { from: now, to, node: node as u32, level: 0, offset: 0, has_older: false });
                    free_from[node] = to;
                }
                2 => {
                    // Extended or cut short, never before it began.
                    if let Some(last) = w.latest_mut(node) {
                        let to = last.from.max(now.saturating_sub(500)) + next(1_000);
                        last.to = to;
                        let mirror = all.iter_mut().rev().find(|s| s.node as usize == node).expect("mirrored");
                        mirror.to = to;
                        free_from[node] = to;
                    }
                }
                _ => {
                    let horizon = now.saturating_sub(view.round());
                    let j = next(n as u64) as usize;
                    let mut seen = Vec::new();
                    w.visit(now, horizon, &view, j, |s, d, left| {
                        if s.node as usize != j && now >= d && s.from <= left && left < s.to {
                            seen.push((s.node, s.from));
                        }
                    });
                    seen.sort();
                    let mut expected: Vec<_> = all
                        .iter()
                        .filter(|s| s.to > horizon && s.node as usize != j)
                        .filter(|s| {
                            let d = view.travel(s.node as usize, j);
                            now >= d && s.from <= now - d && now - d < s.to
                        })
                        .map(|s| (s.node, s.from))
                        .collect();
                    expected.sort();
                    assert_eq!(seen, expected, "at {now}, place {j}");
                }
            }
        }
    }
}
