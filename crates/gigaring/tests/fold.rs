//! Ring folding (US patent 6,233,704): a node or link fails mid-run and
//! the two rings fold into one around it.

use ringlet_engine::time::ns_to_time;
use ringlet_fabric::family::Mode;
use ringlet_fabric::packet::PacketKind::{Echo, Request};
use ringlet_fabric::trace::TraceKind::*;
use ringlet_fabric::Report;
use ringlet_gigaring::keys::Settings;
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
