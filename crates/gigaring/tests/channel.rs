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

/// Jain's fairness index of `x`: 1 when all are equal, 1/n when one takes all.
fn jain(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    sum * sum / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

/// Every node but one sends 32-word messages as fast as it can to the hot
/// one (with as many messages outstanding as it likes, so that only the
/// ring's arbitration decides): the shares of the senders, by node.
fn hot_spot_shares(nodes: usize, rings: usize, hot: usize, law: &str) -> Vec<f64> {
    let text = format!("[network]\nkind = \"gigaring\"\nnodes = {nodes}\n[gigaring]\nrings = {rings}\ntransfers_per_stream = 0\nsharing_law = \"{law}\"\n[traffic]\ntransaction = \"message\"\nblock_words = 32\ndestinations = \"hotspot\"\nhotspot_node = {hot}\nhotspot_fraction = 1.0\nload_mbps_per_node = 2000\n[run]\nmeasure_transactions = 10000\n");
    let r = run(&text, &[]);
    r.per_node.iter().enumerate().filter(|&(n, _)| n != hot).map(|(_, n)| n.throughput_mbps).collect()
}

/// Seed 002: under contention, "the bandwidth allocation protocol reserves
/// an approximately equal portion of the ring bandwidth for each node".
/// Whichever node of an 8- or 12-node channel is hot, on one ring or both,
/// every sender gets within 10% of the mean share (Jain's index at least
/// 0.95), wherever it sits.
#[test]
fn every_sender_gets_an_equal_share_whichever_node_is_hot() {
    for (nodes, rings) in [(8, 1), (8, 2), (12, 1), (12, 2)] {
        for hot in 0..nodes {
            let s = hot_spot_shares(nodes, rings, hot, "equal-share");
            let mean = s.iter().sum::<f64>() / s.len() as f64;
            assert!(jain(&s) >= 0.95 && s.iter().all(|v| (v - mean).abs() <= 0.1 * mean), "{nodes} nodes, {rings} rings, hot {hot}: {s:?}");
        }
    }
}

/// Without bandwidth sharing the node farthest upstream of the hot node
/// takes nearly the whole ring (its packets never wait, the others find no
/// gap) and no node is held; with it every sender's own idles hold it.
#[test]
fn without_sharing_the_farthest_upstream_takes_the_ring() {
    // Nodes 0-7 send to node 8, which only answers.
    let text = "[network]\nkind = \"gigaring\"\nnodes = 9\n[gigaring]\nrings = 1\ntransfers_per_stream = 0\nbandwidth_sharing = false\n[traffic]\ntransaction = \"message\"\nblock_words = 32\nmasters = 8\nload_mbps_per_node = 2000\n[run]\nmeasure_transactions = 10000\n";
    let off = run(text, &[]);
    let senders: f64 = off.per_node[..8].iter().map(|n| n.throughput_mbps).sum();
    assert!(off.per_node[0].throughput_mbps > 0.9 * senders, "{:?}", off.per_node.iter().map(|n| n.throughput_mbps).collect::<Vec<_>>());
    assert_eq!(off.counters.flow_holds, 0);
    let on = run(text, &["gigaring.bandwidth_sharing=true".into()]);
    assert!(on.counters.flow_holds > 1000, "{}", on.counters.flow_holds);
}

/// The law it replaces, one slot of idles per request heard, starves the
/// senders next to the hot node: the fractions the upstream sources give
/// up add up to more than the ring, and the gaps go to the first waiter
/// downstream.
#[test]
fn idles_per_request_starve_the_senders_next_to_the_hot_node() {
    let s = hot_spot_shares(8, 1, 7, "per-request");
    let mean = s.iter().sum::<f64>() / 7.0;
    assert!(s[6] < 0.5 * mean && jain(&s) < 0.95, "{s:?}");
}

/// "In the absence of contention, a single node can consume up to the
/// full bandwidth of the ring": a lone sender of 32-word messages carries
/// a ring's full payload rate, 256 bytes per 82 symbol times at 150 MHz (an
/// 81-symbol packet and its idle), the same as with the sharing off, and
/// twice that on both rings.
#[test]
fn a_lone_sender_takes_the_whole_ring() {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 8\n[gigaring]\ntransfers_per_stream = 0\n[traffic]\ntransaction = \"message\"\nblock_words = 32\nmasters = 1\nload_mbps_per_node = 2000\n[run]\nmeasure_transactions = 10000\n";
    for rings in [1, 2] {
        let on = run(text, &[format!("gigaring.rings={rings}")]).throughput_mbps;
        let off = run(text, &[format!("gigaring.rings={rings}"), "gigaring.bandwidth_sharing=false".into()]).throughput_mbps;
        let full = rings as f64 * 256.0 * 150.0 / 82.0;
        assert!((on - full).abs() < 0.01 * full && (on - off).abs() < 0.005 * off, "{rings} rings: {on} with sharing, {off} without, full {full}");
    }
}

/// "In the absence of contention, a single node can consume up to the
/// full bandwidth of the ring", on long channels too: a node's send
/// buffers and a stream's window cover what it sends while a packet goes
/// round the ring to its echo (Little's law), and a message, done with
/// once accepted, takes none of the client's DMA engines. A lone master of
/// 24 or 64 nodes sending 32-word messages to the others carries at least
/// 90% of both rings' rate of full packets (256 bytes per 82 symbol times
/// at 150 MHz each); reading kiloword blocks from its neighbour on 24
/// nodes, handshakes and all, as much.
#[test]
fn a_lone_node_takes_both_rings_of_a_long_channel() {
    let both_rings = 2.0 * 256.0 * 150.0 / 82.0;
    for nodes in [24, 64] {
        let text = format!("[network]\nkind = \"gigaring\"\nnodes = {nodes}\n[traffic]\ntransaction = \"message\"\nblock_words = 32\nmasters = 1\ndestinations = \"uniform\"\nload_mbps_per_node = 2000\n[run]\nmeasure_transactions = 2000\n");
        let r = run(&text, &[]);
        assert!(r.throughput_mbps >= 0.9 * both_rings, "{nodes} nodes, messages: {} MB/s against {both_rings}", r.throughput_mbps);
    }
    let text = "[network]\nkind = \"gigaring\"\nnodes = 24\n[traffic]\ntransaction = \"readblk\"\nblock_words = 1024\nmasters = 1\ndestinations = \"local\"\nload_mbps_per_node = 2000\n[run]\nmeasure_transactions = 200\n";
    let r = run(text, &[]);
    assert!(r.throughput_mbps >= 0.9 * both_rings, "24 nodes, ReadBlk: {} MB/s against {both_rings}", r.throughput_mbps);
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
    // An engine of two transfers for nine masters: busied set-ups wait for
    // what their streams' windows leave, so the blocks under way go on and
    // every transfer completes.
    let r = run(text, &["traffic.transaction=\"writeblk\"".into(), "gigaring.dma_queue_transfers=2".into()]);
    assert_eq!(r.transactions, 1500, "{:?}", r.conservation);
}

/// Nine masters with mixed clients (messages, ReadBlk and WriteBlk of 64
/// and 512 words) on one ring, to one slave whose DMA engine holds 8
/// transfers: the engine, not the links, bounds the channel
/// (docs/analytic.md). Congestion control "regulates data transfers to
/// minimize retransmission traffic": past that bound the channel goes on
/// carrying what it carries below it. At a load it carries in full, and at
/// half as much again (past the bound: it carries less than it is
/// offered), every transaction completes, the second carries at least 90%
/// of the first, and most packets sent are not retransmissions. (Busied
/// set-ups that kept their send buffer slots, and streams that sent one
/// every round trip at the window's floor, collapsed it to a few MB/s.)
#[test]
fn past_a_slaves_dma_bound_the_channel_carries_on() {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 10\n[gigaring]\nrings = 1\n[traffic]\ntransaction = \"mixed\"\nblock_words = 512\nmasters = 9\nload_mbps_per_node = 40\n[run]\nseed = 7\nmeasure_transactions = 1000\nmax_sim_time_ns = 20000000\n";
    let under = run(text, &[]);
    assert!(under.throughput_mbps >= 0.97 * under.offered_mbps, "{} of {} MB/s", under.throughput_mbps, under.offered_mbps);
    let over = run(text, &["traffic.load_mbps_per_node=60".into()]);
    assert_eq!(over.transactions, 1000, "{:?}", over.conservation);
    assert!(over.throughput_mbps < 0.97 * over.offered_mbps, "not past the bound: {} of {} MB/s", over.throughput_mbps, over.offered_mbps);
    assert!(over.throughput_mbps >= 0.9 * under.throughput_mbps, "{} MB/s past the bound against {} below it", over.throughput_mbps, under.throughput_mbps);
    assert!(2 * over.retries < over.counters.send_packets, "{} of {} packets sent were retransmissions", over.retries, over.counters.send_packets);
}

/// The windows over time (`run.series_interval_ns`): the masters' streams
/// open at `window_max`, close within the first intervals at a congested
/// slave and stay nearly shut; every decrease of the run is in an interval.
#[test]
fn the_windows_close_over_time_at_a_congested_slave() {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 10\n[gigaring]\ndma_queue_transfers = 8\n[traffic]\nblock_words = 256\nmasters = 9\nload_mbps_per_node = 200\n[run]\nmeasure_transactions = 1500\nwarmup_ns = 0\nseries_interval_ns = 10000\n";
    let r = run(text, &[]);
    let w: Vec<f64> = r.per_interval.iter().map(|b| b.window_mean).collect();
    assert!(w.len() > 20, "{} intervals", w.len());
    assert!(w[0] > 8.0 && w[0] <= 16.0, "first interval's mean window {}", w[0]);
    let late = &w[w.len() / 2..];
    let late_mean = late.iter().sum::<f64>() / late.len() as f64;
    assert!(late_mean <= 4.0 && late.iter().all(|&x| x >= 1.0), "later windows {late:?}");
    let decreases: u64 = r.per_interval.iter().map(|b| b.window_decreases).sum();
    assert_eq!(decreases, r.client.as_ref().unwrap().window_decreases);
    let off = run(text, &["gigaring.congestion_control=false".into()]);
    assert!(off.per_interval.iter().all(|b| b.window_mean.is_nan() && b.window_decreases == 0));
    // Without congestion control the retries climb; with it they stay low.
    let retries = |r: &Report| {
        let late = &r.per_interval[r.per_interval.len() / 2..];
        late.iter().map(|b| b.retransmissions).sum::<u64>() as f64 / late.len() as f64
    };
    assert!(2.0 * retries(&r) <= retries(&off), "{} retries per interval in the later half with congestion control, {} without", retries(&r), retries(&off));
}

/// Queue reservation acts at a slave whose client port is the bottleneck
/// (nine masters writing to a port of 400 MB/s): a packet busied twice gets
/// a reserved place (IEEE 1596's A/B allocation), and none without it.
#[test]
fn queue_reservation_reserves_at_a_congested_port() {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 10\n[gigaring]\nclient_port_mbps = 400\ndma_queue_transfers = 0\n[traffic]\ntransaction = \"writeblk\"\nblock_words = 256\nmasters = 9\nload_mbps_per_node = 200\n[run]\nmeasure_transactions = 500\n";
    let on = run(text, &[]);
    assert!(on.counters.reservations > 0 && on.counters.busy_requests_reserved > 0, "{:?}", on.counters);
    let off = run(text, &["gigaring.queue_reservation=false".into()]);
    assert_eq!((off.counters.reservations, off.counters.busy_requests_reserved), (0, 0));
}

/// Seed 002's half duplex at its peak: node 0 reads 1024-word blocks from
/// node 1; the responses, 32-word packets of 82 symbols (4 header, 12
/// framing, 64 payload, 1 checksum, 1 idle) on both rings of 150 MHz, bound
/// the channel at 2 x 256 B per 82 cycles. The DMA engine keeps the
/// responses coming as their echoes free the send buffers: the channel
/// carries within 5% of the bound.
#[test]
fn half_duplex_reads_run_at_the_rings_rate() {
    let r = run("[network]\nkind = \"gigaring\"\nnodes = 2\n[traffic]\nmasters = 1\nblock_words = 1024\nload_mbps_per_node = 2000\n[run]\nmeasure_transactions = 300\n", &[]);
    let bound = 2.0 * 256.0 * 150.0 / 82.0;
    assert!(r.throughput_mbps <= bound && r.throughput_mbps >= 0.95 * bound, "{} MB/s against the rings' {bound}", r.throughput_mbps);
    // The packet slots are reused: the most packets alive at once stays
    // small while the run sends thousands.
    assert!(r.counters.send_packets > 9000 && r.packets_peak < 500, "{} sent, {} alive at most", r.counters.send_packets, r.packets_peak);
}

/// A master whose client port drains slower than the rings bring its
/// responses in busies them (responses belong to no stream's window: they
/// go again at once, congestion control or not); every read completes at
/// about the port's rate.
#[test]
fn responses_busied_at_a_slow_master_go_again() {
    let text = "[network]\nkind = \"gigaring\"\nnodes = 2\n[gigaring]\nclient_port_mbps = 300\n[traffic]\nmasters = 1\nblock_words = 1024\nload_mbps_per_node = 2000\n[run]\nmeasure_transactions = 200\n";
    for cc in [true, false] {
        let r = run(text, &[format!("gigaring.congestion_control={cc}")]);
        assert_eq!(r.transactions, 200, "{:?}", r.conservation);
        let responses = r.per_class.iter().find(|c| c.name == "read-response").unwrap();
        assert!(responses.retries > 1000 && responses.retries == r.retries, "{} response retries of {}", responses.retries, r.retries);
        assert!(r.throughput_mbps < 300.0 && r.throughput_mbps > 0.7 * 300.0, "{} MB/s", r.throughput_mbps);
    }
}

/// One master reads from the one slave of a two-node channel with a hot
/// spot: the slave is the hot spot and the only other node, so every
/// transaction goes there (a draw among the others would be empty). Below
/// saturation it carries what it offers, and the analytic model sends all
/// of it there too, whatever the hot spot's share (its traffic matrix lost
/// the rest before): the same saturation as uniform traffic.
#[test]
fn a_hot_spot_that_is_the_only_slave_takes_everything() {
    let two = |extra: &[&str]| {
        let mut sets: Vec<String> = ["traffic.masters=1", "traffic.load_mbps_per_node=100", "run.measure_transactions=2000"].map(String::from).to_vec();
        sets.extend(extra.iter().map(|e| e.to_string()));
        run("[network]\nkind = \"gigaring\"\nnodes = 2\n", &sets)
    };
    let uniform = two(&[]);
    for fraction in ["traffic.hotspot_fraction=0.5", "traffic.hotspot_fraction=0.95"] {
        let r = two(&["traffic.destinations=\"hotspot\"", fraction]);
        assert!((r.throughput_mbps - 100.0).abs() < 5.0, "{fraction}: {}", r.throughput_mbps);
        assert_eq!(r.model_saturation_load_mbps_per_node, uniform.model_saturation_load_mbps_per_node, "{fraction}");
    }
}
