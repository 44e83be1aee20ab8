//! The checks judged on hand-made reports and on small runs.

use super::*;
use ringlet_fabric::report::NodeReport;

fn overrides(pairs: &[(&str, &str)]) -> Overrides {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// A GigaRing channel of 32-word messages at 1 000 MB/s per node, run for
/// `sim_time_ns` (its probes' runs).
fn gigaring_messages(sim_time_ns: &str) -> Overrides {
    overrides(&[("network.kind", "\"gigaring\""), ("traffic.transaction", "\"message\""), ("traffic.block_words", "32"), ("traffic.load_mbps_per_node", "1000.0"), ("run.max_sim_time_ns", sim_time_ns)])
}

/// A report that keeps every promise, of a run of 2 nodes at light load.
fn sound() -> Report {
    let mut r = Report::default();
    r.conservation.generated = 10;
    r.conservation.completed = 7;
    r.conservation.queued = 2;
    r.conservation.in_flight = 1;
    r.summary.model_utilization = 0.1;
    r.summary.throughput_mbps = 20.0;
    r.summary.offered_mbps = 20.0;
    r.summary.measure_time_ns = 1e7;
    // (20 MB/s of 64-byte transactions.)
    r.summary.transactions = 3125;
    r.summary.stall_window_ns = 1e6;
    r.per_node = (0..2).map(|k| NodeReport { node: k, offered_mbps: 10.0, ..NodeReport::default() }).collect();
    r
}

/// Each check fails on the report that breaks its promise, and only then.
#[test]
fn each_broken_promise_is_told() {
    let o = overrides(&[("network.kind", "\"sci-ring\"")]);
    assert!(invariants(&o, &sound(), 0, 0.0).is_ok());
    let mut r = sound();
    r.conservation.queued = 3;
    assert_eq!(invariants(&o, &r, 0, 0.0).unwrap_err().check, "conservation");
    let mut r = sound();
    r.conservation.delivered_twice = 1;
    assert_eq!(invariants(&o, &r, 0, 0.0).unwrap_err().check, "delivered_twice");
    let bound = memory_bound(0, 2, 0, 0);
    assert!(invariants(&o, &sound(), bound, 0.0).is_ok());
    assert_eq!(invariants(&o, &sound(), bound + 1, 0.0).unwrap_err().check, "memory");
    let mut r = sound();
    r.counters.events = TIME_JUDGED_EVENTS;
    let limit = MAX_US_PER_EVENT * 1e-6 * TIME_JUDGED_EVENTS as f64;
    assert!(invariants(&o, &r, 0, limit * 0.99).is_ok());
    assert_eq!(invariants(&o, &r, 0, limit * 1.01).unwrap_err().check, "time");
}

/// A light scenario's node that completed nothing for most of a long
/// run is stalled; one that waited less than its limit is not; where
/// the protocol promises nothing (an overloaded SCI ring), neither is.
#[test]
fn a_node_that_completes_nothing_for_long_is_stalled_where_progress_is_promised() {
    let o = overrides(&[("network.kind", "\"sci-ring\""), ("traffic.load_mbps_per_node", "10.0"), ("run.max_sim_time_ns", "2e5")]);
    let mut r = sound();
    r.summary.model_saturation_load_mbps_per_node = 100.0;
    r.per_priority = vec![Default::default()];
    r.stalled_nodes = vec![1];
    r.per_node[1].longest_stall_ns = 9e6;
    let stalled = invariants(&o, &r, 0, 0.0).unwrap_err();
    assert_eq!(stalled.check, "stalled");
    assert!(stalled.detail.contains("node 1 completed nothing for 9000000 ns"), "{}", stalled.detail);
    // Its limit: the stall window (1 ms), above 20 gaps of 64 bytes at its 10 MB/s (128 µs) and ten latencies.
    r.per_node[1].longest_stall_ns = 0.9e6;
    assert!(invariants(&o, &r, 0, 0.0).is_ok(), "under its limit");
    r.per_node[1].longest_stall_ns = 9e6;
    // Without the full allocation nothing shares the ring: no promise, even to a run that kept up.
    for (key, value) in [("network.bandwidth_allocation", "\"none\""), ("network.bandwidth_allocation", "\"debts\""), ("network.queue_allocation", "\"none\"")] {
        let cut: Overrides = o.iter().cloned().chain(overrides(&[(key, value)])).collect();
        assert!(invariants(&cut, &r, 0, 0.0).is_ok(), "{key} = {value} promises no progress");
    }
    let ieee: Overrides = o.iter().cloned().chain(overrides(&[("network.bandwidth_allocation", "\"ieee\"")])).collect();
    assert_eq!(invariants(&ieee, &r, 0, 0.0).unwrap_err().check, "stalled", "the standard's allocation named outright is judged");
    r.summary.model_utilization = 2.0;
    // (Carrying what it did at half the load: no collapse either.)
    let half = probe(&o, 0.5).expect("the ring carries at half the load");
    r.summary.throughput_mbps = half.throughput_mbps;
    assert!(invariants(&o, &r, 0, 0.0).is_ok(), "an overloaded SCI ring promises no node progress");
    // (Messages at a load whose hundredth completes some in the probe's
    // 200 µs; the report says it carried plenty: no collapse.)
    r.summary.throughput_mbps = 1e9;
    // (Past saturation judged by data: a node that delivered none either.)
    r.per_node[1].longest_stall_by_data_ns = 9e6;
    let giga = gigaring_messages("2e5");
    assert_eq!(invariants(&giga, &r, 0, 0.0).unwrap_err().check, "stalled", "GigaRing's queue reservation promises it");
    let off: Overrides = giga.iter().cloned().chain(overrides(&[("gigaring.queue_reservation", "false")])).collect();
    assert!(invariants(&off, &r, 0, 0.0).is_ok());
    let per_request: Overrides = giga.iter().cloned().chain(overrides(&[("gigaring.sharing_law", "\"per-request\"")])).collect();
    assert!(invariants(&per_request, &r, 0, 0.0).is_ok(), "the comparison law starves the nodes next to a busy receiver");
    let unbounded: Overrides = giga.iter().cloned().chain(overrides(&[("gigaring.dma_queue_transfers", "0"), ("gigaring.transfers_per_stream", "0")])).collect();
    assert!(invariants(&unbounded, &r, 0, 0.0).is_ok(), "nothing bounds the transfers in flight: nothing is promised past saturation");
    let one_bound: Overrides = giga.iter().cloned().chain(overrides(&[("gigaring.dma_queue_transfers", "0")])).collect();
    assert_eq!(invariants(&one_bound, &r, 0, 0.0).unwrap_err().check, "stalled", "the streams' bound engages the channel's own");
    // Without the congestion control: messages still (the reservation
    // covers receive buffers), blocks onto a bounded DMA engine not.
    let uncontrolled: Overrides = giga.iter().cloned().chain(overrides(&[("gigaring.congestion_control", "false")])).collect();
    assert_eq!(invariants(&uncontrolled, &r, 0, 0.0).unwrap_err().check, "stalled", "messages' receive buffers are reserved");
    let blocks: Overrides = uncontrolled.iter().filter(|(k, _)| k != "traffic.transaction").cloned().collect();
    assert!(invariants(&blocks, &r, 0, 0.0).is_ok(), "a full DMA engine reserves nothing: the congestion control bounds its retries");
    let no_dma_bound: Overrides = blocks.iter().cloned().chain(overrides(&[("gigaring.dma_queue_transfers", "0")])).collect();
    assert_eq!(invariants(&no_dma_bound, &r, 0, 0.0).unwrap_err().check, "stalled", "an unbounded DMA engine busies nothing");
}

/// Below a third of the model's saturation a network takes its load: a
/// base SCI ring's run that carried under 90% of it (`saturated`) with
/// nothing lost at its sources fails; one whose sources lost the rest by
/// their loss rule does not, nor one too short to tell (too few
/// transactions, or under ten unloaded latencies), nor a protocol whose
/// holds the model leaves out, nor a trace, nor yet a GigaRing.
#[test]
fn below_a_third_of_saturation_a_network_takes_its_load() {
    let o = overrides(&[("network.kind", "\"sci-ring\""), ("network.nodes", "4"), ("traffic.load_mbps_per_node", "10.0"), ("run.max_sim_time_ns", "2e5")]);
    let mut r = sound();
    // (Half of its 20 MB/s carried over 3 125 transactions, whose spread, 7%, leaves the 90% as it is.)
    r.summary.throughput_mbps = 10.0;
    r.summary.saturated = true;
    assert_eq!(invariants(&o, &r, 0, 0.0).unwrap_err().check, "carries");
    r.summary.loss_mbps = 7.0;
    assert_eq!(invariants(&o, &r, 0, 0.0).unwrap_err().check, "carries", "85% taken");
    r.summary.loss_mbps = 8.0;
    assert!(invariants(&o, &r, 0, 0.0).is_ok(), "what its sources lost by their loss rule was offered and taken");
    r.summary.loss_mbps = 0.0;
    // (Past it, 15 MB/s is no collapse either: the ring carries 20 at half the load.)
    r.summary.model_utilization = 0.5;
    r.summary.throughput_mbps = 15.0;
    let past = invariants(&o, &r, 0, 0.0);
    assert!(past.is_ok(), "past a third of saturation the model's figure is no promise: {past:?}");
    r.summary.model_utilization = 0.1;
    assert_eq!(invariants(&o, &r, 0, 0.0).unwrap_err().check, "carries");
    r.summary.throughput_mbps = 10.0;
    r.summary.transactions = CARRIES_JUDGED_TRANSACTIONS - 1;
    assert!(invariants(&o, &r, 0, 0.0).is_ok(), "too few transactions to tell");
    // (100 transactions: 60% of the load, four standard deviations below all of it.)
    r.summary.transactions = CARRIES_JUDGED_TRANSACTIONS;
    assert_eq!(invariants(&o, &r, 0, 0.0).unwrap_err().check, "carries");
    r.summary.throughput_mbps = 12.0;
    assert!(invariants(&o, &r, 0, 0.0).is_ok(), "within what 100 Poisson arrivals spread");
    r.summary.throughput_mbps = 10.0;
    r.summary.measure_time_ns = 10.0 * probe(&o, 0.01).expect("unloaded").latency * 0.99;
    assert!(invariants(&o, &r, 0, 0.0).is_ok(), "a run under ten unloaded latencies is not judged");
    r.summary.measure_time_ns = 1e7;
    let train: Overrides = o.iter().cloned().chain(overrides(&[("network.protocol", "\"train\"")])).collect();
    assert!(invariants(&train, &r, 0, 0.0).is_ok(), "the model leaves TRAIN's holds out");
    let trace: Overrides = o.iter().cloned().chain(overrides(&[("traffic.source", "\"trace\"")])).collect();
    assert!(judges_carrying(&o, &r) && !judges_carrying(&trace, &r), "a trace's load is its own");
    assert!(!judges_carrying(&gigaring_messages("2e5"), &r), "the model leaves a GigaRing's DMA engines and windows out");
    r.summary.saturated = false;
    assert!(invariants(&o, &r, 0, 0.0).is_ok(), "a failure's loss is the report's to count (`saturated`)");
}

/// A response time-out's copies are load the analytic model does not
/// count: a DFC ring that kept up with its offered load at model
/// utilisation 0.30, its requesters asking again 1.9 times per
/// transaction, is loaded (`campaign 1000 91 wide` #241: its links
/// 79-85% busy), and a node that waited there is not judged; with no
/// copies the same report is.
#[test]
fn a_time_outs_copies_count_as_load() {
    let o = overrides(&[("network.kind", "\"sci-ring\""), ("network.protocol", "\"dfc\""), ("node.response_timeout_ns", "200.0"), ("traffic.load_mbps_per_node", "10.0"), ("run.max_sim_time_ns", "2e5")]);
    let mut r = sound();
    r.summary.model_utilization = 0.30;
    r.stalled_nodes = vec![1];
    r.per_node[1].longest_stall_ns = 9e6;
    assert_eq!(invariants(&o, &r, 0, 0.0).unwrap_err().check, "stalled", "no copies: light, and judged");
    // (Seven transactions completed over the run.)
    r.counters.request_timeouts = 13;
    let passed = invariants(&o, &r, 0, 0.0).expect("not judged for progress");
    assert!(!passed.progress_judged, "1.9 copies a transaction: 0.86 of saturation");
    let untimed: Overrides = o.iter().filter(|(k, _)| k != "node.response_timeout_ns").cloned().collect();
    assert_eq!(invariants(&untimed, &r, 0, 0.0).unwrap_err().check, "stalled", "without a time-out nothing is a copy");
}

/// Past saturation the transactions a network completes may be larger
/// than those it was offered (an overloaded GigaRing of mixed clients
/// completes its small blocks least: `campaign 1000 74 wide` #675, 93
/// nodes, 79 bytes a transaction against the unloaded mix's 25), so a
/// node's fair gap is the time an equal share of the transactions
/// completed took, not an equal share of the bytes carried over the
/// unloaded mix's transaction.
#[test]
fn past_saturation_a_nodes_fair_gap_counts_the_transactions_completed() {
    // Messages of 32 words: 256 bytes a transaction in the probe.
    let giga = gigaring_messages("2e5");
    let probes = Probes { o: &giga, unloaded: Default::default() };
    let mut r = sound();
    r.summary.model_utilization = 2.0;
    // 40 transactions of 1 024 bytes in 10 ms (4.096 MB/s): an equal share, one per 500 µs.
    (r.summary.transactions, r.summary.throughput_mbps) = (40, 4.096);
    r.stalled_nodes = vec![1];
    (r.per_node[1].longest_stall_ns, r.per_node[1].longest_stall_by_data_ns) = (7e6, 7e6);
    // Over 20 gaps of 256 bytes at half of 4.096 MB/s (2.5 ms) and half the window (5 ms), under 20 shares (10 ms).
    assert!(stalls(&probes, &r).is_ok(), "under twenty of its shares of the transactions completed");
    // Ten times as many completed: the half window (5 ms) is the limit.
    r.summary.transactions = 400;
    let stalled = stalls(&probes, &r).unwrap_err();
    assert_eq!(stalled.check, "stalled");
    assert!(stalled.detail.contains("over 5000000"), "{}", stalled.detail);
}

/// Past saturation a node is judged by the data its transactions
/// deliver, not by their completions: one whose block's packets go, each
/// accepted, while the block takes longer than the limit to complete is
/// not stalled (`campaign 1000 91 wide` gigaring #780: 1.58 ms without a
/// completion, 95 µs without data, over a 2 ms window); one that delivers
/// nothing is. Below saturation the completions' pace is promised, and
/// judged.
#[test]
fn past_saturation_a_node_whose_data_goes_is_not_stalled() {
    let giga = gigaring_messages("2e5");
    let probes = Probes { o: &giga, unloaded: Default::default() };
    let mut r = sound();
    r.summary.model_utilization = 5.0;
    // Many completed in 2 ms: the limit is half the window, 1 ms.
    (r.summary.measure_time_ns, r.summary.stall_window_ns, r.summary.transactions, r.summary.throughput_mbps) = (2e6, 2e5, 4_000, 700.0);
    r.stalled_nodes = vec![1];
    (r.per_node[1].longest_stall_ns, r.per_node[1].longest_stall_by_data_ns) = (1.58e6, 0.095e6);
    assert!(stalls(&probes, &r).is_ok(), "its data went: progress");
    r.per_node[1].longest_stall_by_data_ns = 1.58e6;
    let stalled = stalls(&probes, &r).unwrap_err();
    assert!(stalled.detail.contains("node 1 delivered no data for 1580000 ns, over 1000000"), "{}", stalled.detail);
    // Below saturation: judged by its completions, however its data went.
    r.summary.model_utilization = 0.1;
    r.per_node[1].longest_stall_by_data_ns = 0.095e6;
    let stalled = stalls(&probes, &r).unwrap_err();
    assert!(stalled.detail.contains("node 1 completed nothing for 1580000 ns"), "{}", stalled.detail);
}

/// Past saturation a base SCI ring that carries a tenth of what it
/// carries at half the load has collapsed; one that carries as much is
/// sound; a real-time protocol, an ablation of the allocation, a switch,
/// a GigaRing without a hold-off below its window's floor and a run
/// shorter than ten unloaded latencies are not judged so.
#[test]
fn a_collapse_past_saturation_is_told() {
    let o = overrides(&[("network.kind", "\"sci-ring\""), ("network.nodes", "4"), ("traffic.load_mbps_per_node", "400.0"), ("run.max_sim_time_ns", "5e4")]);
    let half = probe(&o, 0.5).expect("the ring carries at half the load");
    let mut r = sound();
    r.summary.model_utilization = 1.5;
    r.summary.throughput_mbps = 0.1 * half.throughput_mbps;
    let told = invariants(&o, &r, 0, 0.0).unwrap_err();
    assert_eq!(told.check, "collapse", "{told:?}");
    r.summary.throughput_mbps = half.throughput_mbps;
    assert!(invariants(&o, &r, 0, 0.0).is_ok());
    r.summary.throughput_mbps = 0.1 * half.throughput_mbps;
    let dfc: Overrides = o.iter().cloned().chain(overrides(&[("network.protocol", "\"dfc\"")])).collect();
    assert!(invariants(&dfc, &r, 0, 0.0).is_ok(), "DFC may stop at saturation by design");
    let go_bits: Overrides = o.iter().cloned().chain(overrides(&[("network.bandwidth_allocation", "\"go-bits\"")])).collect();
    assert!(invariants(&go_bits, &r, 0, 0.0).is_ok(), "an ablation of the standard's allocation promises nothing");
    let switch: Overrides = o.iter().map(|(k, v)| if k == "network.kind" { (k.clone(), "\"sci-switch\"".into()) } else { (k.clone(), v.clone()) }).collect();
    assert!(invariants(&switch, &r, 0, 0.0).is_ok(), "a switch's ringlets collapse by IEEE 1596's rule");
    let giga = gigaring_messages("5e4");
    let mut g = sound();
    g.summary.model_utilization = 1.5;
    g.summary.throughput_mbps = 0.1 * probe(&giga, 0.5).expect("the channel carries at half the load").throughput_mbps;
    assert_eq!(invariants(&giga, &g, 0, 0.0).unwrap_err().check, "collapse", "GigaRing's congestion control promises it");
    let unshared: Overrides = giga.iter().cloned().chain(overrides(&[("gigaring.bandwidth_sharing", "false")])).collect();
    assert!(invariants(&unshared, &g, 0, 0.0).is_ok(), "without its bandwidth sharing a reserved place may wait for ever");
    let unbounded: Overrides = giga.iter().cloned().chain(overrides(&[("gigaring.dma_queue_transfers", "0"), ("gigaring.transfers_per_stream", "0")])).collect();
    assert!(invariants(&unbounded, &g, 0, 0.0).is_ok(), "with nothing bounded nothing is busied: the congestion control never engages");
    let one_bound: Overrides = giga.iter().cloned().chain(overrides(&[("gigaring.dma_queue_transfers", "0")])).collect();
    assert_eq!(invariants(&one_bound, &g, 0, 0.0).unwrap_err().check, "collapse", "the streams' bound engages it");
    let no_hold_off: Overrides = giga.iter().cloned().chain(overrides(&[("gigaring.backoff_round_trips", "1")])).collect();
    assert!(invariants(&no_hold_off, &g, 0, 0.0).is_ok(), "without a hold-off below the window's floor a busied request goes again at once");
    let short_hold_off: Overrides = giga.iter().cloned().chain(overrides(&[("gigaring.backoff_round_trips", "2")])).collect();
    assert_eq!(invariants(&short_hold_off, &g, 0, 0.0).unwrap_err().check, "collapse", "a hold-off of two round trips is one");
    r.summary.measure_time_ns = 10.0 * probe(&o, 0.01).expect("unloaded").latency * 0.99;
    assert!(invariants(&o, &r, 0, 0.0).is_ok(), "a run under ten unloaded latencies is not judged");
}
