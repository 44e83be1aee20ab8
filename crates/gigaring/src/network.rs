//! A GigaRing channel's topology: `network.nodes` node chips on a pair of
//! unidirectional, counter-rotating rings (seed 002 Figure 2). Ring 0 runs
//! node 0 -> 1 -> ... -> N-1 -> 0, ring 1 the other way round; with two
//! nodes it is the point-to-point channel of Figure 3.

use crate::keys::Settings;
use crate::params::NS_PER_METRE;
use ringlet_engine::time::ns_to_time;
use ringlet_fabric::topology::{PortSpec, Role, Topology, TopologyBuilder};

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
    b.build()
}
