//! Exact timings through one SCI switch and its LC-II endpoints (seed 001
//! section VI's figures: 4 ns symbols, 1 ns links, 20 ns address decode,
//! 48 ns bypass FIFO, 106 ns FIFO to B-Link, 82 ns B-Link to FIFO, 40 ns
//! memory store; Richter's B-Link: 8-byte cycles at 600 MB/s (40/3 ns), a
//! frame of the packet's cycles and 2 framing cycles, one arbitration
//! cycle at an idle bus; his LC-II receiver: 166 ns per packet; DMOVE64
//! packets of 40 symbols and 2 idles, echoes of 4 symbols).
//!
//! Agents: P0 = 0, P1 = 1, M0 = 2, M1 = 3, the switch = 4.

use ringlet_engine::time::ns_to_time;
use ringlet_engine::Time;
use ringlet_fabric::packet::PacketKind::{self, Echo, Request, Response};
use ringlet_fabric::trace::TraceKind::{self, *};
use ringlet_fabric::Fabric;
use ringlet_sci::protocol::sci::BaseSci;

fn ns(x: f64) -> Time {
    ns_to_time(x)
}

/// One B-Link cycle.
fn beat() -> Time {
    ns(40.0 / 3.0)
}

fn switch(extra: &[&str]) -> Fabric<BaseSci> {
    let text = "[network]\nkind = \"sci-switch\"\nnodes = 2\n[traffic]\nload_mbps_per_node = 0\n[run]\nwarmup_ns = 0\n";
    let overrides: Vec<_> = extra.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    ringlet_switch::hand_built(&ringlet_switch::load_str(text, &overrides).unwrap()).unwrap()
}

/// Times of the records of `what` at interface `iface` for packets of `kind` from agent `src`.
fn times(f: &Fabric<BaseSci>, iface: u16, what: TraceKind, kind: PacketKind, src: u16) -> Vec<Time> {
    f.records().iter().filter(|r| r.iface == iface && r.what == what && r.kind == kind && r.src == src).map(|r| r.time).collect()
}

/// Unidirectional ring P0 -> port -> M0 (interfaces 0, 1, 2). P0's LC-II
/// has the packet in its output buffer 82 ns after it is generated and
/// sends it at once; it passes the port's bypass FIFO in 1 + 48 ns, is in
/// M0's buffer 1 + 20 ns later, fully in after its 40 symbols, handed to
/// the memory 106 ns after that and stored 40 ns on; the B-Link never sees
/// it. M0's echo is back at P0 after 1 + 20 ns and its 4 symbols.
#[test]
fn a_packet_down_the_send_path_through_the_bypass_fifo_and_up_the_receive_path() {
    let mut f = switch(&[]);
    f.inject(0, 2, 0, 0);
    f.run_until(ns(2000.0));
    let sent = ns(82.0);
    assert_eq!(times(&f, 0, Queued, Request, 0), vec![sent]);
    assert_eq!(times(&f, 0, Transmit { own: true }, Request, 0), vec![sent]);
    assert_eq!(times(&f, 1, Transmit { own: false }, Request, 0), vec![sent + ns(49.0)]);
    let accepted = sent + ns(70.0);
    assert_eq!(times(&f, 2, Accepted, Request, 0), vec![accepted]);
    assert_eq!(times(&f, 2, Received, Request, 0), vec![accepted + ns(160.0)]);
    assert_eq!(times(&f, 2, Serviced, Request, 0), vec![accepted + ns(160.0 + 106.0 + 40.0)]);
    assert_eq!(times(&f, 0, EchoBack { busy: false }, Echo, 2), vec![accepted + ns(21.0 + 16.0)]);
    let r = f.report();
    assert_eq!(r.per_switch[0].crossings, 0);
    assert_eq!(r.transactions, 1);
    assert!((r.latency_ns_max - 458.0).abs() < 0.5, "{}", r.latency_ns_max);
}

/// read64 on the same ring: a 16-byte request (8 symbols) is fully in M0's
/// buffer 32 ns after its head, read 146 ns later; the 80-byte response
/// goes down M0's send path (82 ns) and straight on to P0 (M0's link leads
/// back to it), whose LC-II hands it to the processor 106 ns after its tail.
#[test]
fn a_read64_request_and_its_response_through_both_lc_iis() {
    let mut f = switch(&["traffic.transaction=read64"]);
    f.inject(0, 2, 0, 0);
    f.run_until(ns(3000.0));
    let accepted = ns(82.0 + 70.0);
    assert_eq!(times(&f, 2, Received, Request, 0), vec![accepted + ns(32.0)]);
    let read = accepted + ns(32.0 + 146.0);
    assert_eq!(times(&f, 2, Serviced, Request, 0), vec![read]);
    let sent = read + ns(82.0);
    assert_eq!(times(&f, 2, Transmit { own: true }, Response, 2), vec![sent]);
    assert_eq!(times(&f, 0, Accepted, Response, 2), vec![sent + ns(21.0)]);
    assert_eq!(times(&f, 0, Serviced, Response, 2), vec![sent + ns(21.0 + 160.0 + 106.0)]);
    assert_eq!(f.report().transactions, 1);
}

/// The Chrome trace of scenario `text`'s first microsecond.
fn chrome_trace(text: &str) -> serde_json::Value {
    let s = ringlet_switch::load_str(text, &[]).unwrap();
    let window = ringlet_engine::run::TraceWindow { from: 0, to: ns(1000.0), max_records: 10_000 };
    let trace = (ringlet_switch::SWITCH.run)(&s, ringlet_fabric::family::Mode::Traced(window)).unwrap().trace.expect("traced");
    let (json, _) = trace.to_chrome_json(serde_json::Value::Null);
    serde_json::from_str(&json).unwrap()
}

/// In a Chrome trace the packet's arrival down the send path is an instant
/// on the processor's output-queue row, 82 ns in.
#[test]
fn the_send_path_in_a_chrome_trace() {
    let text = "[network]\nkind = \"sci-switch\"\nnodes = 2\n[traffic]\narrivals = \"deterministic\"\nload_mbps_per_node = 10\n[run]\nwarmup_ns = 0\nmeasure_transactions = 10\n";
    let doc = chrome_trace(text);
    let queued: Vec<_> = doc["traceEvents"].as_array().unwrap().iter().filter(|e| e["name"].as_str().is_some_and(|n| n.ends_with("down the send path"))).collect();
    // P0 (agent 0) and P1 (agent 1), each on its first interface's output-queue row.
    assert_eq!(queued.len(), 2, "{queued:?}");
    for (e, pid) in queued.iter().zip([0, 1]) {
        assert_eq!((e["ph"].as_str(), e["pid"].as_u64(), e["tid"].as_u64()), (Some("i"), Some(pid), Some(1)), "{e}");
        assert!((e["ts"].as_f64().unwrap() - 0.082).abs() < 1e-9, "{e}");
    }
}

/// In a Chrome trace of bidirectional ringlets, P0's first request
/// (generated at 0, its tail in the switch's port at 263 ns) crosses the
/// idle B-Link from its grant, one arbitration cycle after the port asks,
/// to its arrival in the output port's buffer; on that port's output-queue
/// row it waits from that arrival, not from its birth at P0.
#[test]
fn a_crossing_in_a_chrome_trace_starts_at_the_grant_and_waits_from_its_arrival() {
    let text = "[network]\nkind = \"sci-switch\"\nnodes = 2\nringlets = \"bidirectional\"\n[traffic]\narrivals = \"deterministic\"\nload_mbps_per_node = 10\n[run]\nwarmup_ns = 0\nmeasure_transactions = 10\n";
    let doc = chrome_trace(text);
    let events = doc["traceEvents"].as_array().unwrap();
    let at = |name: &str, ph: &str, pid: u64| -> Vec<f64> {
        events.iter().filter(|e| e["name"] == name && e["ph"] == ph && e["pid"].as_u64() == Some(pid)).map(|e| e["ts"].as_f64().unwrap()).collect()
    };
    let us = |t: Time| ringlet_engine::time::time_to_ps(t) / 1e6;
    let asked = ns(82.0 + 21.0 + 160.0);
    let across = at("request 0→2 p0 across", "b", 4);
    assert_eq!(across.first().copied(), Some(us(asked + beat())), "the grant, after the arbitration: {across:?}");
    let delivered = at("request 0→2 p0 across", "e", 4)[0];
    assert!((delivered - us(asked + beat() + ns(106.0) + 12 * beat() + ns(82.0))).abs() < 1e-9, "{delivered}");
    let queued = at("request 0→2 p0 queued", "b", 4);
    assert_eq!(queued.first().copied(), Some(delivered), "waits in the output port from its arrival: {queued:?}");
    assert_eq!(at("request 0→2 p0 queued", "b", 0).first().copied(), Some(0.0), "at P0, from its birth");
}

/// With the three LC-II keys at 0 the endpoints are bare: the packet is
/// sent at once and stored 40 ns after its tail is in (270 ns in all).
#[test]
fn endpoint_paths_at_zero_give_bare_endpoints() {
    let mut f = switch(&["node.blink_to_fifo_ns=0", "node.fifo_to_blink_ns=0", "node.acceptance_ns=0"]);
    f.inject(0, 2, 0, 0);
    f.run_until(ns(2000.0));
    assert_eq!(times(&f, 0, Transmit { own: true }, Request, 0), vec![0]);
    assert!(times(&f, 0, Queued, Request, 0).is_empty());
    assert_eq!(times(&f, 2, Serviced, Request, 0), vec![ns(270.0)]);
}

/// The receiver takes one packet per acceptance time: two packets sent
/// back to back (168 ns apart) are handed on 168 ns apart with the 166 ns
/// of Richter's LC-II, and 300 ns apart with an acceptance of 300 ns, each
/// stored 146 ns after its service starts.
#[test]
fn the_receiver_takes_one_packet_per_acceptance_time() {
    for (acceptance, gap) in [(166.0, 168.0), (300.0, 300.0)] {
        let mut f = switch(&[&format!("node.acceptance_ns={acceptance}")]);
        f.inject(0, 2, 0, 0);
        f.inject(0, 2, 0, 0);
        f.run_until(ns(3000.0));
        let slot = ns(42.0 * 4.0);
        assert_eq!(times(&f, 0, Transmit { own: true }, Request, 0), vec![ns(82.0), ns(82.0) + slot]);
        let first = ns(82.0 + 70.0 + 160.0 + 146.0);
        assert_eq!(times(&f, 2, Serviced, Request, 0), vec![first, first + ns(gap)], "acceptance {acceptance}");
    }
}

/// The send path holds its output buffer slot: with a buffer of one, a
/// packet generated while the first is still on its way down the send path
/// (or sent and awaiting its echo, back at 82 + 70 + 21 + 16 = 189 ns) is
/// lost (the seed's loss rule); one generated after the echo is sent, and
/// busied once at M0, whose one-packet buffer holds the first until it is
/// stored (at 458 ns): the busy echo is back at 389 ns, and the packet goes
/// again when P0's link is free, at 282 + 168 ns.
#[test]
fn a_packet_on_the_send_path_holds_its_buffer_slot() {
    let mut f = switch(&["node.buffer_packets=1"]);
    for at in [0.0, 50.0, 150.0, 200.0] {
        f.inject(0, 2, 0, ns(at));
    }
    f.run_until(ns(3000.0));
    assert_eq!(times(&f, 0, Transmit { own: true }, Request, 0), vec![ns(82.0), ns(282.0), ns(450.0)]);
    assert_eq!(times(&f, 0, EchoBack { busy: false }, Echo, 2), vec![ns(189.0), ns(557.0)]);
    assert_eq!(times(&f, 0, EchoBack { busy: true }, Echo, 2), vec![ns(389.0)]);
    let c = f.report().conservation;
    assert_eq!((c.generated, c.completed, c.lost), (4, 2, 2));
}

/// Bidirectional ringlets (P0 on interface 0 with the switch's 1; the
/// switch's 4 with M0 on 5). The port has the packet 21 ns after P0 sent
/// it and all of it after its 40 symbols, and asks for the idle B-Link at
/// once: the grant takes one arbitration cycle, the 106 ns from the input
/// FIFO onto the B-Link hold it, then the frame's 10 packet cycles and 2
/// framing cycles. 82 ns after that the packet is in the output port's
/// buffer, which sends it at once; M0 decodes it 21 ns on.
#[test]
fn a_packet_across_the_b_link_in_its_frame() {
    let mut f = switch(&["network.ringlets=bidirectional"]);
    f.inject(0, 2, 0, 0);
    f.run_until(ns(3000.0));
    let sent = ns(82.0);
    let tail_in = sent + ns(21.0 + 160.0);
    assert_eq!(times(&f, 1, Accepted, Request, 0), vec![sent + ns(21.0)]);
    assert_eq!(times(&f, 1, BusGranted, Request, 0), vec![tail_in + beat()], "granted after the arbitration");
    let transfer = beat() + ns(106.0) + 12 * beat();
    let delivered = tail_in + transfer + ns(82.0);
    assert_eq!(times(&f, 4, BusDelivered, Request, 0), vec![delivered]);
    assert_eq!(times(&f, 4, Transmit { own: true }, Request, 0), vec![delivered]);
    assert_eq!(times(&f, 5, Accepted, Request, 0), vec![delivered + ns(21.0)]);
    assert_eq!(times(&f, 5, Serviced, Request, 0), vec![delivered + ns(21.0 + 160.0 + 146.0)]);
    let r = f.report();
    assert_eq!((r.per_switch[0].crossings, r.per_port[0].to_bus_mbps > 0.0, r.per_port[2].from_bus_mbps > 0.0), (1, true, true));
}

/// With the FIFO-to-B-Link time read as a pipeline, the port asks for the
/// B-Link 106 ns after the tail is in, and the bus is held only for the
/// arbitration and the frame.
#[test]
fn a_pipelined_fifo_to_b_link_path_does_not_hold_the_bus() {
    let mut f = switch(&["network.ringlets=bidirectional", "switch.fifo_to_blink_mode=pipeline"]);
    f.inject(0, 2, 0, 0);
    f.run_until(ns(3000.0));
    let asked = ns(82.0 + 21.0 + 160.0 + 106.0);
    assert_eq!(times(&f, 1, BusGranted, Request, 0), vec![asked + beat()]);
    assert_eq!(times(&f, 4, BusDelivered, Request, 0), vec![asked + 13 * beat() + ns(82.0)]);
}

/// Two ports contending for the bus: P0's and P1's packets reach their
/// ports together. P0's port (the lower interface) wins the idle bus after
/// the arbitration cycle; P1's waits, and is granted as that transfer ends,
/// without an arbitration cycle (decided during it).
#[test]
fn two_ports_contend_for_the_b_link() {
    let mut f = switch(&["network.ringlets=bidirectional"]);
    f.inject(0, 2, 0, 0);
    f.inject(1, 3, 0, 0);
    f.run_until(ns(3000.0));
    let asked = ns(82.0 + 21.0 + 160.0);
    let frame = ns(106.0) + 12 * beat();
    // Interfaces: P0 0, switch 1 | P1 2, switch 3 | switch 4, M0 5 | switch 6, M1 7.
    assert_eq!(times(&f, 1, BusGranted, Request, 0), vec![asked + beat()]);
    let first_done = asked + beat() + frame;
    assert_eq!(times(&f, 3, BusGranted, Request, 1), vec![first_done]);
    assert_eq!(times(&f, 4, BusDelivered, Request, 0), vec![first_done + ns(82.0)]);
    assert_eq!(times(&f, 6, BusDelivered, Request, 1), vec![first_done + frame + ns(82.0)]);
    let r = f.report();
    let busy = (beat() + 2 * frame) as f64;
    assert!((r.per_switch[0].bus_utilization * r.sim_time_ns * 3000.0 - busy).abs() < 1e-6 * busy, "{}", r.per_switch[0].bus_utilization);
}

/// A full port buffer busies the next packet as it enters (the echo on the
/// incoming ringlet), and the sender retries: with a one-packet buffer the
/// second of two back-to-back packets is busied at the port, and again on
/// its first retry, and taken in on its second once the first has crossed
/// the B-Link and left the buffer.
#[test]
fn a_busy_echo_from_a_full_port_buffer_and_the_retry() {
    let mut f = switch(&["network.ringlets=bidirectional", "switch.buffer_packets=1", "network.queue_allocation=none", "network.bandwidth_allocation=none"]);
    f.inject(0, 2, 0, 0);
    f.inject(0, 2, 0, 0);
    f.run_until(ns(5000.0));
    let (sent, slot) = (ns(82.0), ns(42.0 * 4.0));
    // P0 sends both back to back, then the busied one again each time its link is free.
    assert_eq!(times(&f, 0, Transmit { own: true }, Request, 0), vec![sent, sent + slot, sent + 2 * slot, sent + 3 * slot]);
    // The first holds the buffer until its transfer ends.
    let freed = sent + ns(21.0 + 160.0) + beat() + ns(106.0) + 12 * beat();
    let busied: Vec<Time> = vec![sent + slot + ns(21.0), sent + 2 * slot + ns(21.0)];
    assert!(busied.iter().all(|&t| t < freed));
    assert_eq!(times(&f, 1, Busied, Request, 0), busied);
    assert_eq!(times(&f, 0, EchoBack { busy: true }, Echo, 4), busied.iter().map(|&t| t + ns(21.0 + 16.0)).collect::<Vec<_>>());
    assert!(sent + 3 * slot + ns(21.0) > freed);
    assert_eq!(times(&f, 1, Accepted, Request, 0), vec![sent + ns(21.0), sent + 3 * slot + ns(21.0)]);
    assert_eq!(f.report().counters.retries, 2);
}
