//! Base SCI's holds are firm (`Rules::firm_holds`; PPQ's too): the fabric
//! does not ask a held node again before its hold's wake, and takes no
//! decision at its link's release while only held own packets wait for the
//! link. The same protocol with its holds taken as not firm is asked at
//! every decision: on these rings both give the same run to the last figure
//! but the counts made per ask (holds, debts counted repaid at the next ask)
//! and of events, and firm holds spare events. (Where decisions coincide in
//! time, sparing some may reorder simultaneous events: docs/performance.md.)

use ringlet_engine::Time;
use ringlet_fabric::interface::Iface;
use ringlet_fabric::packet::{Packet, Slab};
use ringlet_fabric::params::Params;
use ringlet_fabric::protocol::{Admission, Effects, Permit, ProtoCounters, QueueView, RingProtocol, RingletView, Rules};
use ringlet_fabric::Fabric;
use ringlet_sci::protocol::sci::BaseSci;

/// Base SCI, its holds not firm.
struct NotFirm(BaseSci);

impl RingProtocol for NotFirm {
    const RULES: Rules = Rules { firm_holds: false, ..BaseSci::RULES };

    fn may_send(&mut self, node: usize, now: Time, id: u32, pk: &Packet, fx: &mut Effects) -> Permit {
        self.0.may_send(node, now, id, pk, fx)
    }
    fn on_sent(&mut self, node: usize, now: Time, id: u32, pk: &Packet, next_own: Option<u16>, fx: &mut Effects) {
        self.0.on_sent(node, now, id, pk, next_own, fx)
    }
    fn on_recovered(&mut self, node: usize, now: Time, fx: &mut Effects) {
        self.0.on_recovered(node, now, fx)
    }
    fn on_pass(&mut self, node: usize, now: Time, symbols: u16) {
        self.0.on_pass(node, now, symbols)
    }
    fn on_blocked(&mut self, node: usize, now: Time, waiting: u16, fx: &mut Effects) -> bool {
        self.0.on_blocked(node, now, waiting, fx)
    }
    fn admit(&mut self, node: usize, now: Time, side: usize, id: u32, pk: &Packet, q: QueueView) -> Admission {
        self.0.admit(node, now, side, id, pk, q)
    }
    fn on_output_full(&mut self, node: usize, now: Time, class: u8, waiting: u16, n: &Iface, slab: &mut Slab, fx: &mut Effects) {
        self.0.on_output_full(node, now, class, waiting, n, slab, fx)
    }
    fn counters(&self) -> ProtoCounters {
        self.0.counters()
    }
    fn go_bit_holds_at(&self, at: usize) -> u64 {
        self.0.go_bit_holds_at(at)
    }
}

/// A run's report as JSON, and its events.
fn run<P: RingProtocol>(settings: &[&str], make: impl Fn(&RingletView, &Params) -> P) -> (serde_json::Value, u64) {
    let base = "[run]\nmeasure_transactions = 4000\n";
    let overrides: Vec<_> = settings.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    let s = ringlet_sci::load_str(base, &overrides).expect("valid scenario");
    let k = ringlet_sci::keys::Settings::of(&s);
    let p = ringlet_sci::params::params(&k).expect("valid params");
    let t = ringlet_sci::ring::topology(&s, &k);
    let proto = make(&t.view(0), &p);
    let mut ring = Fabric::new(&s, t, p, vec![proto]);
    ring.run_until(Time::MAX);
    let mut report = serde_json::to_value(ring.report()).expect("json");
    let mut take = |key: &str| report["counters"].as_object_mut().expect("counters").remove(key).and_then(|v| v.as_u64()).expect(key);
    let events = take("events");
    // Counted per ask: fewer asks, fewer counted (a debt is counted repaid
    // at the node's first ask after it, which may come after the run's end).
    take("go_bit_holds");
    take("debt_holds");
    take("debts_repaid");
    for link in report["per_link"].as_array_mut().expect("per_link") {
        link.as_object_mut().expect("a link").remove("go_bit_holds");
    }
    (report, events)
}

#[test]
fn a_firm_hold_spares_decisions_and_changes_nothing_else() {
    let cases: [&[&str]; 3] = [
        &["traffic.load_mbps_per_node=150", "node.iqst_ns=100"],
        &["network.nodes=64", "traffic.load_mbps_per_node=20", "node.iqst_ns=100"],
        &["network.nodes=16", "traffic.transaction=\"write64\"", "traffic.load_mbps_per_node=90"],
    ];
    for settings in cases {
        let (firm, events_firm) = run(settings, |v, p| BaseSci::new(v, p, true, true));
        let (asked, events_asked) = run(settings, |v, p| NotFirm(BaseSci::new(v, p, true, true)));
        assert_eq!(firm["saturated"], true, "{settings:?}: nodes wait");
        for (key, value) in firm.as_object().expect("a report") {
            assert_eq!(Some(value), asked.get(key), "{settings:?}: {key}");
        }
        assert!(events_firm < events_asked * 9 / 10, "{settings:?}: {events_firm} events against {events_asked}");
    }
}
