//! The switch family's builder: processors, memories and switches of a
//! Banyan (one stage: a single switch) joined by bidirectional ringlets or
//! by unidirectional rings through every stage (seed 001 sections IV-V).
//!
//! Agents are numbered processors `0..N`, memories `N..2N`, then the
//! switches stage by stage; the scenario's node numbers are the agents'.

use crate::keys::Settings;
use crate::params;
use crate::routes::RingRoutes;
use crate::wiring::Banyan;
use ringlet_engine::time::ns_to_time;
use ringlet_fabric::topology::{AgentId, Member, Role, Topology, TopologyBuilder};
use std::sync::Arc;

/// The Banyan of settings `k` (one stage of `nodes` lines for a single switch).
pub fn banyan(k: &Settings) -> Result<Banyan, String> {
    Banyan::new(k.topology, k.nodes, k.switch_ports)
}

/// The network of settings `k`.
pub fn topology(k: &Settings) -> Result<Topology, String> {
    let net = banyan(k)?;
    let n = net.terminals();
    let mut b = TopologyBuilder::new();
    let procs: Vec<AgentId> = (0..n).map(|j| b.agent(format!("P{j}"), true)).collect();
    let mems: Vec<AgentId> = (0..n).map(|j| b.agent(format!("M{j}"), true)).collect();
    for &p in &procs {
        b.role(p, Role::Sender);
        // No application queue: a packet generated while the output buffer is full is lost.
        b.app_capacity(p, 0);
    }
    if k.transaction == crate::keys::Transaction::Dmove64 {
        for &m in &mems {
            b.role(m, Role::Receiver);
        }
    }
    for &m in &mems {
        b.ports(m, params::memory_ports(k));
    }
    let switches: Vec<Vec<AgentId>> = (0..net.stages())
        .map(|t| {
            (0..net.switches_per_stage())
                .map(|w| {
                    let label = if net.stages() == 1 && net.switches_per_stage() == 1 { "switch".to_string() } else { format!("S{t}.{w}") };
                    let a = b.agent(label, false);
                    b.ports(a, params::switch_ports(k));
                    b.bus(a, params::blink(k));
                    a
                })
                .collect()
        })
        .collect();
    let (link, decode, bypass) = (ns_to_time(k.link_delay_ns), ns_to_time(k.address_decode_ns), ns_to_time(k.bypass_ns));
    // Every SCI port has the same decode and bypass delays: each hop is the
    // link plus the next port's.
    let ringlet = |b: &mut TopologyBuilder, agents: &[AgentId]| {
        let members: Vec<Member> = agents.iter().map(|&agent| Member { agent, hop: link + bypass, strip_hop: link + decode }).collect();
        b.ringlet_of(&members);
    };
    let s = net.switch_ports();
    if k.bidirectional {
        for (j, &p) in procs.iter().enumerate() {
            b.home(p, mems[j]);
            ringlet(&mut b, &[p, switches[0][net.wire(0, j) / s]]);
        }
        for t in 1..net.stages() {
            for line in 0..n {
                ringlet(&mut b, &[switches[t - 1][line / s], switches[t][net.wire(t, line) / s]]);
            }
        }
        for line in 0..n {
            ringlet(&mut b, &[switches[net.stages() - 1][line / s], mems[net.wire(net.stages(), line)]]);
        }
    } else {
        for (r, &p) in procs.iter().enumerate() {
            let memory = mems[net.ring_memory(r)];
            b.home(p, memory);
            let mut members = vec![p];
            members.extend(net.ring_lines(r).iter().enumerate().map(|(t, &line)| switches[t][line / s]));
            members.push(memory);
            ringlet(&mut b, &members);
        }
        b.routes(Arc::new(RingRoutes::new(net.clone())));
    }
    b.build()
}
