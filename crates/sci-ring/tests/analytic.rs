//! The analytic estimate's formulas (docs/analytic.md) on rings small
//! enough to work out by hand: the bound is the seed's arithmetic, the
//! unloaded latency the ring's timing conventions, and the waits
//! Pollaczek-Khinchine's and Cobham's formulas on each resource.

use ringlet_engine::time::{time_to_ns, time_to_s};
use ringlet_fabric::analytic::{Legs, Plan};
use ringlet_fabric::{Analytic, Fabric};
use ringlet_sci::keys::Settings;
use ringlet_sci::protocol::sci::BaseSci;

/// A ring with its traffic sources (not run), and its parameters.
fn ring(settings: &[&str]) -> (Fabric<BaseSci>, ringlet_fabric::params::Params) {
    let o: Vec<_> = settings.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    let s = ringlet_sci::load_str("", &o).expect("valid scenario");
    let p = ringlet_sci::params::params(&Settings::of(&s)).expect("valid params");
    let t = ringlet_sci::ring::topology(&s, &Settings::of(&s));
    let protocols = ringlet_sci::ring::instances::<BaseSci>(&t, &p, &s).expect("protocols");
    (Fabric::new(&s, t, p.clone(), protocols), p)
}

fn model(settings: &[&str]) -> (Analytic, ringlet_fabric::params::Params, Fabric<BaseSci>) {
    let (f, p) = ring(settings);
    let load: f64 = settings.iter().find_map(|e| e.strip_prefix("traffic.load_mbps_per_node=")).map_or(50.0, |v| v.parse().unwrap());
    (f.analytic(load).expect("traffic sources"), p, f)
}

/// Uniform read64 traffic saturates the links where the seed's arithmetic
/// says (`uniform_bound_mbps`: 30 link slots per transaction with one idle;
/// the seed's 1.14 GB/s with none), on any number of nodes.
#[test]
fn the_bound_is_the_seeds_arithmetic() {
    for nodes in [3, 8, 64] {
        for idles in [0, 1, 3] {
            let n = format!("network.nodes={nodes}");
            let i = format!("network.idle_symbols_between_packets={idles}");
            let (m, p, _) = model(&[&n, &i, "traffic.load_mbps_per_node=10"]);
            let bound = ringlet_sci::params::uniform_bound_mbps(&p);
            let total = m.saturation_load_mbps_per_node * nodes as f64;
            assert!((total - bound).abs() < 1e-9 * bound, "{nodes} nodes, {idles} idles: {total} against {bound}");
            assert!(m.bottleneck.starts_with("link out of"), "{}", m.bottleneck);
            // Below saturation, the offered load.
            assert!(m.utilization < 1.0 && (m.throughput_mbps - 10.0 * nodes as f64).abs() < 1e-9, "{}", m.throughput_mbps);
        }
    }
    // Beyond it, the bound.
    let (m, p, _) = model(&["traffic.load_mbps_per_node=400"]);
    assert!((m.throughput_mbps - ringlet_sci::params::uniform_bound_mbps(&p)).abs() < 1e-6);
    assert!(m.utilization > 1.0 && m.latency_ns_mean.is_nan());
    // A slow responder input queue saturates first: one request per IQST.
    let (m, _, _) = model(&["node.iqst_ns=1000", "traffic.load_mbps_per_node=10"]);
    assert!((m.saturation_load_mbps_per_node - 64.0).abs() < 1e-9, "{}", m.saturation_load_mbps_per_node);
    assert!(m.bottleneck.starts_with("request input queue"), "{}", m.bottleneck);
}

/// On an idle two-node ring a packet's latency is its hop, its symbols and
/// its service (ring_timing.rs's conventions); requests and responses count alike.
#[test]
fn the_unloaded_latency_is_the_rings_timing() {
    let (m, p, f) = model(&["network.nodes=2", "traffic.load_mbps_per_node=0.000001"]);
    let s = p.shape();
    let one = |len: u16, iqst| time_to_ns(f.topology().strip_hop(0) + len as u64 * p.cycle + iqst);
    let expected = (one(s.request_len, p.iqst[s.request_class as usize]) + one(s.response_len, p.iqst[s.response_class as usize])) / 2.0;
    assert!((m.latency_ns_mean - expected).abs() < 1e-3, "{} against {expected}", m.latency_ns_mean);
}

/// The waits on a two-node ring at 100 MB/s per node, by hand: each link
/// carries its node's requests and responses (own, rate lambda each) and
/// the echoes of what the other node sent it (passing, 2 lambda); an own
/// packet waits Cobham's R / ((1 - rho_passing)(1 - rho)); each input queue
/// is an M/D/1 queue of lambda packets per second.
#[test]
fn the_waits_are_the_m_g_1_formulas() {
    let load = 100.0;
    let (m, p, f) = model(&["network.nodes=2", "traffic.load_mbps_per_node=100", "node.iqst_ns=300"]);
    let s = p.shape();
    let c = time_to_s(p.cycle);
    let lambda = load * 1e6 / s.data_bytes as f64;
    let hold = |len: u16| (len as f64 + p.separator as f64) * c;
    let (q, r, e) = (hold(s.request_len), hold(s.response_len), hold(p.echo_len));
    let own = lambda * (q + r);
    let passing = 2.0 * lambda * e;
    let second = lambda * (q * q + r * r) + 2.0 * lambda * e * e;
    let link = second / (2.0 * (1.0 - passing) * (1.0 - own - passing));
    let md1 = |t: f64| lambda * t * t / (2.0 * (1.0 - lambda * t));
    let (tq, tr) = (time_to_s(p.iqst[s.request_class as usize]), time_to_s(p.iqst[s.response_class as usize]));
    let unloaded = |len: u16, t: f64| time_to_s(f.topology().strip_hop(0)) + len as f64 * c + t;
    let expected = (unloaded(s.request_len, tq) + md1(tq) + unloaded(s.response_len, tr) + md1(tr)) / 2.0 + link;
    assert!((m.latency_ns_mean - expected * 1e9).abs() < 1e-6, "{} against {}", m.latency_ns_mean, expected * 1e9);
    assert!((m.utilization - (own + passing).max(lambda * tq).max(lambda * tr)).abs() < 1e-12);
}

/// Beyond `max_pairs`, one destination in `k` (odd) stands for the run of
/// `k` around it, runs taken from each source's own place on
/// (docs/analytic.md): on a ring each link's utilisation, and so the
/// saturation load, is then within (k - 1) / (N - 1) of the figure with
/// every pair walked, and the mean latency too; uniform and hot-spot
/// reads, uniform writes. With uniform traffic every source's runs are
/// the same turned, each a whole number of hops on from the last, and a
/// run's middle destination is as far as its mean: where the last run is
/// of odd length too (300 = 100 x 3 = 33 x 9 + 3 = 9 x 33 + 3), the
/// figures are every pair's, rounding apart. Up to the bound, every pair
/// is walked.
#[test]
fn sampled_pairs_are_within_the_stated_error() {
    let n = 301;
    let nodes = format!("network.nodes={n}");
    for extra in [&[][..], &["traffic.transaction=\"write64\""], &["traffic.destinations=\"hotspot\"", "traffic.hotspot_node=40"]] {
        let settings: Vec<&str> = [nodes.as_str(), "traffic.load_mbps_per_node=0.5"].into_iter().chain(extra.iter().copied()).collect();
        let uniform = !extra.iter().any(|e| e.contains("hotspot"));
        let (f, _) = ring(&settings);
        let every = |max_pairs| f.analytic_by(0.5, Plan { max_pairs, legs: Some(Legs::ByRun) }).expect("traffic sources");
        let pairs = n * (n - 1);
        let exact = every(pairs);
        assert_eq!(exact.stride, 1);
        for k in [3, 9, 33] {
            let m = every(pairs.div_ceil(k));
            assert_eq!(m.stride, k, "{extra:?}");
            let bound = if uniform { 1e-9 } else { (k - 1) as f64 / (n - 1) as f64 };
            let apart = |a: f64, b: f64| ((a - b) / a).abs();
            assert!(apart(exact.saturation_load_mbps_per_node, m.saturation_load_mbps_per_node) <= bound, "{extra:?}, k {k}: {} against {}", m.saturation_load_mbps_per_node, exact.saturation_load_mbps_per_node);
            assert!(apart(exact.latency_ns_mean, m.latency_ns_mean) <= bound, "{extra:?}, k {k}: {} against {}", m.latency_ns_mean, exact.latency_ns_mean);
        }
    }
}

/// By default a ring's every pair is walked, link by link while that is
/// little work (then the figures are bit for bit those first written,
/// tests/recorded_results.rs), by runs beyond; from 1,449 nodes, one pair
/// in an odd `k`.
#[test]
fn the_default_plan_walks_every_pair_of_a_ring_to_1448_nodes() {
    for (n, legs, stride) in [(8, Legs::ByHop, 1), (256, Legs::ByHop, 1), (512, Legs::ByRun, 1), (1448, Legs::ByRun, 1), (1449, Legs::ByRun, 3)] {
        let (f, _) = ring(&[&format!("network.nodes={n}")]);
        let m = f.analytic(50.0).expect("traffic sources");
        assert_eq!((m.legs, m.stride), (legs, stride), "{n} nodes");
    }
}
