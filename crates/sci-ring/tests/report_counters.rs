//! The report's counters as the fabric gathers them from the protocols.

mod common;
use common::*;
use ringlet_sci::protocol::train::Train;

/// TRAIN's input-queue slot reservations: of four requests on an
/// arbitrating TRAIN ring, two go with a reserved slot, released when they
/// arrive, held 96 and 98 ns. The report gives the mean of the holding
/// times and the longest.
#[test]
fn train_slot_reservations_report_their_mean_and_longest_hold() {
    let mut r = ring_with::<Train>(4, &["network.protocol=train", "train.arbitrate_above=0.0", "train.immediate_below=0.0", "node.iqst_ns=10000.0"]);
    r.inject(1, 2, 0, 0);
    r.inject(2, 3, 0, 30 * NS);
    r.inject(3, 1, 0, 30 * NS);
    r.inject(0, 1, 0, 30 * NS);
    r.run_until(600 * NS);
    let c = r.report().counters;
    assert_eq!((c.slots_reserved, c.slots_released), (2, 2));
    assert_eq!((c.slot_held_ns_mean, c.slot_held_ns_max), (97.0, 98.0));
}

/// TRAIN's tickets that found no room in a node's bypass FIFO, as the report
/// counts them on a running ring: the twelve requests of
/// `protocol_rules.rs`'s `a_train_grows_only_as_far_as_the_bypass_fifo_has_room`
/// (nodes 1, 2 and 3 each four of priority 1, 2 and 3, for node 0) up to
/// the end of the first request train (500 ns). Holding the train 30 cycles
/// a node (a 248 ns revolution), a node's 41-symbol FIFO has room for
/// 11 added symbols, two tickets: each node's third pushes the lowest
/// ticket off. Holding it 12 cycles (room for 29 added symbols, a train of
/// up to 52, the idle revolution) none is.
#[test]
fn train_tickets_without_room_are_reported() {
    for (handling, without_room) in [
        ("train.handling_cycles=30", 3),
        ("train.handling_cycles=12", 0),
    ] {
        let mut r = ring_with::<Train>(
            4,
            &[
                "network.protocol=train",
                "traffic.priorities=4",
                "train.budget_symbols=400",
                "train.max_tickets_per_node=4",
                "train.arbitrate_above=0",
                "train.immediate_below=0",
                handling,
            ],
        );
        for src in 1..4u16 {
            for _ in 0..4 {
                r.inject(src, 0, src, 0);
            }
        }
        r.run_until(500 * NS);
        assert_eq!(
            r.report().counters.tickets_without_room,
            without_room,
            "{handling}"
        );
    }
}

/// One read64 transaction from node 0 to node 2 on a base SCI ring (100 ns
/// service): the request (8 symbols) and the response's echo (4) cross
/// links 0 and 1, the request's echo (4) and the response (40) links 2 and
/// 3. The report counts 2 send packets, their 2 echoes (neither busy) and
/// 8 packet hops, and each link's
/// utilization is its symbols (2 ns each) over the 304 ns measured.
#[test]
fn base_sci_link_use_packets_and_hops_of_one_transaction() {
    let mut r = ring(4, &["run.measure_transactions=1", "node.iqst_ns=100.0"]);
    r.inject(0, 2, 0, 0);
    r.run_until(1_000 * NS);
    let rep = r.report();
    assert_eq!((rep.counters.send_packets, rep.counters.packet_hops), (2, 8));
    assert_eq!((rep.counters.echoes, rep.counters.busy_echoes), (2, 0));
    assert_eq!(rep.measure_time_ns, 304.0);
    let busy_ns = |f: fn(&ringlet_fabric::report::LinkReport) -> f64| -> Vec<f64> { rep.per_link.iter().map(|l| (f(l) * 304.0).round()).collect() };
    assert_eq!(busy_ns(|l| l.utilization), vec![24.0, 24.0, 88.0, 88.0]);
    assert_eq!(busy_ns(|l| l.send_utilization), vec![16.0, 16.0, 80.0, 80.0]);
}

/// A read delivers its data when its response is serviced, not when its
/// request is. Two read64 transactions from node 0 to node 2 (100 ns
/// service); the run measures one: it stops when the first response is
/// serviced, at 304 ns, after both requests were (120 and 220 ns). The
/// throughput is that one response's 64 bytes over the 304 ns.
#[test]
fn a_read_delivers_its_data_with_its_response() {
    let mut r = ring(4, &["run.measure_transactions=1", "node.iqst_ns=100.0"]);
    r.inject(0, 2, 0, 0);
    r.inject(0, 2, 0, 20 * NS);
    r.run_until(2_000 * NS);
    use ringlet_fabric::packet::PacketKind::{Request, Response};
    let serviced = |node: u16, kind, src: u16| times(&r, node, ringlet_fabric::trace::TraceKind::Serviced, kind, src);
    assert_eq!((serviced(2, Request, 0), serviced(0, Response, 2)), (vec![120 * NS, 220 * NS], vec![304 * NS]));
    let rep = r.report();
    assert_eq!((rep.stopped_by, rep.measure_time_ns), ("transactions", 304.0));
    let bytes = rep.throughput_mbps * rep.measure_time_ns / 1e3;
    assert!((bytes - 64.0).abs() < 1e-9, "{bytes} bytes");
}

/// The requester's response waiting queue (RWQ, seed 003 Figure 2) holds a
/// request until the response of one before it is serviced. Two read64
/// transactions from node 0 to node 2 as above (100 ns service). With no
/// limit the second request is serviced at 220 ns, right behind the first
/// (120). With one RWQ slot it waits in node 0's application queue until
/// the first response is serviced there (304 ns), goes out at once and
/// takes the first's path again: serviced at node 2 at 304 + 120 ns, its
/// response back at 304 + 304 ns.
#[test]
fn the_response_waiting_queue_holds_a_request_until_a_slot_is_free() {
    use ringlet_fabric::packet::PacketKind::{Request, Response};
    use ringlet_fabric::trace::TraceKind::{Serviced, Transmit};
    for (rwq, transmitted, requests, responses) in [
        ("0", vec![0, 20 * NS], vec![120 * NS, 220 * NS], vec![304 * NS, 404 * NS]),
        ("1", vec![0, 304 * NS], vec![120 * NS, 424 * NS], vec![304 * NS, 608 * NS]),
    ] {
        let mut r = ring(4, &["node.iqst_ns=100.0", &format!("node.response_waiting_packets={rwq}")]);
        r.inject(0, 2, 0, 0);
        r.inject(0, 2, 0, 20 * NS);
        r.run_until(2_000 * NS);
        assert_eq!(times(&r, 0, Transmit { own: true }, Request, 0), transmitted, "RWQ {rwq}: requests sent");
        assert_eq!(times(&r, 2, Serviced, Request, 0), requests, "RWQ {rwq}: requests serviced");
        assert_eq!(times(&r, 0, Serviced, Response, 2), responses, "RWQ {rwq}: responses serviced");
    }
}

/// A request a higher priority moves back out of a full output queue
/// (`Rules::host_preempts`: DFC, PPQ, TRAIN) gives its response waiting
/// queue slot back with it. DFC, output queues of 2, 3 RWQ slots: L1 (low)
/// goes at once; L2 (low) waits unsent beside it; H (high) finds the queue
/// full and moves L2 back to the application queue. L1 and H are in
/// flight, so L2 goes as soon as the output queue has room again, not only
/// once a response frees an RWQ slot it never held.
#[test]
fn a_request_moved_back_to_the_application_queue_frees_its_rwq_slot() {
    use ringlet_fabric::packet::PacketKind::{Request, Response};
    use ringlet_fabric::trace::TraceKind::{Serviced, Transmit};
    use ringlet_sci::protocol::dfc::Dfc;
    let mut r = ring_with::<Dfc>(4, &["network.protocol=\"dfc\"", "traffic.priorities=2", "node.iqst_ns=100.0", "node.output_queue_packets=2", "node.response_waiting_packets=3"]);
    r.inject(0, 2, 0, 0);
    r.inject(0, 2, 0, NS);
    r.inject(0, 2, 1, 2 * NS);
    r.run_until(2_000 * NS);
    let sent = times(&r, 0, Transmit { own: true }, Request, 0);
    let first_response = times(&r, 0, Serviced, Response, 2)[0];
    // L1 at 0, H at 18 ns (in L2's place), L2 at 36 ns right behind it: long before the first
    // response (304 ns), which a slot counted twice would have had to wait for.
    assert_eq!(sent, vec![0, 18 * NS, 36 * NS]);
    assert_eq!(first_response, 304 * NS);
}

/// The RWQ's response time-out (`node.response_timeout_ns`): a read whose
/// response has not been serviced that long after its request was is
/// asked again. One read64 from node 0 to node 2 as above: its request is
/// serviced at 120 ns, its response at 304. A 200 ns time-out (to 320 ns)
/// finds it answered: nothing more. A 100 ns one runs out at 220 ns: a
/// copy of the request goes out at once, is serviced at node 2 at 340 ns
/// (120 ns after it left, as the first) and its response at node 0 at 524
/// (184 ns later, as the first's), where it is dropped: one transaction,
/// one time-out, one duplicate response, nothing left in flight.
#[test]
fn a_response_time_out_asks_again_and_drops_the_later_response() {
    use ringlet_fabric::packet::PacketKind::{Request, Response};
    use ringlet_fabric::trace::TraceKind::{Serviced, Transmit};
    for (timeout, transmitted, requests, responses, copies) in [
        ("200.0", vec![0], vec![120 * NS], vec![304 * NS], 0),
        ("100.0", vec![0, 220 * NS], vec![120 * NS, 340 * NS], vec![304 * NS, 524 * NS], 1),
    ] {
        let mut r = ring(4, &["node.iqst_ns=100.0", &format!("node.response_timeout_ns={timeout}")]);
        r.inject(0, 2, 0, 0);
        r.run_until(2_000 * NS);
        assert_eq!(times(&r, 0, Transmit { own: true }, Request, 0), transmitted, "time-out {timeout}: requests sent");
        assert_eq!(times(&r, 2, Serviced, Request, 0), requests, "time-out {timeout}: requests serviced");
        assert_eq!(times(&r, 0, Serviced, Response, 2), responses, "time-out {timeout}: responses serviced");
        let rep = r.report();
        assert_eq!((rep.counters.request_timeouts, rep.counters.duplicate_responses), (copies, copies), "time-out {timeout}");
        let c = rep.conservation;
        assert_eq!((c.generated, c.completed, c.in_flight), (1, 1, 0), "time-out {timeout}");
    }
}

/// A time-out's copy of a write's request delivers no data: the first
/// request serviced did (found by the invariant campaign, where a trace of
/// write64s counted the data twice). One write64 from node 0 to node 2
/// with a 50 ns time-out: the request is serviced at node 2 twice, and
/// the run's throughput is one write's 64 bytes.
#[test]
fn a_time_out_copy_of_a_write_delivers_no_data() {
    use ringlet_fabric::packet::PacketKind::Request;
    use ringlet_fabric::trace::TraceKind::Serviced;
    let mut r = ring(4, &["traffic.transaction=\"write64\"", "node.iqst_ns=100.0", "node.response_timeout_ns=50.0"]);
    r.inject(0, 2, 0, 0);
    r.run_until(2_000 * NS);
    assert_eq!(times(&r, 2, Serviced, Request, 0).len(), 2, "the request and its copy");
    let rep = r.report();
    assert_eq!((rep.counters.request_timeouts, rep.counters.duplicate_responses, rep.transactions), (1, 1, 1));
    let bytes = rep.throughput_mbps * rep.measure_time_ns / 1e3;
    assert!((bytes - 64.0).abs() < 1e-9, "{bytes} bytes");
}
