//! The fold's figures against the detection time and the reinitialisation
//! (docs/assumptions.md, GigaRing): `cargo run --release -p ringlet-gigaring
//! --example fold_sensitivity [scenario.toml]` (default: the shipped
//! scenarios/gigaring/fold-8node.toml), one line per setting.

use ringlet_fabric::family::Mode;
use ringlet_gigaring::GIGARING;

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/gigaring/fold-8node.toml").to_string());
    let text = std::fs::read_to_string(&path).expect("the scenario");
    println!("| detection_ns | reinit_circulations | resent | duplicates | held | lost at fold | lost after | worst 2 us interval MB/s | its mean latency ns | throughput after MB/s | latency after ns |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (detection, reinit) in [(0, 0), (1_000, 4), (10_000, 0), (10_000, 4), (10_000, 40), (100_000, 4)] {
        let overrides: Vec<_> = [format!("faults.detection_ns={detection}"), format!("faults.reinit_circulations={reinit}")].iter().map(|e| ringlet_scenario::parse_override(e).unwrap()).collect();
        let s = ringlet_gigaring::load_str(&text, &overrides).unwrap();
        let r = (GIGARING.run)(&s, Mode::Plain).unwrap().report;
        let rc = r.reconfiguration.as_ref().unwrap();
        // The worst interval from the failure on, and the latency peak there.
        let after: Vec<_> = r.per_interval.iter().filter(|b| b.start_ns >= rc.at_ns).collect();
        let worst = after.iter().take(200).min_by(|a, b| a.throughput_mbps.total_cmp(&b.throughput_mbps)).unwrap();
        let peak = after.iter().take(200).filter(|b| b.transactions > 0).map(|b| b.transaction_latency_ns_mean).fold(f64::NAN, f64::max);
        println!(
            "| {detection} | {reinit} | {} | {} | {} | {} | {} | {:.0} | {:.0} (peak) | {:.0} | {:.0} |",
            rc.resent, rc.duplicates_suppressed, rc.held, rc.lost_at_fold, rc.lost_after_fold, worst.throughput_mbps, peak, rc.throughput_after_mbps, rc.transaction_latency_after_ns
        );
    }
}
