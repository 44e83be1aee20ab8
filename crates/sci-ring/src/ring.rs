//! The SCI ring's builder: one ringlet of `network.nodes` end nodes, node
//! `k` being agent `k` with ring interface `k`, every hop the link delay
//! plus one node's bypass delay (seed 003 Figure 1, Table 1).

use crate::keys::Settings;
use crate::params;
use crate::protocol::Registered;
use ringlet_engine::time::ns_to_time;
use ringlet_engine::Time;
use ringlet_fabric::params::Params;
use ringlet_fabric::protocol::RingletView;
use ringlet_fabric::topology::{Topology, TopologyBuilder};
use ringlet_scenario::Scenario;

/// The ring of scenario `s` (with settings `k`).
pub fn topology(s: &Scenario, k: &Settings) -> Topology {
    let hop = ns_to_time(k.link_delay_ns) + k.node_delay_cycles as Time * params::cycle(k);
    ring_of(s.network.nodes as usize, hop)
}

/// A ring of `nodes` end nodes with hops of `hop`.
pub fn ring_of(nodes: usize, hop: Time) -> Topology {
    let mut b = TopologyBuilder::new();
    let members: Vec<_> = (0..nodes).map(|k| (b.agent(format!("node {k}"), true), hop)).collect();
    b.ringlet(&members);
    b.build().expect("a ring of at least 2 nodes is a valid topology")
}

/// The one ringlet of a ring of `nodes` with hops of `hop`, as a protocol sees it.
pub fn view_of(nodes: usize, hop: Time) -> RingletView {
    ring_of(nodes, hop).view(0)
}

/// One instance of protocol `P` per ringlet of `t`.
pub fn instances<P: Registered>(t: &Topology, p: &Params, s: &Scenario) -> Result<Vec<P>, String> {
    (0..t.ringlets() as u16).map(|r| P::build(&t.view(r), p, s)).collect()
}
