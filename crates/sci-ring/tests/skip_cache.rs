//! The ring's two caches of protocol answers are optimizations only:
//! - "every own packet was skipped" (`RingProtocol::permit_epoch`);
//! - "being blocked again changes nothing" (`on_blocked` returning `false`).
//!
//! A protocol that promises nothing, asked every time, gives the same run
//! to the last counter.

use ringlet_engine::Time;
use ringlet_fabric::interface::Iface;
use ringlet_fabric::packet::{Packet, Slab};
use ringlet_fabric::params::Params;
use ringlet_fabric::protocol::{Admission, Effects, Permit, ProtoCounters, QueueView, RingProtocol, RingletView, Rules};
use ringlet_fabric::Fabric;
use ringlet_sci::protocol::dfc::Dfc;
use ringlet_sci::protocol::sci::BaseSci;
use ringlet_sci::protocol::Registered;

/// A protocol `P`, counting the calls the caches save, with or without
/// its promises.
struct Counted<P> {
    inner: P,
    /// Pass on `permit_epoch` (else: no epoch, always asked).
    epoch: bool,
    /// Pass on `on_blocked`'s "no need to call again" (else: always called).
    quiet: bool,
    asked: u64,
    blocked_calls: u64,
}

impl<P: RingProtocol> RingProtocol for Counted<P> {
    const RULES: Rules = P::RULES;

    fn on_start(&mut self, fx: &mut Effects) {
        self.inner.on_start(fx)
    }
    fn may_send(&mut self, node: usize, now: Time, id: u32, pk: &Packet, fx: &mut Effects) -> Permit {
        self.asked += 1;
        self.inner.may_send(node, now, id, pk, fx)
    }
    fn on_pass(&mut self, node: usize, now: Time, symbols: u16) {
        self.inner.on_pass(node, now, symbols)
    }
    fn on_recovered(&mut self, node: usize, now: Time, fx: &mut Effects) {
        self.inner.on_recovered(node, now, fx)
    }
    fn permit_epoch(&self, node: usize) -> Option<u64> {
        self.inner.permit_epoch(node).filter(|_| self.epoch)
    }
    fn skipped_again(&mut self, node: usize, skips: u64) {
        self.inner.skipped_again(node, skips)
    }
    fn only_candidates(&self, node: usize) -> Option<&[u32]> {
        self.inner.only_candidates(node)
    }
    fn on_sent(&mut self, node: usize, now: Time, id: u32, pk: &Packet, next_own: Option<u16>, fx: &mut Effects) {
        self.inner.on_sent(node, now, id, pk, next_own, fx)
    }
    fn on_blocked(&mut self, node: usize, now: Time, waiting: u16, fx: &mut Effects) -> bool {
        self.blocked_calls += 1;
        self.inner.on_blocked(node, now, waiting, fx) || !self.quiet
    }
    fn admit(&mut self, node: usize, now: Time, side: usize, id: u32, pk: &Packet, q: QueueView) -> Admission {
        self.inner.admit(node, now, side, id, pk, q)
    }
    fn on_input_change(&mut self, node: usize, side: usize, q: QueueView, now: Time, fx: &mut Effects) {
        self.inner.on_input_change(node, side, q, now, fx)
    }
    fn on_control(&mut self, node: usize, now: Time, pk: &mut Packet, n: &Iface, slab: &Slab, fx: &mut Effects) -> bool {
        self.inner.on_control(node, now, pk, n, slab, fx)
    }
    fn bypass_priority(&self, pk: &Packet, waited: Time) -> u32 {
        self.inner.bypass_priority(pk, waited)
    }
    fn echo_wait_slots(&self) -> u32 {
        self.inner.echo_wait_slots()
    }
    fn retry_holdoff(&self) -> Time {
        self.inner.retry_holdoff()
    }
    fn on_output_full(&mut self, node: usize, now: Time, class: u8, waiting: u16, n: &Iface, slab: &mut Slab, fx: &mut Effects) {
        self.inner.on_output_full(node, now, class, waiting, n, slab, fx)
    }
    fn counters(&self) -> ProtoCounters {
        self.inner.counters()
    }
}

/// The report (as text) and the calls made: `may_send`, `on_blocked`.
fn run<P: RingProtocol>(
    protocol: &str,
    settings: &[&str],
    epoch: bool,
    quiet: bool,
    make: impl Fn(&RingletView, &Params, &ringlet_scenario::Scenario) -> P,
) -> (String, u64, u64) {
    let base = format!("[network]\nnodes = 8\nprotocol = \"{protocol}\"\n[run]\nmeasure_transactions = 4000\n");
    let overrides: Vec<_> = settings.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    let s = ringlet_sci::load_str(&base, &overrides).expect("valid scenario");
    let k = ringlet_sci::keys::Settings::of(&s);
    let p = ringlet_sci::params::params(&k).expect("valid params");
    let t = ringlet_sci::ring::topology(&s, &k);
    let proto = Counted { inner: make(&t.view(0), &p, &s), epoch, quiet, asked: 0, blocked_calls: 0 };
    let mut ring = Fabric::new(&s, t, p, vec![proto]);
    ring.run_until(Time::MAX);
    (format!("{:?}", ring.report()), ring.protocol(0).asked, ring.protocol(0).blocked_calls)
}

const DFC_CASES: [&[&str]; 5] = [
    &["traffic.load_mbps_per_node=150", "node.iqst_ns=100"],
    // Held nodes that become congested themselves (STOP-THRU holds only with several priorities).
    &["traffic.load_mbps_per_node=150", "node.iqst_ns=100", "traffic.priorities=3"],
    &["traffic.load_mbps_per_node=150", "node.iqst_ns=100", "dfc.stop_thru_after_packets=3"],
    &["traffic.load_mbps_per_node=100", "node.iqst_ns=1000", "traffic.priorities=3"],
    &["traffic.load_mbps_per_node=120", "traffic.destinations=\"hotspot\"", "traffic.hotspot_fraction=0.8"],
];

fn dfc(view: &RingletView, p: &Params, s: &ringlet_scenario::Scenario) -> Dfc {
    <Dfc>::build(view, p, s).expect("dfc")
}

#[test]
fn skipping_held_nodes_changes_nothing_but_the_work() {
    for settings in DFC_CASES {
        let (cached, asked_cached, _) = run("dfc", settings, true, true, dfc);
        let (asked_every_time, asked_all, _) = run("dfc", settings, false, true, dfc);
        assert_eq!(cached, asked_every_time, "{settings:?}");
        assert!(cached.contains("flow_holds: ") && !cached.contains("flow_holds: 0,"), "DFC holds some packets: {settings:?}");
        assert!(asked_cached < asked_all, "{settings:?}: the cache saves calls ({asked_cached} vs {asked_all})");
    }
}

#[test]
fn quiet_blocked_nodes_change_nothing_but_the_work() {
    let base_sci = |view: &RingletView, p: &Params, _: &ringlet_scenario::Scenario| BaseSci::new(view, p, true, true);
    let sci_cases: [&[&str]; 2] = [&["traffic.load_mbps_per_node=150", "node.iqst_ns=100"], &["traffic.load_mbps_per_node=60", "node.iqst_ns=1000"]];
    let mut checked = Vec::new();
    for settings in DFC_CASES {
        let (quiet, _, calls_quiet) = run("dfc", settings, true, true, dfc);
        let (loud, _, calls_loud) = run("dfc", settings, true, false, dfc);
        checked.push((quiet == loud, calls_quiet < calls_loud, format!("dfc {settings:?}: {calls_quiet} vs {calls_loud} calls")));
    }
    for settings in sci_cases {
        let (quiet, _, calls_quiet) = run("sci", settings, true, true, base_sci);
        let (loud, _, calls_loud) = run("sci", settings, true, false, base_sci);
        checked.push((quiet == loud, calls_quiet < calls_loud, format!("sci {settings:?}: {calls_quiet} vs {calls_loud} calls")));
    }
    for (same, fewer, what) in checked {
        assert!(same, "{what}: the runs differ");
        assert!(fewer, "{what}: the cache saves no call");
    }
}
