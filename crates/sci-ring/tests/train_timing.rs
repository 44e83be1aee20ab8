//! TRAIN on tiny hand-built rings, exact to the tick (seed 003 section
//! 2.3; 2 ns symbols, 1-cycle hops, an 8-symbol LocalMotive, 4-symbol tickets).

mod common;
use common::*;
use ringlet_fabric::packet::PacketKind::{self, Request};
use ringlet_fabric::trace::TraceKind::{self, Accepted, Transmit};
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
/// arrival before passing it on, the TicketMaster too (it sets the next
/// revolution's mode as the train passes). On an idle 4-node ring with the
/// derived handling (the 8-symbol LocalMotive read whole, 16 ns) the head
/// reaches node k at k hops + (k - 1) handlings, is home at 4 x 2 + 3 x 16 =
/// 56 ns, and leaves again at 56 + 16 = 72 ns: the revolution comes from
/// the ring, not from a set floor.
#[test]
fn the_localmotive_revolution_is_hops_plus_handling_at_each_node() {
    let mut r = train_ring(&[]);
    r.run_until(200 * NS);
    let h = 8 * CYCLE;
    for k in 1..4u16 {
        let head = k as u64 * HOP + (k as u64 - 1) * h;
        assert_eq!(train_at(&r, k)[..2], [head, 72 * NS + head], "node {k}");
        // Passed on after the handling, ahead of nothing (the ring is idle).
        assert_eq!(
            times(&r, k, Transmit { own: false }, PacketKind::Control, 0)[0],
            head + h
        );
    }
    assert_eq!(train_at(&r, 0)[..2], [56 * NS, 72 * NS + 56 * NS]);
    assert_eq!(
        times(&r, 0, Transmit { own: false }, PacketKind::Control, 0)[..3],
        [0, 72 * NS, 144 * NS]
    );

    // A handling of 3 cycles (6 ns): home at 4 x 2 + 3 x 6 = 26 ns, passed on
    // at 26 + 6 = 32 ns, though the LocalMotive's 8 symbols take 16 ns to
    // come in: the train streams through the TicketMaster as through every node.
    let mut r = train_ring(&["train.handling_cycles=3"]);
    r.run_until(100 * NS);
    assert_eq!(train_at(&r, 2)[..2], [10 * NS, 42 * NS]);
    assert_eq!(train_at(&r, 0)[0], 26 * NS);
    assert_eq!(
        times(&r, 0, Transmit { own: false }, PacketKind::Control, 0)[..2],
        [0, 32 * NS]
    );
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
/// 34 ns, after the LocalMotive. The train is home at 56 ns and leaves again
/// at 72 ns as a request train, ahead of the primer's echo, which comes in
/// behind it. Node 2's request (queued at 30 ns) is ticketed there (head at
/// node 2 at 92 ns); node 3, its destination, approves it as the head
/// reaches it (110 ns), reserving a slot; the train, 12 symbols long, is
/// home at 128 ns and leaves at 144 ns as a grant train. Node 2 takes its
/// grant (head 164 ns, leaves 180 ns), the request follows the 8-symbol
/// LocalMotive at 196 ns, and its head reaches node 3 at 198 ns, where the
/// reservation is used: held 88 ns.
#[test]
fn a_reservation_is_held_from_approval_to_the_packets_arrival() {
    let mut r = train_ring(&[
        "train.arbitrate_above=0.0",
        "train.immediate_below=0.0",
        "node.iqst_ns=10000.0",
    ]);
    r.inject(1, 2, 0, 0);
    r.inject(2, 3, 0, 30 * NS);
    r.run_until(400 * NS);
    assert_eq!(
        times(&r, 1, Transmit { own: true }, Request, 1),
        vec![34 * NS]
    );
    assert_eq!(train_at(&r, 2)[..3], [20 * NS, 92 * NS, 164 * NS]);
    assert_eq!(train_at(&r, 3)[1], 110 * NS);
    assert_eq!(train_at(&r, 0)[..2], [56 * NS, 128 * NS]);
    assert_eq!(
        times(&r, 0, Transmit { own: false }, PacketKind::Control, 0)[..3],
        [0, 72 * NS, 144 * NS]
    );
    assert_eq!(
        times(&r, 2, Transmit { own: true }, Request, 2),
        vec![196 * NS]
    );
    assert_eq!(times(&r, 3, Accepted, Request, 2), vec![198 * NS]);
    let c = r.report().counters;
    assert_eq!((c.slots_reserved, c.slots_released), (1, 1));
    assert_eq!((c.slot_held_ns_mean, c.slot_held_ns_max), (88.0, 88.0));
    assert_eq!(c.busy_echoes, 0);
}

/// A TRAIN responder never waits for room in its response queue (the
/// responses join it in priority order). Output queues of one packet, 4 ns
/// service from a request's tail (8 symbols after its head): node 2 serves
/// node 1's request at 56 ns; its response waits for the train (at node 2
/// from 92 to 108 ns), then behind the echo node 2 sends in place of node
/// 3's request, and leaves at 134 ns. Node 3's request is in at 108 ns and
/// served at 128 ns all the same, while the first response still fills the
/// queue. (Base SCI's server would hold it until the first response's echo
/// frees the slot.)
#[test]
fn a_train_responder_serves_without_room_for_the_response() {
    let mut r = train_ring(&["node.output_queue_packets=1", "node.iqst_ns=4.0"]);
    r.inject(1, 2, 0, 0);
    r.inject(3, 2, 0, 0);
    r.run_until(400 * NS);
    let accepted = |src: u16| times(&r, 2, Accepted, Request, src)[0];
    let served = |src: u16| times(&r, 2, TraceKind::Serviced, Request, src)[0];
    assert_eq!([accepted(1), served(1)], [36 * NS, 56 * NS]);
    assert_eq!(train_at(&r, 2)[1], 92 * NS);
    assert_eq!([accepted(3), served(3)], [108 * NS, 128 * NS]);
    assert_eq!(
        times(&r, 2, Transmit { own: true }, PacketKind::Response, 2)[0],
        134 * NS
    );
}

/// The train's length as it reaches (`Control`) and leaves (`Transmit`)
/// each node, on revolution `rev` (0 = the first; the TicketMaster, node 0,
/// last, sent the train out once before it first came home).
fn train_lengths(r: &Fabric<Train>, rev: usize) -> Vec<(u16, u16)> {
    (1..4u16)
        .chain([0])
        .map(|k| {
            let len = |what, nth| {
                records(r)
                    .iter()
                    .filter(|t| t.iface == k && t.what == what && t.kind == PacketKind::Control)
                    .map(|t| t.len)
                    .nth(nth)
                    .unwrap()
            };
            (
                len(TraceKind::Control, rev),
                len(Transmit { own: false }, if k == 0 { rev + 1 } else { rev }),
            )
        })
        .collect()
}

/// A train grows as it streams through a node. Always arbitrated; node 1
/// has two requests for node 3 and node 2 one for node 0, all queued at
/// 100 ns, after the first request train has passed. Revolution 3, a
/// request train, leaves the TicketMaster at 144 ns with the LocalMotive
/// alone; node 1 (head at 146 ns) adds its two tickets and passes it on
/// after its handling, at 162 ns, 16 symbols long; node 2 (164 ns) adds its
/// one: 20 symbols from 180 ns. Node 1's bypass FIFO held the LocalMotive's
/// 8 symbols while it read them and buffers 8 more of what comes in behind
/// as it sends its tickets: 16, the most any FIFO held. Home at 200 ns, the
/// train goes on at 216 ns as the grant train; node 1 takes its two grants
/// (head 218 ns) and passes on 12 symbols at 234 ns, and its first request
/// follows them at 258 ns.
#[test]
fn a_train_grows_as_it_streams_through_a_node() {
    let mut r = train_ring(&["train.send_mode=\"arbitrated\"", "node.iqst_ns=10000.0"]);
    r.inject(1, 3, 0, 100 * NS);
    r.inject(1, 3, 0, 100 * NS);
    r.inject(2, 0, 0, 100 * NS);
    r.run_until(400 * NS);
    assert_eq!(
        times(&r, 0, Transmit { own: false }, PacketKind::Control, 0)[2..4],
        [144 * NS, 216 * NS]
    );
    assert_eq!(train_at(&r, 1)[2..4], [146 * NS, 218 * NS]);
    assert_eq!(
        times(&r, 1, Transmit { own: false }, PacketKind::Control, 0)[2],
        162 * NS
    );
    assert_eq!(train_at(&r, 2)[2], 164 * NS);
    assert_eq!(
        times(&r, 2, Transmit { own: false }, PacketKind::Control, 0)[2],
        180 * NS
    );
    assert_eq!(
        train_lengths(&r, 2),
        [(8, 16), (16, 20), (20, 20), (20, 20)]
    );
    assert_eq!(train_lengths(&r, 3)[..2], [(20, 12), (12, 8)]);
    assert_eq!(r.report().counters.bypass_max_symbols, 16);
    assert_eq!(
        times(&r, 1, Transmit { own: true }, Request, 1)[0],
        258 * NS
    );
}
