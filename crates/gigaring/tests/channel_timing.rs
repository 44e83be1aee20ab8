//! Exact timings on two- and four-node GigaRing channels, with the
//! family's defaults: 32-bit symbols at 150 MHz (20/3 ns), 224 ns through a
//! node chip, 0 m wires, send packets of a 4-symbol header, 12 symbols of
//! framing, 2 symbols per 64-bit word and a 1-symbol checksum (a 32-word
//! packet: 81 symbols, a bare one 17), one idle after every packet,
//! 2-symbol echoes, a client port of 1200 MB/s shared by both rings'
//! receive buffers (270 ns for a 324-byte packet).
//!
//! Interfaces: ring 0 runs node 0 -> 1 -> ... in order, interfaces 0..N-1
//! (interface k is node k's); ring 1 runs the other way, interfaces N..2N-1
//! (interface N + k is node N-1-k's).

use ringlet_engine::time::ns_to_time;
use ringlet_engine::Time;
use ringlet_fabric::packet::PacketKind::{self, Echo, Request, Response};
use ringlet_fabric::trace::TraceKind::{self, *};
use ringlet_fabric::Fabric;
use ringlet_gigaring::arbitration::Arbitration;

/// One symbol, ticks (20/3 ns).
const SYMBOL: Time = 20_000;
/// A 32-word packet with its idles on the link.
const SLOT: Time = (81 + 1) * SYMBOL;
/// The client port's time for a 32-word packet (324 bytes at 1200 MB/s), ticks.
const PORT: Time = 810_000;

/// `ns` plus `symbols` symbol times.
fn at(ns: f64, symbols: u64) -> Time {
    ns_to_time(ns) + symbols * SYMBOL
}

fn channel(nodes: usize, transaction: &str, words: u32, extra: &[&str]) -> Fabric<Arbitration> {
    let text = format!("[network]\nkind = \"gigaring\"\nnodes = {nodes}\n[traffic]\nload_mbps_per_node = 0\ntransaction = \"{transaction}\"\nblock_words = {words}\n[run]\nwarmup_ns = 0\n");
    let overrides: Vec<_> = extra.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    ringlet_gigaring::hand_built(&ringlet_gigaring::load_str(&text, &overrides).unwrap()).unwrap()
}

/// Times of the records of `what` at interface `iface` for packets of `kind` from agent `src`.
fn times(f: &Fabric<Arbitration>, iface: u16, what: TraceKind, kind: PacketKind, src: u16) -> Vec<Time> {
    f.records().iter().filter(|r| r.iface == iface && r.what == what && r.kind == kind && r.src == src).map(|r| r.time).collect()
}

/// Lengths of the packets sent from interface `iface` of `kind`.
fn lengths(f: &Fabric<Arbitration>, iface: u16, kind: PacketKind) -> Vec<u16> {
    f.records().iter().filter(|r| r.iface == iface && r.what == (Transmit { own: true }) && r.kind == kind).map(|r| r.len).collect()
}

/// Two messages from node 0 to node 1 at once: the first goes on ring 0,
/// the second on ring 1 (its send buffer is emptier: per-packet load
/// balancing). Each head is at node 1 after 224 ns, which puts the echo in
/// its place; the echo is back after another 224 ns and its 2 symbols:
/// the channel latency, 461 1/3 ns. The packets are fully in after their
/// 81 symbols; the shared client port takes one, then the other.
#[test]
fn a_message_and_its_echo_on_each_ring() {
    let mut f = channel(2, "message", 32, &[]);
    f.inject(0, 1, 0, 0);
    f.inject(0, 1, 0, 0);
    f.run_until(ns_to_time(5000.0));
    assert_eq!(times(&f, 0, Transmit { own: true }, Request, 0), vec![0]);
    assert_eq!(times(&f, 3, Transmit { own: true }, Request, 0), vec![0]);
    for target in [1, 2] {
        assert_eq!(times(&f, target, Accepted, Request, 0), vec![ns_to_time(224.0)]);
        assert_eq!(times(&f, target, Received, Request, 0), vec![at(224.0, 81)]);
        assert_eq!(times(&f, target, Transmit { own: false }, Echo, 1), vec![ns_to_time(224.0)]);
    }
    assert_eq!(times(&f, 0, EchoBack { busy: false }, Echo, 1), vec![at(448.0, 2)]);
    assert_eq!(times(&f, 3, EchoBack { busy: false }, Echo, 1), vec![at(448.0, 2)]);
    assert_eq!(times(&f, 1, Serviced, Request, 0), vec![at(224.0, 81) + PORT]);
    assert_eq!(times(&f, 2, Serviced, Request, 0), vec![at(224.0, 81) + 2 * PORT]);
    let r = f.report();
    assert_eq!(r.transactions, 2);
    let client = r.client.as_ref().expect("channel figures");
    assert!((client.channel_latency_ns_mean - (448.0 + 40.0 / 3.0)).abs() < 1e-6, "{}", client.channel_latency_ns_mean);
}

/// With `shortest`, both messages take ring 0 (one hop to node 1 against
/// three the other way round a 4-node channel): the second leaves when the
/// first's slot ends. A message to node 3 takes ring 1. Node 2 is two hops
/// either way: of two messages to it, the second takes the ring whose send
/// buffer is emptier, ring 1, at once.
#[test]
fn the_nearest_ring_when_not_balancing() {
    let mut f = channel(4, "message", 32, &["gigaring.load_balancing=\"shortest\""]);
    f.inject(0, 1, 0, 0);
    f.inject(0, 1, 0, 0);
    f.inject(0, 3, 0, 0);
    f.run_until(ns_to_time(5000.0));
    assert_eq!(times(&f, 0, Transmit { own: true }, Request, 0), vec![0, SLOT]);
    // Ring 1's interfaces: 4 = node 3, 5 = node 2, 6 = node 1, 7 = node 0.
    assert_eq!(times(&f, 7, Transmit { own: true }, Request, 0), vec![0]);
    assert_eq!(times(&f, 4, Accepted, Request, 0), vec![ns_to_time(224.0)]);
    let mut f = channel(4, "message", 32, &["gigaring.load_balancing=\"shortest\""]);
    f.inject(0, 2, 0, 0);
    f.inject(0, 2, 0, 0);
    f.run_until(ns_to_time(5000.0));
    assert_eq!(times(&f, 0, Transmit { own: true }, Request, 0), vec![0]);
    assert_eq!(times(&f, 7, Transmit { own: true }, Request, 0), vec![0]);
    assert_eq!(times(&f, 5, Accepted, Request, 0), vec![ns_to_time(2.0 * 224.0)]);
    // Balanced, the second message to node 1 goes the long way round at once.
    let mut f = channel(4, "message", 32, &[]);
    f.inject(0, 1, 0, 0);
    f.inject(0, 1, 0, 0);
    f.run_until(ns_to_time(5000.0));
    assert_eq!(times(&f, 0, Transmit { own: true }, Request, 0), vec![0]);
    assert_eq!(times(&f, 7, Transmit { own: true }, Request, 0), vec![0]);
    assert_eq!(times(&f, 6, Accepted, Request, 0), vec![ns_to_time(3.0 * 224.0)]);
}

/// A receive buffer of one packet and a slow client port (100 MB/s: 3240
/// ns per packet): the second message, sent when the first's slot ends, is
/// busied; its busy echo is back 461 1/3 ns after it left, before the slot
/// ends, so it goes again slot after slot until it reaches node 1 after
/// the first has been serviced.
#[test]
fn a_busied_packet_is_sent_again() {
    let mut f = channel(2, "message", 32, &["gigaring.rings=1", "gigaring.receive_buffer_packets=1", "gigaring.client_port_mbps=100"]);
    f.inject(0, 1, 0, 0);
    f.inject(0, 1, 0, 0);
    f.run_until(ns_to_time(10_000.0));
    let sent = times(&f, 0, Transmit { own: true }, Request, 0);
    assert_eq!(sent, (0..8).map(|k| k * SLOT).collect::<Vec<_>>());
    let busied = times(&f, 1, Busied, Request, 0);
    assert_eq!(busied, sent[1..7].iter().map(|&t| t + ns_to_time(224.0)).collect::<Vec<_>>());
    assert_eq!(times(&f, 0, EchoBack { busy: true }, Echo, 1), sent[1..7].iter().map(|&t| t + at(448.0, 2)).collect::<Vec<_>>());
    // The first is serviced 3240 ns after its tail is in; the copy that reaches node 1 after that is accepted.
    let first_done = at(224.0 + 3240.0, 81);
    assert_eq!(times(&f, 1, Serviced, Request, 0)[0], first_done);
    assert!(sent[6] + ns_to_time(224.0) < first_done && sent[7] + ns_to_time(224.0) > first_done);
    assert_eq!(times(&f, 1, Accepted, Request, 0), vec![ns_to_time(224.0), sent[7] + ns_to_time(224.0)]);
    let r = f.report();
    assert_eq!((r.transactions, r.retries), (2, 6));
}

/// A ReadBlk of 80 words: one 17-symbol request; the slave's DMA engine
/// answers with 32 + 32 + 16 words in packets of 81, 81 and 49 symbols,
/// spread over both rings; the block completes when the last is serviced.
#[test]
fn a_read_block_is_split_into_packets() {
    let mut f = channel(2, "readblk", 80, &["gigaring.dma_setup_words=0"]);
    f.inject(0, 1, 0, 0);
    f.run_until(ns_to_time(5000.0));
    assert_eq!(lengths(&f, 0, Request), vec![17]);
    // The request is in at 224 ns + 17 symbols and serviced 68 bytes later at 1200 MB/s.
    let serviced = at(224.0 + 170.0 / 3.0, 17);
    assert_eq!(times(&f, 1, Serviced, Request, 0), vec![serviced]);
    let mut lens = lengths(&f, 1, Response);
    lens.extend(lengths(&f, 2, Response));
    lens.sort();
    assert_eq!(lens, vec![49, 81, 81]);
    // Ring 1's interface of node 1 (2) is idle: its response leaves at once.
    assert_eq!(times(&f, 2, Transmit { own: true }, Response, 1), vec![serviced]);
    let r = f.report();
    assert_eq!(r.transactions, 1);
    assert!((r.throughput_mbps * r.measure_time_ns / 1e3 - 640.0).abs() < 1e-6, "640 bytes delivered");
}

/// A WriteBlk of 80 words: the block as three request packets (81, 81 and
/// 49 symbols) on the write-request channel, then one 17-symbol write
/// response once the last is serviced.
#[test]
fn a_write_block_sends_its_data_as_requests() {
    let mut f = channel(2, "writeblk", 80, &["gigaring.dma_setup_words=0"]);
    f.inject(0, 1, 0, 0);
    f.run_until(ns_to_time(5000.0));
    let mut lens = lengths(&f, 0, Request);
    lens.extend(lengths(&f, 3, Request));
    lens.sort();
    assert_eq!(lens, vec![49, 81, 81]);
    let responses: Vec<_> = f.records().iter().filter(|r| r.what == (Transmit { own: true }) && r.kind == Response).collect();
    assert_eq!(responses.len(), 1);
    assert_eq!((responses[0].len, responses[0].class), (17, ringlet_gigaring::params::WRITE_RESPONSE));
    let last_request = f.records().iter().filter(|r| r.what == Serviced && r.kind == Request).map(|r| r.time).max().unwrap();
    assert_eq!(responses[0].time, last_request);
    assert_eq!(f.report().transactions, 1);
}

/// The bypass buffer rule on a 4-node ring: node 0's message to node 2
/// reaches node 1 at 224 ns, the instant node 1 starts its own message:
/// that one goes (register insertion wins the tie) and the passing one
/// waits in node 1's bypass buffer until the own packet's slot ends. Node
/// 1's second own message may start only when the bypass buffer is empty,
/// a slot later again.
#[test]
fn an_own_packet_waits_for_an_empty_bypass_buffer() {
    let mut f = channel(4, "message", 32, &["gigaring.load_balancing=\"shortest\""]);
    f.inject(0, 2, 0, 0);
    f.inject(1, 2, 0, ns_to_time(224.0));
    f.inject(1, 2, 0, ns_to_time(224.0));
    f.run_until(ns_to_time(5000.0));
    assert_eq!(times(&f, 1, Transmit { own: true }, Request, 1), vec![ns_to_time(224.0), ns_to_time(224.0) + 2 * SLOT]);
    assert_eq!(times(&f, 1, Transmit { own: false }, Request, 0), vec![ns_to_time(224.0) + SLOT]);
    assert_eq!(times(&f, 2, Accepted, Request, 0), vec![ns_to_time(448.0) + SLOT]);
}

/// Each metre of wire adds 5 ns to every hop: on a two-node channel a
/// packet crosses one wire and its echo the other, so the unloaded channel
/// latency grows by 10 ns per metre of `gigaring.wire_m`.
#[test]
fn the_channel_latency_grows_with_the_wire() {
    let latency = |metres: f64| {
        let mut f = channel(2, "message", 32, &[&format!("gigaring.wire_m={metres}")]);
        f.inject(0, 1, 0, 0);
        f.run_until(ns_to_time(5000.0));
        f.report().client.unwrap().channel_latency_ns_mean
    };
    let zero = latency(0.0);
    assert!((zero - (448.0 + 40.0 / 3.0)).abs() < 1e-6, "{zero}");
    for metres in [1.0, 10.0, 35.5] {
        assert!((latency(metres) - zero - 10.0 * metres).abs() < 1e-6, "{metres} m");
    }
}

/// Idles are what a node sends when it has nothing else to send, and a
/// bypass buffer drains by absorbing them: node 0 sends a message to node
/// 2 every 100 symbol times (an 81-symbol packet, its one separating idle
/// and 18 idles more); node 1 starts its own message the instant the first
/// arrives, which puts that one 82 symbol times behind. Each later packet
/// finds 18 idles fewer in its way (the separator is kept, the rest
/// absorbed): they leave node 1 64, 46, 28 and 10 symbol times late, and
/// the sixth and seventh on time.
#[test]
fn a_bypass_buffer_drains_through_the_idles() {
    let mut f = channel(4, "message", 32, &["gigaring.rings=1"]);
    for k in 0..7 {
        f.inject(0, 2, 0, k * 100 * SYMBOL);
    }
    f.inject(1, 2, 0, ns_to_time(224.0));
    f.run_until(ns_to_time(20_000.0));
    assert_eq!(times(&f, 1, Transmit { own: true }, Request, 1), vec![ns_to_time(224.0)]);
    let late = [82, 64, 46, 28, 10, 0, 0];
    let expected: Vec<Time> = (0..7).map(|k| ns_to_time(224.0) + (k * 100 + late[k as usize]) * SYMBOL).collect();
    assert_eq!(times(&f, 1, Transmit { own: false }, Request, 0), expected);
}

/// With `echo_after = "checksum"` the target echoes once the packet's 81
/// symbols are in, not at its header: the echo leaves node 1 at 224 ns +
/// 81 symbols and is back at 448 ns + 83, so the unloaded channel latency
/// grows by the packet's length (540 ns), past seed 002's whole 462 ns.
#[test]
fn an_echo_after_the_checksum_waits_for_the_packet() {
    let mut f = channel(2, "message", 32, &["gigaring.echo_after=\"checksum\"", "gigaring.load_balancing=\"shortest\""]);
    f.inject(0, 1, 0, 0);
    f.run_until(ns_to_time(5000.0));
    assert_eq!(times(&f, 1, Transmit { own: false }, Echo, 1), vec![at(224.0, 81)]);
    assert_eq!(times(&f, 0, EchoBack { busy: false }, Echo, 1), vec![at(448.0, 83)]);
    let latency = f.report().client.unwrap().channel_latency_ns_mean;
    assert!((latency - (448.0 + 83.0 * 20.0 / 3.0)).abs() < 1e-6, "{latency}");
}
