//! Queue reservation keeps its promise (seed 002: it "prevents a packet
//! from being 'unlucky' and finding its target receive buffers full each
//! time. Forward progress is therefore assured"): a node owed a reserved
//! place in a receive buffer gets onto the ring to use it, and every
//! sending node makes progress, where senders whose retries go round the
//! ring once livelocked the channel (issue 52).
//!
//! Timings with the family's defaults (see `channel_timing.rs`): 32-bit
//! symbols of 20/3 ns, 224 ns through a node chip, a 32-word message of 81
//! symbols and its idle (a slot of 546 2/3 ns), 2-symbol echoes.

use ringlet_engine::time::ns_to_time;
use ringlet_engine::Time;
use ringlet_fabric::family::Mode;
use ringlet_fabric::packet::PacketKind::{self, Request};
use ringlet_fabric::trace::TraceKind::{self, *};
use ringlet_fabric::{Fabric, Report};
use ringlet_gigaring::arbitration::Arbitration;
use ringlet_gigaring::GIGARING;

/// One symbol, ticks (20/3 ns).
const SYMBOL: Time = 20_000;
/// A 32-word packet with its idle on the link.
const SLOT: Time = (81 + 1) * SYMBOL;
/// Through a node chip.
const HOP: Time = 224 * 3000;
/// A 2-symbol echo, fully in.
const ECHO: Time = 2 * SYMBOL;

/// What one ring carries of 32-word messages, MB/s: 150 MHz x 4-byte
/// symbols, 64 of a slot's 82 symbols payload.
const RING_MBPS: f64 = 150.0 * 4.0 * 64.0 / 82.0;

/// `ns` nanoseconds, given in thirds (symbol times are 20/3 ns).
fn thirds(ns_times_3: u64) -> Time {
    ns_times_3 * 1000
}

fn run(text: &str, extra: &[&str]) -> Report {
    let overrides: Vec<_> = extra.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    let s = ringlet_gigaring::load_str(text, &overrides).unwrap();
    (GIGARING.run)(&s, Mode::Plain).unwrap().report
}

/// Times of the records of `what` at interface `iface` for packets of `kind` from agent `src`.
fn times(f: &Fabric<Arbitration>, iface: u16, what: TraceKind, kind: PacketKind, src: u16) -> Vec<Time> {
    f.records().iter().filter(|r| r.iface == iface && r.what == what && r.kind == kind && r.src == src).map(|r| r.time).collect()
}

/// A four-node ring (node k's interface is k, ring order 0 -> 1 -> 2 ->
/// 3): node 3's receive buffer holds one packet and its client port takes
/// 3240 ns for a message (100 MB/s). Node 2 sends two messages at 0, nodes
/// 0 and 1 one each at 1500 ns.
///
/// Node 2's first is accepted at 224 ns and keeps the buffer full until
/// 4004 ns (its 81 symbols in, then the port). Its second, sent a slot
/// later, is busied as NOTRY (BUSY_D) at 770 2/3 ns, is back a round trip
/// later (four hops and the echo: 1456 ns) and, busied again as DOTRY at
/// 1680 ns, gets the buffer's phase-A place (BUSY_A). Nodes 0's and 1's
/// messages, busied twice in turn, get phase-B places (BUSY_B at 3866 2/3
/// and 3320 ns); from 4004 ns the free place is phase A's, and they are
/// refused each time round.
///
/// Node 2's RETRY_A is back at 2830 2/3 ns and waits: the retries of nodes
/// 1 and 0 pass its bypass buffer slot after slot from 3096 ns. Node 1, its
/// echo back at 5981 1/3 ns, holds its next retry: it counts three
/// contenders on its packets' path, node 0 upstream (owed a place, its
/// packets say it contends though none waits) and node 2 downstream
/// (asking to share), so it sends one slot in three, at 4888 and not
/// before 4888 + 3 slots = 6528 ns. Counting only nodes whose packets
/// wait, it counted two and went again at 5981 1/3 ns, when its echo came
/// back: node 2's bypass buffer never emptied and the channel livelocked,
/// every packet refused for the place node 2 could not reach. Here the
/// last retry passing node 2 leaves its bypass buffer at 5829 1/3 ns + a
/// slot = 6376 ns; node 2's RETRY_A goes then and is accepted a hop later,
/// at 6600 ns. Then phase B is served: nodes 1 and 0 get in.
#[test]
fn a_node_owed_the_served_phase_reaches_its_place() {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 4\n[gigaring]\nrings = 1\nreceive_buffer_packets = 1\nclient_port_mbps = 100\n[traffic]\nload_mbps_per_node = 0\ntransaction = \"message\"\nblock_words = 32\n[run]\nwarmup_ns = 0\n";
    let mut f = ringlet_gigaring::hand_built(&ringlet_gigaring::load_str(text, &[]).unwrap()).unwrap();
    f.inject(2, 3, 0, 0);
    f.inject(2, 3, 0, 0);
    let start = ns_to_time(1500.0);
    f.inject(0, 3, 0, start);
    f.inject(1, 3, 0, start);
    f.run_until(ns_to_time(40_000.0));
    let own = Transmit { own: true };
    // Node 2: its two messages, the second's DOTRY a round trip after its BUSY_D, its RETRY_A.
    let dotry = SLOT + 4 * HOP + ECHO;
    assert_eq!(times(&f, 2, own, Request, 2), vec![0, SLOT, dotry, ns_to_time(6376.0)]);
    assert_eq!(times(&f, 3, Busied, Request, 2), vec![SLOT + HOP, dotry + HOP]);
    // The retries that pass node 2 follow each other slot by slot up to then.
    let mut passing: Vec<Time> = [0, 1].iter().flat_map(|&src| times(&f, 2, Transmit { own: false }, Request, src)).filter(|&t| t >= ns_to_time(3096.0) && t < ns_to_time(6376.0)).collect();
    passing.sort_unstable();
    assert_eq!(passing, (0..6).map(|k| ns_to_time(3096.0) + k * SLOT).collect::<Vec<_>>());
    assert_eq!(passing[5] + SLOT, ns_to_time(6376.0));
    // Node 1 holds three slots after the retry it sent at 4888 ns, though its echo is back after two.
    let node1 = times(&f, 1, own, Request, 1);
    let k = node1.iter().position(|&t| t == ns_to_time(4888.0)).expect("node 1 sends at 4888 ns");
    assert_eq!(node1[k + 1], ns_to_time(4888.0) + 3 * SLOT);
    assert!(times(&f, 1, EchoBack { busy: true }, PacketKind::Echo, 3).contains(&thirds(17_944)), "node 1's echo back at 5981 1/3 ns");
    // The places: node 2's first at once, its phase-A place at 6600 ns, then phase B's.
    assert_eq!(times(&f, 3, Accepted, Request, 2), vec![HOP, ns_to_time(6376.0) + HOP]);
    for node in [0, 1] {
        let accepted = times(&f, 3, Accepted, Request, node);
        assert!(accepted.len() == 1 && accepted[0] > ns_to_time(6600.0), "node {node}: {accepted:?}");
    }
    assert_eq!(f.report().transactions, 4);
}

/// Issue 52's reproducer, on a shorter run: six nodes, nodes 0-4 sending
/// 32-word messages at 150 MB/s each to node 5, whose receive buffers hold
/// one packet each. Every master completes transactions, the node just
/// upstream of the slave (owed the served phase's place) included, and the
/// channel carries more than one master's equal share of its rings (the
/// livelocked channel carried 0.14 MB/s on one ring: one 3300th of it).
fn masters_progress(rings: u32) -> Report {
    let text = format!("[network]\nkind = \"gigaring\"\nnodes = 6\n[gigaring]\nrings = {rings}\nreceive_buffer_packets = 1\n[traffic]\ntransaction = \"message\"\nblock_words = 32\nmasters = 5\narrivals = \"deterministic\"\nload_mbps_per_node = 150\n[run]\nmeasure_transactions = 3000\nmax_sim_time_ns = 2e6\n");
    let r = run(&text, &[]);
    for n in &r.per_node[..5] {
        assert!(n.transactions > 0, "{rings} ring(s): node {} completed nothing: {:?}", n.node, r.per_node.iter().map(|n| n.transactions).collect::<Vec<_>>());
    }
    let share = rings as f64 * RING_MBPS / 5.0;
    assert!(r.throughput_mbps > share, "{rings} ring(s): {} MB/s, a master's share {share}", r.throughput_mbps);
    r
}

#[test]
fn every_master_progresses_on_one_ring() {
    let r = masters_progress(1);
    assert!(r.counters.busy_requests_reserved > 0, "the reservations are exercised");
}

#[test]
fn every_master_progresses_on_two_rings() {
    masters_progress(2);
}

/// The folded ring: eight nodes, nodes 0-5 sending 32-word messages at 150
/// MB/s each to nodes 6 and 7, with receive buffers of one packet; node 6
/// fails when the warm-up ends, and the rings fold into one around it with
/// node 7 the only slave. Every live master completes transactions on the
/// folded ring, and it carries more than one master's equal share of it.
#[test]
fn every_master_progresses_on_the_folded_ring() {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 8\n[gigaring]\nreceive_buffer_packets = 1\n[faults]\nfail_node = 6\nat_ns = 20000.0\n[traffic]\ntransaction = \"message\"\nblock_words = 32\nmasters = 6\nload_mbps_per_node = 150\n[run]\nwarmup_ns = 20000.0\nmeasure_transactions = 100000\nmax_sim_time_ns = 2e6\n";
    let r = run(text, &[]);
    let after = r.reconfiguration.as_ref().expect("a fold").transactions_after;
    for n in &r.per_node[..6] {
        assert!(n.transactions > 0, "node {} completed nothing: {:?}", n.node, r.per_node.iter().map(|n| n.transactions).collect::<Vec<_>>());
    }
    assert_eq!(after, r.transactions, "all measured on the folded ring");
    let share = RING_MBPS / 6.0;
    assert!(r.throughput_mbps > share, "{} MB/s, a master's share {share}", r.throughput_mbps);
}

/// The campaign's folded channel (issue 52's long run): four nodes, every
/// node sending the default mix to every other, receive buffers of one
/// packet; node 0 fails at once and the rings fold around it, so node 2
/// sits twice on the folded ring, at places 1 and 3, and nodes 1 and 3 once.
/// Node 2's place 1, owed the served phase's reserved place in node 3's
/// buffer, needs its bypass buffer empty, which node 1's packets and node
/// 2's own from place 3 fill. When node 2 sent from whichever place found
/// its buffer empty first, place 3 spent the whole node's share on retries
/// the buffer refused: node 3's requests waited past the stall window and
/// the channel carried 42 MB/s over 20 ms. A node owed a place serves its
/// two places in turn: every node progresses.
#[test]
fn a_node_twice_on_the_folded_ring_reaches_its_reserved_place_from_either() {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 4\n[gigaring]\nreceive_buffer_packets = 1\ndma_status_words = 0\n[faults]\nfail_node = 0\nat_ns = 0.0\n[traffic]\nload_mbps_per_node = 100\n[run]\nseed = 0\nmeasure_transactions = 1000000000\nmax_sim_time_ns = 5e6\n";
    let r = run(text, &[]);
    assert!(r.reconfiguration.is_some(), "a fold");
    assert!(r.stalled_nodes.is_empty(), "stalled {:?}: {:?}", r.stalled_nodes, r.per_node.iter().map(|n| (n.node, n.transactions, n.longest_stall_ns)).collect::<Vec<_>>());
    for n in &r.per_node[1..] {
        assert!(n.transactions > 0, "node {} completed nothing", n.node);
    }
}
