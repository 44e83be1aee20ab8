//! Invariants of GigaRing channels under traffic: conservation, carried =
//! offered below saturation, the virtual channels and the rings each carry
//! what they should, and the bandwidth allocation's shares.

use ringlet_fabric::family::Mode;
use ringlet_fabric::Report;
use ringlet_gigaring::GIGARING;

fn run(text: &str, extra: &[String]) -> Report {
    let overrides: Vec<_> = extra.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    let s = ringlet_gigaring::load_str(text, &overrides).unwrap();
    (GIGARING.run)(&s, Mode::Plain).unwrap().report
}

const EIGHT: &str = "[network]\nkind = \"gigaring\"\nnodes = 8\n[traffic]\nload_mbps_per_node = 60\n[run]\nmeasure_transactions = 3000\n";

/// Every transaction generated is completed, waiting, in flight or lost,
/// whatever the kind, size, load and seed.
#[test]
fn transactions_are_conserved() {
    for (seed, transaction, words, load) in [(1, "readblk", 100, 50.0), (2, "writeblk", 33, 300.0), (3, "message", 7, 900.0), (4, "mixed", 256, 150.0), (5, "mixed", 40, 2000.0)] {
        let r = run(EIGHT, &[format!("run.seed={seed}"), format!("traffic.transaction=\"{transaction}\""), format!("traffic.block_words={words}"), format!("traffic.load_mbps_per_node={load}")]);
        let c = &r.conservation;
        assert_eq!(c.generated, c.completed + c.queued + c.in_flight + c.lost, "{transaction} {words} words at {load}: {c:?}");
        assert!(c.completed > 0);
    }
}

/// Below saturation a channel carries what it is offered, on every virtual
/// channel the transactions use: reads' data on read responses, writes' and
/// messages' on write requests.
#[test]
fn carried_equals_offered_below_saturation() {
    let r = run(EIGHT, &["traffic.transaction=\"mixed\"".into(), "traffic.block_words=128".into(), "run.measure_transactions=20000".into()]);
    let offered = 8.0 * 60.0;
    assert!((r.throughput_mbps - offered).abs() < 0.05 * offered, "{} of {offered}", r.throughput_mbps);
    let vc: Vec<f64> = r.per_vc.iter().map(|v| v.throughput_mbps).collect();
    // Reads carry 2/5 of the payload, writes and messages 3/5.
    assert!((vc[1] - 0.4 * r.throughput_mbps).abs() < 0.1 * r.throughput_mbps, "{vc:?}");
    assert!((vc[2] - 0.6 * r.throughput_mbps).abs() < 0.1 * r.throughput_mbps, "{vc:?}");
    assert_eq!((vc[0], vc[3]), (0.0, 0.0), "requests of reads and write responses carry no data");
}

/// Per-packet load balancing keeps both rings about equally busy; with
/// ring 1 masked off, ring 0 carries everything.
#[test]
fn load_balancing_uses_both_rings() {
    let r = run(EIGHT, &["traffic.transaction=\"writeblk\"".into(), "traffic.block_words=256".into(), "traffic.load_mbps_per_node=150".into()]);
    let (a, b) = (r.per_ringlet[0].send_utilization_mean, r.per_ringlet[1].send_utilization_mean);
    assert!(a > 0.05 && (a - b).abs() < 0.15 * a, "ring 0 {a}, ring 1 {b}");
    let r = run(EIGHT, &["gigaring.rings=1".into(), "traffic.load_mbps_per_node=30".into()]);
    assert_eq!(r.per_ringlet.len(), 1);
}

/// Eight saturating senders on one ring each get a share within 10% of equal.
#[test]
fn eight_saturating_senders_share_a_ring_equally() {
    for transaction in ["message", "writeblk"] {
        let r = run(EIGHT, &["gigaring.rings=1".into(), format!("traffic.transaction=\"{transaction}\""), "traffic.block_words=32".into(), "traffic.load_mbps_per_node=2000".into(), "run.measure_transactions=20000".into()]);
        let shares: Vec<f64> = r.per_node.iter().map(|n| n.throughput_mbps).collect();
        let mean = shares.iter().sum::<f64>() / 8.0;
        assert!(shares.iter().all(|s| (s - mean).abs() < 0.1 * mean), "{transaction}: {shares:?}");
    }
}

/// Eight masters sending to one slave downstream of all of them: without
/// bandwidth sharing the node farthest upstream takes nearly the whole
/// ring (its packets never wait, the others' find no gap); with it, the
/// nodes that wait ask to share through the packets passing them and the
/// ring is spread over most of the senders.
#[test]
fn bandwidth_sharing_spreads_a_contended_ring() {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 9\n[gigaring]\nrings = 1\nclient_port_mbps = 1e6\ntransfers_per_stream = 0\n[traffic]\ntransaction = \"message\"\nblock_words = 32\nmasters = 8\nload_mbps_per_node = 2000\n[run]\nmeasure_transactions = 20000\n";
    let shares = |sharing: bool| -> Vec<f64> {
        let r = run(text, &[format!("gigaring.bandwidth_sharing={sharing}")]);
        let total = r.throughput_mbps;
        r.per_node[..8].iter().map(|n| n.throughput_mbps / total).collect()
    };
    let without = shares(false);
    assert!(without[0] > 0.9, "{without:?}");
    let with = shares(true);
    assert!(with[0] < 0.25, "{with:?}");
    assert!(with.iter().filter(|&&s| s > 0.1).count() >= 6, "{with:?}");
}

/// Nine masters moving 256-word blocks to one slave whose DMA engine holds
/// 8 transfers (of the 36 their streams would have under way): requests
/// beyond it are busied. With adaptive congestion control the streams'
/// windows close, and a busied request waits for room in its window before
/// going again, so the channel carries at most half the retransmissions it
/// carries without, and no less data; for ReadBlk and WriteBlk alike.
#[test]
fn congestion_control_halves_retransmissions_at_a_congested_slave() {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 10\n[gigaring]\ndma_queue_transfers = 8\n[traffic]\nblock_words = 256\nmasters = 9\nload_mbps_per_node = 200\n[run]\nmeasure_transactions = 1500\n";
    for transaction in ["readblk", "writeblk"] {
        let r = |cc: bool| run(text, &[format!("traffic.transaction=\"{transaction}\""), format!("gigaring.congestion_control={cc}")]);
        let (on, off) = (r(true), r(false));
        assert_eq!((on.transactions, off.transactions), (1500, 1500), "{transaction}");
        let decreases = on.client.as_ref().unwrap().window_decreases;
        assert!(decreases > 0, "{transaction}: the windows never closed");
        assert!(2 * on.retries <= off.retries, "{transaction}: {} retries with congestion control, {} without", on.retries, off.retries);
        assert!(on.throughput_mbps >= off.throughput_mbps, "{transaction}: {} MB/s with congestion control, {} without", on.throughput_mbps, off.throughput_mbps);
    }
}
