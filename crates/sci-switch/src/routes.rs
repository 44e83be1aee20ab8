//! Destination-tag routing on unidirectional rings through every stage
//! (seed 001 Figures 7b, 8, 9).
//!
//! Ring `r` runs from processor `P_r` through one port of each stage to a
//! memory and back. A packet stays on its ring through a port's bypass FIFO
//! while that port is the out port destination-tag routing picks at its
//! stage; the first port that is not strips it, and the switch sends it on
//! from the port that is, on that port's ring. Where a packet leaves a ring
//! so depends on where it joined it, not only on the ring and destination.
//! A packet for a processor goes to the memory on that processor's ring and
//! on past it. With several B-Links (`switch.blinks` = k) a port is a
//! cascade of k chips, one per B-Link: the first strips (the fabric passes a
//! packet on to a later chip when the first has no room), and the chip a
//! packet crossed B-Link j to sends it on.

use crate::wiring::Banyan;
use ringlet_fabric::topology::{AgentId, IfaceId, Routes, Topology, NO_IFACE};

/// The routes of a network built by `network::topology` with unidirectional rings.
#[derive(Debug)]
pub struct RingRoutes {
    net: Banyan,
    /// Chips per switch port: the B-Links of a switch.
    chips: usize,
    /// Per interface: the line of the stage its port is at, or `NO_LINE` for a processor's or memory's.
    line: Vec<u32>,
    /// Per stage, line and chip: the interface.
    port: Vec<IfaceId>,
}

const NO_LINE: u32 = u32::MAX;

impl RingRoutes {
    /// Interfaces are numbered ring by ring: `P_r`, the chips of the port
    /// of each stage, the memory.
    pub fn new(net: Banyan, chips: usize) -> RingRoutes {
        let (n, stages) = (net.terminals(), net.stages());
        let ring_len = stages * chips + 2;
        let mut line = vec![NO_LINE; n * ring_len];
        let mut port = vec![NO_IFACE; stages * n * chips];
        for r in 0..n {
            for (t, &l) in net.ring_lines(r).iter().enumerate() {
                for j in 0..chips {
                    let i = r * ring_len + 1 + t * chips + j;
                    line[i] = l as u32;
                    port[(t * n + l) * chips + j] = i as IfaceId;
                }
            }
        }
        RingRoutes { net, chips, line, port }
    }

    /// The output terminal a packet for agent `dst` heads for: a memory's
    /// own, or for a processor the memory on its ring.
    fn terminal(&self, dst: AgentId) -> usize {
        let n = self.net.terminals();
        let d = dst as usize;
        if d >= n {
            d - n
        } else {
            self.net.ring_memory(d)
        }
    }

    /// The stage of the port interface `i` is a chip of.
    fn stage(&self, i: IfaceId) -> usize {
        (i as usize % (self.net.stages() * self.chips + 2) - 1) / self.chips
    }
}

impl Routes for RingRoutes {
    fn out_iface(&self, _t: &Topology, a: AgentId, dst: AgentId) -> IfaceId {
        // Switches are numbered stage by stage after the 2N endpoints, an
        // agent per B-Link each.
        let (n, s) = (self.net.terminals(), self.net.switch_ports());
        let k = a as usize - 2 * n;
        let (sw, chip) = (k / self.chips, k % self.chips);
        let (stage, switch) = (sw / self.net.switches_per_stage(), sw % self.net.switches_per_stage());
        let q = self.net.route_port(stage, switch, self.terminal(dst));
        self.port[(stage * n + switch * s + q) * self.chips + chip]
    }

    fn strip_from(&self, t: &Topology, from: IfaceId, dst: AgentId) -> IfaceId {
        let (target, s) = (self.terminal(dst), self.net.switch_ports());
        let mut i = t.next(from);
        while i != from {
            let line = self.line[i as usize];
            if line == NO_LINE {
                if t.agent_of(i) == dst {
                    return i;
                }
            } else {
                let (switch, p) = (line as usize / s, line as usize % s);
                if self.net.route_port(self.stage(i), switch, target) != p {
                    return i;
                }
            }
            i = t.next(i);
        }
        NO_IFACE
    }
}

/// Routes of elementary rings (no switch): a packet goes to its
/// destination's interface on its own ring, the only endpoint it may address
/// (`traffic.destinations = "local"`, checked when the scenario loads).
#[derive(Debug)]
pub struct ElementaryRoutes;

impl Routes for ElementaryRoutes {
    fn out_iface(&self, _t: &Topology, a: AgentId, _dst: AgentId) -> IfaceId {
        unreachable!("agent {a}: an elementary ring has no agent with several interfaces")
    }

    fn strip_from(&self, t: &Topology, from: IfaceId, dst: AgentId) -> IfaceId {
        let mut i = t.next(from);
        while i != from {
            if t.agent_of(i) == dst {
                return i;
            }
            i = t.next(i);
        }
        NO_IFACE
    }
}
