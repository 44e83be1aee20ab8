//! The stretches of idles nodes converted while repaying their debts,
//! kept as one short list of those still travelling round the ringlet:
//! a decision looks at these, whatever the ring's size.

use ringlet_engine::Time;
use ringlet_fabric::protocol::RingletView;

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
}

/// The stretches of converted idles that some node may still see, in no
/// particular order, and each node's latest (the one its repayment extends
/// or cuts short).
pub(super) struct Stretches {
    list: Vec<Stretch>,
    /// Per node: its latest stretch's index in `list`, if still there.
    latest: Vec<Option<u32>>,
    /// Per node: how many of its stretches `list` holds.
    count: Vec<u32>,
}

impl Stretches {
    /// No stretches yet, on a ringlet of `n` nodes.
    pub(super) fn new(n: usize) -> Self {
        Stretches { list: Vec::new(), latest: vec![None; n], count: vec![0; n] }
    }

    /// A stretch of `node`'s, whose offset on the ringlet is `offset`.
    pub(super) fn push(&mut self, node: usize, offset: Time, from: Time, to: Time, level: u16) {
        let s = Stretch { from, to, node: node as u32, level, offset };
        self.latest[node] = Some(self.list.len() as u32);
        self.count[node] += 1;
        self.list.push(s);
    }

    /// Forgets `node`'s stretches that ended by `horizon`.
    pub(super) fn forget(&mut self, node: usize, horizon: Time) {
        let mut k = 0;
        while self.count[node] != 0 && k < self.list.len() {
            let s = &self.list[k];
            if s.node as usize == node && s.to <= horizon {
                self.remove(k);
            } else {
                k += 1;
            }
        }
    }

    pub(super) fn latest_mut(&mut self, node: usize) -> Option<&mut Stretch> {
        self.latest[node].map(|k| &mut self.list[k as usize])
    }

    /// Calls `f` with every stretch and the travel on `view` from its node
    /// to position `j`; forgets those that ended by `horizon`.
    /// (Every decision of a node with a packet waiting runs through the
    /// list, so the travel is worked out from the offsets kept with it, and
    /// the rare forgetting is a second pass.)
    #[inline]
    pub(super) fn visit(&mut self, horizon: Time, view: &RingletView, j: usize, mut f: impl FnMut(&Stretch, Time)) {
        let (at, round) = (view.offset(j), view.round());
        let mut ended = false;
        for s in &self.list {
            if s.to <= horizon {
                ended = true;
                continue;
            }
            // Downstream from the node to `j`, round the ring if `j` is before it.
            let wraps = (j < s.node as usize) as Time;
            f(s, at.wrapping_sub(s.offset).wrapping_add(wraps * round));
        }
        if ended {
            self.forget_ended(horizon);
        }
    }

    /// Forgets every stretch that ended by `horizon`: seen by nobody any
    /// more (every node sees it within the ringlet's longest travel).
    #[cold]
    fn forget_ended(&mut self, horizon: Time) {
        let mut k = 0;
        while k < self.list.len() {
            if self.list[k].to <= horizon {
                self.remove(k);
            } else {
                k += 1;
            }
        }
    }

    fn remove(&mut self, k: usize) {
        let gone = self.list.swap_remove(k);
        self.count[gone.node as usize] -= 1;
        if self.latest[gone.node as usize] == Some(k as u32) {
            self.latest[gone.node as usize] = None;
        }
        if let Some(moved) = self.list.get(k) {
            if self.latest[moved.node as usize] == Some(self.list.len() as u32) {
                self.latest[moved.node as usize] = Some(k as u32);
            }
        }
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    /// The stretches list keeps each node's latest stretch found through
    /// removals that move it, forgets only the node's own ended stretches,
    /// and drops what has ended by the horizon when visited.
    #[test]
    fn stretches_keep_each_nodes_latest_through_removals() {
        let view = crate::ring::view_of(4, 2000);
        let mut w = Stretches::new(view.len());
        w.push(0, view.offset(0), 10, 20, 1);
        w.push(1, view.offset(1), 15, 40, 1);
        w.push(0, view.offset(0), 30, 50, 1);
        // Node 0's first stretch ends by 25: forgetting it moves node 0's
        // latest into its place; node 1's is kept.
        w.forget(0, 25);
        assert_eq!((w.list.len(), w.count[0], w.count[1]), (2, 1, 1));
        w.latest_mut(0).expect("node 0's latest").to = 60;
        w.latest_mut(1).expect("node 1's latest").to = 45;
        let mut seen = Vec::new();
        w.visit(0, &view, 2, |s, d| seen.push((s.node, s.from, s.to, d)));
        seen.sort();
        // Travel to position 2: 4 ns from node 0, 2 ns from node 1.
        assert_eq!(seen, vec![(0, 30, 60, 4000), (1, 15, 45, 2000)]);
        // By 45 node 1's has ended for everyone: dropped, node 0's kept.
        let mut seen = Vec::new();
        w.visit(45, &view, 1, |s, d| seen.push((s.node, d)));
        assert_eq!(seen, vec![(0, 2000)]);
        assert_eq!((w.count[0], w.count[1], w.latest[1]), (1, 0, None));
        assert_eq!(w.latest_mut(0).map(|s| s.to), Some(60));
        // Travel from node 3 round to positions 0 and 2 wraps the ring:
        // one hop and three.
        w.push(3, view.offset(3), 70, 80, 1);
        let mut seen = Vec::new();
        w.visit(0, &view, 0, |s, d| seen.push((s.node, d)));
        seen.sort();
        assert_eq!(seen, vec![(0, 0), (3, 2000)]);
        let mut seen = Vec::new();
        w.visit(0, &view, 2, |s, d| seen.push((s.node, d)));
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
            w.visit(0, &view, j, |s, d| seen.push((s.node as usize, d)));
            assert_eq!(seen.len(), hops.len());
            for (node, d) in seen {
                assert_eq!(d, view.travel(node, j), "from {node} to {j}");
            }
        }
    }
}
