//! The ring's cache of "every own packet was skipped" (RingProtocol::permit_epoch)
//! is an optimization only: a protocol that promises nothing, asked every
//! time, gives the same run to the last counter.

use ringlet_engine::Time;
use ringlet_sci::node::Node;
use ringlet_sci::packet::{Packet, Slab};
use ringlet_sci::params::Params;
use ringlet_sci::protocol::dfc::Dfc;
use ringlet_sci::protocol::{Admission, Effects, Permit, ProtoCounters, QueueView, RingProtocol};
use ringlet_sci::ring::Ring;

/// DFC, counting `may_send` calls, with or without its permit epoch.
struct Counted {
    dfc: Dfc,
    epoch: bool,
    asked: u64,
}

impl RingProtocol for Counted {
    const PRIORITY_QUEUES: bool = Dfc::PRIORITY_QUEUES;

    fn may_send(&mut self, node: usize, now: Time, id: u32, pk: &Packet) -> Permit {
        self.asked += 1;
        self.dfc.may_send(node, now, id, pk)
    }
    fn permit_epoch(&self, node: usize) -> Option<u64> {
        if self.epoch {
            self.dfc.permit_epoch(node)
        } else {
            None
        }
    }
    fn skipped_again(&mut self, node: usize, skips: u64) {
        self.dfc.skipped_again(node, skips)
    }
    fn on_sent(&mut self, node: usize, now: Time, id: u32, pk: &Packet, next_own: Option<u16>, fx: &mut Effects) {
        self.dfc.on_sent(node, now, id, pk, next_own, fx)
    }
    fn on_blocked(&mut self, node: usize, now: Time, waiting: u16, fx: &mut Effects) {
        self.dfc.on_blocked(node, now, waiting, fx)
    }
    fn admit(&mut self, node: usize, side: usize, id: u32, pk: &Packet, q: QueueView) -> Admission {
        self.dfc.admit(node, side, id, pk, q)
    }
    fn on_input_change(&mut self, node: usize, side: usize, q: QueueView, now: Time, fx: &mut Effects) {
        self.dfc.on_input_change(node, side, q, now, fx)
    }
    fn on_control(&mut self, node: usize, now: Time, pk: &mut Packet, n: &Node, slab: &Slab, fx: &mut Effects) -> bool {
        self.dfc.on_control(node, now, pk, n, slab, fx)
    }
    fn counters(&self) -> ProtoCounters {
        self.dfc.counters()
    }
}

fn run(settings: &[&str], epoch: bool) -> (String, u64) {
    let base = "[network]\nnodes = 8\nprotocol = \"dfc\"\n[run]\nmeasure_transactions = 4000\n";
    let overrides: Vec<_> = settings.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    let s = ringlet_scenario::load_str(base, &overrides).expect("valid scenario");
    let p = Params::from_scenario(&s).expect("valid params");
    let proto = Counted { dfc: Dfc::new(&p, &s.dfc).expect("dfc"), epoch, asked: 0 };
    let mut ring = Ring::new(&s, p, proto);
    ring.run_until(Time::MAX);
    (format!("{:?}", ring.report()), ring.proto.asked)
}

#[test]
fn skipping_held_nodes_changes_nothing_but_the_work() {
    for settings in [
        &["traffic.load_mbps_per_node=150", "node.iqst_ns=100"][..],
        &["traffic.load_mbps_per_node=100", "node.iqst_ns=1000", "traffic.priorities=3"][..],
        &["traffic.load_mbps_per_node=120", "traffic.destinations=\"hotspot\"", "traffic.hotspot_fraction=0.8"][..],
    ] {
        let (cached, asked_cached) = run(settings, true);
        let (asked_every_time, asked_all) = run(settings, false);
        assert_eq!(cached, asked_every_time, "{settings:?}");
        assert!(cached.contains("flow_holds: ") && !cached.contains("flow_holds: 0,"), "DFC holds some packets: {settings:?}");
        assert!(asked_cached < asked_all, "{settings:?}: the cache saves calls ({asked_cached} vs {asked_all})");
    }
}
