//! After a fold every live master keeps completing transactions: no
//! request counts against its stream's window that will never be echoed
//! (a stream's window counts the requests in its send buffers not yet
//! accepted: not those its congestion control holds back, nor those moved
//! at the fold that wait for room), and a block lost with a failed node
//! whose ready was back sends no requests (they went to a retired
//! interface, and took the window for ever: the invariant campaign's
//! two-node livelock).

use ringlet_engine::time::ns_to_time;
use ringlet_fabric::family::Mode;
use ringlet_fabric::packet::PacketKind::Request;
use ringlet_fabric::trace::TraceKind::*;
use ringlet_gigaring::params::WRITE_REQUEST;
use ringlet_gigaring::GIGARING;

fn load(text: &str, extra: &[&str]) -> ringlet_scenario::Scenario {
    let overrides: Vec<_> = extra.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    ringlet_gigaring::load_str(text, &overrides).unwrap()
}

/// Node 0 has six ReadBlks for node 1, whose DMA engine holds one transfer
/// and answers a read 20 us after it: the first set-up takes the engine,
/// the others are busied, and node 0's congestion control holds them back
/// in its stream (out of the send buffers), its window down to one. The
/// link between the nodes fails at 5 us (an instant fold): no set-up waits
/// for room on the folded ring (the busied ones are in the stream, not in
/// a send buffer), and they go on the folded ring one per round trip as
/// the window allows. Every ReadBlk completes, each set-up serviced once.
#[test]
fn busied_requests_held_back_at_the_fold_go_on_the_folded_ring() {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 2\n[traffic]\nload_mbps_per_node = 0\ntransaction = \"readblk\"\nblock_words = 1\n[run]\nwarmup_ns = 0\n";
    let s = load(text, &["gigaring.send_buffer_packets=2", "gigaring.dma_queue_transfers=1", "gigaring.transfers_per_stream=0", "gigaring.slave_access_ns=20000", "faults.fail_link=0", "faults.at_ns=5000", "faults.detection_ns=0", "faults.reinit_circulations=0"]);
    let mut f = ringlet_gigaring::hand_built(&s).unwrap();
    for _ in 0..6 {
        f.inject(0, 1, 0, 0);
    }
    let t = f.topology();
    let folded = *t.ringlet_ifaces(2).iter().find(|&&i| t.agent_of(i) == 0).unwrap();
    f.run_until(ns_to_time(6000.0));
    assert_eq!(f.held_packets(0, WRITE_REQUEST), 0, "nothing moved waits for room");
    f.run_until(ns_to_time(200_000.0));
    let sent_again = f.records().iter().filter(|r| r.what == (Transmit { own: true }) && r.iface == folded && r.class == WRITE_REQUEST).count();
    assert!(sent_again >= 10, "the busied set-ups go again on the folded ring: {sent_again}");
    let setups = f.records().iter().filter(|r| r.what == Serviced && r.kind == Request && r.class == WRITE_REQUEST && r.src == 0).count();
    assert_eq!(setups, 6, "each set-up serviced once");
    let r = f.report();
    let c = &r.conservation;
    assert_eq!((c.generated, c.completed, c.queued, c.in_flight, c.delivered_twice), (6, 6, 0, 0, 0), "{c:?}");
    assert_eq!(r.reconfiguration.unwrap().held, 0);
}

/// The campaign's draw: a two-node channel, both nodes masters of 1-word
/// ReadBlks over the DMA handshake at twice what it carries, any number
/// under way; the link fails at 100 us, the rings fold at 110 us and the
/// folded ring starts at 111.792 us. Measured from 112 us: both nodes
/// complete transactions in every 20 us after the fold (before the fix:
/// 4 in 188 us, both nodes stalled, every set-up busied by a full DMA
/// engine), and nothing is delivered twice.
#[test]
fn both_masters_of_a_two_node_channel_go_on_after_the_fold() {
    let extra = [
        "network.nodes=2", "traffic.arrivals=\"deterministic\"", "gigaring.clock_mhz=180.0", "gigaring.transfers_per_stream=0", "faults.fail_link=0", "traffic.block_words=1",
        "run.measure_transactions=1000000000", "run.max_sim_time_ns=300000.0", "run.max_backlog_transactions=20000", "traffic.load_mbps_per_node=54.0", "run.series_interval_ns=20000", "run.warmup_ns=112000",
    ];
    let r = (GIGARING.run)(&load("[network]\nkind = \"gigaring\"\n", &extra), Mode::Plain).unwrap().report;
    let rc = r.reconfiguration.as_ref().unwrap();
    assert!(rc.live_ns <= 112_000.0, "measured from the folded ring's start: {rc:?}");
    for n in &r.per_node {
        assert!(n.transactions > 100, "node {} completed {} after the fold", n.node, n.transactions);
    }
    assert!(r.stalled_nodes.is_empty(), "stalled: {:?}", r.stalled_nodes);
    assert!(r.per_interval.len() >= 9 && r.per_interval.iter().all(|b| b.transactions > 0), "{:?}", r.per_interval.iter().map(|b| b.transactions).collect::<Vec<_>>());
    let c = &r.conservation;
    assert_eq!(c.delivered_twice, 0);
    assert_eq!(c.generated, c.completed + c.queued + c.in_flight + c.lost, "{c:?}");
}

/// Node 0's 128-word WriteBlk to node 2 (four data packets) has its
/// ready back at 848 ns, after node 2's failure (at 800 ns). With one-packet
/// send buffers, two data packets go, one on each ring, and are never
/// echoed (their target is gone): the block's other two wait for room. At
/// the fold (2800 ns) the transaction is lost, and the block's waiting
/// packets with it: they never go (left waiting, they went to an interface
/// the fold retired, and took the window for ever). Node 0's messages to
/// node 1 after the fold all complete, and no packet is left anywhere.
#[test]
fn a_block_whose_ready_is_back_is_lost_with_its_transaction() {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 3\n[traffic]\nload_mbps_per_node = 0\ntransaction = \"mixed\"\nblock_words = 128\n[run]\nwarmup_ns = 0\n";
    let s = load(text, &["gigaring.send_buffer_packets=1", "faults.fail_node=2", "faults.at_ns=800", "faults.detection_ns=2000"]);
    let mut f = ringlet_gigaring::hand_built(&s).unwrap();
    // Kinds of `mixed`: 0 a 32-word message, 4 a WriteBlk of `block_words`.
    f.inject_kind(0, 2, 0, 4, 0);
    for k in 0..4 {
        f.inject_kind(0, 1, 0, 0, ns_to_time(5000.0 + 10.0 * k as f64));
    }
    f.run_until(ns_to_time(50_000.0));
    let t = f.topology();
    let ready_in: Vec<_> = f.records().iter().filter(|r| r.what == Serviced && r.class == WRITE_REQUEST && r.src == 2 && t.agent_of(r.iface) == 0).map(|r| r.time).collect();
    assert_eq!(ready_in, vec![ns_to_time(848.0)], "the ready is back before the failure is known");
    let to_node_2: Vec<_> = f.records().iter().filter(|r| r.what == (Transmit { own: true }) && r.class == WRITE_REQUEST && t.agent_of(r.iface) == 0 && r.time < ns_to_time(5000.0)).map(|r| r.time).collect();
    assert_eq!(to_node_2, vec![0, ns_to_time(848.0), ns_to_time(848.0)], "the set-up, then two of the block's four packets: the other two never go");
    let r = f.report();
    let c = &r.conservation;
    assert_eq!((c.generated, c.completed, c.lost, c.queued, c.in_flight), (5, 4, 1, 0, 0), "{c:?}");
    assert_eq!(r.reconfiguration.unwrap().lost_at_fold, 1);
    assert_eq!(f.packets_live(), 0, "packets left over");
}
