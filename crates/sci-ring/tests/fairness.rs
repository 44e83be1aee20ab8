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
