//! A toy network family: two ringlets joined by a two-port bridge agent.
//!
//! Ringlet 0 runs through end nodes 0, 1, 2 and the bridge's first port;
//! ringlet 1 through the bridge's second port and end nodes 3, 4, 5. The
//! bridge strips a packet for the other ringlet (echoing it there), services
//! it and sends it on from its other port. Links carry SCI's 16-bit symbols
//! at 2 ns with a one-cycle bypass delay; no flow control beyond the
//! register-insertion rule and busy retries ([`Greedy`]).
//!
//! All a family is: its keys, its builder, its check and run (here
//! [`FAMILY`]), and one line in a registry.

use ringlet_engine::time::{ns_to_time, TICKS_PER_NS};
use ringlet_engine::Time;
use ringlet_fabric::family::{drive, Family, Mode, Outcome, Workload};
use ringlet_fabric::packet::Packet;
use ringlet_fabric::params::{Classes, Params, Shape, MAX_CLASSES};
use ringlet_fabric::protocol::{Admission, Effects, Permit, ProtoCounters, QueueView, RingProtocol, Rules};
use ringlet_fabric::topology::{Topology, TopologyBuilder};
use ringlet_fabric::Fabric;
use ringlet_scenario::schema::{Default, FamilySchema, Kind, Param};
use ringlet_scenario::Scenario;

/// One symbol time (2 ns) and one hop.
pub const CYCLE: Time = 2 * TICKS_PER_NS;
pub const HOP: Time = CYCLE;

const PARAMS: &[Param] = &[
    Param { section: "bridge", key: "iqst_ns", kind: Kind::Float { min: 0.0, max: 1e6 }, default: Default::Float(10.0),
        doc: "Input queue service time of every agent, the bridge's included, ns." },
    Param { section: "bridge", key: "source_buffer", kind: Kind::Int { min: 0, max: 1_000_000 }, default: Default::Int(0),
        doc: "Transactions an end node's application queue holds (0: unbounded); one generated while it is full is lost." },
    Param { section: "bridge", key: "responses", kind: Kind::Int { min: 1, max: 5 }, default: Default::Int(1),
        doc: "Response packets answering one read (its 64 data bytes shared among them)." },
];

pub const FAMILY: Family = Family {
    schema: FamilySchema { kind: "toy-bridge", doc: "Two ringlets joined by a bridge (a test family).", params: PARAMS, protocols: &[], validate },
    check: |s| params(s).map(|_| ()),
    run,
    workloads: &[Workload {
        name: "toy-bridge",
        description: "two 4-interface ringlets and a bridge, read64, uniform, 40 MB/s per node",
        scenario: "[network]\nkind = \"toy-bridge\"\nnodes = 6\n[traffic]\nload_mbps_per_node = 40.0\n[run]\nmeasure_transactions = 20000\n",
    }],
};

fn validate(s: &Scenario) -> Result<(), String> {
    if s.network.nodes != 6 {
        return Err(format!("network.nodes: expected 6 for network.kind = \"toy-bridge\", got {}", s.network.nodes));
    }
    Ok(())
}

/// SCI's read64 on 16-bit symbols: 8-symbol requests, 40-symbol responses
/// (one, or several sharing the data), 4-symbol echoes.
pub fn params(s: &Scenario) -> Result<Params, String> {
    Ok(Params {
        cycle: CYCLE,
        separator: 1,
        echo_len: 4,
        bypass_fifo_symbols: 41,
        iqst: [ns_to_time(s.section("bridge").float("iqst_ns")); MAX_CLASSES],
        input_queue: [5; MAX_CLASSES],
        output_queue: 5,
        shapes: vec![Shape {
            request_len: 8,
            request_class: 0,
            response_len: 40,
            response_class: 1,
            responses: s.section("bridge").int("responses") as u16,
            data_bytes: 64,
            data_in_response: true,
            requests: 1,
            packet_bytes: 0,
            last_len: 0,
            load_bytes: 64,
        }],
        shares: vec![1.0],
        kind_names: vec!["read64"],
        sources: ringlet_fabric::params::Sources::default(),
        classes: Classes::requests_and_responses(),
        client: ringlet_fabric::params::ClientRules::default(),
    })
}

/// End nodes 0-5 and the bridge (agent 6); interfaces 0-3 on ringlet 0
/// (nodes 0, 1, 2, the bridge), 4-7 on ringlet 1 (the bridge, nodes 3, 4, 5).
pub fn topology(s: &Scenario) -> Topology {
    let mut b = TopologyBuilder::new();
    let nodes: Vec<_> = (0..6).map(|k| b.agent(format!("node {k}"), true)).collect();
    let bridge = b.agent("bridge", false);
    let buffer = s.section("bridge").int("source_buffer") as u32;
    if buffer > 0 {
        for &n in &nodes {
            b.app_capacity(n, buffer);
        }
    }
    b.ringlet(&[(nodes[0], HOP), (nodes[1], HOP), (nodes[2], HOP), (bridge, HOP)]);
    b.ringlet(&[(bridge, HOP), (nodes[3], HOP), (nodes[4], HOP), (nodes[5], HOP)]);
    b.build().expect("a valid topology")
}

fn fabric(s: &Scenario, hand_built: bool) -> Result<Fabric<Greedy>, String> {
    let (t, p) = (topology(s), params(s)?);
    let protocols = vec![Greedy::default(), Greedy::default()];
    Ok(if hand_built { Fabric::hand_built(s, t, p, protocols) } else { Fabric::new(s, t, p, protocols) })
}

/// A traced fabric with no traffic sources, for hand-injected transactions.
pub fn hand_built(s: &Scenario) -> Fabric<Greedy> {
    fabric(s, true).expect("valid parameters")
}

fn run(s: &Scenario, mode: Mode<'_>) -> Result<Outcome, String> {
    drive(fabric(s, false)?, mode)
}

/// Every interface sends when the register-insertion rule lets it; a full
/// input queue busies the packet.
#[derive(Default)]
pub struct Greedy {
    counters: ProtoCounters,
}

impl RingProtocol for Greedy {
    const RULES: Rules = Rules::IEEE;

    fn may_send(&mut self, _at: usize, _now: Time, _id: u32, _pk: &Packet, _fx: &mut Effects) -> Permit {
        Permit::Go
    }

    fn on_sent(&mut self, _at: usize, _now: Time, _id: u32, _pk: &Packet, _next: Option<u16>, _fx: &mut Effects) {}

    fn on_blocked(&mut self, _at: usize, _now: Time, _waiting: u16, _fx: &mut Effects) -> bool {
        false
    }

    fn admit(&mut self, _at: usize, _now: Time, _class: usize, _id: u32, _pk: &Packet, q: QueueView) -> Admission {
        Admission::if_room(q.free())
    }

    fn counters(&self) -> ProtoCounters {
        self.counters
    }
}
