//! Exact symbol timings on tiny hand-built rings (SPEC 3.1, seed 003 Table 1:
//! 2 ns symbols, 1-cycle node delay, ideal links, 1 idle between packets).

mod common;
use common::*;
use ringlet_fabric::packet::PacketKind::{Echo, Request, Response};
use ringlet_fabric::trace::TraceKind::*;

/// A read64 request over k hops is in the target's input queue after
/// k hops plus its 8 symbols; its echo's head leaves the target k hops after
/// the request left, and is back at the source after the rest of the ring
/// plus its 4 symbols.
#[test]
fn request_arrival_and_echo_return_over_k_hops() {
    for k in 1..=3u16 {
        let mut r = ring(4, &[]);
        r.inject(0, k, 0, 0);
        r.run_until(1_000 * NS);
        assert_eq!(times(&r, 0, Transmit { own: true }, Request, 0), vec![0]);
        let arrive = k as u64 * HOP + 8 * CYCLE;
        assert_eq!(times(&r, k, Received, Request, 0), vec![arrive], "k = {k}");
        // The target strips the request and its echo takes the request's place.
        assert_eq!(times(&r, k, Transmit { own: false }, Echo, k), vec![k as u64 * HOP]);
        // Back around the ring: 4 - k more hops, then the echo's 4 symbols.
        assert_eq!(times(&r, 0, EchoBack { busy: false }, Echo, k), vec![4 * HOP + 4 * CYCLE]);
    }
}

/// The whole read64 transaction: IQST at the responder, the 40-symbol
/// response back, IQST at the requestor; latencies as seed Figure 7 defines.
#[test]
fn read64_transaction_timeline_and_latency() {
    let mut r = ring(4, &["node.iqst_ns=100.0"]);
    r.inject(0, 2, 0, 0);
    r.run_until(1_000 * NS);
    let req_in = 2 * HOP + 8 * CYCLE; // 20 ns
    let req_done = req_in + 100 * NS; // 120 ns: response created
    assert_eq!(times(&r, 2, Serviced, Request, 0), vec![req_done]);
    assert_eq!(times(&r, 2, Transmit { own: true }, Response, 2), vec![req_done]);
    let resp_in = req_done + 2 * HOP + 40 * CYCLE; // 204 ns
    assert_eq!(times(&r, 0, Received, Response, 2), vec![resp_in]);
    assert_eq!(times(&r, 0, Serviced, Response, 2), vec![resp_in + 100 * NS]);
    let rep = r.report();
    assert_eq!(rep.transactions, 1);
    // One-way latencies: request 120 ns, response 184 ns (the mean is exact,
    // percentiles carry the histogram's 3 significant digits).
    assert!((rep.latency_ns_mean - 152.0).abs() < 1e-9, "{}", rep.latency_ns_mean);
    assert!((rep.latency_ns_max - 184.0).abs() < 0.2, "{}", rep.latency_ns_max);
}

/// A full input queue answers with a busy echo; the source sends the same
/// packet again as soon as the busy echo is back.
#[test]
fn busy_echo_and_retry() {
    // Responder queue of 1 packet, long service: the second request is busied.
    let mut r = ring(4, &["node.responder_input_queue_packets=1", "node.iqst_ns=1000.0"]);
    r.inject(2, 3, 0, 0); // node 2 -> 3: one hop, takes the only slot
    r.inject(1, 3, 0, 0); // node 1 -> 3: two hops
    r.run_until(200 * NS);
    assert_eq!(times(&r, 3, Accepted, Request, 2), vec![HOP]);
    // Node 1's request reaches node 2 at 2 ns while node 2 sends its own
    // 8 symbols + 1 idle: it waits in node 2's bypass FIFO until 18 ns.
    assert_eq!(times(&r, 2, Transmit { own: false }, Request, 1)[0], 9 * CYCLE);
    let busied_at = 9 * CYCLE + HOP; // 20 ns at node 3
    assert_eq!(times(&r, 3, Busied, Request, 1)[0], busied_at);
    // Busy echo: node 3 -> 0 -> 1, two hops plus 4 symbols.
    let back = busied_at + 2 * HOP + 4 * CYCLE; // 32 ns
    assert_eq!(times(&r, 1, EchoBack { busy: true }, Echo, 3)[0], back);
    // The retry leaves node 1 at once. It reaches node 2 at 34 ns, where the
    // output is still forwarding the first copy (18..36 ns): it leaves at
    // 36 ns, is busied at node 3 at 38 ns, and its echo is back at 50 ns.
    let sends = times(&r, 1, Transmit { own: true }, Request, 1);
    assert_eq!(times(&r, 2, Transmit { own: false }, Request, 1)[1], 18 * CYCLE);
    assert_eq!(&sends[..3], &[0, back, 18 * CYCLE + HOP + 2 * HOP + 4 * CYCLE]);
    let busy = times(&r, 3, Busied, Request, 1).len() as u64;
    assert_eq!(r.report().counters.busy_echoes, busy);
    assert!(busy >= 2);
    // Once node 3 has serviced node 2's request (at 18 ns + 1000 ns), the retry
    // that follows is accepted, in phase A, with its reserved slot.
    r.run_until(2_000 * NS);
    let accepted = times(&r, 3, Accepted, Request, 1);
    assert_eq!(accepted.len(), 1);
    assert!(accepted[0] > 9 * CYCLE + 1_000 * NS && accepted[0] <= 9 * CYCLE + 1_000 * NS + 4 * HOP + 4 * CYCLE + 9 * CYCLE);
}

/// Register insertion: an own packet waits while a packet passes through,
/// and a packet already buffered in the bypass FIFO leaves before the next
/// own packet.
#[test]
fn own_packet_waits_behind_bypass_traffic() {
    // write64: 40-symbol requests.
    let mut r = ring(4, &["traffic.transaction=write64"]);
    r.inject(0, 3, 0, 0); // passes node 2 from 4 ns to 86 ns
    r.inject(2, 3, 0, 10 * NS); // node 2 wants to send at 10 ns
    r.run_until(500 * NS);
    assert_eq!(times(&r, 2, Transmit { own: false }, Request, 0), vec![2 * HOP]);
    assert_eq!(times(&r, 2, Transmit { own: true }, Request, 2), vec![2 * HOP + 41 * CYCLE]);

    // Now node 2 is sending its own packet when node 0's arrives: node 0's
    // packet is buffered, and node 2's second packet must wait for it. (The
    // register-insertion rule alone: with bandwidth allocation node 2 would
    // also wait for node 3, which repays the debt of its responses while
    // node 2 waits: see `protocol::bandwidth`.)
    let mut r = ring(4, &["traffic.transaction=write64", "network.bandwidth_allocation=none"]);
    r.inject(2, 3, 0, 0); // node 2 sends 0..82 ns
    r.inject(2, 3, 0, 0); // and has a second one ready
    r.inject(0, 3, 0, 0); // arrives at node 2 at 4 ns: buffered
    r.run_until(1_000 * NS);
    let own = times(&r, 2, Transmit { own: true }, Request, 2);
    let fwd = times(&r, 2, Transmit { own: false }, Request, 0);
    assert_eq!(own[0], 0);
    assert_eq!(fwd, vec![41 * CYCLE]);
    assert_eq!(own[1], 82 * CYCLE);
    let report = r.report();
    assert_eq!(report.counters.bypass_waits, 1);
    // Node 0's packet came into node 2's bypass FIFO from 4 ns and started to
    // leave at 82 ns: 39 of its 40 symbols were in. The echo of node 2's
    // first packet (node 3 -> 2) reached node 0 at 4 ns, while node 0 sent
    // its own (0..82 ns): all 4 symbols waited there. Nothing waited elsewhere.
    let held: Vec<u64> = report.per_link.iter().map(|l| l.bypass_max_symbols).collect();
    assert_eq!(held, vec![4, 0, 39, 0]);
    assert_eq!(report.counters.bypass_max_symbols, 39);
}

/// A packet arriving at the very instant the output frees does not stop the
/// node from inserting its own packet into the idle slot (it is buffered).
#[test]
fn own_packet_takes_the_idle_slot_on_a_tie() {
    let mut r = ring(4, &["traffic.transaction=write64"]);
    // Node 0's first packet passes node 2 at 4..86 ns; node 0's second one
    // follows back to back (one idle apart) and reaches node 2 at 86 ns,
    // exactly when node 2's output frees.
    r.inject(0, 3, 0, 0);
    r.inject(0, 3, 0, 0);
    r.inject(2, 3, 0, 10 * NS);
    r.run_until(1_000 * NS);
    assert_eq!(times(&r, 2, Transmit { own: true }, Request, 2), vec![2 * HOP + 41 * CYCLE]);
    assert_eq!(times(&r, 2, Transmit { own: false }, Request, 0), vec![2 * HOP, 2 * HOP + 82 * CYCLE]);
}

/// Link and node delays add per hop.
#[test]
fn link_delay_and_node_delay_add_per_hop() {
    let mut r = ring(5, &["network.link_delay_ns=5.0", "network.node_delay_cycles=3"]);
    r.inject(1, 4, 0, 0);
    r.run_until(1_000 * NS);
    let hop = 5 * NS + 3 * CYCLE;
    assert_eq!(times(&r, 4, Received, Request, 1), vec![3 * hop + 8 * CYCLE]);
}

/// A request that comes in while the responder serves another waits for it,
/// and is served from the later of that service's end and its own tail.
#[test]
fn request_arriving_at_a_busy_responder() {
    // Node 2 -> 3 (one hop) and node 1 -> 3 (two hops), both at 0. Node 1's
    // request waits in node 2's bypass FIFO behind node 2's own (8 symbols +
    // 1 idle), so it reaches node 3 at 20 ns and its tail is in at 36 ns.
    let first_in = HOP + 8 * CYCLE; // 18 ns
    let second_in = 9 * CYCLE + HOP + 8 * CYCLE; // 36 ns
    for (iqst_ns, second_done) in [
        // The first service ends after the second tail: served back to back.
        (100, first_in + 200 * NS),
        // It ends at 28 ns, before the second tail: served from its tail.
        (10, second_in + 10 * NS),
    ] {
        let iqst = format!("node.iqst_ns={iqst_ns}.0");
        let mut r = ring(4, &[&iqst]);
        r.inject(2, 3, 0, 0);
        r.inject(1, 3, 0, 0);
        r.run_until(1_000 * NS);
        assert_eq!(times(&r, 3, Received, Request, 2), vec![first_in]);
        assert_eq!(times(&r, 3, Received, Request, 1), vec![second_in]);
        assert_eq!(times(&r, 3, Serviced, Request, 2), vec![first_in + iqst_ns * NS], "IQST {iqst_ns} ns");
        assert_eq!(times(&r, 3, Serviced, Request, 1), vec![second_done], "IQST {iqst_ns} ns");
    }
}

/// A server that waits for room waits only for what it produces: serving a
/// response produces nothing. Output queues of one packet, 100 ns responder
/// and 4 ns requestor service. Node 1 serves node 3's request and sends the
/// response at 120 ns; that response keeps node 1's only response slot
/// until its echo is back, at 214 ns. The response to node 1's own request
/// (from node 2) is in at 204 ns and served at 208 ns, slot or no slot.
#[test]
fn serving_a_response_needs_no_room_in_the_response_queue() {
    let mut r = ring(4, &["node.output_queue_packets=1", "node.requestor_iqst_ns=4.0", "node.responder_iqst_ns=100.0"]);
    r.inject(1, 2, 0, 0);
    r.inject(3, 1, 0, 0);
    r.run_until(600 * NS);
    assert_eq!(times(&r, 1, Transmit { own: true }, Response, 1), vec![120 * NS]);
    assert_eq!(times(&r, 1, EchoBack { busy: false }, Echo, 3), vec![214 * NS]);
    assert_eq!(times(&r, 1, Received, Response, 2), vec![204 * NS]);
    assert_eq!(times(&r, 1, Serviced, Response, 2), vec![208 * NS]);
}

/// A busied packet goes again the instant its echo is back (no holdoff):
/// it rejoins its output queue ahead of the packets not yet sent before the
/// node decides what to send at that instant. Responder queues of one
/// packet, output queues of two. Node 0's request holds node 1's only slot
/// from 12 ns; node 3's R1 (queued at 34 ns) is busied there again and
/// again, its busy echoes back at 50, 68, 86 and 126 ns; node 3's R2
/// (queued at 42 ns) waits behind it. Other traffic (node 2 to 3 at 88 ns,
/// node 0 to 2 at 78 ns) has node 3 forward an echo 116..126 ns, so at 126
/// ns R1's echo is back just as node 3's link frees: R1 goes then, not R2,
/// and, node 1's slot free again, is accepted at 138 ns.
#[test]
fn a_busied_packet_goes_again_the_instant_its_echo_is_back() {
    let mut r = ring(4, &["node.responder_input_queue_packets=1", "node.iqst_ns=100.0", "node.output_queue_packets=2"]);
    for (src, dst, at) in [(0u16, 2u16, 78u64), (3, 1, 34), (3, 1, 42), (2, 3, 88), (0, 1, 10)] {
        r.inject(src, dst, 0, at * NS);
    }
    r.run_until(200 * NS);
    assert_eq!(times(&r, 3, EchoBack { busy: true }, Echo, 1), vec![50 * NS, 68 * NS, 86 * NS, 126 * NS]);
    assert_eq!(times(&r, 3, Transmit { own: false }, Echo, 2), vec![116 * NS]);
    let sent: Vec<(u64, u32)> = records(&r).iter().filter(|x| x.iface == 3 && x.what == Transmit { own: true }).map(|x| (x.time / NS, x.pkt)).collect();
    let r1 = sent[0].1;
    assert_eq!(sent, vec![(34, r1), (52, r1), (70, r1), (88, r1), (126, r1)]);
    assert_eq!(times(&r, 1, Accepted, Request, 3), vec![138 * NS]);
}

/// An own packet queued while the link forwards a passing packet goes the
/// instant the link frees, though nothing waited when the forwarding began
/// (a rule any scheme that schedules fewer decisions must keep). Node 0's
/// move64 request for node 2 reaches node 1 at one hop and takes its link
/// for 41 symbols (82 ns); node 1's own request, queued at 10 ns, leaves
/// at 84 ns.
#[test]
fn an_own_packet_queued_behind_a_passing_one_goes_when_the_link_frees() {
    let mut r = ring(4, &["traffic.transaction=\"move64\""]);
    r.inject(0, 2, 0, 0);
    r.inject(1, 3, 0, 10 * NS);
    r.run_until(1_000 * NS);
    assert_eq!(times(&r, 1, Transmit { own: false }, Request, 0), vec![HOP]);
    assert_eq!(times(&r, 1, Transmit { own: true }, Request, 1), vec![HOP + 41 * CYCLE]);
}

/// What a packet costs the event loop: a decision only where something
/// waits for it. A move64 from node 0 to node 3 of 4 takes 7 events: its
/// injection, node 0's decision when its link frees (transmission
/// recovery: the bypass FIFO may have filled while it sent), one decision
/// each where it passes nodes 1 and 2, its head at node 3, its service and
/// its echo back at node 0. A link that frees with nothing waiting for it
/// schedules nothing.
#[test]
fn a_packet_passing_idle_interfaces_costs_one_decision_each() {
    let mut r = ring(4, &["traffic.transaction=\"move64\""]);
    r.inject(0, 3, 0, 0);
    r.run_until(1_000 * NS);
    assert_eq!(r.report().transactions, 1);
    let events: Vec<(&str, u64)> = r.report().events_by_kind.into_iter().filter(|&(_, n)| n > 0).collect();
    assert_eq!(events, vec![("head_arrive", 1), ("output_free", 3), ("echo_in", 1), ("service_done", 1), ("inject", 1)]);
}
