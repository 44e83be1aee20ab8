//! TRAIN on tiny hand-built rings, exact to the tick (seed 003 section
//! 2.3; 2 ns symbols, 1-cycle hops, an 8-symbol LocalMotive, 4-symbol tickets).

mod common;
use common::*;
use ringlet_fabric::packet::PacketKind::{self, Echo, Request};
use ringlet_fabric::trace::TraceKind::{self, Accepted, EchoBack, Transmit};
use ringlet_fabric::Fabric;
use ringlet_sci::protocol::train::Train;

fn train_ring(extra: &[&str]) -> Fabric<Train> {
    let mut all = vec!["network.protocol=train"];
    all.extend_from_slice(extra);
    ring_with::<Train>(4, &all)
}

/// When the train's head reaches `node` (the TicketMaster, node 0, launches it).
fn train_at(r: &Fabric<Train>, node: u16) -> Vec<u64> {
    times(r, node, TraceKind::Control, PacketKind::Control, 0)
}

/// Every node holds the train `train.handling_cycles` from its head's
/// arrival before passing it on; the TicketMaster takes it off when its tail
/// is in and launches the next revolution then. On an idle 4-node ring with
/// the derived handling (the 8-symbol LocalMotive read whole, 16 ns) the head
/// reaches node k at k hops + (k - 1) handlings, is home at 4 x 2 + 3 x 16 =
/// 56 ns, and the next revolution leaves at 56 + 16 = 72 ns: the revolution
/// comes from the ring, not from a set floor.
#[test]
fn the_localmotive_revolution_is_hops_plus_handling_at_each_node() {
    let mut r = train_ring(&[]);
    r.run_until(200 * NS);
    let h = 8 * CYCLE;
    for k in 1..4u16 {
        let head = k as u64 * HOP + (k as u64 - 1) * h;
        assert_eq!(train_at(&r, k)[..2], [head, 72 * NS + head], "node {k}");
        // Passed on after the handling, ahead of nothing (the ring is idle).
        assert_eq!(times(&r, k, Transmit { own: false }, PacketKind::Control, 0)[0], head + h);
    }
    assert_eq!(train_at(&r, 0)[..2], [56 * NS, 72 * NS + 56 * NS]);
    assert_eq!(times(&r, 0, Transmit { own: false }, PacketKind::Control, 0)[..3], [0, 72 * NS, 144 * NS]);

    // A handling of 3 cycles (6 ns): home at 4 x 2 + 3 x 6 = 26 ns, next launch 26 + 16 = 42 ns.
    let mut r = train_ring(&["train.handling_cycles=3"]);
    r.run_until(100 * NS);
    assert_eq!(train_at(&r, 2)[..2], [10 * NS, 52 * NS]);
    assert_eq!(train_at(&r, 0)[0], 26 * NS);
    assert_eq!(times(&r, 0, Transmit { own: false }, PacketKind::Control, 0)[..2], [0, 42 * NS]);
}

/// Immediate send mode: a node sends its claimed packet only once the
/// LocalMotive has left it. Node 2's request, waiting since 0, is claimed when
/// the head arrives (20 ns), the train leaves at 36 ns and occupies the link
/// for its 8 symbols: the request goes at 52 ns.
#[test]
fn an_immediate_mode_packet_goes_after_the_localmotive() {
    let mut r = train_ring(&[]);
    r.inject(2, 3, 0, 0);
    r.run_until(200 * NS);
    assert_eq!(times(&r, 2, Transmit { own: true }, Request, 2), vec![52 * NS]);
}

/// Arbitrated send mode from the second revolution on (`arbitrate_above =
/// immediate_below = 0`: one claim switches, and the train never switches
/// back). Node 1's primer (to node 2) is claimed on revolution 1 and goes at
/// 34 ns, after the LocalMotive; its echo passes the TicketMaster at 72-82 ns,
/// so revolution 2 (a request train) leaves at 82 ns. Node 2's request (queued
/// at 30 ns) is ticketed there (head at node 2 at 102 ns); node 3, its
/// destination, approves it as the head reaches it (120 ns), reserving a
/// slot; the train is home at 138 ns and, 12 symbols long, leaves again at
/// 162 ns as a grant train. Node 2 takes its grant (head 182 ns, leaves 198
/// ns), the request follows the 8-symbol LocalMotive at 214 ns, and its head
/// reaches node 3 at 216 ns, where the reservation is used: held 96 ns.
#[test]
fn a_reservation_is_held_from_approval_to_the_packets_arrival() {
    let mut r = train_ring(&["train.arbitrate_above=0.0", "train.immediate_below=0.0", "node.iqst_ns=10000.0"]);
    r.inject(1, 2, 0, 0);
    r.inject(2, 3, 0, 30 * NS);
    r.run_until(400 * NS);
    assert_eq!(times(&r, 1, Transmit { own: true }, Request, 1), vec![34 * NS]);
    assert_eq!(train_at(&r, 2)[..3], [20 * NS, 102 * NS, 182 * NS]);
    assert_eq!(train_at(&r, 3)[1], 120 * NS);
    assert_eq!(times(&r, 2, Transmit { own: true }, Request, 2), vec![214 * NS]);
    assert_eq!(times(&r, 3, Accepted, Request, 2), vec![216 * NS]);
    let c = r.report().counters;
    assert_eq!((c.slots_reserved, c.slots_released), (1, 1));
    assert_eq!((c.slot_held_ns_mean, c.slot_held_ns_max), (96.0, 96.0));
    assert_eq!(c.busy_echoes, 0);
}

/// Tickets rank by the time their packet entered its output queue, not by
/// the transaction's birth. write64 (40-symbol requests) with a budget of 40
/// symbols: one request per train. Node 1's primer goes on revolution 1 (34
/// to 116 ns on its link); its second transaction A, born at 0, waits in the
/// application queue (one output queue slot) until the primer's echo is back
/// at 82 ns. Node 3's B is born at 20 ns and queued at once. Revolution 2
/// leaves at 82 ns: node 1 tickets A (head 84 ns); the train waits behind
/// the primer and reaches node 3 at 136 ns, where B goes ahead of A (queued
/// 20 < 82 ns) and A, past the budget, is truncated. Home at 154 ns, the
/// grant train leaves at 178 ns and reaches node 3 at 216 ns: B goes at 248
/// ns, after the LocalMotive. A is ticketed again on revolution 4 and granted
/// on revolution 5 (node 1 at 358 ns): it goes at 390 ns. By birth, A would
/// have gone first.
#[test]
fn tickets_rank_by_output_queue_entry_time() {
    let mut r = train_ring(&[
        "traffic.transaction=write64",
        "train.budget_symbols=40",
        "node.output_queue_packets=1",
        "train.arbitrate_above=0.0",
        "train.immediate_below=0.0",
        "node.iqst_ns=10000.0",
    ]);
    r.inject(1, 2, 0, 0); // primer
    r.inject(1, 2, 0, 0); // A
    r.inject(3, 0, 0, 20 * NS); // B
    r.run_until(500 * NS);
    assert_eq!(times(&r, 1, EchoBack { busy: false }, Echo, 2)[0], 82 * NS);
    assert_eq!(train_at(&r, 1)[..5], [2 * NS, 84 * NS, 180 * NS, 252 * NS, 358 * NS]);
    assert_eq!(train_at(&r, 3)[1..3], [136 * NS, 216 * NS]);
    assert_eq!(times(&r, 3, Transmit { own: true }, Request, 3), vec![248 * NS]);
    assert_eq!(times(&r, 1, Transmit { own: true }, Request, 1), vec![34 * NS, 390 * NS]);
    assert_eq!(r.report().counters.tickets_deleted, 1);
}

/// A TRAIN responder never waits for room in its response queue (the
/// responses join it in priority order). Output queues of one packet, 10 ns
/// service from a request's tail (8 symbols after its head): node 2 serves
/// node 1's request at 62 ns; its response waits for the train and leaves at
/// 144 ns. Node 3's request is in at 118 ns and served at 144 ns all the
/// same. (Base SCI's server would hold it until the first response's echo
/// frees the slot.)
#[test]
fn a_train_responder_serves_without_room_for_the_response() {
    let mut r = train_ring(&["node.output_queue_packets=1", "node.iqst_ns=10.0"]);
    r.inject(1, 2, 0, 0);
    r.inject(3, 2, 0, 0);
    r.run_until(400 * NS);
    let accepted = |src: u16| times(&r, 2, Accepted, Request, src)[0];
    let served = |src: u16| times(&r, 2, TraceKind::Serviced, Request, src)[0];
    assert_eq!([accepted(1), served(1)], [36 * NS, 62 * NS]);
    assert_eq!([accepted(3), served(3)], [118 * NS, 144 * NS]);
    assert_eq!(times(&r, 2, Transmit { own: true }, PacketKind::Response, 2)[0], 144 * NS);
}
