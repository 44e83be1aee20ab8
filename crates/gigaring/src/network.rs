//! A GigaRing channel's topology: `network.nodes` node chips on a pair of
//! unidirectional, counter-rotating rings (seed 002 Figure 2). Ring 0 runs
//! node 0 -> 1 -> ... -> N-1 -> 0, ring 1 the other way round; with two
//! nodes it is the point-to-point channel of Figure 3.
//!
//! With a fault (`[faults]`), a third ring is built beside them, idle until
//! the failure: the two rings folded into one (US patent 6,233,704). Around
//! a failed link between nodes b and a = b + 1, node a joins its ring-1
//! input to its ring-0 output and node b its ring-0 input to its ring-1
//! output: the folded ring runs a, a+1, ..., b on ring 0's wires and back
//! b-1, ..., a+1 on ring 1's, passing every other node twice. Around a
//! failed node f it is the same with a = f + 1 and b = f - 1.

use crate::keys::Settings;
use crate::params::NS_PER_METRE;
use ringlet_engine::time::ns_to_time;
use crate::keys::Failure;
use ringlet_fabric::mechanism::Reconfiguration;
use ringlet_fabric::topology::{AgentId, IfaceId, PortSpec, Role, Routes, Topology, TopologyBuilder, NO_IFACE};
use std::sync::Arc;

/// The channel's topology.
pub fn topology(k: &Settings) -> Result<Topology, String> {
    let mut b = TopologyBuilder::new();
    let nodes: Vec<_> = (0..k.nodes).map(|n| b.agent(format!("node {n}"), true)).collect();
    for &a in &nodes {
        // One client port takes packets out of both rings' receive buffers.
        b.ports(a, PortSpec { shared_server: true, ..PortSpec::default() });
    }
    if k.masters > 0 {
        for (n, &a) in nodes.iter().enumerate() {
            b.role(a, if n < k.masters { Role::Sender } else { Role::Receiver });
        }
    }
    let hop = ns_to_time(k.node_latency_ns + NS_PER_METRE * k.wire_m);
    b.ringlet(&nodes.iter().map(|&a| (a, hop)).collect::<Vec<_>>());
    if k.rings == 2 {
        b.ringlet(&nodes.iter().rev().map(|&a| (a, hop)).collect::<Vec<_>>());
    }
    if let Some(order) = folded_order(k) {
        b.ringlet(&order.iter().map(|&n| (nodes[n], hop)).collect::<Vec<_>>());
        // A node sits on the folded ring twice: a packet is stripped where it first meets its target.
        b.routes(Arc::new(FirstMeeting));
    }
    b.build()
}

/// The node of each place (interface, in ring order) of ringlet `r`: on
/// the folded ring most nodes twice (`Arbitration::with_nodes`).
pub fn ring_nodes(t: &Topology, r: u16) -> Vec<AgentId> {
    t.ringlet_ifaces(r).iter().map(|&i| t.agent_of(i)).collect()
}

/// The folded ring's nodes in ring order, if a fault is configured.
pub fn folded_order(k: &Settings) -> Option<Vec<usize>> {
    let n = k.nodes;
    let (a, b) = match k.fault?.what {
        Failure::Link(l) => ((l + 1) % n, l),
        Failure::Node(f) => ((f + 1) % n, (f + n - 1) % n),
    };
    let mut order = Vec::with_capacity(2 * n);
    let mut x = a;
    loop {
        order.push(x);
        if x == b {
            break;
        }
        x = (x + 1) % n;
    }
    // Back on ring 1's wires, short of a (which closes the ring).
    let mut x = (b + n - 1) % n;
    while x != a && b != a {
        order.push(x);
        x = (x + n - 1) % n;
    }
    Some(order)
}

/// The change a fault makes in channel `t`: at the failure, the wires of
/// the failed link (both rings'), or those into and out of the failed node,
/// are cut; once detected, rings 0 and 1 retire and the folded ring (2)
/// takes over, carrying packets after its reinitialisation.
pub fn fold(k: &Settings, t: &Topology) -> Option<Reconfiguration> {
    let f = k.fault?;
    let n = k.nodes;
    // Node x's interface on ring r: on ring 0 its output goes to x + 1, on ring 1 to x - 1.
    let on = |x: usize, r: u16| *t.agent(x as AgentId).ifaces.iter().find(|&&i| t.ringlet_of(i) == r).expect("a node is on both rings");
    let (cut, failed) = match f.what {
        Failure::Link(l) => (vec![on(l, 0), on((l + 1) % n, 1)], Vec::new()),
        Failure::Node(x) => (vec![on((x + n - 1) % n, 0), on((x + 1) % n, 1), on(x, 0), on(x, 1)], vec![x as AgentId]),
    };
    let failed_at = ns_to_time(f.at_ns);
    let at = failed_at + ns_to_time(f.detection_ns);
    let folded = folded_order(k).expect("a fault").len() as u64;
    let hop = ns_to_time(k.node_latency_ns + NS_PER_METRE * k.wire_m);
    let live_at = at + f.reinit_circulations as u64 * folded * hop;
    Some(Reconfiguration { failed_at, cut, failed, at, retire: vec![0, 1], activate: vec![2], live_at })
}

/// Routes on rings where a node may sit twice: the packet is stripped by
/// the first interface of its target downstream (GigaRing always picks the
/// ring itself, per packet, so `out_iface` is only a fallback).
#[derive(Debug)]
struct FirstMeeting;

impl Routes for FirstMeeting {
    fn out_iface(&self, t: &Topology, a: AgentId, _dst: AgentId) -> IfaceId {
        t.agent(a).ifaces[0]
    }

    fn strip_from(&self, t: &Topology, from: IfaceId, dst: AgentId) -> IfaceId {
        let len = t.ringlet_ifaces(t.ringlet_of(from)).len();
        let mut i = t.next(from);
        for _ in 0..len {
            if t.agent_of(i) == dst {
                return i;
            }
            i = t.next(i);
        }
        NO_IFACE
    }
}
