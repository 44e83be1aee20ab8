//! `ringlet bench`: simulator speed on the reference workloads (SPEC section 7).
//!
//! Each workload runs `repeats` times; the figures reported are medians.
//! Speed is measured here, never asserted in tests.

use ringlet_scenario::ScenarioError;
use serde::Serialize;

/// A named benchmark workload: scenario text.
pub struct Workload {
    pub name: &'static str,
    pub description: &'static str,
    pub scenario: &'static str,
}

/// SPEC section 7's reference workload (DFC at saturation), base SCI on the
/// same ring for comparison, and a 64-node ring.
pub const WORKLOADS: &[Workload] = &[
    Workload {
        name: "reference-8node",
        description: "8-node ring, DFC, read64, uniform, Poisson, 150 MB/s per node, IQST 100 ns (saturation)",
        scenario: "[network]\nnodes = 8\nprotocol = \"dfc\"\n[node]\niqst_ns = 100.0\n[traffic]\nload_mbps_per_node = 150.0\n[run]\nmeasure_transactions = 200000\n",
    },
    Workload {
        name: "sci-8node",
        description: "8-node ring, base SCI, read64, uniform, Poisson, 150 MB/s per node, IQST 100 ns (saturation)",
        scenario: "[network]\nnodes = 8\nprotocol = \"sci\"\n[node]\niqst_ns = 100.0\n[traffic]\nload_mbps_per_node = 150.0\n[run]\nmeasure_transactions = 200000\n",
    },
    Workload {
        name: "ring-64node",
        description: "64-node ring, base SCI, read64, uniform, Poisson, 20 MB/s per node, IQST 100 ns",
        scenario: "[network]\nnodes = 64\nprotocol = \"sci\"\n[node]\niqst_ns = 100.0\n[traffic]\nload_mbps_per_node = 20.0\n[run]\nmeasure_transactions = 100000\n",
    },
];

#[derive(Clone, Debug, Serialize)]
pub struct BenchFigure {
    pub workload: &'static str,
    pub description: &'static str,
    pub repeats: usize,
    /// Median over repeats: packet-hops simulated per wall second.
    pub packet_hops_per_s: f64,
    /// Median over repeats: transactions completed per wall second (whole run).
    pub transactions_per_s: f64,
    /// Median over repeats: simulated time / wall time.
    pub sim_to_wall: f64,
    pub wall_s_median: f64,
    pub wall_s_all: Vec<f64>,
    pub packet_hops: u64,
    pub transactions: u64,
    pub throughput_mbps: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub ringlet_version: &'static str,
    pub workloads: Vec<BenchFigure>,
    /// Headline figures: those of the reference workload.
    pub packet_hops_per_s: f64,
    pub transactions_per_s: f64,
    pub sim_to_wall: f64,
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// Runs one workload `repeats` times.
pub fn run_workload(w: &Workload, repeats: usize, quick: bool) -> Result<BenchFigure, ScenarioError> {
    let overrides: Vec<(String, String)> =
        if quick { vec![("run.measure_transactions".into(), "5000".into())] } else { Vec::new() };
    let scenario = ringlet_scenario::load_str(w.scenario, &overrides)?;
    let mut hops = Vec::new();
    let mut txns = Vec::new();
    let mut ratio = Vec::new();
    let mut walls = Vec::new();
    let mut last = None;
    for _ in 0..repeats.max(1) {
        let r = crate::run(&scenario)?;
        let wall = r.wall_time_s.max(1e-9);
        hops.push(r.report.counters.packet_hops as f64 / wall);
        txns.push(r.report.conservation.completed as f64 / wall);
        ratio.push(r.report.sim_time_ns * 1e-9 / wall);
        walls.push(wall);
        last = Some(r);
    }
    let r = last.expect("at least one repeat");
    Ok(BenchFigure {
        workload: w.name,
        description: w.description,
        repeats: repeats.max(1),
        packet_hops_per_s: median(hops),
        transactions_per_s: median(txns),
        sim_to_wall: median(ratio),
        wall_s_median: median(walls.clone()),
        wall_s_all: walls,
        packet_hops: r.report.counters.packet_hops,
        transactions: r.report.conservation.completed,
        throughput_mbps: r.report.throughput_mbps,
    })
}

/// Runs every workload; `quick` shortens them (for tests of the command, not for figures).
pub fn run_all(repeats: usize, quick: bool) -> BenchReport {
    let workloads: Vec<BenchFigure> =
        WORKLOADS.iter().map(|w| run_workload(w, repeats, quick).expect("built-in workloads are valid")).collect();
    let head = &workloads[0];
    BenchReport {
        ringlet_version: crate::VERSION,
        packet_hops_per_s: head.packet_hops_per_s,
        transactions_per_s: head.transactions_per_s,
        sim_to_wall: head.sim_to_wall,
        workloads,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(super::median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(super::median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
