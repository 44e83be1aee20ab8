//! Ring folding (US patent 6,233,704): a node or link fails mid-run and
//! the two rings fold into one around it.

use ringlet_engine::time::ns_to_time;
use ringlet_fabric::family::Mode;
use ringlet_fabric::packet::PacketKind::{Echo, Request};
use ringlet_fabric::trace::TraceKind::*;
use ringlet_fabric::Report;
use ringlet_gigaring::keys::Settings;
use ringlet_gigaring::params::{READ_REQUEST, WRITE_REQUEST};
use ringlet_gigaring::GIGARING;

fn load(text: &str, extra: &[String]) -> ringlet_scenario::Scenario {
    let overrides: Vec<_> = extra.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    ringlet_gigaring::load_str(text, &overrides).unwrap()
}

fn run(text: &str, extra: &[String]) -> Report {
    (GIGARING.run)(&load(text, extra), Mode::Plain).unwrap().report
}

/// The folded ring's nodes: around failed node 3 of 8, nodes 4 .. 2 on
/// ring 0's wires and back 1 .. 5 on ring 1's (12 interfaces); around the
/// failed link between nodes 3 and 4, every node (14 interfaces).
#[test]
fn the_folded_ring_passes_every_other_node_both_ways() {
    let order = |fault: &str| ringlet_gigaring::network::folded_order(&Settings::of(&load(&format!("[network]\nkind = \"gigaring\"\nnodes = 8\n[faults]\n{fault}\n"), &[]))).unwrap();
    assert_eq!(order("fail_node = 3"), vec![4, 5, 6, 7, 0, 1, 2, 1, 0, 7, 6, 5]);
    assert_eq!(order("fail_link = 3"), vec![4, 5, 6, 7, 0, 1, 2, 3, 2, 1, 0, 7, 6, 5]);
    assert_eq!(order("fail_link = 7"), vec![0, 1, 2, 3, 4, 5, 6, 7, 6, 5, 4, 3, 2, 1]);
    assert_eq!(order("fail_node = 0"), vec![1, 2, 3, 4, 5, 6, 7, 6, 5, 4, 3, 2]);
}

const FOLD: &str = "[network]\nkind = \"gigaring\"\nnodes = 4\n[traffic]\nload_mbps_per_node = 0\ntransaction = \"message\"\nblock_words = 32\n[run]\nwarmup_ns = 0\n";

/// `FOLD` with an instant fold: detected at once, the folded ring live at once.
fn instant(extra: &[&str]) -> Vec<String> {
    ["faults.detection_ns=0", "faults.reinit_circulations=0"].iter().chain(extra).map(|e| e.to_string()).collect()
}

/// A message from node 0 to node 2 on ring 0 is between nodes 1 and 2
/// when that link fails at 300 ns (an instant fold): it is lost with the ring, and node 0
/// sends it again at once on the folded ring 2, 3, 0, 1, 0, 3 from its
/// second interface there (two hops to node 2, against four from its
/// first): node 2 has it 448 ns later, once.
#[test]
fn a_packet_lost_with_the_ring_is_sent_again_on_the_folded_ring() {
    let s = load(FOLD, &instant(&["faults.fail_link=1", "faults.at_ns=300"]));
    let mut f = ringlet_gigaring::hand_built(&s).unwrap();
    f.inject(0, 2, 0, 0);
    f.run_until(ns_to_time(5000.0));
    let t = f.topology();
    let folded = t.ringlet_ifaces(2).to_vec();
    assert_eq!(folded.iter().map(|&i| t.agent_of(i)).collect::<Vec<_>>(), vec![2, 3, 0, 1, 0, 3]);
    let sends: Vec<_> = f.records().iter().filter(|r| r.what == (Transmit { own: true }) && r.kind == Request).map(|r| (r.iface, r.time)).collect();
    assert_eq!(sends, vec![(0, 0), (folded[4], ns_to_time(300.0))]);
    let accepted: Vec<_> = f.records().iter().filter(|r| r.what == Accepted).map(|r| (r.iface, r.time)).collect();
    assert_eq!(accepted, vec![(folded[0], ns_to_time(748.0))]);
    // The trace shows the fold: the two rings' 8 interfaces stop, the folded ring's 6 start.
    let changes = |live: bool| f.records().iter().filter(|r| r.what == (Reconfigured { live }) && r.time == ns_to_time(300.0)).count();
    assert_eq!((changes(false), changes(true)), (8, 6));
    let r = f.report();
    assert_eq!(r.transactions, 1);
    let rc = r.reconfiguration.unwrap();
    assert_eq!((rc.resent, rc.duplicates_suppressed, rc.lost_transactions), (1, 0, 0));
}

/// A message node 1 accepted before the link between nodes 2 and 3 fails
/// (an instant fold), whose echo was on that link: node 0 cannot know it arrived and sends it
/// again; node 1 echoes the copy and drops it. Delivered once.
#[test]
fn a_duplicate_is_echoed_and_dropped() {
    let s = load(FOLD, &instant(&["faults.fail_link=2", "faults.at_ns=500"]));
    let mut f = ringlet_gigaring::hand_built(&s).unwrap();
    f.inject(0, 1, 0, 0);
    f.run_until(ns_to_time(5000.0));
    let accepted = f.records().iter().filter(|r| r.what == Accepted && r.kind == Request).count();
    assert_eq!(accepted, 2, "the original and its copy");
    assert_eq!(f.records().iter().filter(|r| r.what == Serviced).count(), 1);
    assert_eq!(f.records().iter().filter(|r| r.what == (EchoBack { busy: false }) && r.kind == Echo).count(), 1, "only the copy's echo comes back");
    let r = f.report();
    assert_eq!(r.transactions, 1);
    let rc = r.reconfiguration.unwrap();
    assert_eq!((rc.resent, rc.duplicates_suppressed), (1, 1));
}

const EIGHT: &str = "[network]\nkind = \"gigaring\"\nnodes = 8\n[faults]\nat_ns = 60000\n[traffic]\ntransaction = \"mixed\"\nblock_words = 96\nload_mbps_per_node = 100\n[run]\nwarmup_ns = 5000\nmeasure_transactions = 6000\n";

/// A node fails mid-run on an 8-node channel under mixed traffic: every
/// transaction is delivered once, or counted lost if the failed node was
/// its requester or target; the channel goes on carrying the others'
/// traffic, on the folded ring only.
#[test]
fn folding_around_a_failed_node_loses_only_its_transactions() {
    for (seed, fault, load) in [(1, "faults.fail_node=3", 100), (2, "faults.fail_node=0", 250), (3, "faults.fail_link=5", 100), (4, "faults.fail_node=7", 600)] {
        let r = run(EIGHT, &[format!("run.seed={seed}"), fault.into(), format!("traffic.load_mbps_per_node={load}")]);
        let c = &r.conservation;
        assert_eq!(c.generated, c.completed + c.queued + c.in_flight + c.lost, "{fault}: {c:?}");
        let rc = r.reconfiguration.as_ref().expect("the fold is reported");
        assert_eq!(rc.lost_transactions, c.lost, "{fault}: every loss is the failure's");
        assert!(rc.duplicates_suppressed <= rc.resent);
        assert!(rc.throughput_after_mbps > 0.0 && rc.transactions_after > 1000, "{fault}: {rc:?}");
        if let Some(n) = fault.strip_prefix("faults.fail_node=") {
            assert!(c.lost > 0, "{fault}: the failed node's transactions are lost");
            // Its share is not judged: it offered load only until it failed.
            let n: u32 = n.parse().unwrap();
            assert!(r.per_node[n as usize].carried_share.is_nan() && !r.starved_nodes.contains(&n), "{fault}");
        } else {
            assert_eq!(c.lost, 0, "{fault}: nobody fails with a link");
        }
        // After the fold only the folded ring carries anything.
        assert_eq!(r.per_ringlet.len(), 3);
        assert!(r.per_ringlet[2].send_utilization_mean > 0.01);
    }
}

/// After the fold the failed node completes nothing more, and the others'
/// throughput after it matches what they offer one another (the folded
/// ring is long, not saturated at this load).
#[test]
fn throughput_after_the_fold_is_the_survivors_load() {
    let r = run(EIGHT, &["faults.fail_node=3".into(), "traffic.load_mbps_per_node=60".into(), "run.measure_transactions=20000".into()]);
    let rc = r.reconfiguration.unwrap();
    // Seven nodes offer 60 MB/s each, a seventh of it to the failed node (lost).
    let expected = 7.0 * 60.0 * 6.0 / 7.0;
    assert!((rc.throughput_after_mbps - expected).abs() < 0.08 * expected, "{} against {expected}", rc.throughput_after_mbps);
    assert!(rc.throughput_before_mbps > rc.throughput_after_mbps);
}

#[test]
fn impossible_faults_are_refused_naming_the_key() {
    let err = |extra: &[&str]| ringlet_gigaring::load_str(EIGHT, &extra.iter().map(|e| ringlet_scenario::parse_override(e).unwrap()).collect::<Vec<_>>()).unwrap_err().to_string();
    assert!(err(&["faults.fail_node=8"]).contains("faults.fail_node"), "{}", err(&["faults.fail_node=8"]));
    assert!(err(&["faults.fail_node=1", "faults.fail_link=2"]).contains("not both"));
    assert!(err(&["faults.fail_node=1", "gigaring.rings=1"]).contains("gigaring.rings"));
    assert!(err(&["faults.fail_node=1", "network.nodes=2"]).contains("at least 3"));
}

/// Ring-0 interface of node `n` (interface n), ring-1 interface (N + N-1-n).
fn ring(f: &ringlet_fabric::Fabric<ringlet_gigaring::arbitration::Arbitration>, r: u16, n: u16) -> u16 {
    let t = f.topology();
    *t.agent(n).ifaces.iter().find(|&&i| t.ringlet_of(i) == r).unwrap()
}

/// Records of `what` for request packets, as (interface, time).
fn at(f: &ringlet_fabric::Fabric<ringlet_gigaring::arbitration::Arbitration>, what: ringlet_fabric::trace::TraceKind) -> Vec<(u16, u64)> {
    f.records().iter().filter(|r| r.what == what && r.kind == Request).map(|r| (r.iface, r.time)).collect()
}

/// The link between nodes 1 and 2 fails at 300 ns; it is known 1000 ns
/// later (1300 ns), and the folded ring 2, 3, 0, 1, 0, 3 takes one
/// circulation (6 hops of 224 ns, 1344 ns) to start: live at 2644 ns. A
/// message from node 0 to node 2 on ring 0, passed on by node 1 at 224 ns,
/// is on the dead link at 300 ns: its head would have reached node 2 at
/// 448 ns, and never does. Node 0, not knowing, waits for its echo; at the
/// fold it moves the message to its second place on the folded ring, whose
/// link starts at 2644 ns: node 2 accepts it 448 ns later, once.
#[test]
fn a_packet_lost_during_detection_is_sent_again_once_the_folded_ring_starts() {
    let s = load(FOLD, &["faults.fail_link=1".into(), "faults.at_ns=300".into(), "faults.detection_ns=1000".into(), "faults.reinit_circulations=1".into()]);
    let mut f = ringlet_gigaring::hand_built(&s).unwrap();
    f.inject(0, 2, 0, 0);
    f.run_until(ns_to_time(6000.0));
    let folded = f.topology().ringlet_ifaces(2).to_vec();
    let (n0, n1) = (ring(&f, 0, 0), ring(&f, 0, 1));
    assert_eq!(at(&f, Transmit { own: true }), vec![(n0, 0), (folded[4], ns_to_time(2644.0))]);
    // Passed on by node 1, then lost on the dead link; on the folded ring, passed on by node 3.
    assert_eq!(at(&f, Transmit { own: false }), vec![(n1, ns_to_time(224.0)), (folded[5], ns_to_time(2868.0))]);
    assert_eq!(at(&f, Accepted), vec![(folded[0], ns_to_time(3092.0))]);
    let changes = |live: bool| f.records().iter().filter(|r| r.what == (Reconfigured { live }) && r.time == ns_to_time(1300.0)).count();
    assert_eq!((changes(false), changes(true)), (8, 6), "the rings fold when the failure is known");
    let r = f.report();
    assert_eq!(r.transactions, 1);
    let rc = r.reconfiguration.unwrap();
    assert_eq!((rc.at_ns, rc.folded_ns, rc.live_ns), (300.0, 1300.0, 2644.0));
    assert_eq!((rc.resent, rc.duplicates_suppressed, rc.lost_transactions), (1, 0, 0));
}

/// The same failure; at 500 ns node 0 sends a message to node 3 on ring 1
/// (one hop: 0 -> 3), which still works that way: node 3 accepts it at
/// 724 ns. Its echo goes on round ring 1, 3 -> 2 -> 1, and is lost on the
/// dead wire from 2 to 1. At the fold node 0 sends it again from its
/// second place on the folded ring (0 -> 3, one hop) at 2644 ns; node 3
/// sees the sequence number it accepted already: it echoes the copy
/// (accepting: node 0 frees its send buffer) and drops it. Serviced once.
#[test]
fn a_duplicate_is_known_by_its_sequence_number() {
    let s = load(FOLD, &["faults.fail_link=1".into(), "faults.at_ns=300".into(), "faults.detection_ns=1000".into(), "faults.reinit_circulations=1".into()]);
    let mut f = ringlet_gigaring::hand_built(&s).unwrap();
    f.inject(0, 3, 0, ns_to_time(500.0));
    f.run_until(ns_to_time(8000.0));
    let folded = f.topology().ringlet_ifaces(2).to_vec();
    assert_eq!(at(&f, Transmit { own: true }), vec![(ring(&f, 1, 0), ns_to_time(500.0)), (folded[4], ns_to_time(2644.0))]);
    assert_eq!(at(&f, Accepted), vec![(ring(&f, 1, 3), ns_to_time(724.0)), (folded[5], ns_to_time(2868.0))]);
    assert_eq!(f.records().iter().filter(|r| r.what == Serviced).count(), 1);
    let echoes: Vec<_> = f.records().iter().filter(|r| r.what == (EchoBack { busy: false })).map(|r| r.iface).collect();
    assert_eq!(echoes, vec![folded[4]], "only the copy's echo comes back");
    assert_eq!(f.send_buffer(folded[4], 2), (0, 0), "the send buffer slot is free again");
    let r = f.report();
    assert_eq!(r.transactions, 1);
    let rc = r.reconfiguration.unwrap();
    assert_eq!((rc.resent, rc.duplicates_suppressed), (1, 1));
}

/// Node 3 of 4 fails at 100 ns, known at 1100 ns. Cut off at the fold: a
/// message from node 1 to node 3 on its way (sent at 0), one node 3 sent
/// at 50 ns, and one node 0 generates for node 3 at 600 ns, not knowing.
/// Lost after the fold: one node 0 generates for node 3 at 2000 ns, lost
/// at once, and one injected at node 3 at 700 ns (a dead node sends
/// nothing: lost at once, even before the fold). A message from node 0 to
/// node 1 at 2000 ns is delivered.
#[test]
fn losses_split_at_the_fold_and_after() {
    let s = load(FOLD, &["faults.fail_node=3".into(), "faults.at_ns=100".into(), "faults.detection_ns=1000".into()]);
    let mut f = ringlet_gigaring::hand_built(&s).unwrap();
    f.inject(1, 3, 0, 0);
    f.inject(3, 1, 0, ns_to_time(50.0));
    f.inject(0, 3, 0, ns_to_time(600.0));
    f.inject(3, 0, 0, ns_to_time(700.0));
    f.run_until(ns_to_time(701.0));
    assert_eq!(f.report().conservation.lost, 1, "the dead node's transaction is lost at once");
    f.inject(0, 3, 0, ns_to_time(2000.0));
    f.inject(0, 1, 0, ns_to_time(2000.0));
    f.run_until(ns_to_time(20_000.0));
    let r = f.report();
    let c = &r.conservation;
    assert_eq!((c.generated, c.completed, c.lost, c.queued, c.in_flight), (6, 1, 5, 0, 0), "{c:?}");
    let rc = r.reconfiguration.unwrap();
    assert_eq!((rc.lost_at_fold, rc.lost_after_fold, rc.lost_transactions), (3, 2, 5));
    // No packet reached node 3 after it failed.
    assert!(f.records().iter().all(|r| !(r.time > ns_to_time(100.0) && f.topology().agent_of(r.iface) == 3 && r.what != (Reconfigured { live: false }))));
}

/// Node 2 has eight messages for node 0, two in each ring's send buffer
/// (of two packets per virtual channel), when the link between nodes 1 and
/// 2 fails. Node 2 is on the folded ring (2, 3, 0, 1, 0, 3) once: its send
/// buffer there takes two of the four moved packets, the other two wait
/// and go in order as echoes free room, ahead of the four still in the
/// stream. No send buffer ever holds more than two; each message is
/// serviced once.
#[test]
fn moved_packets_wait_for_room_in_the_send_buffers() {
    let s = load(FOLD, &["faults.fail_link=1".into(), "faults.at_ns=300".into(), "faults.detection_ns=500".into(), "gigaring.send_buffer_packets=2".into()]);
    let mut f = ringlet_gigaring::hand_built(&s).unwrap();
    for _ in 0..8 {
        f.inject(2, 0, 0, 0);
    }
    let (mut held_seen, mut fullest) = (0, 0);
    let mut t = 0.0;
    while t < 30_000.0 {
        t += 20.0;
        f.run_until(ns_to_time(t));
        for i in 0..f.topology().ifaces() as u16 {
            for class in 0..4 {
                let (to_send, awaiting) = f.send_buffer(i, class);
                assert!(to_send + awaiting <= 2, "interface {i}, class {class} at {t} ns: {to_send} + {awaiting}");
                fullest = fullest.max(to_send + awaiting);
            }
        }
        held_seen = held_seen.max(f.held_packets(2, 2));
        for (a, class) in (0..4).flat_map(|a| (0..4).map(move |c| (a, c))).filter(|&k| k != (2, 2)) {
            assert_eq!(f.held_packets(a, class), 0, "only node 2's messages wait, at {t} ns");
        }
    }
    let r = f.report();
    assert_eq!(r.transactions, 8);
    assert_eq!(f.records().iter().filter(|r| r.what == Serviced).count(), 8, "each once");
    let rc = r.reconfiguration.unwrap();
    assert_eq!((rc.resent, rc.held, held_seen), (4, 2, 2), "two waited, from the fold: {rc:?}");
    assert_eq!(fullest, 2, "the send buffers fill");
}

/// A few hundred messages and ReadBlks between random nodes around a node
/// or link failure, on 4-, 8- and 12-node channels: each is serviced once
/// (a message's packet, a read's request) or lost with the failed node;
/// conservation is exact; no packet is left over. (Debug builds also check every duplicate verdict
/// of the sequence numbers against the packet's history, and that no event
/// names a freed packet slot.)
#[test]
fn every_live_transaction_is_serviced_once() {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 4\n[traffic]\nload_mbps_per_node = 0\ntransaction = \"mixed\"\nblock_words = 64\n[run]\nwarmup_ns = 0\n";
    for nodes in [4u16, 8, 12] {
        for (seed, fault) in [(1u64, "fail_node"), (2, "fail_link"), (3, "fail_node"), (4, "fail_link")] {
            let k = (seed as u16 * 5) % nodes;
            let s = load(text, &[format!("network.nodes={nodes}"), format!("faults.{fault}={k}"), "faults.at_ns=3000".into(), format!("faults.detection_ns={}", 500 * seed)]);
            let mut f = ringlet_gigaring::hand_built(&s).unwrap();
            let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            let mut next = |m: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % m
            };
            let mut sent = Vec::new();
            for _ in 0..300 {
                let src = next(nodes as u64) as u16;
                let dst = (src + 1 + next(nodes as u64 - 1) as u16) % nodes;
                // Kinds: 0 a 32-word message, 1 and 3 ReadBlks.
                let kind = [0u8, 1, 3][next(3) as usize];
                let at = ns_to_time(next(12_000) as f64);
                f.inject_kind(src, dst, 0, kind, at);
                sent.push((src, dst, kind, at));
            }
            f.run_until(ns_to_time(2_000_000.0));
            let r = f.report();
            let c = &r.conservation;
            assert_eq!((c.generated, c.queued, c.in_flight), (300, 0, 0), "{nodes} nodes, {fault} {k}: {c:?}");
            assert_eq!(c.completed + c.lost, 300);
            let rc = r.reconfiguration.as_ref().unwrap();
            assert_eq!(rc.lost_transactions, c.lost);
            let dead = |a: u16| fault == "fail_node" && a == k;
            for &(src, dst, kind, born) in &sent {
                // A message is one write-request packet; a ReadBlk a set-up (a
                // write-request message of the DMA handshake) and a read request.
                let serviced = |class: u8| f.records().iter().filter(|r| r.what == Serviced && r.kind == Request && r.src == src && r.dst == dst && r.born == born && r.class == class).count();
                let packets = if kind == 0 { vec![serviced(WRITE_REQUEST)] } else { vec![serviced(WRITE_REQUEST), serviced(READ_REQUEST)] };
                if !dead(src) && !dead(dst) {
                    assert!(packets.iter().all(|&n| n == 1), "{nodes} nodes, {fault} {k}: {src} -> {dst} kind {kind} born {born}: {packets:?}");
                } else {
                    assert!(packets.iter().all(|&n| n <= 1));
                }
            }
            assert_eq!(f.packets_live(), 0, "{nodes} nodes, {fault} {k}: packets left over");
            if fault == "fail_link" {
                assert_eq!(c.lost, 0);
            } else {
                assert!(c.lost > 0);
            }
        }
    }
}

/// Under heavy load a failed node's packets and the retired rings' echoes
/// are freed at the fold, and their slots are taken again at once by new
/// packets; events still due for the old ones must not act on the new
/// (debug builds assert that no event names a freed slot, and that no slot
/// is freed twice). The run goes on, conserving every transaction, and the
/// report's series covers it.
#[test]
fn no_event_acts_on_a_slot_reused_after_the_fold() {
    for (seed, fault, detection) in [(1, "faults.fail_node=2", 0), (2, "faults.fail_node=5", 3000), (3, "faults.fail_link=6", 0), (4, "faults.fail_link=0", 20_000)] {
        // 5 us intervals from the warm-up's end at 5 us: the failure at 60 us on a boundary.
        let r = run(EIGHT, &[format!("run.seed={seed}"), fault.into(), format!("faults.detection_ns={detection}"), "traffic.load_mbps_per_node=400".into(), "run.measure_transactions=4000".into(), "run.series_interval_ns=5000".into()]);
        let c = &r.conservation;
        assert_eq!(c.generated, c.completed + c.queued + c.in_flight + c.lost, "{fault}: {c:?}");
        let rc = r.reconfiguration.as_ref().unwrap();
        assert!(rc.resent > 0, "{fault}: packets were on the rings when they failed");
        assert_eq!(rc.lost_transactions, c.lost);
        // The series: intervals from the warm-up on, the fold's packets sent again in the fold's interval.
        let series = &r.per_interval;
        assert!(series.len() > 10, "{fault}");
        assert_eq!(series.iter().map(|b| b.resent).sum::<u64>(), rc.resent);
        assert_eq!(series.iter().map(|b| b.duplicates_suppressed).sum::<u64>(), rc.duplicates_suppressed);
        assert_eq!(series.iter().map(|b| b.lost).sum::<u64>(), c.lost);
        let fold_bin = series.iter().position(|b| b.resent > 0).unwrap();
        assert!(series[fold_bin].start_ns <= rc.folded_ns && rc.folded_ns < series[fold_bin + 1].start_ns);
        assert_eq!(series[1].start_ns - series[0].start_ns, 5000.0, "the scenario's interval, not the fold's default");
        assert_eq!(series.iter().map(|b| b.transactions).sum::<u64>(), r.transactions);
        // The intervals (the failure on a boundary) give the
        // reconfiguration's mean transaction latencies before and after it.
        let mean = |before: bool| {
            let part: Vec<_> = series.iter().filter(|b| (b.start_ns < rc.at_ns) == before && b.transactions > 0).collect();
            part.iter().map(|b| b.transaction_latency_ns_mean * b.transactions as f64).sum::<f64>() / part.iter().map(|b| b.transactions).sum::<u64>() as f64
        };
        for (series_mean, figure) in [(mean(true), rc.transaction_latency_before_ns), (mean(false), rc.transaction_latency_after_ns)] {
            assert!((series_mean - figure).abs() <= 1e-9 * figure, "{fault}: {series_mean} ns from the intervals, {figure} ns reported");
        }
        // Every virtual channel's data adds up to the run's.
        let vcs: f64 = r.per_vc.iter().map(|v| v.throughput_mbps).sum();
        assert!((vcs - r.throughput_mbps).abs() <= 1e-9 * r.throughput_mbps, "{fault}: {vcs} MB/s over the virtual channels, {} in all", r.throughput_mbps);
    }
}

/// Node 3 of 4 sends a message to node 0 at 200 ns (ring 0, one hop) and
/// fails at 300 ns, the rings folding at once: the message's head would
/// reach node 0 at 424 ns and never does; its slot is freed with the
/// failed node's packets. The event still due at 424 ns names that slot:
/// the slot is freed only after every such event (debug builds assert that
/// no event names a freed slot), then node 0's traffic takes slots again.
#[test]
fn an_event_due_for_a_lost_packet_finds_its_slot_unchanged() {
    let s = load(FOLD, &instant(&["faults.fail_node=3", "faults.at_ns=300"]));
    let mut f = ringlet_gigaring::hand_built(&s).unwrap();
    f.inject(3, 0, 0, ns_to_time(200.0));
    for k in 0..4 {
        f.inject(0, 1, 0, ns_to_time(500.0 + 10.0 * k as f64));
    }
    f.run_until(ns_to_time(10_000.0));
    assert_eq!(at(&f, Transmit { own: true })[0], (ring(&f, 0, 3), ns_to_time(200.0)));
    assert!(!f.records().iter().any(|r| r.what == Accepted && r.src == 3), "lost with node 3");
    let c = f.report().conservation;
    assert_eq!((c.generated, c.completed, c.lost), (5, 4, 1));
}

/// A run with a fault keeps its series every `FOLD_SERIES_INTERVAL_NS`
/// unless the scenario says otherwise; a run without one keeps none.
#[test]
fn a_fold_keeps_a_series_by_default() {
    let every = |r: &Report| r.per_interval[1].start_ns - r.per_interval[0].start_ns;
    let r = run(EIGHT, &["faults.fail_node=2".into(), "run.measure_transactions=500".into()]);
    assert_eq!((r.per_interval[0].start_ns, every(&r)), (5000.0, ringlet_gigaring::FOLD_SERIES_INTERVAL_NS));
    let r = run(EIGHT, &["faults.fail_node=2".into(), "run.measure_transactions=500".into(), "run.series_interval_ns=3000".into()]);
    assert_eq!(every(&r), 3000.0);
    assert!(run(EIGHT, &["run.measure_transactions=500".into()]).per_interval.is_empty());
}

/// A message from node 0 to node 2 has its head on the link from node 0 to
/// node 1 when that link fails, 1 ns after it left; the failure is known
/// 500 ns later. The head never reaches node 1's bypass FIFO, so node 1
/// passes nothing on over ring 0 meanwhile, and the message reaches node 2
/// once, sent again on the folded ring.
#[test]
fn a_packet_whose_head_is_on_a_cut_link_is_lost_there() {
    let s = load(FOLD, &["faults.fail_link=0", "faults.at_ns=1", "faults.detection_ns=500", "faults.reinit_circulations=0"].map(String::from));
    let mut f = ringlet_gigaring::hand_built(&s).unwrap();
    f.inject(0, 2, 0, 0);
    f.run_until(ns_to_time(5000.0));
    let t = f.topology();
    let ring0: Vec<u16> = t.ringlet_ifaces(0).to_vec();
    let passed_on: Vec<_> = f.records().iter().filter(|r| r.what == (Transmit { own: false }) && r.kind == Request && ring0.contains(&r.iface)).collect();
    assert!(passed_on.is_empty(), "passed on over the cut ring: {passed_on:?}");
    let accepted: Vec<_> = f.records().iter().filter(|r| r.what == Accepted && r.kind == Request).map(|r| t.agent_of(r.iface)).collect();
    assert_eq!(accepted, vec![2], "accepted once, at node 2");
    let r = f.report();
    assert_eq!((r.conservation.completed, r.conservation.in_flight), (1, 0));
}

/// The echo of a message from node 0 to node 1 comes back to node 0 over
/// the link from node 3 (ring 0). Cut that link once the echo's head is
/// through and its tail is not: the echo is in, node 0 is done with the
/// message. Cut it just before the head is through: the echo is lost, the
/// message goes again on the folded ring, and node 1 drops the duplicate.
/// A head that arrives as the link fails is through.
#[test]
fn an_echo_is_lost_on_a_cut_link_only_if_its_head_was_not_through() {
    let echo_tail = {
        let mut f = ringlet_gigaring::hand_built(&load(FOLD, &[])).unwrap();
        f.inject(0, 1, 0, 0);
        f.run_until(ns_to_time(5000.0));
        let backs: Vec<_> = f.records().iter().filter(|r| matches!(r.what, EchoBack { .. }) && r.iface == 0).map(|r| r.time).collect();
        assert_eq!(backs.len(), 1);
        backs[0]
    };
    let echo = {
        let p = ringlet_gigaring::params::params(&Settings::of(&load(FOLD, &[])));
        p.echo_len as u64 * p.cycle
    };
    let head = echo_tail - echo;
    let folded = |cut: u64| {
        let at = format!("faults.at_ns={}", ringlet_engine::time::time_to_ns(cut));
        let s = load(FOLD, &["faults.fail_link=3", &at, "faults.detection_ns=500", "faults.reinit_circulations=0"].map(String::from));
        let mut f = ringlet_gigaring::hand_built(&s).unwrap();
        f.inject(0, 1, 0, 0);
        f.run_until(ns_to_time(5000.0));
        let r = f.report();
        assert_eq!((r.conservation.completed, r.conservation.in_flight), (1, 0));
        let rc = r.reconfiguration.unwrap();
        (rc.resent, rc.duplicates_suppressed)
    };
    assert_eq!(folded(head + echo / 2), (0, 0), "cut under the echo's tail");
    // A head arriving as the link fails is through (as a passing packet's, `on_failure`).
    assert_eq!(folded(head), (0, 0), "cut as its head arrives");
    assert_eq!(folded(head - ns_to_time(1.0)), (1, 1), "cut before its head was through");
}

/// The message from node 0 to node 2 again, its link failing as the head
/// reaches node 1 (224 ns): the head is through, so node 1 passes it on
/// over ring 0 at once and node 2 has it; its echo is back (at 896 ns)
/// before the fold (1224 ns): nothing is sent again.
#[test]
fn a_head_that_arrives_as_its_link_fails_is_through() {
    let s = load(FOLD, &["faults.fail_link=0", "faults.at_ns=224", "faults.detection_ns=1000", "faults.reinit_circulations=0"].map(String::from));
    let mut f = ringlet_gigaring::hand_built(&s).unwrap();
    f.inject(0, 2, 0, 0);
    f.run_until(ns_to_time(5000.0));
    assert_eq!(at(&f, Transmit { own: false }), vec![(ring(&f, 0, 1), ns_to_time(224.0))]);
    assert_eq!(at(&f, Accepted), vec![(ring(&f, 0, 2), ns_to_time(448.0))]);
    let r = f.report();
    assert_eq!((r.conservation.completed, r.conservation.in_flight), (1, 0));
    assert_eq!(r.reconfiguration.unwrap().resent, 0);
}

/// Node 1 fails at 100 ns and is known to have 1000 ns later. Meanwhile
/// its interfaces are dead, not only unknown: the message node 0 sends to
/// node 2 at 50 ns over ring 0 (through node 1) is lost there, not passed
/// on, and the four node 1 had for node 3 (one sent at 0, three in its
/// send buffers) are lost with it: nothing of node 1's is sent after
/// 100 ns. Node 0's message goes again on the folded ring.
#[test]
fn a_failed_node_sends_nothing_while_its_failure_is_detected() {
    let s = load(FOLD, &["faults.fail_node=1", "faults.at_ns=100", "faults.detection_ns=1000", "faults.reinit_circulations=0"].map(String::from));
    let mut f = ringlet_gigaring::hand_built(&s).unwrap();
    for _ in 0..4 {
        f.inject(1, 3, 0, 0);
    }
    f.inject(0, 2, 0, ns_to_time(50.0));
    f.run_until(ns_to_time(10_000.0));
    let t = f.topology();
    let late: Vec<_> = f.records().iter().filter(|r| r.time > ns_to_time(100.0) && t.agent_of(r.iface) == 1 && r.what != (Reconfigured { live: false })).collect();
    assert!(late.is_empty(), "node 1 acted after it failed: {late:?}");
    let accepted: Vec<_> = f.records().iter().filter(|r| r.what == Accepted && r.kind == Request).map(|r| (t.agent_of(r.iface), r.time > ns_to_time(1100.0))).collect();
    assert_eq!(accepted, vec![(2, true)], "node 0's message, after the fold only");
    let r = f.report();
    let c = &r.conservation;
    assert_eq!((c.generated, c.completed, c.lost, c.in_flight), (5, 1, 4, 0), "{c:?}");
    assert_eq!(r.reconfiguration.unwrap().resent, 1);
}

/// Five masters send 32-word messages to one slave through 64-packet send
/// buffers, any number under way; node 2 fails and the failure is known
/// 1 ms later. Packets the slave accepted before the failure, whose echoes
/// went with the rings, go again after the fold; one waits in a send
/// buffer while its flow's later packets go from the sender's other place
/// on the folded ring, until more than 128 numbers lie between them. Its
/// target still tells it from new (a window of 128 numbers below the
/// highest did not): nothing is delivered twice, and the data delivered is
/// what the completed messages carry.
#[test]
fn a_duplicate_is_told_however_far_its_flow_has_run_ahead() {
    for fail in ["faults.fail_node=2", "faults.fail_node=3"] {
        let extra: Vec<String> = [
            "network.nodes=6", "traffic.masters=5", "traffic.transaction=message", "traffic.block_words=32", "traffic.load_mbps_per_node=300",
            fail, "faults.detection_ns=1e6", "gigaring.send_buffer_packets=64", "gigaring.transfers_per_stream=0", "gigaring.window_max=1000", "run.max_sim_time_ns=2.5e6",
        ]
        .map(String::from)
        .to_vec();
        let r = run(&std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/gigaring/fold-8node.toml")).unwrap(), &extra);
        let c = &r.conservation;
        assert_eq!(c.delivered_twice, 0, "{fail}");
        assert_eq!(c.generated, c.completed + c.queued + c.in_flight + c.lost, "{fail}: {c:?}");
        let bytes = r.throughput_mbps * r.measure_time_ns * 1e-3;
        assert!((bytes - 256.0 * r.transactions as f64).abs() < 1e-3, "{fail}: {bytes} bytes delivered, {} messages", r.transactions);
        assert!(r.reconfiguration.as_ref().unwrap().duplicates_suppressed > 128, "{fail}: the sent packets the slave had are told");
    }
}

/// With several priorities the priority inversions are counted: a packet
/// a receive buffer of the two rings busied and the folded ring's then
/// accepted leaves the count of the queue that busied it (it went to the
/// folded ring's before, and below zero there).
#[test]
fn a_packet_busied_before_the_fold_and_accepted_after_it_is_counted_where_it_was_busied() {
    let r = run(
        "[network]\nkind = \"gigaring\"\nnodes = 3\n",
        &["traffic.priorities=8", "traffic.transaction=\"writeblk\"", "traffic.block_words=64", "traffic.load_mbps_per_node=400", "gigaring.receive_buffer_packets=1", "faults.fail_node=1", "faults.at_ns=6334", "run.warmup_ns=0", "run.max_sim_time_ns=40000", "run.measure_transactions=1000000"]
            .map(String::from),
    );
    let c = &r.conservation;
    assert_eq!(c.generated, c.completed + c.queued + c.in_flight + c.lost);
    assert!(r.reconfiguration.is_some() && r.counters.busy_echoes > 0 && r.counters.input_inversions > 0, "{:?}", r.counters);
}

/// The bandwidth sharing of a folded ring counts nodes, not places
/// (`Arbitration::with_nodes`): on places of nodes [0, 1, 2, 1] (node 1
/// passed twice, nodes 0 and 2, next to the failure, once) every node
/// stands for two contenders, split among the places where it asks: node
/// 1 asking at one place asks there for two (a packet may pass only that
/// one), at both for one at each; node 2's one place for two. Node 2's own packets say its source waits
/// for two (it takes the extra one back from its echo); and a node's places
/// hold together: node 1, sending from place 3 with node 2 upstream (two)
/// and itself there (one) counted, takes two thirds of the ring, holding
/// both its places for 3 / 2 of the packet's slot.
#[test]
fn a_folded_rings_sharing_counts_nodes_not_places() {
    use ringlet_fabric::packet::{Packet, PacketKind};
    use ringlet_fabric::protocol::{Effects, Permit, RingProtocol};
    use ringlet_gigaring::arbitration::{Arbitration, SharingLaw, SOURCE_WAITS};
    const CYCLE: u64 = 20_000;
    let mut a = Arbitration::new(&ringlet_sci::ring::view_of(4, CYCLE), true, SharingLaw::EqualShare, true, 0, CYCLE, 1).with_nodes(&[0, 1, 2, 1]);
    let mut fx = Effects::default();
    let packet = Packet::new(PacketKind::Request, 2, 1, 0, 0, 81, 0);
    let asked = |a: &mut Arbitration, at: usize| {
        a.on_blocked(at, 0, 0, &mut Effects::default());
        let mut field = 0;
        a.mark_passing(at, 0, &mut field);
        field
    };
    assert_eq!((asked(&mut a, 1), asked(&mut a, 2)), (2, 2));
    let mut field = 0;
    a.mark_passing(0, 0, &mut field);
    assert_eq!(field, 0, "node 0 does not ask");
    assert_eq!((asked(&mut a, 3), asked(&mut a, 1)), (1, 1), "node 1 asking at both places asks for one at each");
    a.on_sent(2, 0, 0, &packet, Some(0), &mut fx);
    assert_eq!(a.own_field(2), SOURCE_WAITS | 1);
    // Its echo back with node 1's request on top: one contender downstream.
    a.on_echo_field(2, 0, SOURCE_WAITS | 2, &mut fx);
    assert_eq!(a.contenders(2), 3);
    // Node 2's packet, its source waiting, passes node 1's place 3.
    let mut passing = SOURCE_WAITS | 1;
    a.mark_passing(3, 0, &mut passing);
    assert_eq!(a.contenders(3), 3);
    a.on_sent(3, 1000, 0, &packet, Some(0), &mut fx);
    let until = 1000 + 3 * 82 * CYCLE / 2;
    assert_eq!(a.may_send(1, until - 1, 0, &packet, &mut fx), Permit::Hold { wake_at: Some(until) }, "node 1's other place holds too");
    assert_eq!(a.may_send(1, until, 0, &packet, &mut fx), Permit::Go);
    assert_eq!(a.may_send(0, 1000, 0, &packet, &mut fx), Permit::Go, "node 0 does not");
}

/// Seed 002's "approximately equal portion of the ring bandwidth for each
/// node" on a folded ring: ten nodes, node 3 failed, so nodes 4 and 2 sit
/// once on the folded ring and the others twice. Every node sends 32-word
/// messages as fast as it can to node 4 (one end, so all of them contend
/// for the one link into it): the other end, node 2, and every other
/// sender, gets within 10% of the senders' mean share; and the same with
/// the ends swapped. (Counting places, node 2 got half the mean: each
/// place of a node passed twice took a share.)
#[test]
fn the_folds_end_node_gets_an_equal_share() {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 10\n[faults]\nfail_node = 3\nat_ns = 20000\n[gigaring]\ntransfers_per_stream = 0\n[traffic]\ntransaction = \"message\"\nblock_words = 32\ndestinations = \"hotspot\"\nhotspot_fraction = 1.0\nload_mbps_per_node = 1000\n[run]\nwarmup_ns = 50000\nmeasure_transactions = 5000\n";
    for (hot, end) in [(4, 2), (2, 4)] {
        let r = run(text, &[format!("traffic.hotspot_node={hot}")]);
        let senders: Vec<(u32, f64)> = r.per_node.iter().filter(|n| n.node != 3 && n.node != hot).map(|n| (n.node, n.throughput_mbps)).collect();
        let mean = senders.iter().map(|s| s.1).sum::<f64>() / senders.len() as f64;
        assert!(senders.iter().all(|s| (s.1 - mean).abs() <= 0.1 * mean), "hot {hot}, end {end}: {senders:?}, mean {mean}");
    }
}

/// A run is saturated when it carries under 90% of what it could: after a
/// failure, of the live nodes' load less what the failure lost of it (their
/// transactions with the failed node). Four nodes of 32-word messages at 50
/// MB/s each, node 1 failing early: half the 200 MB/s offered is carried,
/// the rest is node 1's own load and the others' traffic with it, so the
/// run is not saturated; without the failure at 1000 MB/s per node (more
/// than the two rings carry) it is.
#[test]
fn what_a_failure_loses_is_not_saturation() {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 4\n[traffic]\ntransaction = \"message\"\nblock_words = 32\n[run]\nmeasure_transactions = 3000\n";
    let failed = run(text, &["traffic.load_mbps_per_node=50", "faults.fail_node=1", "faults.at_ns=20000.0"].map(String::from));
    assert!(failed.throughput_mbps < 0.6 * failed.offered_mbps && failed.reconfiguration.is_some(), "{}", failed.throughput_mbps);
    assert!(!failed.saturated);
    let past = run(text, &["traffic.load_mbps_per_node=1000".to_string()]);
    assert!(past.saturated && past.throughput_mbps < 0.9 * past.offered_mbps, "{} of {}", past.throughput_mbps, past.offered_mbps);
}
