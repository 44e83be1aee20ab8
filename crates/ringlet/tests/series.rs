//! `run.series_interval_ns` keeps every family's run interval by interval,
//! and the intervals add up to the run: the transactions and data they
//! count are the measured ones, the packets' latencies average to the
//! summary's mean. Without the key the report has no series and the same
//! figures (the recorded results guard that bit for bit).

use ringlet::registry;

fn run(file: &str, sets: &[&str]) -> ringlet_fabric::Report {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(file);
    let o: Vec<_> = sets.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    let s = registry().load_file(&path, &o).expect("a valid scenario");
    registry().run(&s).expect("a run").report
}

#[test]
fn every_familys_intervals_add_up_to_its_run() {
    for file in ["scenarios/sci-rt/dfc-8node.toml", "scenarios/sci-switch/uO2nS4.toml", "scenarios/banyan/uO2nS16.toml", "scenarios/gigaring/mixed-8node.toml"] {
        let r = run(file, &["run.measure_transactions=4000", "run.series_interval_ns=5000"]);
        let series = &r.per_interval;
        assert!(series.len() > 2, "{file}: {} intervals", series.len());
        let steps: Vec<f64> = series.windows(2).map(|w| w[1].start_ns - w[0].start_ns).collect();
        assert!(steps.iter().all(|&d| (d - 5000.0).abs() < 1e-6), "{file}: {steps:?}");
        assert_eq!(series.iter().map(|b| b.transactions).sum::<u64>(), r.transactions, "{file}");
        let packets: Vec<f64> = series.iter().filter(|b| !b.latency_ns_mean.is_nan()).map(|b| b.latency_ns_mean).collect();
        assert!(!packets.is_empty(), "{file}: no packet latency");
        assert_eq!(series.iter().map(|b| b.retransmissions).sum::<u64>(), r.retries, "{file}");
        // Data: the intervals' throughput times their length is the run's data.
        let end = r.sim_time_ns;
        let bytes: f64 = series.iter().map(|b| b.throughput_mbps * ((b.start_ns + 5000.0).min(end) - b.start_ns) * 1e-3).sum();
        let measured = r.throughput_mbps * (end - series[0].start_ns) * 1e-3;
        assert!((bytes - measured).abs() <= 1e-6 * measured, "{file}: {bytes} bytes in the intervals, {measured} measured");
        let gigaring = file.contains("gigaring");
        assert_eq!(series.iter().any(|b| !b.transaction_latency_ns_mean.is_nan()), gigaring, "{file}: transaction latencies");
        let plain = run(file, &["run.measure_transactions=4000"]);
        assert!(plain.per_interval.is_empty(), "{file}: a series without the key");
        assert_eq!((plain.transactions, plain.throughput_mbps, plain.latency_ns_mean), (r.transactions, r.throughput_mbps, r.latency_ns_mean), "{file}: the series moved a result");
    }
}
