//! Priority inversions, counted for every protocol (docs/model-rt.md,
//! "Priority inversions"), on tiny hand-built rings: 2 ns symbols and hops,
//! move64 (40-symbol packets and one idle: 82 ns on a link), two priorities.

mod common;
use common::*;
use ringlet_fabric::packet::PacketKind::Request;
use ringlet_fabric::report::InversionReport;
use ringlet_fabric::trace::TraceKind::*;
use ringlet_sci::protocol::ppq::Ppq;

const TWO: [&str; 2] = ["traffic.priorities=2", "traffic.transaction=move64"];

fn row(kind: &'static str, higher: u32, lower: u32, count: u64, waited_ns_mean: f64) -> InversionReport {
    InversionReport { kind, higher, lower, count, waited_ns_mean }
}

fn same(a: &[InversionReport], b: &[InversionReport]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x.kind, x.higher, x.lower, x.count) == (y.kind, y.higher, y.lower, y.count) && (x.waited_ns_mean - y.waited_ns_mean).abs() < 1e-9)
}

/// Three nodes. Node 1 sends a priority-0 packet at 0 (its link is busy
/// until 82 ns); node 0's priority-0 packet for node 2 reaches node 1's
/// bypass FIFO at 2 ns; node 1's priority-1 packet joins its output queue
/// at 10 ns. At 82 ns base SCI forwards the buffered packet first: an output
/// inversion (1 over 0), the high packet having waited 72 ns. PPQ's
/// priority bypass turns the buffered low packet into a busy echo instead
/// and sends the high one: none.
#[test]
fn an_output_inversion_and_the_priority_bypass_that_prevents_it() {
    let inject = |r: &mut dyn FnMut(u16, u16, u16, u64)| {
        r(1, 2, 0, 0);
        r(0, 2, 0, 0);
        r(1, 2, 1, 10 * NS);
    };
    let mut sci = ring(3, &TWO);
    inject(&mut |s, d, p, t| sci.inject(s, d, p, t));
    sci.run_until(1000 * NS);
    assert_eq!(times(&sci, 1, Transmit { own: false }, Request, 0), vec![82 * NS]);
    let r = sci.report();
    assert_eq!((r.counters.output_inversions, r.counters.input_inversions), (1, 0));
    assert!(same(&r.per_inversion, &[row("output", 1, 0, 1, 72.0)]), "{:?}", r.per_inversion);

    let mut ppq = ring_with::<Ppq>(3, &[TWO[0], TWO[1], "network.protocol=ppq"]);
    inject(&mut |s, d, p, t| ppq.inject(s, d, p, t));
    ppq.run_until(1000 * NS);
    assert_eq!(times(&ppq, 1, Preempted, Request, 0), vec![82 * NS]);
    let r = ppq.report();
    assert_eq!((r.counters.output_inversions, r.counters.input_inversions), (0, 0));
    assert!(r.per_inversion.is_empty());
}

/// Four nodes, node 3's input queue of one packet taking 980 ns per
/// packet. Node 2's priority-0 packet fills it (serviced at 1062 ns); node
/// 2's priority-1 packet, sent at 82 ns, is busied at 84 and again each time
/// it comes back. Node 0's priority-0 packet passes node 2, which forwards
/// it at 1066 ns while its own high packet waits (an output inversion after
/// 1065 ns of waiting); it reaches node 3 at 1068, finds the slot free and
/// is accepted while the high one, first busied at 84, is not: an input
/// inversion after 984 ns. Base SCI's A/B queue allocation keeps the slot
/// for the busied packet (no input inversion); PPQ has neither.
#[test]
fn an_input_inversion_and_the_queue_allocation_that_prevents_it() {
    let setup = ["node.responder_input_queue_packets=1", "node.responder_iqst_ns=980"];
    let run = |extra: &[&str]| {
        let args: Vec<&str> = TWO.iter().chain(setup.iter()).chain(extra.iter()).copied().collect();
        let go = |inject: &mut dyn FnMut(u16, u16, u16, u64)| {
            inject(2, 3, 0, 0);
            inject(2, 3, 1, NS);
            inject(0, 3, 0, 1000 * NS);
        };
        if extra.contains(&"network.protocol=ppq") {
            let mut r = ring_with::<Ppq>(4, &args);
            go(&mut |s, d, p, t| r.inject(s, d, p, t));
            r.run_until(4000 * NS);
            r.report()
        } else {
            let mut r = ring(4, &args);
            go(&mut |s, d, p, t| r.inject(s, d, p, t));
            r.run_until(4000 * NS);
            assert_eq!(times(&r, 2, Transmit { own: false }, Request, 0)[0], 1066 * NS);
            r.report()
        }
    };
    let r = run(&["network.queue_allocation=none"]);
    assert!(same(&r.per_inversion, &[row("output", 1, 0, 1, 1065.0), row("input", 1, 0, 1, 984.0)]), "{:?}", r.per_inversion);
    let r = run(&[]);
    assert_eq!((r.counters.output_inversions, r.counters.input_inversions), (1, 0));
    let r = run(&["network.protocol=ppq"]);
    assert_eq!((r.counters.output_inversions, r.counters.input_inversions), (0, 0));
}

/// With one priority nothing can be inverted: no counting, no table.
#[test]
fn one_priority_counts_nothing() {
    let mut r = ring(3, &["traffic.transaction=move64"]);
    r.inject(1, 2, 0, 0);
    r.inject(0, 2, 0, 0);
    r.inject(1, 2, 0, 10 * NS);
    r.run_until(1000 * NS);
    let rep = r.report();
    assert_eq!((rep.counters.output_inversions, rep.counters.input_inversions), (0, 0));
    assert!(rep.per_inversion.is_empty());
    assert!(!serde_json::to_string(&rep).unwrap().contains("per_inversion"));
}

/// The input-inversion case of `an_input_inversion_and_the_queue_allocation_that_prevents_it`
/// under DFC (A/B off, its STOP-TO instead; low-water mark 0 for a one-packet
/// queue): the full queue blocks every sender until it is granted in
/// priority order, so neither kind of inversion occurs.
#[test]
fn dfc_stop_to_leaves_no_inversion_in_the_input_case() {
    use ringlet_sci::protocol::dfc::Dfc;
    let mut r = ring_with::<Dfc>(4, &[TWO[0], TWO[1], "network.protocol=dfc", "node.responder_input_queue_packets=1", "node.responder_iqst_ns=980", "dfc.stop_to_low=0"]);
    r.inject(2, 3, 0, 0);
    r.inject(2, 3, 1, NS);
    r.inject(0, 3, 0, 1000 * NS);
    r.run_until(6000 * NS);
    let rep = r.report();
    assert_eq!(rep.transactions, 3);
    assert_eq!((rep.counters.output_inversions, rep.counters.input_inversions), (0, 0));
}

/// A stream through a node whose own high packet waits: node 0 sends five
/// priority-0 packets to node 2 through node 1, which has a priority-0
/// packet on its link and a priority-1 one queued at 10 ns. Base SCI's
/// bandwidth allocation lets node 1's high packet in after the first
/// forwarded one (one inversion, 72 ns). DFC forwards all five first (five
/// inversions, 239.2 ns on average), for two reasons, each measured here:
///
/// 1. Node 1 announces STOP-THRU at 82 ns, but the symbol cannot enter its
///    stream: the derived bypass FIFO holds one packet and its idle (41
///    symbols), and while node 0's stream keeps a packet in it there is no
///    room for 2 symbols more. It leaves at 500 ns, after the stream. With
///    room for it (`network.bypass_fifo_symbols = 43`) it leaves at 164.
/// 2. Node 0 ignores it all the same: at 82 ns its own packet waited behind
///    one echo passing through it, so node 0 announced STOP-THRU itself
///    (`dfc.stop_thru_after_packets = 1` counts any packet passing), and it
///    stays congested while it has packets to send (after each it announces
///    its next one's priority, the same: no symbol); a congested node is not
///    held by another's STOP-THRU. With `stop_thru_after_packets = 2` node 0
///    never announces, node 1's STOP-THRU (out at 246, seen by node 0 at
///    250) holds it, and node 1's high packet goes at 332: three inversions,
///    the packets already on their way.
#[test]
fn a_stream_through_a_waiting_node_base_sci_and_dfc() {
    use ringlet_fabric::packet::PacketKind::Control;
    use ringlet_sci::protocol::dfc::Dfc;
    let inject = |f: &mut dyn FnMut(u16, u16, u16, u64)| {
        f(1, 2, 0, 0);
        for _ in 0..5 {
            f(0, 2, 0, 0);
        }
        f(1, 2, 1, 10 * NS);
    };
    let mut sci = ring(3, &TWO);
    inject(&mut |s, d, p, t| sci.inject(s, d, p, t));
    sci.run_until(6000 * NS);
    assert!(same(&sci.report().per_inversion, &[row("output", 1, 0, 1, 72.0)]));
    let dfc = |extra: &[&str]| {
        let args: Vec<&str> = [TWO[0], TWO[1], "network.protocol=dfc"].iter().chain(extra).copied().collect();
        let mut r = ring_with::<Dfc>(3, &args);
        inject(&mut |s, d, p, t| r.inject(s, d, p, t));
        r.run_until(6000 * NS);
        assert_eq!(r.report().transactions, 7);
        r
    };
    let high = |r: &ringlet_fabric::Fabric<Dfc>| records(r).iter().find(|t| t.iface == 1 && t.what == (Transmit { own: true }) && t.priority == 1).map(|t| t.time);
    let r = dfc(&[]);
    assert!(same(&r.report().per_inversion, &[row("output", 1, 0, 5, 239.2)]), "{:?}", r.report().per_inversion);
    assert_eq!(times(&r, 1, Transmit { own: false }, Control, 1)[0], 500 * NS);
    assert_eq!(high(&r), Some(504 * NS));
    let r = dfc(&["network.bypass_fifo_symbols=43"]);
    assert_eq!(times(&r, 1, Transmit { own: false }, Control, 1)[0], 164 * NS);
    assert_eq!(times(&r, 0, Transmit { own: false }, Control, 0)[0], 92 * NS, "node 0 announced too");
    assert_eq!(r.report().counters.output_inversions, 5);
    let r = dfc(&["network.bypass_fifo_symbols=43", "dfc.stop_thru_after_packets=2"]);
    assert!(times(&r, 0, Transmit { own: false }, Control, 0).is_empty(), "node 0 never announces");
    assert_eq!(times(&r, 1, Transmit { own: false }, Control, 1)[0], 246 * NS);
    assert_eq!(high(&r), Some(332 * NS));
    assert_eq!(r.report().counters.output_inversions, 3);
}
