//! The switch family's builder: processors, memories and switches of a
//! Banyan (one stage: a single switch) joined by bidirectional ringlets or
//! by unidirectional rings through every stage (seed 001 sections IV-V).
//!
//! Agents are numbered processors `0..N`, memories `N..2N`, then the
//! switches stage by stage; the scenario's node numbers are the agents'.

use crate::keys::Settings;
use crate::params;
use crate::routes::{ElementaryRoutes, RingRoutes};
use crate::wiring::Banyan;
use ringlet_engine::time::ns_to_time;
use ringlet_fabric::topology::{AgentId, Member, Role, Topology, TopologyBuilder, MAX_IFACES};
use std::sync::Arc;

/// The Banyan of settings `k` (for a single switch, one stage of a line
/// per ring or ringlet pair).
pub fn banyan(k: &Settings) -> Result<Banyan, String> {
    let per_ring = k.nodes_per_ring;
    if per_ring > 1 {
        if k.bidirectional {
            return Err(format!("network.nodes_per_ring: expected 1 with bidirectional ringlets (each processor and memory has its own), got {per_ring}"));
        }
        if !k.nodes.is_multiple_of(per_ring) || k.nodes / per_ring < 2 {
            return Err(format!("network.nodes: expected a multiple of network.nodes_per_ring ({per_ring}) giving at least 2 rings, got {}", k.nodes));
        }
    }
    Banyan::new(k.topology, k.nodes / per_ring, k.switch_ports)
}

/// The network of settings `k`.
pub fn topology(k: &Settings) -> Result<Topology, String> {
    layout(k)?.build()
}

/// The network of settings `k`, described but not built (no routes yet);
/// fails, naming the keys to change, if it has more ring interfaces than a
/// fabric may.
pub fn layout(k: &Settings) -> Result<TopologyBuilder, String> {
    let b = described(k)?;
    if b.interfaces() > MAX_IFACES {
        let (what, change) = if k.bidirectional {
            ("bidirectional ringlets", "raise network.switch_ports (fewer stages) or set network.ringlets = \"unidirectional\"")
        } else {
            ("unidirectional rings", "raise network.switch_ports (fewer stages)")
        };
        return Err(format!(
            "network.nodes: {} processors on {what} need {} ring interfaces, more than the {MAX_IFACES} ring interfaces \
             a network may have; lower network.nodes, or {change}",
            k.nodes,
            b.interfaces()
        ));
    }
    Ok(b)
}

fn described(k: &Settings) -> Result<TopologyBuilder, String> {
    if k.elementary_rings {
        return Ok(elementary_rings(k));
    }
    let net = banyan(k)?;
    if k.nodes_per_ring > 1 {
        return shared_rings(k, &net);
    }
    let n = net.terminals();
    let mut b = TopologyBuilder::new();
    let (procs, mems) = endpoints(&mut b, k, n);
    // One stage is one switch (N = s).
    let single = net.stages() == 1;
    let switches: Vec<Vec<Vec<AgentId>>> = (0..net.stages())
        .map(|t| (0..net.switches_per_stage()).map(|w| switch_agents(&mut b, k, if single { "switch 0".to_string() } else { format!("S{t}.{w}") })).collect())
        .collect();
    let s = net.switch_ports();
    if k.bidirectional {
        for (j, &p) in procs.iter().enumerate() {
            b.home(p, mems[j]);
            ringlet(&mut b, k, &[&[p], &switches[0][net.wire(0, j) / s]]);
        }
        for t in 1..net.stages() {
            for line in 0..n {
                ringlet(&mut b, k, &[&switches[t - 1][line / s], &switches[t][net.wire(t, line) / s]]);
            }
        }
        for line in 0..n {
            ringlet(&mut b, k, &[&switches[net.stages() - 1][line / s], &[mems[net.wire(net.stages(), line)]]]);
        }
    } else {
        for (r, &p) in procs.iter().enumerate() {
            let memory = mems[net.ring_memory(r)];
            b.home(p, memory);
            let lines = net.ring_lines(r);
            let mut stops: Vec<&[AgentId]> = vec![std::slice::from_ref(&procs[r])];
            stops.extend(lines.iter().enumerate().map(|(t, &line)| switches[t][line / s].as_slice()));
            stops.push(std::slice::from_ref(&mems[net.ring_memory(r)]));
            ringlet(&mut b, k, &stops);
        }
        b.routes(Arc::new(RingRoutes::new(net.clone(), k.blinks)));
    }
    Ok(b)
}

/// No switch: ring `j` is `P_j`, `M_j` and back (Richter's elementary SCI
/// ring, SCINET book section 7.2); the shortest paths are the only ones.
fn elementary_rings(k: &Settings) -> TopologyBuilder {
    let mut b = TopologyBuilder::new();
    let (procs, mems) = endpoints(&mut b, k, k.nodes);
    for (&p, &m) in procs.iter().zip(&mems) {
        b.home(p, m);
        ringlet(&mut b, k, &[&[p], &[m]]);
    }
    b.routes(Arc::new(ElementaryRoutes));
    b
}

/// `n` processors `P0..` and as many memories `M0..`, numbered in that
/// order. Processors send and have no application queue (a packet generated
/// while the output buffer is full is lost); memories only receive (and
/// answer a read or a write), storing in their cycle time. Both are LC-II
/// nodes.
fn endpoints(b: &mut TopologyBuilder, k: &Settings, n: usize) -> (Vec<AgentId>, Vec<AgentId>) {
    let procs: Vec<AgentId> = (0..n).map(|j| b.agent(format!("P{j}"), true)).collect();
    let mems: Vec<AgentId> = (0..n).map(|j| b.agent(format!("M{j}"), true)).collect();
    for &p in &procs {
        b.role(p, Role::Sender);
        b.app_capacity(p, 0);
        b.ports(p, params::endpoint_ports(k, 0.0));
    }
    for &m in &mems {
        b.role(m, Role::Receiver);
        b.ports(m, params::endpoint_ports(k, k.memory_store_ns));
    }
    (procs, mems)
}

/// A switch: an agent per B-Link (`switch.blinks`; labelled `switch 0:j`
/// for B-Link j where there are several), each with its ports' buffers and
/// delays and the B-Link its chips share; a port of the switch is a chip of
/// each, in series on the port's ringlet (`ringlet`).
fn switch_agents(b: &mut TopologyBuilder, k: &Settings, label: String) -> Vec<AgentId> {
    (0..k.blinks)
        .map(|j| {
            let a = b.agent(if k.blinks == 1 { label.clone() } else { format!("{label}:{j}") }, false);
            b.ports(a, params::switch_ports(k));
            b.bus(a, params::blink(k));
            a
        })
        .collect()
}

/// A ringlet through `stops` in ring order: an endpoint, or a switch port
/// as the cascade of its chips (one per B-Link). Every SCI port has the
/// same decode and bypass delays: each hop is the link plus the next
/// port's, and between the chips of one port there is no link.
fn ringlet(b: &mut TopologyBuilder, k: &Settings, stops: &[&[AgentId]]) {
    let (link, decode, bypass) = (ns_to_time(k.link_delay_ns), ns_to_time(k.address_decode_ns), ns_to_time(k.bypass_ns));
    let mut members: Vec<Member> = Vec::new();
    for chips in stops {
        for (j, &agent) in chips.iter().enumerate() {
            let cascade = j + 1 < chips.len();
            let to_next = if cascade { 0 } else { link };
            members.push(Member { agent, hop: to_next + bypass, strip_hop: to_next + decode, cascade });
        }
    }
    b.ringlet_of(&members);
}

/// One switch whose rings each carry `k.nodes_per_ring` processors and as
/// many memories (seed 001 Figure 6b): ring `r` runs through its
/// processors, its switch port, then its memories; processor `P_j`'s own
/// memory is `M_j`, on its ring. With one stage the shortest paths are the
/// destination-tag routes.
fn shared_rings(k: &Settings, net: &Banyan) -> Result<TopologyBuilder, String> {
    let (n, per) = (k.nodes, k.nodes_per_ring);
    let mut b = TopologyBuilder::new();
    let (procs, mems) = endpoints(&mut b, k, n);
    let switch = switch_agents(&mut b, k, "switch 0".to_string());
    for r in 0..net.terminals() {
        let own = |j: usize| r * per + j;
        let ring_procs: Vec<AgentId> = (0..per).map(|j| procs[own(j)]).collect();
        let ring_mems: Vec<AgentId> = (0..per).map(|j| mems[own(j)]).collect();
        let mut stops: Vec<&[AgentId]> = ring_procs.iter().map(std::slice::from_ref).collect();
        stops.push(&switch);
        stops.extend(ring_mems.iter().map(std::slice::from_ref));
        for j in 0..per {
            b.home(procs[own(j)], mems[own(j)]);
        }
        ringlet(&mut b, k, &stops);
    }
    Ok(b)
}
