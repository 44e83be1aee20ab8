//! The real-time protocols' rules on tiny cases with exact expected
//! outcomes: the seed's worked examples (Figures 3, 5 and 6) and PPQ's
//! preemption and starvation cures (seed 003 sections 2.2-3).

mod common;
use common::*;
use ringlet_fabric::interface::Iface;
use ringlet_fabric::packet::{Packet, PacketKind, Slab};
use ringlet_fabric::protocol::{Effects, Permit, QueueView, RingProtocol};
use ringlet_fabric::trace::TraceKind;
use ringlet_fabric::Fabric;
use ringlet_sci::protocol::dfc::{Dfc, Grant, Symbol};
use ringlet_sci::protocol::ppq::Ppq;
use ringlet_sci::protocol::Registered;

/// A DFC test bench: the protocol plus idle nodes whose queues a case fills.
struct Bench {
    dfc: Dfc,
    nodes: Vec<Iface>,
    slab: Slab,
    fx: Effects,
}

impl Bench {
    fn new(n: u32) -> Bench {
        Bench::with(n, &[])
    }

    fn with(n: u32, extra: &[&str]) -> Bench {
        let mut settings = vec!["network.protocol=\"dfc\"", "traffic.priorities=256"];
        settings.extend_from_slice(extra);
        let (s, p) = setup(n, &settings);
        let t = topology(&s);
        Bench {
            dfc: <Dfc>::build(&t.view(0), &p, &s).unwrap(),
            nodes: (0..n as u16).map(|i| Iface::new(&t, i, &p, 256, 0)).collect(),
            slab: Slab::with_capacity(16),
            fx: Effects::default(),
        }
    }

    /// Node `src` has a request of `priority` for `dst` waiting.
    fn waiting(&mut self, src: u16, dst: u16, priority: u16) -> u32 {
        let id = self.slab.alloc(Packet::new(PacketKind::Request, 0, src, dst, priority, 8, 0).on(src, dst));
        self.nodes[src as usize].push_own(0, priority, id);
        id
    }

    fn may_send(&mut self, id: u32) -> Permit {
        let pk = *self.slab.get(id);
        self.dfc.may_send(pk.src as usize, 0, id, &pk, &mut self.fx)
    }

    /// Sends the control symbol the protocol just emitted once round the
    /// ring; returns what it carried when it came home.
    fn circulate(&mut self) -> Symbol {
        let (origin, len, tag, _) = self.fx.controls.pop().expect("a control symbol was sent");
        assert!(self.fx.controls.is_empty());
        let mut pk = Packet::new(PacketKind::Control, 0, origin, origin, 0, len, 0).on(origin, origin);
        pk.tag = tag;
        let n = self.nodes.len();
        let mut j = (origin as usize + 1) % n;
        loop {
            let sym = self.dfc.symbol(tag);
            let keep = self.dfc.on_control(j, 0, &mut pk, &self.nodes[j], &self.slab, &mut self.fx);
            if !keep {
                assert_eq!(j, origin as usize, "removed by its sender");
                return sym;
            }
            j = (j + 1) % n;
        }
    }
}

/// Seed Figure 5. Node 1 has a priority-10 packet held by a full bypass
/// queue and circulates STOP-THRU(10). Node 3's packet does not pass node 1:
/// it goes. Node 5's (priority 20, for node 2) passes node 1 with a higher
/// priority: it goes. Node 6's (priority 5, for node 3) passes node 1 with a
/// lower priority: it is held. When node 1 has sent and has nothing else, it
/// lifts the restriction and node 6 may go.
#[test]
fn figure_5_stop_thru() {
    let mut b = Bench::new(8);
    let n1 = b.waiting(1, 4, 10);
    let n3 = b.waiting(3, 4, 7);
    let n5 = b.waiting(5, 2, 20);
    let n6 = b.waiting(6, 3, 5);
    b.dfc.on_blocked(1, 0, 10, &mut b.fx);
    assert_eq!(b.circulate(), Symbol::StopThru { level: 11 });
    for j in [2, 3, 4, 5, 6, 7, 0] {
        assert_eq!(b.dfc.stop_thru_seen(j, 1), 11, "node {j} saw node 1's STOP-THRU");
    }
    assert_eq!(b.may_send(n3), Permit::Go);
    assert_eq!(b.may_send(n5), Permit::Go);
    assert_eq!(b.may_send(n6), Permit::Skip);
    // The congested node itself is not held by its own announcement.
    assert_eq!(b.may_send(n1), Permit::Go);
    // Node 1 sends its packet with nothing behind it: the restriction is lifted.
    let pk = *b.slab.get(n1);
    b.nodes[1].take_own(n1, 0);
    b.dfc.on_sent(1, 0, n1, &pk, None, &mut b.fx);
    assert_eq!(b.circulate(), Symbol::StopThru { level: 0 });
    assert!(b.fx.wakes.iter().any(|&(j, _)| j == 6), "node 6 is woken by the lift");
    assert_eq!(b.may_send(n6), Permit::Go);
}

/// Each node acts on what *it* has seen: halfway round, the nodes the
/// STOP-THRU symbol has passed hold a lower-priority packet through the
/// congested node, those it has not reached yet do not.
#[test]
fn stop_thru_holds_only_where_it_has_been_seen() {
    let mut b = Bench::new(8);
    let n4 = b.waiting(4, 2, 5);
    let n7 = b.waiting(7, 2, 5);
    b.dfc.on_blocked(1, 0, 10, &mut b.fx);
    let (origin, len, tag, _) = b.fx.controls.pop().expect("STOP-THRU sent");
    let mut pk = Packet::new(PacketKind::Control, 0, origin, origin, 0, len, 0).on(origin, origin);
    pk.tag = tag;
    for j in 2..=4 {
        assert!(b.dfc.on_control(j, 0, &mut pk, &b.nodes[j], &b.slab, &mut b.fx));
    }
    assert_eq!((b.dfc.stop_thru_seen(4, 1), b.dfc.stop_thru_seen(7, 1), b.dfc.stop_thru_seen(0, 1)), (11, 0, 0));
    assert_eq!(b.may_send(n4), Permit::Skip, "node 4 has seen it");
    assert_eq!(b.may_send(n7), Permit::Go, "node 7 has not");
    for j in 5..=7 {
        assert!(b.dfc.on_control(j, 0, &mut pk, &b.nodes[j], &b.slab, &mut b.fx));
    }
    assert_eq!(b.may_send(n7), Permit::Skip);
}

/// After sending, a congested node with another packet waiting changes the
/// restriction to that packet's priority instead of lifting it (section 3.1).
#[test]
fn stop_thru_changes_to_the_next_packets_priority() {
    let mut b = Bench::new(4);
    let first = b.waiting(0, 2, 9);
    b.dfc.on_blocked(0, 0, 9, &mut b.fx);
    assert_eq!(b.circulate(), Symbol::StopThru { level: 10 });
    let pk = *b.slab.get(first);
    b.dfc.on_sent(0, 0, first, &pk, Some(3), &mut b.fx);
    assert_eq!(b.circulate(), Symbol::StopThru { level: 4 });
    assert_eq!(b.dfc.stop_thru_seen(3, 0), 4);
    // Same priority again: no symbol is needed.
    b.dfc.on_sent(0, 0, first, &pk, Some(3), &mut b.fx);
    assert!(b.fx.controls.is_empty());
}

fn queue(occupied: u32) -> QueueView<'static> {
    QueueView::new(5, occupied)
}

/// Seed Figure 6 on a four-node ring (the seed's nodes 1-4 are nodes 1, 2,
/// 3, 0 here). Node 1's input queue fills: an initial STOP-TO grants nobody
/// and finds node 2's priority 10 the highest waiting. A freed slot grants
/// node 2 and finds node 0's priority 15 (it arrived meanwhile) above node
/// 3's 5. The next freed slot grants node 0. At the low-water mark a final
/// STOP-TO releases everybody.
#[test]
fn figure_6_stop_to_life_cycle() {
    let mut b = Bench::new(4);
    let to_1_from_2 = b.waiting(2, 1, 10);
    let to_1_from_3 = b.waiting(3, 1, 5);
    // State 1: the responder queue (side 0) reaches its high-water mark (5 = full).
    b.dfc.on_input_change(1, 0, queue(5), 0, &mut b.fx);
    let home = b.circulate();
    assert_eq!(home, Symbol::StopTo { side: 0, grant: Grant::Initial, best: Some((2, 10)) });
    for j in [2, 3, 0] {
        assert_eq!(b.dfc.stop_to_seen(j, 1, 0), (true, 0), "node {j} is blocked from sending to node 1");
    }
    assert_eq!(b.may_send(to_1_from_2), Permit::Skip);
    assert_eq!(b.may_send(to_1_from_3), Permit::Skip);
    // State 2: node 1 services a packet; the freed slot is granted to node 2.
    let to_1_from_0 = b.waiting(0, 1, 15);
    b.dfc.on_input_change(1, 0, queue(4), 0, &mut b.fx);
    let home = b.circulate();
    assert_eq!(home, Symbol::StopTo { side: 0, grant: Grant::One(Some(2)), best: Some((0, 15)) });
    assert_eq!(b.dfc.stop_to_seen(2, 1, 0), (true, 1));
    assert_eq!(b.may_send(to_1_from_2), Permit::Go);
    assert_eq!(b.may_send(to_1_from_3), Permit::Skip);
    assert_eq!(b.may_send(to_1_from_0), Permit::Skip);
    // Node 2 uses its grant.
    let pk = *b.slab.get(to_1_from_2);
    b.nodes[2].take_own(to_1_from_2, 0);
    b.dfc.on_sent(2, 0, to_1_from_2, &pk, None, &mut b.fx);
    assert_eq!(b.dfc.stop_to_seen(2, 1, 0), (true, 0));
    b.dfc.on_input_change(1, 0, queue(5), 0, &mut b.fx); // it arrives
    assert!(b.fx.controls.is_empty(), "an arrival sends no symbol");
    // State 3: another slot frees: node 0 (priority 15) is granted, node 3 (5) still waits.
    b.dfc.on_input_change(1, 0, queue(4), 0, &mut b.fx);
    let home = b.circulate();
    assert_eq!(home, Symbol::StopTo { side: 0, grant: Grant::One(Some(0)), best: Some((3, 5)) });
    assert_eq!(b.may_send(to_1_from_0), Permit::Go);
    assert_eq!(b.may_send(to_1_from_3), Permit::Skip);
    // State 4: the queue drains to the low-water mark (2): everybody is released.
    b.dfc.on_input_change(1, 0, queue(3), 0, &mut b.fx);
    b.circulate(); // a grant for node 3
    b.dfc.on_input_change(1, 0, queue(2), 0, &mut b.fx);
    let home = b.circulate();
    assert_eq!(home, Symbol::StopTo { side: 0, grant: Grant::Release, best: None });
    for j in [2, 3, 0] {
        assert_eq!(b.dfc.stop_to_seen(j, 1, 0), (false, 0));
    }
    assert_eq!(b.may_send(to_1_from_3), Permit::Go);
}

fn ppq_ring(nodes: u32, extra: &[&str]) -> Fabric<Ppq> {
    let mut all = vec!["network.protocol=\"ppq\"", "traffic.priorities=4", "ppq.starvation=\"inheritance\""];
    all.extend_from_slice(extra);
    ring_with(nodes, &all)
}

/// LIQ preemption: node 2's responder queue holds 2 packets (one in
/// service, one waiting, both priority 0). A priority-3 request finds it
/// full and evicts the waiting priority-0 packet, which is busied back to
/// its source and retried; the priority-3 request is accepted.
#[test]
fn ppq_preempts_a_lower_priority_packet_in_the_input_queue() {
    let mut r = ppq_ring(4, &["node.responder_input_queue_packets=2", "node.iqst_ns=1000.0"]);
    r.inject(0, 2, 0, 0);
    r.inject(1, 2, 0, 0);
    r.inject(3, 2, 3, 40 * NS);
    r.run_until(200 * NS);
    let t = records(&r);
    let preempted: Vec<_> = t.iter().filter(|x| x.what == TraceKind::Preempted).collect();
    assert_eq!(preempted.len(), 1);
    assert_eq!((preempted[0].iface, preempted[0].priority), (2, 0));
    assert_eq!(r.report().counters.preemptions, 1);
    let accepted: Vec<_> = t.iter().filter(|x| x.what == TraceKind::Accepted && x.iface == 2).map(|x| (x.src, x.priority)).collect();
    assert_eq!(accepted, vec![(1, 0), (0, 0), (3, 3)]);
    // The evicted packet's source got a busy echo and will retry it.
    assert!(t.iter().any(|x| x.what == (TraceKind::EchoBack { busy: true }) && x.iface == preempted[0].src));
    // PPQ echoes only on service: nothing accepted has been echoed before its service.
    assert!(!t.iter().any(|x| x.what == (TraceKind::EchoBack { busy: false })));
}

/// A buffered packet that leaves room in the bypass FIFO for the own packet
/// is not preempted: read64 requests are 8 symbols, the FIFO holds 41.
#[test]
fn ppq_does_not_preempt_when_the_bypass_fifo_has_room() {
    let mut r = ppq_ring(4, &[]);
    r.inject(1, 2, 2, 0);
    r.inject(1, 3, 2, 0);
    r.inject(0, 2, 0, 0);
    r.run_until(200 * NS);
    assert!(!records(&r).iter().any(|x| x.what == TraceKind::Preempted));
}

/// BQ preemption: node 1 sends its own priority-2 write64 request (40
/// symbols) at 0; node 0's priority-0 request arrives in node 1's bypass
/// queue meanwhile. When node 1's link frees, its second own packet
/// (priority 2) outranks the buffered one and would not fit the bypass FIFO
/// beside it (41 + 41 symbols > 41), so the buffered packet is turned into a
/// busy echo for node 0.
#[test]
fn ppq_preempts_a_lower_priority_packet_in_the_bypass_queue() {
    let mut r = ppq_ring(4, &["traffic.transaction=\"write64\""]);
    r.inject(1, 2, 2, 0);
    r.inject(1, 3, 2, 0);
    r.inject(0, 2, 0, 0);
    r.run_until(2_000 * NS);
    let t = records(&r);
    let preempted: Vec<_> = t.iter().filter(|x| x.what == TraceKind::Preempted).map(|x| (x.time, x.iface, x.src, x.priority)).collect();
    // Node 1's first request occupies its link for 40 + 1 symbols.
    assert_eq!(preempted, vec![(41 * CYCLE, 1, 0, 0)]);
    assert_eq!(r.report().counters.preemptions, 1);
    // Node 1's bypass FIFO held the whole 40-symbol request before it
    // became a 4-symbol echo (its peak is counted before the change).
    let link1 = r.report().per_link.iter().find(|l| l.link == 1).map(|l| l.bypass_max_symbols);
    assert_eq!(link1, Some(40));
    assert!(t.iter().any(|x| x.what == (TraceKind::EchoBack { busy: true }) && x.iface == 0));
    // Node 0 retries and its request is eventually delivered.
    assert!(t.iter().any(|x| x.what == TraceKind::Received && x.iface == 2 && x.src == 0));
}

/// Starvation cures. Aging: a packet's bypass-queue priority rises one
/// level per `ppq.aging_ns` waited, up to the highest level in use.
/// Inheritance: a source whose output queue is full while a higher-priority
/// transaction waits asks, once, that its lowest outstanding packet inherit
/// that priority, with a message that visits every other node.
#[test]
fn ppq_aging_and_inheritance() {
    let (s, p) = setup(4, &["network.protocol=\"ppq\"", "traffic.priorities=4", "ppq.starvation=\"aging\"", "ppq.aging_ns=100"]);
    let t = topology(&s);
    let aging = Ppq::build(&t.view(0), &p, &s).unwrap();
    let pk = Packet::new(PacketKind::Request, 0, 0, 2, 0, 8, 0).on(0, 2);
    assert_eq!(aging.bypass_priority(&pk, 99 * NS), 0);
    assert_eq!(aging.bypass_priority(&pk, 100 * NS), 1);
    assert_eq!(aging.bypass_priority(&pk, 250 * NS), 2);
    assert_eq!(aging.bypass_priority(&pk, 10_000 * NS), 3);

    let (s, p) = setup(4, &["network.protocol=\"ppq\"", "traffic.priorities=4", "ppq.starvation=\"inheritance\"", "node.output_queue_packets=2"]);
    let t = topology(&s);
    let mut inherit = Ppq::build(&t.view(0), &p, &s).unwrap();
    let mut node = Iface::new(&t, 0, &p, 4, 0);
    let mut slab = Slab::with_capacity(4);
    let low = slab.alloc(Packet::new(PacketKind::Request, 0, 0, 2, 0, 8, 0).on(0, 2));
    let mid = slab.alloc(Packet::new(PacketKind::Request, 0, 0, 3, 1, 8, 0).on(0, 3));
    // Both sent, awaiting their echoes.
    for (id, prio) in [(mid, 1), (low, 0)] {
        node.push_own(0, prio, id);
        node.take_own(id, 0);
    }
    let mut fx = Effects::default();
    inherit.on_output_full(0, 0, 0, 3, &node, &mut slab, &mut fx);
    assert_eq!(fx.controls.len(), 1, "one inheritance message");
    inherit.on_output_full(0, 0, 0, 3, &node, &mut slab, &mut fx);
    assert_eq!(fx.controls.len(), 1, "asked once for the same packet and priority");
    let (origin, len, tag, _) = fx.controls[0];
    let mut msg = Packet::new(PacketKind::Control, 0, origin, 1, 0, len, 0).on(origin, 1);
    msg.tag = tag;
    for j in 1..4 {
        assert!(inherit.on_control(j, 0, &mut msg, &node, &slab, &mut fx));
    }
    assert!(!inherit.on_control(0, 0, &mut msg, &node, &slab, &mut fx), "removed by its source");
    assert_eq!(fx.raises, vec![(1, low, 3), (2, low, 3), (3, low, 3)]);
}

/// Inheritance after earlier raises: a packet already raised counts at its
/// raised priority when the next victim is chosen, and each packet keeps its
/// own latest raise. Node 0 has a priority-0 and a priority-1 request out.
/// A priority-2 transaction waits: the priority-0 packet inherits 2. A
/// priority-3 one: the lowest is now the priority-1 packet: it inherits 3.
/// That one's echo returns and a new priority-1 request goes out; priority
/// 3 waits again: the new packet (1) is lower than the raised one (2).
#[test]
fn ppq_inheritance_counts_earlier_raises() {
    let (s, p) = setup(4, &["network.protocol=\"ppq\"", "traffic.priorities=4", "ppq.starvation=\"inheritance\"", "node.output_queue_packets=2"]);
    let t = topology(&s);
    let mut ppq = Ppq::build(&t.view(0), &p, &s).unwrap();
    let mut node = Iface::new(&t, 0, &p, 4, 0);
    let mut slab = Slab::with_capacity(4);
    let send = |node: &mut Iface, slab: &mut Slab, dst: u16, prio: u16| {
        let id = slab.alloc(Packet::new(PacketKind::Request, 0, 0, dst, prio, 8, 0).on(0, dst));
        node.push_own(0, prio, id);
        node.take_own(id, 0);
        id
    };
    let low = send(&mut node, &mut slab, 2, 0);
    let mid = send(&mut node, &mut slab, 3, 1);
    let mut fx = Effects::default();
    ppq.on_output_full(0, 0, 0, 2, &node, &mut slab, &mut fx);
    ppq.on_output_full(0, 0, 0, 3, &node, &mut slab, &mut fx);
    node.echoed(0, mid);
    let new = send(&mut node, &mut slab, 1, 1);
    ppq.on_output_full(0, 0, 0, 3, &node, &mut slab, &mut fx);
    // What each message raises, as node 1 sees it.
    let raised: Vec<(u32, u16)> = std::mem::take(&mut fx.controls)
        .into_iter()
        .map(|(origin, len, tag, _)| {
            let mut msg = Packet::new(PacketKind::Control, 0, origin, 1, 0, len, 0).on(origin, 1);
            msg.tag = tag;
            assert!(ppq.on_control(1, 0, &mut msg, &node, &slab, &mut fx));
            let (at, id, prio) = fx.raises.pop().expect("a raise");
            assert_eq!(at, 1);
            (id, prio)
        })
        .collect();
    assert_eq!(raised, vec![(low, 2), (mid, 3), (new, 3)]);
    let c = ppq.counters();
    assert_eq!((c.inheritances, c.control_symbols), (3, 3));
}

/// PPQ's Echo Waiting Queue (`ppq.ewq_packets`): a sent packet waits for
/// its echo (sent on service, 1 us here) in the EWQ, so its output queue
/// slot takes the next transaction at once. Node 0, one output queue slot:
/// with an EWQ of one, its second request follows the first after its 8
/// symbols and idle (18 ns); without, it waits for the first one's echo:
/// the request is in node 2's queue at 20 ns and served at 1020 ns, when
/// node 2 sends the echo, back at node 0 two hops and 4 symbols later, at
/// 1032 ns.
#[test]
fn ppq_echo_waiting_queue_frees_the_output_queue_slot() {
    for (ewq, second) in [("ppq.ewq_packets=1", 18 * NS), ("ppq.ewq_packets=0", 1_032 * NS)] {
        let mut r = ppq_ring(4, &["node.output_queue_packets=1", "node.iqst_ns=1000.0", ewq]);
        r.inject(0, 2, 0, 0);
        r.inject(0, 2, 0, 0);
        r.run_until(2_000 * NS);
        assert_eq!(times(&r, 0, TraceKind::Transmit { own: true }, PacketKind::Request, 0), vec![0, second], "{ewq}");
        assert_eq!(times(&r, 2, TraceKind::Transmit { own: false }, PacketKind::Echo, 2)[0], 1_020 * NS);
    }
}

/// The EWQ's slot is free for what already waits: node 0, one output
/// queue slot and an EWQ of two, three requests at once. The second goes
/// at 18 ns into the queue the first left; when it is sent, its slot takes
/// the third from the application queue at once (sent at 36 ns), not when
/// the first echo returns (1032 ns).
#[test]
fn ppq_a_send_into_the_ewq_frees_its_slot_for_the_application_queue() {
    let mut r = ppq_ring(4, &["node.output_queue_packets=1", "node.iqst_ns=1000.0", "ppq.ewq_packets=2"]);
    for _ in 0..3 {
        r.inject(0, 2, 0, 0);
    }
    r.run_until(2_000 * NS);
    assert_eq!(times(&r, 0, TraceKind::Transmit { own: true }, PacketKind::Request, 0), vec![0, 18 * NS, 36 * NS]);
}

/// A starved low-priority packet stuck in an input queue behind a stream of
/// higher-priority ones is served once inheritance raises it (ring level).
/// Five nodes. Nodes 1 and 3 each keep one priority-3 request for node 2
/// outstanding (output queues of one packet, no EWQ), a new one every 100
/// ns; node 2 serves one per 200 ns, so its responder queue always holds a
/// priority-3 request ahead of node 0's priority-0 one (in at 38 ns). Node
/// 0's priority-3 transaction (235 ns) finds its output queue full: its
/// event message raises the waiting request to 3 as it passes node 2 (272
/// ns), where it joins the priority-3 requests; it is served at 818 ns.
/// Without the message it is never served in the 3 us run. When the
/// message passes, node 2's bypass FIFO holds node 4's request for node 3
/// (node 1 passes it on at 252 ns, node 2, behind its own response, at 322
/// ns): the raise finds the starved packet in the input queue all the same.
#[test]
fn ppq_inheritance_frees_a_starved_packet() {
    let served = |inherit: bool| {
        let mut r = ppq_ring(5, &["node.output_queue_packets=1", "ppq.ewq_packets=0", "node.iqst_ns=200.0", "node.responder_input_queue_packets=16"]);
        for k in 0..14u64 {
            r.inject(1, 2, 3, k * 100 * NS);
            r.inject(3, 2, 3, k * 100 * NS);
        }
        r.inject(4, 3, 3, 225 * NS);
        r.inject(0, 2, 0, 10 * NS);
        if inherit {
            r.inject(0, 3, 3, 235 * NS);
        }
        r.run_until(3_000 * NS);
        assert_eq!(r.report().counters.inheritances, inherit as u64);
        if inherit {
            assert_eq!(times(&r, 2, TraceKind::Control, PacketKind::Control, 0), vec![272 * NS]);
            let passing = |at: u16| times(&r, at, TraceKind::Transmit { own: false }, PacketKind::Request, 4);
            assert_eq!((passing(1), passing(2)), (vec![252 * NS], vec![322 * NS]));
        }
        let order: Vec<(u16, u64)> =
            records(&r).iter().filter(|x| x.what == TraceKind::Serviced && x.iface == 2).map(|x| (x.src, x.time / NS)).take(5).collect();
        (order, times(&r, 2, TraceKind::Serviced, PacketKind::Request, 0))
    };
    assert_eq!(served(true), (vec![(1, 218), (3, 418), (1, 618), (0, 818), (3, 1018)], vec![818 * NS]));
    assert_eq!(served(false), (vec![(1, 218), (3, 418), (1, 618), (3, 818), (1, 1018)], vec![]));
}

/// STOP-THRU's ">=" rule on a running ring (seed 003 section 3.1: held
/// "unless the packets have a priority greater than or equal to the
/// priority of the packet the congested node is trying to send"). Four
/// nodes, move64 (40-symbol requests, 41-symbol slots, 82 ns; no responses):
/// - node 1 sends its first priority-10 request at 0 ns; node 0's request
///   (for node 2) reaches node 1 at 2 ns and waits in its bypass FIFO;
/// - at 82 ns node 1 forwards it while its second priority-10 request waits:
///   node 1 is congested and circulates STOP-THRU(10), which leaves at 164 ns
///   (behind the forwarded packet) and reaches node 3 at 168 ns;
/// - at 168 ns node 1 sends its second request and lifts the restriction;
///   the lift goes into the stream when node 1's bypass FIFO has room for it.
///
/// At 200 ns node 3 has a request for node 2, which passes node 1. Of the
/// announced priority 10 (or 11) it goes at once and reaches node 1 at
/// 204 ns, during node 1's send: the FIFO then holds its 40 symbols, and
/// 2 more would overfill it (41), so the lift leaves behind it, at 332 ns,
/// and reaches node 3 at 336 ns. Of priority 9 it is held: the lift leaves
/// node 1 as its send ends, at 250 ns, reaches node 3 at 254 ns, and node
/// 3's request goes then, ahead of the lift (an own packet takes the idle
/// slot when a passing packet arrives at the same instant).
#[test]
fn stop_thru_lets_equal_priority_through() {
    for (priority, sent_at, lift_at) in [(10, 200 * NS, 336 * NS), (11, 200 * NS, 336 * NS), (9, 254 * NS, 254 * NS)] {
        let mut r = ring_with::<Dfc>(4, &["network.protocol=\"dfc\"", "traffic.priorities=16", "traffic.transaction=\"move64\""]);
        r.inject(1, 2, 10, 0);
        r.inject(1, 2, 10, 0);
        r.inject(0, 2, 0, 0);
        r.inject(3, 2, priority, 200 * NS);
        r.run_until(1_000 * NS);
        let controls: Vec<(u64, u16)> = records(&r).iter().filter(|x| x.what == TraceKind::Control && x.iface == 3).map(|x| (x.time, x.src)).collect();
        assert_eq!(controls, vec![(168 * NS, 1), (lift_at, 1)], "STOP-THRU and its lift at node 3, priority {priority}");
        assert_eq!(times(&r, 1, TraceKind::Transmit { own: true }, PacketKind::Request, 1), vec![0, 168 * NS]);
        assert_eq!(times(&r, 3, TraceKind::Transmit { own: true }, PacketKind::Request, 3), vec![sent_at], "priority {priority}");
        assert_eq!(r.protocol(0).stop_thru_seen(3, 1), 0, "lifted by the end");
        // Two control symbols in all: the announcement and its lift.
        assert_eq!(r.report().counters.control_symbols, 2);
        // Both waited for room in node 1's bypass FIFO (each leaves behind a packet).
        assert_eq!(r.report().counters.generated_waits, 2);
    }
}

/// A held node that becomes congested is held no more, at once. Five
/// nodes, read64, 300 ns service, responder queues of 3; eight transactions
/// (a case a randomized search found). Node 0 is congested and circulates
/// STOP-THRU(9), which every other node has seen by 300 ns. Node 2's
/// priority-3 response for node 1 passes node 0: held, and every own packet
/// of node 2 skipped. Blocked by passing traffic, node 2 becomes congested
/// itself and announces STOP-THRU(3) (node 3 sees it at 364 ns); a
/// congested node is not held, so the response goes as soon as node 2's
/// bypass FIFO is empty, at 366 ns, before node 0's lift reaches node 2
/// (370 ns). (Nothing else node 2's packets depend on changed meanwhile:
/// the fabric asks again only because the announcement says so.)
#[test]
fn dfc_a_held_node_that_becomes_congested_sends_at_once() {
    let mut r = ring_with::<Dfc>(
        5,
        &["network.protocol=\"dfc\"", "traffic.priorities=16", "node.iqst_ns=300.0", "node.responder_input_queue_packets=3", "dfc.stop_thru_after_packets=1"],
    );
    for (src, dst, priority, at) in [(4u16, 0u16, 0u16, 110u64), (4, 0, 3, 140), (1, 2, 3, 20), (0, 4, 6, 130), (1, 2, 9, 48), (0, 2, 0, 18), (0, 3, 3, 104), (0, 2, 9, 136)] {
        r.inject(src, dst, priority, at * NS);
    }
    let seen = |r: &Fabric<Dfc>, j: usize, i: usize| r.protocol(0).stop_thru_seen(j, i);
    r.run_until(300 * NS);
    assert_eq!((1..5).map(|j| seen(&r, j, 0)).collect::<Vec<_>>(), vec![10; 4], "STOP-THRU(9) from node 0 seen everywhere");
    r.run_until(364 * NS);
    assert_eq!((seen(&r, 3, 2), seen(&r, 2, 0)), (4, 10), "node 2's STOP-THRU(3) at node 3; node 0's still held at node 2");
    r.run_until(1_000 * NS);
    assert_eq!(times(&r, 2, TraceKind::Transmit { own: true }, PacketKind::Response, 2)[0], 366 * NS);
    let lift: Vec<u64> = records(&r).iter().filter(|x| x.iface == 2 && x.what == TraceKind::Control && x.src == 0 && x.time > 300 * NS).map(|x| x.time).collect();
    assert_eq!(lift[0], 370 * NS);
}

/// DFC's STOP-TO water marks at the edges of what is accepted (input
/// queues of 5): the high mark at most the queue size, the low mark below
/// the high one.
#[test]
fn dfc_water_marks_at_their_bounds() {
    let check = |extra: &[&str]| {
        let mut all = vec!["network.protocol=\"dfc\""];
        all.extend_from_slice(extra);
        let (s, p) = setup(4, &all);
        <Dfc>::build(&topology(&s).view(0), &p, &s).map(|_| ())
    };
    assert_eq!(check(&["dfc.stop_to_high=5", "dfc.stop_to_low=4"]), Ok(()));
    assert_eq!(check(&["dfc.stop_to_high=6"]), Err("dfc.stop_to_high: expected at most the input queue size (5), got 6".into()));
    assert_eq!(check(&["dfc.stop_to_high=3", "dfc.stop_to_low=3"]), Err("dfc.stop_to_low: expected less than the high-water mark (3), got 3".into()));
    assert_eq!(check(&["dfc.stop_to_high=3", "dfc.stop_to_low=2"]), Ok(()));
    // Derived: the high mark is the smaller queue's size.
    assert_eq!(check(&["node.requestor_input_queue_packets=3", "dfc.stop_to_low=3"]), Err("dfc.stop_to_low: expected less than the high-water mark (3), got 3".into()));
}

/// The train streams through a node: the node holds its head for the
/// handling (8 cycles), or behind what its bypass FIFO must send first, and
/// buffers what comes in behind every ticket it adds, so it adds tickets
/// only as far as the held and the added symbols fit its FIFO; what does
/// not fit are the lowest-priority tickets, truncated as at the size budget
/// (seed 003 Figure 3). Four nodes; nodes 1, 2 and 3 each have four
/// requests of priority 1, 2 and 3; a budget that never truncates (400
/// symbols), up to 4 tickets a node, arbitrated from the second revolution
/// on, each node holding the train 12 cycles.
///
/// The first (immediate) revolution grants each node one packet. On the
/// request train each node adds its other 3 (12 symbols; the 41-symbol FIFO
/// holds 12 + 12): 8 + 9 x 4 = 44 symbols home, longer than the FIFO, none
/// truncated. With a 32-symbol packet waiting in node 3's FIFO (33 symbol
/// times with its separator, more than the handling) node 3 has room for 8
/// more: its third ticket pushes a priority-1 ticket off (home with 40, 1
/// truncated). With a 40-symbol packet there (41) it has room for none:
/// each of its 3 tickets pushes one off (home with 32, 3 truncated). Nor
/// does a train grow longer than the idle ring's revolution: with the
/// derived handling (8 cycles) that is 4 x (1 + 8) = 36 symbols, 7 tickets,
/// and node 3's last two push two off (home with 36, 2 truncated).
#[test]
fn a_train_grows_only_as_far_as_the_bypass_fifo_has_room() {
    for (waiting, handling, home_len, truncated) in [
        (0, 12, 44, 0),
        (32, 12, 40, 1),
        (40, 12, 32, 3),
        (0, 0, 36, 2),
    ] {
        let handling = format!("train.handling_cycles={handling}");
        let (s, p) = setup(
            4,
            &[
                "network.protocol=\"train\"",
                "traffic.priorities=4",
                "train.budget_symbols=400",
                "train.max_tickets_per_node=4",
                "train.arbitrate_above=0",
                "train.immediate_below=0",
                &handling,
            ],
        );
        let topo = topology(&s);
        let mut t = ringlet_sci::protocol::train::Train::build(&topo.view(0), &p, &s).unwrap();
        let mut nodes: Vec<Iface> = (0..4u16).map(|i| Iface::new(&topo, i, &p, 4, 0)).collect();
        let mut slab = Slab::with_capacity(32);
        for src in 1..4u16 {
            for _ in 0..4 {
                let id = slab.alloc(Packet::new(PacketKind::Request, 0, src, 0, src, 8, 0).on(src, 0));
                nodes[src as usize].push_own(0, src, id);
            }
        }
        if waiting > 0 {
            // A packet has arrived in node 3's bypass FIFO and waits there.
            let id = slab.alloc(Packet::new(PacketKind::Response, 1, 1, 0, 0, waiting, 0).on(1, 0));
            nodes[3].bypass.push_back((id, 0));
        }
        let mut fx = Effects::default();
        t.on_start(&mut fx);
        let mut train = BenchTrain::launched(&mut fx);
        assert_eq!(
            train.revolution(&mut t, &nodes, &slab, &mut fx),
            8,
            "immediate mode: the LocalMotive alone"
        );
        assert_eq!(
            train.revolution(&mut t, &nodes, &slab, &mut fx),
            home_len,
            "{waiting} symbols waiting, {handling}"
        );
        assert_eq!(
            t.counters().tickets_without_room,
            truncated,
            "{waiting} symbols waiting, {handling}"
        );
    }
}

/// The water marks are checked before any run (a sweep checks every point
/// first), not only when the protocol is built.
#[test]
fn dfc_water_marks_are_checked_before_a_run() {
    let (s, p) = setup(4, &["network.protocol=\"dfc\"", "dfc.stop_to_high=6"]);
    let t = topology(&s);
    let dfc = ringlet_sci::protocol::REGISTRY.iter().find(|r| r.schema.name == "dfc").expect("registered");
    assert_eq!((dfc.check)(&t, &p, &s), Err("dfc.stop_to_high: expected at most the input queue size (5), got 6".into()));
    let (s, p) = setup(4, &["network.protocol=\"dfc\"", "dfc.stop_to_high=5", "dfc.stop_to_low=4"]);
    assert_eq!((dfc.check)(&topology(&s), &p, &s), Ok(()));
}

/// STOP-THRU as the other nodes see it change: raised (from nothing to
/// priority 10, and on to 12 when a higher-priority own packet waits behind
/// bypass traffic too), nobody is woken: nobody was released; lowered (to
/// the next own packet's priority 4) or lifted, every node is woken to
/// decide again.
#[test]
fn stop_thru_wakes_the_other_nodes_when_lowered_or_lifted_only() {
    let mut b = Bench::new(4);
    assert!(!b.dfc.on_blocked(1, 0, 10, &mut b.fx), "announced: no need to be told again");
    assert_eq!(b.circulate(), Symbol::StopThru { level: 11 });
    assert_eq!(b.fx.wakes, vec![]);
    // A priority-12 packet now waits as well: the announcement is raised.
    assert!(!b.dfc.on_blocked(1, 0, 12, &mut b.fx));
    assert_eq!(b.circulate(), Symbol::StopThru { level: 13 });
    assert_eq!(b.fx.wakes, vec![]);
    assert_eq!(b.dfc.stop_thru_seen(3, 1), 13);
    // Node 1 sends; its next packet has priority 4.
    let sent = b.waiting(1, 2, 12);
    let pk = *b.slab.get(sent);
    b.nodes[1].take_own(sent, 0);
    b.dfc.on_sent(1, 0, sent, &pk, Some(4), &mut b.fx);
    assert_eq!(b.circulate(), Symbol::StopThru { level: 5 });
    assert_eq!(b.fx.wakes, vec![(2, 0), (3, 0), (0, 0)]);
    b.fx.wakes.clear();
    b.dfc.on_sent(1, 0, sent, &pk, None, &mut b.fx);
    assert_eq!(b.circulate(), Symbol::StopThru { level: 0 });
    assert_eq!(b.fx.wakes, vec![(2, 0), (3, 0), (0, 0)]);
}

/// STOP-TO grants for slots freed while a symbol is out. Node 1's queue is
/// full; a slot frees before the initial STOP-TO is home: nobody is known
/// yet, so nothing is sent. When it comes home naming node 2 (priority 10),
/// that slot goes to node 2 at once; its grant comes home naming node 3,
/// which waits for the next slot (one slot, one grant). Node 3 is granted
/// the next one; when nobody is left waiting and another slot frees, a
/// STOP-TO goes round to find who wants it.
#[test]
fn stop_to_grants_slots_freed_while_a_symbol_is_out() {
    let mut b = Bench::new(4);
    let from_2 = b.waiting(2, 1, 10);
    let from_3 = b.waiting(3, 1, 5);
    b.dfc.on_input_change(1, 0, queue(5), 0, &mut b.fx);
    b.dfc.on_input_change(1, 0, queue(4), 0, &mut b.fx);
    assert_eq!(b.fx.controls.len(), 1, "only the initial STOP-TO is out");
    assert_eq!(b.circulate(), Symbol::StopTo { side: 0, grant: Grant::Initial, best: Some((2, 10)) });
    assert_eq!(b.circulate(), Symbol::StopTo { side: 0, grant: Grant::One(Some(2)), best: Some((3, 5)) });
    assert!(b.fx.controls.is_empty(), "one slot freed, one grant");
    for (id, src) in [(from_2, 2u16), (from_3, 3)] {
        let pk = *b.slab.get(id);
        b.nodes[src as usize].take_own(id, 0);
        b.dfc.on_sent(src as usize, 0, id, &pk, None, &mut b.fx);
        b.dfc.on_input_change(1, 0, queue(5), 0, &mut b.fx); // it arrives
        b.dfc.on_input_change(1, 0, queue(4), 0, &mut b.fx); // a slot frees
        if src == 2 {
            assert_eq!(b.circulate(), Symbol::StopTo { side: 0, grant: Grant::One(Some(3)), best: None });
        }
    }
    assert_eq!(b.circulate(), Symbol::StopTo { side: 0, grant: Grant::One(None), best: None });
    assert!(b.fx.controls.is_empty());
    assert_eq!(b.dfc.counters().control_symbols, 4);
}

/// A queue that fills again while its release is still on its way round:
/// the release coming home does not end the new STOP-TO's collection, so a
/// slot freed meanwhile sends nothing more.
#[test]
fn stop_to_release_home_after_the_queue_refilled() {
    let mut b = Bench::new(4);
    b.waiting(2, 1, 10);
    b.dfc.on_input_change(1, 0, queue(5), 0, &mut b.fx);
    b.circulate();
    b.dfc.on_input_change(1, 0, queue(2), 0, &mut b.fx); // low-water mark: released
    let (origin, len, tag, _) = b.fx.controls.pop().expect("the release");
    assert_eq!(b.dfc.symbol(tag), Symbol::StopTo { side: 0, grant: Grant::Release, best: None });
    b.dfc.on_input_change(1, 0, queue(5), 0, &mut b.fx); // full again: a new initial STOP-TO
    assert_eq!(b.fx.controls.len(), 1);
    // The release comes home.
    let mut pk = Packet::new(PacketKind::Control, 0, origin, origin, 0, len, 0).on(origin, origin);
    pk.tag = tag;
    assert!(!b.dfc.on_control(1, 0, &mut pk, &b.nodes[1], &b.slab, &mut b.fx));
    b.dfc.on_input_change(1, 0, queue(4), 0, &mut b.fx);
    assert_eq!(b.fx.controls.len(), 1, "the new STOP-TO still collects");
    assert_eq!(b.circulate(), Symbol::StopTo { side: 0, grant: Grant::Initial, best: Some((2, 10)) });
    assert_eq!(b.circulate(), Symbol::StopTo { side: 0, grant: Grant::One(Some(2)), best: None });
}

/// Of two nodes waiting with the same priority for a blocked queue, the
/// STOP-TO names the first it passes (node 2 before node 3).
#[test]
fn stop_to_names_the_first_of_equal_priorities() {
    let mut b = Bench::new(4);
    b.waiting(3, 1, 10);
    b.waiting(2, 1, 10);
    b.dfc.on_input_change(1, 0, queue(5), 0, &mut b.fx);
    assert_eq!(b.circulate(), Symbol::StopTo { side: 0, grant: Grant::Initial, best: Some((2, 10)) });
}

/// Ties in turns (`dfc.stop_to_ties = "round_robin"`, beyond the seed).
/// Node 1's queue is full; nodes 2, 3 and 4 wait with the same priority,
/// node 2 with three packets. Two slots free, one after the other. Ties to
/// the first met: the initial STOP-TO names node 2, and so does each grant
/// to node 2 (its next packet is met first again). In turns: the initial
/// STOP-TO names node 2 (the first after node 1), the grant to node 2 names
/// node 3 (the first after node 2), the grant to node 3 names node 4.
#[test]
fn stop_to_ties_first_met_or_in_turns() {
    for (ties, named) in [("first", [2, 2, 2]), ("round_robin", [2, 3, 4])] {
        let mut b = Bench::with(5, &[&format!("dfc.stop_to_ties={ties}")]);
        for src in [2, 2, 2, 3, 4] {
            b.waiting(src, 1, 10);
        }
        b.dfc.on_input_change(1, 0, queue(5), 0, &mut b.fx);
        assert_eq!(b.circulate(), Symbol::StopTo { side: 0, grant: Grant::Initial, best: Some((named[0], 10)) }, "{ties}");
        for (k, occupied) in [(1, 4), (2, 3)] {
            b.dfc.on_input_change(1, 0, queue(occupied), 0, &mut b.fx);
            let grant = Grant::One(Some(named[k - 1]));
            assert_eq!(b.circulate(), Symbol::StopTo { side: 0, grant, best: Some((named[k], 10)) }, "{ties}, slot {k}");
        }
    }
}

/// A packet busied at a full queue leaves its occupancy as it was (the
/// fabric reports every arrival): no slot is freed, nobody is granted.
#[test]
fn stop_to_a_busied_arrival_frees_no_slot() {
    let mut b = Bench::new(4);
    b.waiting(2, 1, 10);
    b.dfc.on_input_change(1, 0, queue(5), 0, &mut b.fx);
    assert_eq!(b.circulate(), Symbol::StopTo { side: 0, grant: Grant::Initial, best: Some((2, 10)) });
    b.dfc.on_input_change(1, 0, queue(5), 0, &mut b.fx);
    assert!(b.fx.controls.is_empty());
    b.dfc.on_input_change(1, 0, queue(4), 0, &mut b.fx);
    assert_eq!(b.circulate(), Symbol::StopTo { side: 0, grant: Grant::One(Some(2)), best: None });
}

/// A generated control symbol goes into the stream only if the bypass FIFO
/// has room for it beside what the node is committed to. In the
/// `stop_thru_lets_equal_priority_through` ring node 1 generates its
/// STOP-THRU (at 82 ns) and its lift (at 168 ns) each while a 40-symbol
/// packet and its idle leave it (41 symbols committed): a 2-symbol control
/// symbol fits a 43-symbol FIFO, not a 42-symbol one, where both wait for
/// room (counted). Either way they leave behind that packet, so they reach
/// node 3 at the same times.
#[test]
fn dfc_control_symbols_wait_only_when_the_fifo_lacks_room() {
    for (fifo, waits) in [(42, 2), (43, 0)] {
        let fifo = format!("network.bypass_fifo_symbols={fifo}");
        let mut r = ring_with::<Dfc>(4, &["network.protocol=\"dfc\"", "traffic.priorities=16", "traffic.transaction=\"move64\"", &fifo]);
        r.inject(1, 2, 10, 0);
        r.inject(1, 2, 10, 0);
        r.inject(0, 2, 0, 0);
        r.inject(3, 2, 9, 200 * NS);
        r.run_until(1_000 * NS);
        let controls: Vec<(u64, u16)> = records(&r).iter().filter(|x| x.what == TraceKind::Control && x.iface == 3).map(|x| (x.time, x.src)).collect();
        assert_eq!(controls, vec![(168 * NS, 1), (254 * NS, 1)], "{fifo}");
        assert_eq!(r.report().counters.generated_waits, waits, "{fifo}");
    }
}

/// PPQ's bypass queue sends the highest-priority packet first, the oldest
/// of equal priority. Node 1 serves node 2's request at 32 ns and sends its
/// echo, then its 40-symbol response (42 to 124 ns). Meanwhile node 3's
/// request (sent at 40 ns) and node 0's (at 62 ns), both for node 2, reach
/// node 1's bypass queue. At 124 ns the first goes, the other 9 symbols
/// (18 ns) later.
#[test]
fn ppq_bypass_queue_sends_the_highest_priority_then_the_oldest() {
    for (from_3, from_0, first_3) in [(1, 1, true), (1, 2, false)] {
        let mut r = ppq_ring(4, &["node.iqst_ns=10.0"]);
        r.inject(2, 1, 0, 0);
        r.inject(3, 2, from_3, 40 * NS);
        r.inject(0, 2, from_0, 62 * NS);
        r.run_until(1_000 * NS);
        assert_eq!(times(&r, 1, TraceKind::Transmit { own: true }, PacketKind::Response, 1), vec![42 * NS]);
        let (t3, t0) = if first_3 { (124 * NS, 142 * NS) } else { (142 * NS, 124 * NS) };
        let forwarded = |src| times(&r, 1, TraceKind::Transmit { own: false }, PacketKind::Request, src);
        assert_eq!((forwarded(3), forwarded(0)), (vec![t3], vec![t0]), "priorities {from_3} and {from_0}");
    }
}

/// The output decision taken as the link frees sees every packet that
/// joins the output queues at that instant. Node 0's first request holds
/// its link 0..18 ns; at 18 ns a priority-0 request (for node 1) and then a
/// priority-2 one (for node 3) are queued: the priority-2 request goes at
/// 18 ns, the priority-0 one after it, at 36 ns.
#[test]
fn ppq_packets_queued_as_the_link_frees_go_highest_priority_first() {
    let mut r = ring_with::<Ppq>(4, &["network.protocol=\"ppq\"", "traffic.priorities=3"]);
    r.inject(0, 2, 0, 0);
    r.inject(0, 1, 0, 18 * NS);
    r.inject(0, 3, 2, 18 * NS);
    r.run_until(300 * NS);
    let sent: Vec<(u64, u16, u16)> =
        records(&r).iter().filter(|x| x.iface == 0 && x.what == TraceKind::Transmit { own: true }).map(|x| (x.time / NS, x.dst, x.priority)).collect();
    assert_eq!(sent, vec![(0, 2, 0), (18, 3, 2), (36, 1, 0)]);
}

/// A PPQ ring with aging (`ppq.aging_ns`).
fn ppq_aging_ring(aging_ns: &str, extra: &[&str]) -> Fabric<Ppq> {
    let aging = format!("ppq.aging_ns={aging_ns}");
    let mut all = vec!["network.protocol=\"ppq\"", "traffic.priorities=4", "ppq.starvation=\"aging\"", &aging];
    all.extend_from_slice(extra);
    ring_with(4, &all)
}

/// Aging in the bypass queue (seed 003 section 3): a packet gains a level
/// per `ppq.aging_ns` waited there, up to the highest. Node 1 serves node
/// 0's request and sends the response 128..210 ns; node 0's priority-0
/// request for node 2 (sent at 140 ns) and its priority-3 one for node 3
/// (158 ns) wait in node 1's bypass queue from 142 and 160 ns. At 210 ns
/// they have waited 68 and 50 ns: with 100 ns aging neither has gained a
/// level, and priority 3 goes first; with 20 ns aging the priority-0 packet
/// has gained three levels (to 3, the top): equal, so the older goes first.
#[test]
fn ppq_aging_lifts_a_packet_waiting_in_the_bypass_queue() {
    for (aging, first_3) in [("100.0", true), ("20.0", false)] {
        let mut r = ppq_aging_ring(aging, &[]);
        r.inject(0, 1, 0, 0);
        r.inject(0, 2, 0, 140 * NS);
        r.inject(0, 3, 3, 145 * NS);
        r.run_until(1_000 * NS);
        assert_eq!(times(&r, 1, TraceKind::Transmit { own: true }, PacketKind::Response, 1), vec![128 * NS]);
        let forwarded = |priority: u16| records(&r).iter().find(|x| x.iface == 1 && x.what == TraceKind::Transmit { own: false } && x.kind == PacketKind::Request && x.priority == priority).map(|x| x.time);
        let (t3, t0) = if first_3 { (210 * NS, 228 * NS) } else { (228 * NS, 210 * NS) };
        assert_eq!((forwarded(3), forwarded(0)), (Some(t3), Some(t0)), "aging {aging} ns");
    }
}

/// Preemption for an own packet counts the victims' aging, and takes the
/// youngest of equal rank first. Node 1 (50 ns service) sends node 0 a
/// response 78..160 ns; its priority-3 response to node 2 is ready at 118
/// ns. Node 0's two priority-0 requests (to nodes 2 and 3, sent at 80 and
/// 98 ns) wait in node 1's bypass queue from 82 and 100 ns. At 160 ns the
/// 41-symbol response needs the whole FIFO: with 80 ns aging both requests
/// still rank 0 (78 and 60 ns waited), below it, and become busy echoes,
/// the younger first; with 20 ns aging they have reached priority 3 and
/// stay.
#[test]
fn ppq_preemption_counts_aging_and_takes_the_youngest_first() {
    for (aging, preempted) in [("80.0", vec![3, 2]), ("20.0", vec![])] {
        let mut r = ppq_aging_ring(aging, &["node.iqst_ns=50.0"]);
        r.inject(0, 1, 0, 0);
        r.inject(2, 1, 3, 0);
        r.inject(0, 2, 0, 80 * NS);
        r.inject(0, 3, 0, 90 * NS);
        r.run_until(170 * NS);
        let victims: Vec<u16> = records(&r).iter().filter(|x| x.what == TraceKind::Preempted).map(|x| x.dst).collect();
        assert_eq!(victims, preempted, "aging {aging} ns");
        assert!(records(&r).iter().filter(|x| x.what == TraceKind::Preempted).all(|x| x.time == 160 * NS));
    }
}

/// PPQ runs base SCI's bandwidth allocation within a priority level: a
/// node's transmission recovery ends when its (priority-ordered) bypass
/// queue is empty, as in base SCI. One priority, write64 (41-symbol slots,
/// 82 ns), no responses in the window. Node 0 sends W1 (to node 3) and
/// node 1 V1 (to node 2) at 0, each with a second request queued:
/// - node 0's FIFO is empty at 82 ns: its recovery ends, and node 1's
///   waiting is seen there only from 88 ns: no debt, W2 goes at 82 ns;
/// - node 1 forwards W1 (in from 2 ns) 82..164 and W2 (in from 84 ns)
///   164..246: its recovery ends at 246 ns;
/// - node 0's ends after W2, at 164 ns, with node 1 seen waiting: it owes
///   41 symbols and converts idles 164..246, which node 1 sees until 248 ns:
///   V2 goes then.
#[test]
fn ppq_recovery_ends_when_the_bypass_queue_is_empty() {
    let mut r = ring_with::<Ppq>(4, &["network.protocol=\"ppq\"", "node.iqst_ns=10000.0", "traffic.transaction=write64"]);
    for _ in 0..2 {
        r.inject(0, 3, 0, 0);
        r.inject(1, 2, 0, 0);
    }
    r.run_until(400 * NS);
    assert_eq!(times(&r, 0, TraceKind::Transmit { own: true }, PacketKind::Request, 0), vec![0, 82 * NS]);
    assert_eq!(times(&r, 1, TraceKind::Transmit { own: false }, PacketKind::Request, 0), vec![82 * NS, 164 * NS]);
    assert_eq!(times(&r, 1, TraceKind::Transmit { own: true }, PacketKind::Request, 1), vec![0, 248 * NS]);
}

/// PPQ's limited busy-retries (`ppq.retry_holdoff_ns`): a busied packet
/// goes again the holdoff after its busy echo is back, not at once. Node
/// 3's only responder slot is taken by node 2's request; node 1's is busied
/// and its busy echo is back at 32 ns: without a holdoff it goes again then
/// (and every 18 ns after, busied each time), with 100 ns at 132 ns.
#[test]
fn ppq_retry_holdoff_delays_each_retry() {
    for (holdoff, sends) in [("ppq.retry_holdoff_ns=0", vec![0, 32, 50, 68, 86, 104, 122, 140]), ("ppq.retry_holdoff_ns=100", vec![0, 132])] {
        let mut r = ppq_ring(4, &["node.responder_input_queue_packets=1", "node.iqst_ns=1000.0", holdoff]);
        r.inject(2, 3, 0, 0);
        r.inject(1, 3, 0, 0);
        r.run_until(140 * NS);
        let sends: Vec<u64> = sends.iter().map(|t| t * NS).collect();
        assert_eq!(times(&r, 1, TraceKind::Transmit { own: true }, PacketKind::Request, 1), sends, "{holdoff}");
        assert_eq!(times(&r, 1, TraceKind::EchoBack { busy: true }, PacketKind::Echo, 3)[0], 32 * NS);
    }
}

/// Busied packets back from their holdoffs go in the order they were
/// busied. Responder queues of one packet, 30 ns holdoff. Node 0 sends A
/// (to node 1) at 72 ns, B (to node 3) at 108 and C (to node 1) at 126; B
/// and C are busied, their echoes back at 124 and 142 ns, so they rejoin
/// node 0's queue at 154 and 172 ns. From 154 ns node 0 sends a response
/// (to node 1's request), then forwards passing traffic: B, which has waited
/// longer, goes first when the link is free, at 328 ns, and C at 346 ns.
#[test]
fn ppq_retries_back_from_their_holdoffs_keep_their_order() {
    let mut r = ppq_ring(4, &["node.responder_input_queue_packets=1", "node.iqst_ns=100.0", "node.output_queue_packets=3", "ppq.retry_holdoff_ns=30"]);
    for (src, dst, at) in [(2u16, 3u16, 62u64), (1, 0, 20), (3, 2, 74), (0, 1, 72), (0, 3, 72), (0, 1, 74)] {
        r.inject(src, dst, 0, at * NS);
    }
    r.run_until(400 * NS);
    let busy_back: Vec<(u64, u16)> = records(&r).iter().filter(|x| x.iface == 0 && x.what == TraceKind::EchoBack { busy: true }).map(|x| (x.time / NS, x.src)).collect();
    assert_eq!(busy_back, vec![(124, 3), (142, 1)]);
    let sent: Vec<(u64, PacketKind, u16)> =
        records(&r).iter().filter(|x| x.iface == 0 && x.what == TraceKind::Transmit { own: true }).map(|x| (x.time / NS, x.kind, x.dst)).collect();
    use PacketKind::{Request, Response};
    assert_eq!(sent, vec![(72, Request, 1), (108, Request, 3), (126, Request, 1), (154, Response, 1), (328, Request, 3), (346, Request, 1)]);
}

/// A busied packet back from its holdoff rejoins its output queue ahead of
/// the packets of its priority not yet sent. write64 (82 ns slots), 100 ns
/// holdoff; node 3's only responder slot holds node 2's request. Node 1's
/// R1 (0..82 ns) and R2 (82..164 ns) for node 3 are busied, their echoes
/// back at 96 and 178 ns: they rejoin the queue at 196 and 278 ns. Fresh F1
/// and F2 for node 0 (queued at 150 ns): F1 goes at 164 ns; R1 rejoins
/// ahead of F2 and goes at 246 ns, R2 likewise at 328 ns, F2 at 410 ns.
#[test]
fn ppq_a_retry_back_from_its_holdoff_goes_ahead_of_fresh_packets() {
    let mut r = ppq_ring(4, &["node.responder_input_queue_packets=1", "node.iqst_ns=1000.0", "ppq.retry_holdoff_ns=100", "traffic.transaction=write64"]);
    r.inject(2, 3, 0, 0);
    r.inject(1, 3, 0, 0);
    r.inject(1, 3, 0, 0);
    r.inject(1, 0, 0, 150 * NS);
    r.inject(1, 0, 0, 150 * NS);
    r.run_until(420 * NS);
    assert_eq!(times(&r, 1, TraceKind::EchoBack { busy: true }, PacketKind::Echo, 3)[..2], [96 * NS, 178 * NS]);
    let sends: Vec<(u64, u16)> =
        records(&r).iter().filter(|x| x.iface == 1 && x.what == TraceKind::Transmit { own: true }).map(|x| (x.time / NS, x.dst)).collect();
    assert_eq!(sends, vec![(0, 3), (82, 3), (164, 0), (246, 3), (328, 3), (410, 0)]);
}
