//! Fairness on every run: each node's carried share of its offered load,
//! its backlog and the age of its oldest waiting transaction when the run
//! stops, Jain's index over the senders and the nodes flagged as starved.

mod common;
use common::*;
use ringlet_fabric::family::Mode;
use ringlet_fabric::Report;

fn run(nodes: u32, extra: &[&str]) -> Report {
    let (s, _) = setup(nodes, extra);
    (ringlet_sci::FAMILY.run)(&s, Mode::Plain).unwrap().report
}

/// The hot spot of issue 34's table: 8 nodes, read64, IQST 100 ns, every
/// transaction to node 5, 150 MB/s per node, seed 3. DFC carries 92% of
/// the hot spot's capacity by starving node 5 itself and the two nodes just
/// downstream; base SCI serves every sender but node 5 at a quarter of its
/// load, flagging none (nobody carries more than half).
#[test]
fn a_hot_spot_starves_nodes_under_dfc_and_the_report_names_them() {
    let case = ["node.iqst_ns=100", "traffic.destinations=hotspot", "traffic.hotspot_node=5", "traffic.hotspot_fraction=1.0", "traffic.load_mbps_per_node=150", "run.seed=3", "run.warmup_ns=10000", "run.measure_transactions=20000"];
    let dfc = run(8, &[&case[..], &["network.protocol=dfc"]].concat());
    assert_eq!(dfc.starved_nodes, vec![5, 6, 7]);
    assert!(dfc.fairness_index < 0.6, "{}", dfc.fairness_index);
    assert_eq!((dfc.min_carried_share_node, dfc.min_carried_share < 0.01), (5, true));
    // A starved node's backlog grows and its oldest transaction has waited since the start.
    let (starved, served) = (&dfc.per_node[5], &dfc.per_node[1]);
    assert!(starved.backlog > 1000 && starved.oldest_waiting_ns > 0.5 * dfc.sim_time_ns, "{starved:?}");
    assert!(served.carried_share > 0.9 && served.backlog < 50, "{served:?}");
    let sci = run(8, &[&case[..], &["network.protocol=sci"]].concat());
    assert!(sci.starved_nodes.is_empty());
    assert!(sci.fairness_index > 0.8, "{}", sci.fairness_index);
    for r in [&dfc, &sci] {
        let c = &r.conservation;
        assert_eq!(r.per_node.iter().map(|n| n.backlog).sum::<u64>(), c.queued + c.in_flight);
    }
}

/// Every node reads from node 0 (16 nodes, 40 MB/s each, far beyond what
/// node 0 answers): node 0's own requests wait behind the responses it
/// owes everyone (responses go first at its output) and it completes
/// nothing, while the others each carry a few per cent of their load.
/// Nobody carries half of its load, so nobody is starved by comparison;
/// by its own progress node 0 is stalled, and only node 0.
#[test]
fn a_node_that_completes_nothing_is_named_stalled_whatever_the_others_carry() {
    let r = run(16, &["traffic.destinations=hotspot", "traffic.hotspot_node=0", "traffic.hotspot_fraction=1.0", "traffic.load_mbps_per_node=40", "run.warmup_ns=10000", "run.max_sim_time_ns=2e6", "run.measure_transactions=1000000"]);
    assert!(r.starved_nodes.is_empty(), "{:?}", r.starved_nodes);
    assert_eq!(r.stalled_nodes, vec![0]);
    let hot = &r.per_node[0];
    assert_eq!(hot.transactions, 0);
    assert!(hot.backlog > 0 && hot.longest_stall_ns > 0.9 * r.measure_time_ns, "{hot:?}");
    assert!((r.stall_window_ns - 0.1 * r.measure_time_ns).abs() < 1e-6 * r.measure_time_ns);
    for n in &r.per_node[1..] {
        assert!(n.transactions > 0 && n.longest_stall_ns < r.stall_window_ns, "{n:?}");
    }
}

/// Below saturation every node carries what it offers: the index is 1 to
/// within the measurement's noise, nothing waits long, nobody is starved.
#[test]
fn a_ring_below_saturation_is_fair() {
    let r = run(8, &["traffic.load_mbps_per_node=40", "run.measure_transactions=20000"]);
    assert!(r.fairness_index > 0.995, "{}", r.fairness_index);
    assert!(r.min_carried_share > 0.9, "{}", r.min_carried_share);
    assert!(r.starved_nodes.is_empty());
    for n in &r.per_node {
        assert!(n.oldest_waiting_ns < 10_000.0, "{n:?}");
    }
}

/// With several priorities each node's latency is also kept per priority:
/// its packets per priority add up to its packets over all, and a priority
/// the ring starves shows its own (few) packets and tail rather than
/// disappearing in the node's figures. One priority: no such table.
#[test]
fn node_latency_per_priority() {
    let r = run(8, &["network.protocol=dfc", "node.iqst_ns=100", "traffic.priorities=3", "traffic.load_mbps_per_node=150", "run.measure_transactions=20000"]);
    assert!(!r.per_node_priority.is_empty());
    for n in &r.per_node {
        let rows: Vec<_> = r.per_node_priority.iter().filter(|p| p.node == n.node).collect();
        assert_eq!(rows.iter().map(|p| p.packets).sum::<u64>(), n.packets, "node {}", n.node);
        assert!(rows.iter().all(|p| p.priority < 3 && p.packets > 0 && p.latency_ns_p99 > 0.0));
    }
    // Saturated, DFC serves the highest priority and rolls the lowest off: the lowest's few
    // packets are all its latency figures rest on (which is why they are kept apart).
    let packets = |prio: u32| r.per_node_priority.iter().filter(|p| p.priority == prio).map(|p| p.packets).sum::<u64>();
    assert!(packets(2) > 10 * packets(0), "{} vs {}", packets(2), packets(0));
    // Each priority names its worst node: the node x priority row with the largest p99.
    for level in &r.per_priority {
        let rows: Vec<_> = r.per_node_priority.iter().filter(|p| p.priority == level.priority).collect();
        let worst = rows.iter().map(|p| p.latency_ns_p99).fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(level.node_latency_ns_p99_max, worst, "priority {}", level.priority);
        let named = rows.iter().find(|p| p.node as i64 == level.node_latency_ns_p99_max_node).expect("a node of this priority");
        assert_eq!(named.latency_ns_p99, worst);
    }
    let one = run(8, &["traffic.load_mbps_per_node=40", "run.measure_transactions=2000"]);
    assert!(one.per_node_priority.is_empty());
    // One priority: the worst node from the nodes' own figures.
    let worst = one.per_node.iter().max_by(|a, b| a.latency_ns_p99.total_cmp(&b.latency_ns_p99)).unwrap();
    assert_eq!(one.per_priority[0].node_latency_ns_p99_max, worst.latency_ns_p99);
    assert_eq!(one.per_node[one.per_priority[0].node_latency_ns_p99_max_node as usize].latency_ns_p99, worst.latency_ns_p99);
}
