//! Exact timings of the DMA protocol on a hand-built two-node channel: the
//! family's defaults (see `channel_timing.rs`), 32-bit symbols at 150 MHz
//! (20/3 ns), 224 ns through a node chip, 2-symbol echoes, but packets
//! without GigaRing's framing and with 14 idles after each (the framing is
//! calibrated, and the protocol's timings read more simply in SCI's own
//! packet sizes; `channel_timing.rs` checks the defaults'). The client port moves 4 bytes per symbol at
//! 1200 MB/s: a packet of L symbols holds it L x 10/3 ns, half a symbol
//! time per symbol. A set-up message carries 2 words (4 + 4 + 1 = 9
//! symbols), a ready or status message 1 word (7 symbols), a ReadBlk
//! request none (5 symbols), a 32-word data packet 69.
//!
//! Interfaces: ring 0 is node 0's interface 0 -> node 1's interface 1;
//! ring 1 is node 1's interface 2 -> node 0's interface 3.

use ringlet_engine::time::ns_to_time;
use ringlet_engine::Time;
use ringlet_fabric::packet::PacketKind::{self, Echo, Request, Response};
use ringlet_fabric::trace::TraceKind::{self, *};
use ringlet_fabric::Fabric;
use ringlet_gigaring::arbitration::Arbitration;
use ringlet_gigaring::params::{READ_REQUEST, READ_RESPONSE, WRITE_REQUEST};

/// One symbol, ticks (20/3 ns).
const SYMBOL: Time = 20_000;

/// `ns` plus `half` half-symbol times.
fn at(ns: f64, half: u64) -> Time {
    ns_to_time(ns) + half * SYMBOL / 2
}

fn channel(transaction: &str, words: u32, extra: &[&str]) -> Fabric<Arbitration> {
    let text = format!("[network]\nkind = \"gigaring\"\nnodes = 2\n[traffic]\nload_mbps_per_node = 0\ntransaction = \"{transaction}\"\nblock_words = {words}\n[run]\nwarmup_ns = 0\n");
    let fixed = ["gigaring.framing_symbols=0", "gigaring.idle_symbols_between_packets=14"];
    let overrides: Vec<_> = fixed.iter().chain(extra).map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    ringlet_gigaring::hand_built(&ringlet_gigaring::load_str(&text, &overrides).unwrap()).unwrap()
}

/// Times of the records of `what` at interface `iface` for packets of `kind` and `class`.
fn times(f: &Fabric<Arbitration>, iface: u16, what: TraceKind, kind: PacketKind, class: u8) -> Vec<Time> {
    f.records().iter().filter(|r| r.iface == iface && r.what == what && r.kind == kind && r.class == class).map(|r| r.time).collect()
}

/// A ReadBlk of 32 words opens with the handshake. Times in half-symbol
/// steps after multiples of the 224 ns node latency:
/// - node 0 sends the set-up at 0; its head is at node 1 at 224 ns, its
///   9 symbols in 9 later, and the client port holds it 4.5 symbols more:
///   serviced at 224 ns + 13.5 symbols. Its echo took the set-up's place at
///   224 ns and holds node 1's ring-0 link for 2 + 14 symbols, so the ready
///   (7 symbols) leaves at 224 ns + 16;
/// - the ready is at node 0 at 448 ns + 16, in 7 later, serviced 3.5 after
///   that (448 ns + 26.5); its echo holds node 0's link until 448 ns + 32,
///   when the ReadBlk request (5 symbols) leaves;
/// - the request is at node 1 at 672 ns + 32, serviced after 5 + 2.5 (672
///   ns + 39.5), when the DMA engine puts the data packet and the status
///   into send buffers: the data on ring 0 (its read-response buffers are
///   both empty: ties to ring 0), where it leaves when the request's echo
///   is gone (672 ns + 48); the status on ring 1 (its write-request buffers
///   are both empty, and ring 1's hold fewer packets of any class), where it
///   leaves at once (672 ns + 39.5);
/// - the status is at node 0 at 896 ns + 39.5, in 7 later and serviced 3.5
///   after that (896 ns + 50); the data is at node 0 at 896 ns + 48, in 69
///   later, serviced 34.5 after (896 ns + 151.5): the block is done.
#[test]
fn a_read_block_opens_with_a_handshake_and_ends_with_a_status() {
    let mut f = channel("readblk", 32, &[]);
    f.inject(0, 1, 0, 0);
    f.run_until(ns_to_time(5000.0));
    // Ring 0 carries all but the status (ties go to ring 0); messages on the write-request channel.
    assert_eq!(times(&f, 0, Transmit { own: true }, Request, WRITE_REQUEST), vec![0]);
    assert_eq!(times(&f, 1, Serviced, Request, WRITE_REQUEST), vec![at(224.0, 27)]);
    assert_eq!(times(&f, 1, Transmit { own: true }, Response, WRITE_REQUEST), vec![at(224.0, 32)]);
    assert_eq!(times(&f, 0, Serviced, Response, WRITE_REQUEST), vec![at(448.0, 53)]);
    assert_eq!(times(&f, 0, Transmit { own: true }, Request, READ_REQUEST), vec![at(448.0, 64)]);
    assert_eq!(times(&f, 1, Serviced, Request, READ_REQUEST), vec![at(672.0, 79)]);
    assert_eq!(times(&f, 1, Transmit { own: true }, Response, READ_RESPONSE), vec![at(672.0, 96)]);
    assert_eq!(times(&f, 0, Serviced, Response, READ_RESPONSE), vec![at(896.0, 303)]);
    // The status on ring 1: node 1's interface 2 to node 0's interface 3.
    assert_eq!(times(&f, 2, Transmit { own: true }, Response, WRITE_REQUEST), vec![at(672.0, 79)]);
    assert_eq!(times(&f, 3, Serviced, Response, WRITE_REQUEST), vec![at(896.0, 100)]);
    let r = f.report();
    assert_eq!(r.transactions, 1);
    let done = at(896.0, 303) as f64 / 3000.0;
    let client = r.client.as_ref().expect("channel figures");
    assert!((client.transaction_latency_ns_mean - done).abs() < 1e-6, "{} against {done}", client.transaction_latency_ns_mean);
    // Ring 1 carries the status and its echo only.
    assert_eq!(f.records().iter().filter(|r| r.iface >= 2 && matches!(r.what, Transmit { .. })).count(), 2);
}

/// A DMA engine that holds one transfer (`dma_queue_transfers = 1`, no
/// handshake, one ring), 600 ns of slave access: the first
/// ReadBlk request is at node 1 at 224 ns and serviced at 824 ns + 7.5
/// symbols (5 in, 2.5 port), when its data packet goes into a send buffer
/// and the slot frees. The second, sent a 5 + 14-symbol slot after the
/// first, is at node 1 at 224 ns + 19 symbols: busied. Its busy echo is
/// back at 448 ns + 21 and it goes again at once; at node 1 at 672 ns + 21
/// (812 ns), still before the slot frees (874 ns): busied again; sent again
/// at 896 ns + 23, it is at node 1 at 1120 ns + 23 (1273 ns) and accepted.
#[test]
fn a_request_is_busied_at_a_full_dma_queue_until_a_transfer_is_done() {
    let mut f = channel("readblk", 32, &["gigaring.dma_setup_words=0", "gigaring.dma_queue_transfers=1", "gigaring.rings=1", "gigaring.slave_access_ns=600"]);
    f.inject(0, 1, 0, 0);
    f.inject(0, 1, 0, 0);
    f.run_until(ns_to_time(10_000.0));
    assert_eq!(times(&f, 0, Transmit { own: true }, Request, READ_REQUEST), vec![0, at(0.0, 38), at(448.0, 42), at(896.0, 46)]);
    assert_eq!(times(&f, 1, Busied, Request, READ_REQUEST), vec![at(224.0, 38), at(672.0, 42)]);
    assert_eq!(times(&f, 0, EchoBack { busy: true }, Echo, READ_REQUEST), vec![at(448.0, 42), at(896.0, 46)]);
    assert_eq!(times(&f, 1, Accepted, Request, READ_REQUEST), vec![at(224.0, 0), at(1120.0, 46)]);
    assert_eq!(times(&f, 1, Serviced, Request, READ_REQUEST)[0], at(824.0, 15));
    let r = f.report();
    assert_eq!((r.transactions, r.retries), (2, 2));
    // With room for two transfers the second is accepted at once.
    let mut f = channel("readblk", 32, &["gigaring.dma_setup_words=0", "gigaring.dma_queue_transfers=2", "gigaring.rings=1", "gigaring.slave_access_ns=600"]);
    f.inject(0, 1, 0, 0);
    f.inject(0, 1, 0, 0);
    f.run_until(ns_to_time(10_000.0));
    assert_eq!(times(&f, 1, Accepted, Request, READ_REQUEST), vec![at(224.0, 0), at(224.0, 38)]);
    assert_eq!(f.report().retries, 0);
}

/// The client port holds a packet for its own bytes at 1200 MB/s: a
/// message of w words (4 + 2w + 1 symbols) is serviced (4 + 2w + 1) x 10/3
/// ns after its tail is in, half a symbol time per symbol: 3.5 symbols for
/// 1 word, 10.5 for 8, 34.5 (230 ns) for 32.
#[test]
fn the_client_port_holds_a_packet_for_its_length() {
    for words in [1u64, 8, 32] {
        let len = 4 + 2 * words + 1;
        let mut f = channel("message", words as u32, &[]);
        f.inject(0, 1, 0, 0);
        f.run_until(ns_to_time(5000.0));
        assert_eq!(times(&f, 1, Received, Request, WRITE_REQUEST), vec![at(224.0, 2 * len)], "{words} words");
        assert_eq!(times(&f, 1, Serviced, Request, WRITE_REQUEST), vec![at(224.0, 3 * len)], "{words} words");
    }
}

/// With the handshake the DMA engine's ready is a promise: a transfer
/// opens with its set-up, which is what a full engine busies, and the
/// block's own requests are never busied for want of a slot. Four ReadBlks
/// at once to an engine that holds one transfer: set-ups are busied, read
/// requests never, and all four complete.
#[test]
fn a_full_dma_engine_busies_set_ups_not_the_blocks_requests() {
    let mut f = channel("readblk", 32, &["gigaring.dma_queue_transfers=1", "gigaring.slave_access_ns=600"]);
    for _ in 0..4 {
        f.inject(0, 1, 0, 0);
    }
    f.run_until(ns_to_time(50_000.0));
    let busied = |class: u8| f.records().iter().filter(|r| r.what == Busied && r.class == class).count();
    assert!(busied(WRITE_REQUEST) > 0, "the engine was full");
    assert_eq!(busied(READ_REQUEST), 0);
    assert_eq!(f.report().transactions, 4);
}

/// Under the handshake a WriteBlk's one response is its status (a 1-word
/// message: 4 + 2 + 1 = 7 symbols here), not a bare write response (5).
#[test]
fn a_write_blocks_response_is_its_status() {
    let mut f = channel("writeblk", 32, &[]);
    f.inject(0, 1, 0, 0);
    f.run_until(ns_to_time(5000.0));
    let lens: Vec<(u8, u16)> = f.records().iter().filter(|r| r.what == (Transmit { own: true }) && r.kind == Response).map(|r| (r.class, r.len)).collect();
    assert_eq!(lens, vec![(WRITE_REQUEST, 7), (ringlet_gigaring::params::WRITE_RESPONSE, 7)], "the ready, then the status");
    assert_eq!(f.report().transactions, 1);
}

/// When a run stops, a node's backlog counts its transactions not complete,
/// and the oldest waiting is the oldest not yet issued: with one transfer
/// per stream, of three reads injected at 100, 200 and 300 ns the first is
/// under way at 2 us and the one of 200 ns is the oldest waiting.
#[test]
fn the_oldest_waiting_transaction_is_the_oldest_not_issued() {
    let mut f = channel("readblk", 1024, &["gigaring.transfers_per_stream=1"]);
    for k in 1..=3 {
        f.inject(0, 1, 0, ns_to_time(100.0 * k as f64));
    }
    f.run_until(ns_to_time(2000.0));
    let r = f.report();
    let node0 = r.per_node.iter().find(|n| n.node == 0).unwrap();
    assert_eq!(node0.backlog, 3);
    // (The report's end is the run's: here its time cap, as nothing stopped it.)
    assert!((node0.oldest_waiting_ns - (r.sim_time_ns - 200.0)).abs() < 1e-6, "{} at {}", node0.oldest_waiting_ns, r.sim_time_ns);
}

/// Adaptive congestion control below the window's floor: a set-up busied
/// at a full DMA engine waits in its stream, out of the send buffer, and
/// each busy echo at the floor doubles the time its stream sends nothing,
/// in the packet's round trips (`gigaring.backoff_round_trips` = 16 at
/// most). Node 0's ReadBlk holds node 2's only transfer slot (1 ms of slave
/// access); node 1's set-up, with its window at its floor (`window_max` =
/// 1), is busied. On the idle three-node ring a round trip R is three node
/// latencies (the packet's hop and the echo's two) and the echo's two
/// symbols: node 1 sends at 0, 2R, 6R, 14R, 30R, then every 16R.
#[test]
fn below_the_windows_floor_a_busied_stream_waits_doubling_round_trips() {
    let t0 = ns_to_time(5000.0);
    let start = |extra: &[&str]| {
        let text = "[network]\nkind = \"gigaring\"\nnodes = 3\n[traffic]\nload_mbps_per_node = 0\ntransaction = \"readblk\"\nblock_words = 32\n[run]\nwarmup_ns = 0\n";
        let keys = ["gigaring.dma_queue_transfers=1", "gigaring.slave_access_ns=1000000", "gigaring.window_max=1"];
        let overrides: Vec<_> = keys.iter().chain(extra).map(|e| ringlet_scenario::parse_override(e).unwrap()).collect();
        let mut f = ringlet_gigaring::hand_built(&ringlet_gigaring::load_str(text, &overrides).unwrap()).unwrap();
        f.inject(0, 2, 0, 0);
        f.inject(1, 2, 0, t0);
        f
    };
    let sent = |f: &Fabric<Arbitration>| -> Vec<Time> { f.records().iter().filter(|x| (x.iface == 1 || x.iface == 4) && x.what == (Transmit { own: true }) && x.kind == Request).map(|x| x.time).collect() };
    let r = 3 * ns_to_time(224.0) + 2 * SYMBOL;
    let mut f = start(&[]);
    // Held between its busy echo at 3R and its next sending at 6R: out of node 1's send buffers (interfaces 1 and 4).
    f.run_until(t0 + 4 * r);
    assert_eq!((f.send_buffer(1, WRITE_REQUEST), f.send_buffer(4, WRITE_REQUEST)), ((0, 0), (0, 0)));
    f.run_until(t0 + 80 * r);
    let expected: Vec<Time> = [0, 2, 6, 14, 30, 46, 62, 78].iter().map(|k| t0 + k * r).collect();
    assert_eq!(sent(&f), expected);
    // With no hold-off below the floor it goes again every round trip.
    let mut f = start(&["gigaring.backoff_round_trips=1"]);
    f.run_until(t0 + 8 * r);
    let expected: Vec<Time> = (0..=8).map(|k| t0 + k * r).collect();
    assert_eq!(sent(&f), expected);
}
