//! Helpers for hand-built rings.
#![allow(dead_code)]

use ringlet_fabric::interface::Iface;
use ringlet_fabric::packet::{Packet, PacketKind, Slab};
use ringlet_fabric::params::Params;
use ringlet_fabric::protocol::Effects;
use ringlet_fabric::protocol::RingProtocol;
use ringlet_fabric::topology::Topology;
use ringlet_fabric::trace::{TraceKind, TraceRecord};
use ringlet_fabric::Fabric;
use ringlet_scenario::Scenario;
use ringlet_sci::keys::Settings;
use ringlet_sci::protocol::sci::BaseSci;
use ringlet_sci::protocol::train::Train;
use ringlet_sci::protocol::Registered;

/// The scenario and parameters of a ring with no traffic sources; `extra`
/// are `section.key=value` settings.
pub fn setup(nodes: u32, extra: &[&str]) -> (Scenario, Params) {
    let text = format!(
        "[network]\nnodes = {nodes}\n[traffic]\nload_mbps_per_node = 0\n[run]\nwarmup_ns = 0\nmeasure_transactions = 1000\n"
    );
    let overrides: Vec<_> = extra
        .iter()
        .map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE"))
        .collect();
    let s = ringlet_sci::load_str(&text, &overrides).expect("valid scenario");
    let p = ringlet_sci::params::params(&Settings::of(&s)).expect("valid params");
    (s, p)
}

/// The ring of scenario `s`.
pub fn topology(s: &Scenario) -> Topology {
    ringlet_sci::ring::topology(s, &Settings::of(s))
}

/// A hand-built ring of `nodes` running protocol `P`, with `extra` settings.
pub fn ring_with<P: Registered>(nodes: u32, extra: &[&str]) -> Fabric<P> {
    let (s, p) = setup(nodes, extra);
    let t = topology(&s);
    let protocols = ringlet_sci::ring::instances::<P>(&t, &p, &s).expect("valid protocol settings");
    Fabric::hand_built(&s, t, p, protocols)
}

/// A hand-built base SCI ring.
pub fn ring(nodes: u32, extra: &[&str]) -> Fabric<BaseSci> {
    ring_with(nodes, extra)
}

/// Times (ticks) of trace records matching `what` at node (ring interface)
/// `node` for packets of `kind` from `src`.
pub fn times<P: RingProtocol>(
    r: &Fabric<P>,
    node: u16,
    what: TraceKind,
    kind: PacketKind,
    src: u16,
) -> Vec<u64> {
    records(r)
        .iter()
        .filter(|t| t.iface == node && t.what == what && t.kind == kind && t.src == src)
        .map(|t| t.time)
        .collect()
}

pub fn records<P: RingProtocol>(r: &Fabric<P>) -> &[TraceRecord] {
    r.records()
}

pub const NS: u64 = ringlet_engine::time::TICKS_PER_NS;
/// One symbol cycle (2 ns) and one hop (link 0 + 1-cycle node delay).
pub const CYCLE: u64 = 2 * NS;
pub const HOP: u64 = CYCLE;

/// TRAIN's train on a bench ring of idle interfaces: launched by the
/// TicketMaster (node 0) at the start, then passed round a nanosecond a node.
pub struct BenchTrain {
    pub pk: Packet,
    /// When it last reached a node.
    pub now: u64,
}

impl BenchTrain {
    /// The train the protocol launched at the start (`on_start`).
    pub fn launched(fx: &mut Effects) -> BenchTrain {
        let (origin, len, _, _) = fx.controls.pop().expect("a train was launched");
        assert_eq!(origin, 0);
        assert!(fx.controls.is_empty(), "one train");
        BenchTrain {
            pk: Packet::new(PacketKind::Control, 0, 0, 1, 0, len, 0).on(0, 1),
            now: 0,
        }
    }

    /// One revolution: nodes 1, 2, ... and home to the TicketMaster, which
    /// passes it on as every node does; the length it came home with.
    pub fn revolution(
        &mut self,
        t: &mut Train,
        nodes: &[Iface],
        slab: &Slab,
        fx: &mut Effects,
    ) -> u16 {
        for j in (1..nodes.len()).chain([0]) {
            self.now += NS;
            let home = self.pk.len;
            assert!(
                t.on_control(j, self.now, &mut self.pk, &nodes[j], slab, fx),
                "node {j} passes the train on"
            );
            if j == 0 {
                return home;
            }
        }
        unreachable!("the ring has a TicketMaster")
    }
}
