//! The packet-level go bits TRAIN's gearshift mode runs on below the
//! arbitration threshold: a node blocked by bypass traffic holds every other
//! node once its idles reach them. Base SCI's own flow control
//! (`bandwidth::Bandwidth`) also needs transmission recovery, which the
//! fabric follows per protocol (`Rules::recovery`), not per TRAIN mode.

use ringlet_engine::Time;
use ringlet_fabric::protocol::{Effects, Permit, RingletView};
use std::collections::VecDeque;

/// The go-bit bandwidth allocation, every packet alike (no priority levels).
pub struct GoBits {
    /// Each node: blocked by bypass traffic with an own packet waiting.
    blocked: Vec<bool>,
    /// Blocked-state transitions per node, oldest first, pruned to the
    /// window any other node can still observe.
    log: Vec<VecDeque<(Time, bool)>>,
    /// Time of each node's latest transition (when it is old enough, the
    /// current state is what every other node sees: no log scan needed).
    changed_at: Vec<Time>,
    blocked_count: usize,
    last_change: Time,
    /// For a held node, the still-blocked node whose release it waits for.
    waits_on: Vec<Option<u16>>,
    /// Bit `j`: node `j` waits on a release (`waits_on[j]` is set).
    waiting: Vec<u64>,
    /// Bit `i`: node `i` may be seen blocked by some node now: it is blocked,
    /// or changed within the last `max_dist`. A superset, cleared lazily,
    /// so that a decision on a large ring looks only at the nodes that can
    /// hold it (in node order, as a scan of every node would).
    recent: Vec<u64>,
    /// The ringlet: how long idles take from one node to another.
    view: RingletView,
    max_dist: Time,
    pub holds: u64,
    /// Holds per place (the report's per-link figure).
    pub holds_at: Vec<u64>,
}

impl GoBits {
    pub fn new(view: &RingletView) -> Self {
        let n = view.len();
        GoBits {
            blocked: vec![false; n],
            log: (0..n).map(|_| VecDeque::with_capacity(8)).collect(),
            changed_at: vec![0; n],
            blocked_count: 0,
            last_change: 0,
            waits_on: vec![None; n],
            waiting: vec![0; n.div_ceil(64)],
            recent: vec![0; n.div_ceil(64)],
            view: view.clone(),
            max_dist: view.longest_travel(),
            holds: 0,
            holds_at: vec![0; n],
        }
    }

    /// Time for idles to travel from node `i` to node `j`.
    #[inline]
    fn dist(&self, i: usize, j: usize) -> Time {
        self.view.travel(i, j)
    }

    #[inline]
    fn set_wait(&mut self, j: usize, on: Option<u16>) {
        self.waits_on[j] = on;
        let bit = 1u64 << (j % 64);
        if on.is_some() {
            self.waiting[j / 64] |= bit;
        } else {
            self.waiting[j / 64] &= !bit;
        }
    }

    /// Whether node `i` was blocked at time `t` (t within the observable window).
    #[inline]
    fn blocked_at(&self, i: usize, t: Time) -> bool {
        if t >= self.changed_at[i] {
            return self.blocked[i];
        }
        let log = &self.log[i];
        match log.iter().rposition(|&(at, _)| at <= t) {
            Some(k) => log[k].1,
            // Before the oldest kept transition: the state it replaced.
            None => log.front().is_some_and(|&(_, b)| !b),
        }
    }

    /// When node `i`'s block, seen at time `t`, was released, if it has been.
    fn released_after(&self, i: usize, t: Time) -> Option<Time> {
        self.log[i].iter().find(|&&(at, b)| at > t && !b).map(|&(at, _)| at)
    }

    /// May node `j` start a packet now?
    pub fn may_start(&mut self, j: usize, now: Time) -> Permit {
        self.set_wait(j, None);
        if self.blocked[j] {
            return Permit::Go;
        }
        if self.blocked_count == 0 && now >= self.last_change + self.max_dist {
            return Permit::Go;
        }
        let mut held = false;
        // Earliest time every blocker seen now (all released already) is seen released.
        let mut wake: Time = 0;
        'scan: for w in 0..self.recent.len() {
            for i in set_bits(w, self.recent[w]) {
                if !self.blocked[i] && self.changed_at[i] + self.max_dist <= now {
                    // Unblocked for longer than any node can look back: seen by no one.
                    self.recent[w] &= !(1u64 << (i % 64));
                    continue;
                }
                let d = self.dist(i, j);
                if i == j || now < d || !self.blocked_at(i, now - d) {
                    continue;
                }
                held = true;
                if self.blocked[i] {
                    // Still blocked: its release wakes us (set_blocked); no need to look further.
                    self.set_wait(j, Some(i as u16));
                    break 'scan;
                } else if let Some(u) = self.released_after(i, now - d) {
                    wake = wake.max(u + d);
                }
            }
        }
        if !held {
            return Permit::Go;
        }
        self.holds += 1;
        self.holds_at[j] += 1;
        if self.waits_on[j].is_some() {
            Permit::Hold { wake_at: None }
        } else {
            Permit::Hold { wake_at: Some(wake) }
        }
    }

    /// Node `i` becomes blocked by bypass traffic with an own packet
    /// waiting (`true`), or stops being blocked (`false`).
    pub fn set_blocked(&mut self, i: usize, now: Time, blocked: bool, fx: &mut Effects) {
        if self.blocked[i] == blocked {
            return;
        }
        self.blocked[i] = blocked;
        if blocked {
            self.blocked_count += 1;
        } else {
            self.blocked_count -= 1;
        }
        self.last_change = now;
        self.changed_at[i] = now;
        self.recent[i / 64] |= 1u64 << (i % 64);
        let log = &mut self.log[i];
        log.push_back((now, blocked));
        // Keep one transition at or before the oldest time anyone can observe.
        let horizon = now.saturating_sub(self.max_dist);
        while log.len() >= 2 && log[1].0 <= horizon {
            log.pop_front();
        }
        if !blocked {
            // Nodes held by this block may be released: they decide again
            // when the change becomes visible to them.
            for w in 0..self.waiting.len() {
                for j in set_bits(w, self.waiting[w]) {
                    if self.waits_on[j] == Some(i as u16) {
                        self.set_wait(j, None);
                        fx.wakes.push((j as u16, now + self.dist(i, j)));
                    }
                }
            }
        }
    }
}

/// The indices of the set bits of `word`, word `w` of a bitset over nodes,
/// in ascending order (a copy of the word: the caller may change the set).
#[inline]
fn set_bits(w: usize, mut word: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (word != 0).then(|| {
            let i = w * 64 + word.trailing_zeros() as usize;
            word &= word - 1;
            i
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ringlet_engine::time::TICKS_PER_NS as NS;

    /// A ring of `nodes` with 2 ns hops.
    fn params(nodes: u32) -> RingletView {
        crate::ring::view_of(nodes as usize, 2 * NS)
    }

    /// `may_start` as it was before the `recent` set: every node scanned.
    fn may_start_scanning_all(go: &GoBits, j: usize, now: Time) -> (Permit, Option<u16>) {
        if go.blocked[j] || (go.blocked_count == 0 && now >= go.last_change + go.max_dist) {
            return (Permit::Go, None);
        }
        let (mut held, mut wake, mut on) = (false, 0, None);
        for i in 0..go.view.len() {
            let d = go.dist(i, j);
            if i == j || now < d || !go.blocked_at(i, now - d) {
                continue;
            }
            held = true;
            if go.blocked[i] {
                on = Some(i as u16);
                break;
            } else if let Some(u) = go.released_after(i, now - d) {
                wake = wake.max(u + d);
            }
        }
        match (held, on) {
            (false, _) => (Permit::Go, None),
            (true, Some(_)) => (Permit::Hold { wake_at: None }, on),
            (true, None) => (Permit::Hold { wake_at: Some(wake) }, None),
        }
    }

    proptest::proptest! {
        /// Looking only at recently blocked nodes answers as a scan of every
        /// node does (rings of more than 64 nodes use several words), and the
        /// wakes a release sends go to the same nodes in the same order.
        #[test]
        fn go_bits_scan_only_recent_blockers(
            nodes in 2u32..140,
            // Half queries, a sixth blocks, a third releases: few nodes stay
            // blocked, so answers often hang on nodes released a moment ago.
            steps in proptest::collection::vec((0u32..140, 0u64..100, 0u8..6), 1..300),
        ) {
            let p = params(nodes);
            let mut go = GoBits::new(&p);
            let mut fx = Effects::default();
            let mut now: Time = 0;
            let mut waiters: Vec<Option<u16>> = vec![None; p.len()];
            for (node, dt, what) in steps {
                let node = node as usize % p.len();
                now += dt * NS;
                if what < 3 {
                    let (want, on) = may_start_scanning_all(&go, node, now);
                    proptest::prop_assert_eq!(go.may_start(node, now), want);
                    proptest::prop_assert_eq!(go.waits_on[node], on);
                    waiters[node] = on;
                } else {
                    fx.wakes.clear();
                    let was = go.blocked[node];
                    go.set_blocked(node, now, what == 3, &mut fx);
                    let mut want = Vec::new();
                    if was && !go.blocked[node] {
                        for (j, w) in waiters.iter_mut().enumerate() {
                            if *w == Some(node as u16) {
                                *w = None;
                                want.push((j as u16, now + go.dist(node, j)));
                            }
                        }
                    }
                    proptest::prop_assert_eq!(&fx.wakes, &want);
                }
            }
        }
    }

    #[test]
    fn go_bits_hold_other_nodes_after_the_hop_delay() {
        let p = params(4); // hop = 2 ns
        let mut sci = GoBits::new(&p);
        let mut fx = Effects::default();
        sci.set_blocked(0, 10 * NS, true, &mut fx);
        // Node 2 is two hops downstream of node 0: it sees the cleared go bits at 14 ns.
        assert_eq!(sci.may_start(2, 13_999), Permit::Go);
        assert_eq!(sci.may_start(2, 14 * NS), Permit::Hold { wake_at: None });
        // The blocked node itself is not held.
        assert_eq!(sci.may_start(0, 14 * NS), Permit::Go);
        // Node 0 sends at 20 ns: node 2 is woken when that becomes visible, at 24 ns.
        sci.set_blocked(0, 20 * NS, false, &mut fx);
        assert_eq!(fx.wakes, vec![(2, 24 * NS)]);
        assert_eq!(sci.may_start(2, 22 * NS), Permit::Hold { wake_at: Some(24 * NS) });
        assert_eq!(sci.may_start(2, 24 * NS), Permit::Go);
        assert_eq!(sci.holds, 2);
        // Both holds were node 2's (the report's per-link figure).
        assert_eq!(sci.holds_at, vec![0, 0, 2, 0]);
    }

    /// A held node wakes when the release of the block it saw is visible to
    /// it, not an earlier release. Node 0 (4-node ring, 2 ns hops) is
    /// blocked at 10 ns, released at 12, blocked at 14, released and blocked
    /// again at 18 (the same instant), released at 20. Node 2, two hops
    /// downstream, asks at 22 ns: it sees node 0 as it was at 18 ns,
    /// blocked; that block ends at 20 ns, seen at node 2 at 24 ns.
    #[test]
    fn a_held_node_wakes_when_the_block_it_saw_is_seen_released() {
        let p = params(4);
        let mut go = GoBits::new(&p);
        let mut fx = Effects::default();
        for (at, blocked) in [(10, true), (12, false), (14, true), (18, false), (18, true), (20, false)] {
            go.set_blocked(0, at * NS, blocked, &mut fx);
        }
        assert_eq!(go.may_start(2, 22 * NS), Permit::Hold { wake_at: Some(24 * NS) });
    }

    /// A block shorter than the ring is still seen downstream after it
    /// ended (the log keeps what any node can still see; the longest
    /// travel on a 4-node ring of 2 ns hops is 6 ns). Node 0 is blocked at
    /// 10 ns, released at 12 and blocked again at 14: node 2 (4 ns away)
    /// asks at 15 ns, sees node 0 as at 11 ns, blocked, and is held until
    /// node 0's present block ends.
    #[test]
    fn a_short_block_is_seen_downstream_after_it_ended() {
        let p = params(4);
        let mut go = GoBits::new(&p);
        let mut fx = Effects::default();
        for (at, blocked) in [(10, true), (12, false), (14, true)] {
            go.set_blocked(0, at * NS, blocked, &mut fx);
        }
        assert_eq!(go.may_start(2, 15 * NS), Permit::Hold { wake_at: None });
        // At 17 ns it sees node 0 as at 13 ns, released.
        assert_eq!(go.may_start(2, 17 * NS), Permit::Go);
    }
}
