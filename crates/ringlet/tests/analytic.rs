//! The analytic estimate beside every run (`model_*` in the report,
//! docs/analytic.md): at low load every family's simulation lands within
//! the stated margins of the model, and past saturation no family carries
//! more than the model's bound.

use ringlet::registry;

fn run(file: &str, sets: &[String]) -> ringlet_fabric::Report {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(file);
    let o: Vec<_> = sets.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    let s = registry().load_file(&path, &o).expect("a valid scenario");
    registry().run(&s).expect("a run").report
}

/// The model's saturation load per node of `file` (a short run gives it).
fn saturation(file: &str) -> f64 {
    let r = run(file, &["run.measure_transactions=200".into()]);
    assert!(r.model_saturation_load_mbps_per_node.is_finite() && r.model_saturation_load_mbps_per_node > 0.0, "{file}");
    r.model_saturation_load_mbps_per_node
}

/// docs/analytic.md's margins at 10% of the model's saturation load: the
/// throughput within 3% (it is the offered load there) beyond its 95%
/// confidence interval, the mean latency within `margin`.
#[test]
fn every_family_meets_the_model_at_low_load() {
    let cases = [
        ("scenarios/sci/base-8node.toml", 0.05),
        ("scenarios/sci-rt/ppq-8node.toml", 0.05),
        ("scenarios/sci-rt/dfc-8node.toml", 0.05),
        ("scenarios/sci-rt/train-8node.toml", 0.15),
        ("scenarios/sci-switch/uO2nS2.toml", 0.15),
        ("scenarios/sci-switch/bO2nS2.toml", 0.15),
        ("scenarios/banyan/uO4nS16.toml", 0.15),
        ("scenarios/gigaring/p2p-half-duplex.toml", 0.15),
        ("scenarios/gigaring/mixed-8node.toml", 0.15),
    ];
    for (file, margin) in cases {
        let load = 0.1 * saturation(file);
        let r = run(file, &[format!("traffic.load_mbps_per_node={load}"), "run.measure_transactions=4000".into()]);
        let thr = (r.throughput_mbps - r.model_throughput_mbps).abs() - r.throughput_mbps_ci95;
        assert!(thr <= 0.03 * r.model_throughput_mbps, "{file}: throughput {} against the model's {}", r.throughput_mbps, r.model_throughput_mbps);
        let lat = (r.latency_ns_mean - r.model_latency_ns_mean).abs() / r.model_latency_ns_mean;
        assert!(lat <= margin, "{file}: latency {} against the model's {} ({:.1}%)", r.latency_ns_mean, r.model_latency_ns_mean, 100.0 * lat);
        assert!(!r.model_bottleneck.is_empty(), "{file}");
    }
}

/// Past saturation the model's throughput is its bound (offered / busiest
/// utilisation), and the simulation carries no more than it.
#[test]
fn no_family_carries_more_than_the_models_bound() {
    for file in ["scenarios/sci/base-8node.toml", "scenarios/sci-switch/uO2nS4.toml", "scenarios/sci-switch/bO2nS2.toml", "scenarios/gigaring/p2p-half-duplex.toml", "scenarios/gigaring/mixed-8node.toml"] {
        let load = 1.5 * saturation(file);
        let r = run(file, &[format!("traffic.load_mbps_per_node={load}"), "run.measure_transactions=3000".into(), "run.max_sim_time_ns=400000".into()]);
        assert!((r.model_throughput_mbps - r.offered_mbps / 1.5).abs() <= 1e-6 * r.offered_mbps, "{file}: the bound {} of {} offered", r.model_throughput_mbps, r.offered_mbps);
        assert!(r.model_latency_ns_mean.is_nan(), "{file}: a latency beyond saturation");
        assert!(r.throughput_mbps <= 1.01 * r.model_throughput_mbps, "{file}: {} carried against the bound {}", r.throughput_mbps, r.model_throughput_mbps);
    }
}

/// GigaRing's `shortest` ring choice in the model: where both rings are as
/// far (every packet of a two-node channel) the load is parted over both,
/// as `per-packet` parts it, so the two saturate at the same load; on the
/// mixed 8-node channel the shorter ways carry each packet's data fewer
/// hops, so `shortest` saturates later, and past it the simulation carries
/// no more than the model's bound.
#[test]
fn shortest_parts_equal_ways_in_the_model() {
    let sat = |file: &str, rule: &str| {
        let r = run(file, &[format!("gigaring.load_balancing=\"{rule}\""), "run.measure_transactions=200".into()]);
        r.model_saturation_load_mbps_per_node
    };
    let p2p = "scenarios/gigaring/p2p-half-duplex.toml";
    assert_eq!(sat(p2p, "shortest"), sat(p2p, "per-packet"));
    let mixed = "scenarios/gigaring/mixed-8node.toml";
    let (shortest, balanced) = (sat(mixed, "shortest"), sat(mixed, "per-packet"));
    assert!(shortest > 1.2 * balanced, "{shortest} against {balanced}");
    let r = run(mixed, &["gigaring.load_balancing=\"shortest\"".into(), format!("traffic.load_mbps_per_node={}", 1.5 * shortest), "run.measure_transactions=3000".into(), "run.max_sim_time_ns=400000".into()]);
    assert!(r.throughput_mbps <= 1.01 * r.model_throughput_mbps, "{} carried against the bound {}", r.throughput_mbps, r.model_throughput_mbps);
}
