//! The yardstick `ringlet bench` measures the simulator against: a bare
//! event loop that moves packets round a ring and does nothing else.
//!
//! Absolute speed says little on a host whose speed drifts (another tenant
//! shares the core) and nothing across machines. What a simulator costs
//! beyond the least any packet-level event loop must do is what its design
//! decides, and that survives both: each workload's packet-hops per second
//! are reported as a ratio to this loop's, run right after it on the same
//! number of nodes with as many packets in flight.
//!
//! The loop is a binary heap of (time, packet, node) events. Each hop pops
//! the earliest event and pushes the packet's arrival at the next node on
//! the ring, one hop time later: a packet's hop time is a whole number of
//! 2 ns symbols, 1 to 64 of them as a packet's length would be, drawn from
//! a xorshift generator so that the heap's order keeps changing as a
//! simulation's does. It keeps a count per node, so that the work cannot be
//! optimised away, and nothing else.

use ringlet_engine::time::{Time, TICKS_PER_NS};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// One symbol (2 ns), in the simulator's time unit.
const SYMBOL: Time = 2 * TICKS_PER_NS;

/// What one run of the loop did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoopRun {
    pub hops: u64,
    pub wall_s: f64,
    /// Hops at each node, summed with their node numbers (a check that the
    /// packets went round: the same for the same arguments).
    pub checksum: u64,
}

impl LoopRun {
    pub fn hops_per_s(&self) -> f64 {
        self.hops as f64 / self.wall_s.max(1e-9)
    }
}

/// Moves `packets` packets round a ring of `nodes` nodes for `hops` hops in all.
pub fn run(nodes: usize, packets: usize, hops: u64) -> LoopRun {
    let nodes = nodes.max(1);
    let packets = packets.max(1);
    let mut rng: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next_hop = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (1 + (rng & 63)) * SYMBOL
    };
    let mut heap: BinaryHeap<Reverse<(Time, u32, u32)>> = BinaryHeap::with_capacity(packets);
    for p in 0..packets {
        heap.push(Reverse((next_hop(), p as u32, (p % nodes) as u32)));
    }
    let mut at_node = vec![0u64; nodes];
    let start = Instant::now();
    for _ in 0..hops {
        let Reverse((time, packet, node)) = heap.pop().expect("packets never leave the ring");
        at_node[node as usize] += 1;
        let next = if node as usize + 1 == nodes { 0 } else { node + 1 };
        heap.push(Reverse((time + next_hop(), packet, next)));
    }
    let wall_s = start.elapsed().as_secs_f64();
    let checksum = std::hint::black_box(&at_node).iter().enumerate().map(|(n, &k)| (n as u64 + 1) * k).sum();
    LoopRun { hops, wall_s, checksum }
}

#[cfg(test)]
mod tests {
    /// Every hop is counted at one node, and the loop is deterministic.
    #[test]
    fn every_hop_lands_at_a_node_the_same_way_each_time() {
        let a = super::run(8, 20, 10_000);
        let b = super::run(8, 20, 10_000);
        assert_eq!((a.hops, a.checksum), (b.hops, b.checksum));
        assert!(a.wall_s > 0.0 && a.hops_per_s() > 0.0);
        // One node: every hop at node 0 (weight 1).
        assert_eq!(super::run(1, 5, 1000).checksum, 1000);
        // One packet goes round: 999 hops on 3 nodes are 333 at each.
        assert_eq!(super::run(3, 1, 999).checksum, 333 * (1 + 2 + 3));
    }
}
