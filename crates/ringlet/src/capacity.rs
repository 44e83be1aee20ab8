//! A quick estimate of what a scenario's network can carry per sending
//! node, for the pre-flight warning that a run's offered load is far above
//! it (`ringlet.api.preflight`).
//!
//! Each bound is deliberately simple and generous: the warning fires only
//! far above it. The analytic model of each family (issue 42, part 3) gives
//! its saturation bound; when it lands, it replaces the body of
//! [`capacity_mbps_per_node`], the one place this estimate is made.

use ringlet_scenario::{Destinations, Scenario};

/// An upper estimate of the load one sending node can have carried, in the
/// unit of `traffic.load_mbps_per_node` (over all its priorities), MB/s;
/// `None` where no simple bound holds (an SCI ring's `local` traffic never
/// crosses most links).
///
/// - SCI ring: the uniform-traffic bound of the ring
///   ([`ringlet_sci::params::uniform_bound_mbps`], the seed's 1.14 GB/s
///   with its idles, whatever the ring's size) shared by its nodes;
/// - one SCI switch or a Banyan: a processor's own link, 2 bytes a symbol
///   cycle (the load there is the raw input rate, as this is);
/// - GigaRing: a master's links on every ring in use, 4 bytes a clock.
pub fn capacity_mbps_per_node(s: &Scenario) -> Option<f64> {
    let nodes = s.network.nodes as f64;
    match s.network.kind {
        "sci-ring" => {
            if s.traffic.destinations == Destinations::Local {
                return None;
            }
            let k = ringlet_sci::keys::Settings::of(s);
            let p = ringlet_sci::params::params(&k).ok()?;
            Some(ringlet_sci::params::uniform_bound_mbps(&p) / nodes)
        }
        "sci-switch" | "banyan" => Some(2.0 * 1e3 / s.section("network").float("cycle_ns")),
        "gigaring" => {
            let g = s.section("gigaring");
            Some(g.int("rings") as f64 * 4.0 * g.float("clock_mhz"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::capacity_mbps_per_node;

    fn estimate(text: &str) -> Option<f64> {
        capacity_mbps_per_node(&crate::load_str(text, &[]).expect("a valid scenario"))
    }

    /// Each family's bound from its own figures: the ring's uniform bound
    /// (1,066.7 MB/s with one idle) over its nodes, a switch port's 500 MB/s
    /// at 4 ns symbols, two GigaRing rings of 600 MB/s.
    #[test]
    fn each_family_has_its_simple_bound() {
        let ring = estimate("[network]\nnodes = 8\n").unwrap();
        assert!((ring - 64.0 / (30.0 * 2e-9) / 1e6 / 8.0).abs() < 1e-9, "{ring}");
        assert_eq!(estimate("[network]\nnodes = 8\n[traffic]\ndestinations = \"local\"\n"), None);
        assert_eq!(estimate("[network]\nkind = \"banyan\"\nnodes = 16\n"), Some(500.0));
        assert_eq!(estimate("[network]\nkind = \"sci-switch\"\nnodes = 2\n"), Some(500.0));
        assert_eq!(estimate("[network]\nkind = \"gigaring\"\nnodes = 2\n"), Some(1200.0));
        assert_eq!(estimate("[network]\nkind = \"gigaring\"\nnodes = 2\n[gigaring]\nrings = 1\n"), Some(600.0));
    }
}
