//! The B-Link as seed 001 section III states it: between one pair of
//! ports a transfer reaches the port rate of 500 MB/s while the other pair
//! carries at most 100 MB/s; with both pairs in full duplex each port
//! direction gets about 150 MB/s.

use ringlet_engine::time::ns_to_time;
use ringlet_fabric::topology::{Member, TopologyBuilder};
use ringlet_fabric::Fabric;
use ringlet_sci::protocol::sci::BaseSci;
use ringlet_switch::keys::Settings;
use ringlet_switch::params;

/// Raw bytes of a DMOVE64 packet with its idles.
const RAW: f64 = 84.0;
/// Injection window.
const WINDOW_NS: f64 = 200_000.0;

/// One 4-port switch; agents A, B, C, D each on its own 2-node ringlet with
/// a port. `flows` are (source, destination, raw MB/s) of deterministic
/// DMOVE64 streams; returns each flow's delivered raw MB/s over the window.
fn carried(flows: &[(u16, u16, f64)]) -> Vec<f64> {
    let text = "[network]\nkind = \"sci-switch\"\nnodes = 2\n[traffic]\nload_mbps_per_node = 0\n[run]\nwarmup_ns = 0\n";
    let s = ringlet_switch::load_str(text, &[]).unwrap();
    let k = Settings::of(&s);
    let mut b = TopologyBuilder::new();
    let ends: Vec<_> = ["A", "B", "C", "D"].iter().map(|l| b.agent(*l, true)).collect();
    let switch = b.agent("switch", false);
    b.ports(switch, params::switch_ports(&k));
    b.bus(switch, params::blink(&k));
    let (pass, strip) = (ns_to_time(1.0 + 48.0), ns_to_time(1.0 + 20.0));
    for &e in &ends {
        b.ringlet_of(&[Member { agent: e, hop: pass, strip_hop: strip }, Member { agent: switch, hop: pass, strip_hop: strip }]);
    }
    let t = b.build().unwrap();
    let p = params::params(&k);
    let protocols = (0..t.ringlets() as u16).map(|r| BaseSci::new(&t.view(r), &p, true, true)).collect();
    let mut f: Fabric<BaseSci> = Fabric::hand_built(&s, t, p, protocols);
    for &(src, dst, mbps) in flows {
        let period = RAW * 1e3 / mbps; // ns
        let mut at = 0.0;
        while at < WINDOW_NS {
            f.inject(src, dst, 0, ns_to_time(at));
            at += period;
        }
    }
    f.run_until(ns_to_time(WINDOW_NS));
    let r = f.report();
    flows.iter().map(|&(src, ..)| r.per_node[src as usize].transactions as f64 * RAW / (WINDOW_NS * 1e-9) / 1e6).collect()
}

#[test]
fn one_port_pair_alone_reaches_the_port_rate_beside_100_mbps() {
    let got = carried(&[(0, 1, 500.0), (2, 3, 100.0)]);
    assert!((got[0] - 500.0).abs() < 0.02 * 500.0, "A to B: {got:?}");
    assert!((got[1] - 100.0).abs() < 0.02 * 100.0, "C to D: {got:?}");
}

#[test]
fn both_pairs_in_full_duplex_get_about_150_mbps_each_way() {
    let got = carried(&[(0, 1, 500.0), (1, 0, 500.0), (2, 3, 500.0), (3, 2, 500.0)]);
    for (k, g) in got.iter().enumerate() {
        assert!((g - 150.0).abs() < 0.1 * 150.0, "flow {k}: {got:?}");
    }
    // The bus is the bottleneck: the four share it equally.
    let (lo, hi) = got.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &g| (lo.min(g), hi.max(g)));
    assert!(hi - lo < 0.03 * hi, "{got:?}");
}
