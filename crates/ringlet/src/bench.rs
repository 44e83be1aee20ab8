//! `ringlet bench`: simulator speed on the reference workloads (SPEC section
//! 7): every registered family's, the first being the headline.
//!
//! Each workload runs `repeats` times, the workloads taking turns; the
//! figures reported are medians. Right after each run the yardstick loop
//! (`yardstick.rs`) runs as many hops on as many nodes with as many packets
//! in flight, and the pair's ratio of packet-hops per second is the
//! workload's `floor_ratio` (the median over its pairs): the figure that
//! survives a host's drifting speed and compares machines. Speed is
//! measured here, never asserted in tests.

use ringlet_fabric::family::Workload;
use ringlet_scenario::ScenarioError;
use serde::Serialize;

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
    /// Median over repeats of the run's packet-hops/s over the yardstick
    /// loop's, run right after it.
    pub floor_ratio: f64,
    /// Each repeat's ratio, in the order run (their spread says how far a
    /// shared host's drift reached into the ratio).
    pub floor_ratio_all: Vec<f64>,
    /// Median over repeats: the yardstick loop's packet-hops per wall second.
    pub floor_packet_hops_per_s: f64,
    /// The yardstick loop's nodes (the workload's ring interfaces) and
    /// packets in flight (the most the workload had alive at once).
    pub floor_nodes: usize,
    pub floor_packets: u64,
    pub packet_hops: u64,
    /// Events the run handled per packet-hop (whole run; the same in every
    /// repeat): the simulation's cost in events, apart from their price.
    pub events_per_hop: f64,
    /// The same by kind of event (`head_arrive`, `output_free`, `echo_in`,
    /// `service_done`, `bus_free`, `queued`, `emit_control`, `requeue`, ...;
    /// kinds the run had none of left out).
    pub events_per_hop_by_kind: std::collections::BTreeMap<&'static str, f64>,
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
    pub floor_ratio: f64,
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

/// One workload's repeats so far.
struct Samples {
    hops: Vec<f64>,
    txns: Vec<f64>,
    ratio: Vec<f64>,
    walls: Vec<f64>,
    floor: Vec<f64>,
    floor_ratio: Vec<f64>,
    last: Option<crate::RunResult>,
}

impl Samples {
    fn new() -> Self {
        Samples { hops: Vec::new(), txns: Vec::new(), ratio: Vec::new(), walls: Vec::new(), floor: Vec::new(), floor_ratio: Vec::new(), last: None }
    }

    /// A run and the yardstick loop's run right after it.
    fn add(&mut self, r: crate::RunResult, floor: &crate::yardstick::LoopRun) {
        let wall = r.wall_time_s.max(1e-9);
        let hops = r.report.counters.packet_hops as f64 / wall;
        self.hops.push(hops);
        self.txns.push(r.report.conservation.completed as f64 / wall);
        self.ratio.push(r.report.sim_time_ns * 1e-9 / wall);
        self.walls.push(wall);
        self.floor.push(floor.hops_per_s());
        self.floor_ratio.push(hops / floor.hops_per_s());
        self.last = Some(r);
    }

    fn figure(self, w: &Workload) -> BenchFigure {
        let r = self.last.expect("at least one repeat");
        let (floor_nodes, floor_packets) = yardstick_shape(&r);
        let hops = r.report.counters.packet_hops.max(1) as f64;
        let events_per_hop_by_kind = r.report.events_by_kind.iter().filter(|(_, n)| *n > 0).map(|&(k, n)| (k, n as f64 / hops)).collect();
        BenchFigure {
            workload: w.name,
            description: w.description,
            repeats: self.walls.len(),
            packet_hops_per_s: median(self.hops),
            transactions_per_s: median(self.txns),
            sim_to_wall: median(self.ratio),
            wall_s_median: median(self.walls.clone()),
            wall_s_all: self.walls,
            floor_ratio: median(self.floor_ratio.clone()),
            floor_ratio_all: self.floor_ratio,
            floor_packet_hops_per_s: median(self.floor),
            floor_nodes,
            floor_packets,
            packet_hops: r.report.counters.packet_hops,
            events_per_hop: r.report.counters.events as f64 / hops,
            events_per_hop_by_kind,
            transactions: r.report.conservation.completed,
            throughput_mbps: r.report.throughput_mbps,
        }
    }
}

/// The yardstick loop's nodes and packets in flight for a run: its ring
/// interfaces, and the most packets it had alive at once.
fn yardstick_shape(r: &crate::RunResult) -> (usize, u64) {
    (r.report.per_link.len(), r.report.packets_peak)
}

/// The yardstick loop, as many hops as run `r` made, in its shape.
fn yardstick_after(r: &crate::RunResult) -> crate::yardstick::LoopRun {
    let (nodes, packets) = yardstick_shape(r);
    crate::yardstick::run(nodes, packets as usize, r.report.counters.packet_hops)
}

/// A workload's scenario (`quick`: shortened).
fn scenario(w: &Workload, quick: bool) -> Result<ringlet_scenario::Scenario, ScenarioError> {
    let overrides: Vec<(String, String)> =
        if quick { vec![("run.measure_transactions".into(), "5000".into())] } else { Vec::new() };
    crate::load_str(w.scenario, &overrides)
}

/// Runs every workload `repeats` times; `quick` shortens them (for tests of
/// the command, not for figures). The workloads take turns (one run of each,
/// then the next round) so that a spell when the machine is slower, which on
/// a shared host lasts seconds, falls on every workload alike rather than on
/// the whole of one. After each run, `progress(done, total, workload)` is
/// called outside the timing; the bench stops, giving `None`, if it returns
/// `false`.
pub fn run_all(
    repeats: usize,
    quick: bool,
    progress: &mut dyn FnMut(usize, usize, &str) -> bool,
) -> Option<BenchReport> {
    let workloads: Vec<&Workload> = crate::registry().workloads().collect();
    let scenarios: Vec<_> = workloads.iter().map(|w| scenario(w, quick).expect("built-in workloads are valid")).collect();
    let mut samples: Vec<Samples> = workloads.iter().map(|_| Samples::new()).collect();
    let rounds = repeats.max(1);
    let total = rounds * workloads.len();
    let mut done = 0;
    for _ in 0..rounds {
        for ((w, s), acc) in workloads.iter().zip(&scenarios).zip(&mut samples) {
            let r = crate::run(s).expect("built-in workloads run");
            let floor = yardstick_after(&r);
            acc.add(r, &floor);
            done += 1;
            if !progress(done, total, w.name) {
                return None;
            }
        }
    }
    let workloads: Vec<BenchFigure> = samples.into_iter().zip(workloads).map(|(acc, w)| acc.figure(w)).collect();
    let head = &workloads[0];
    Some(BenchReport {
        ringlet_version: crate::VERSION,
        packet_hops_per_s: head.packet_hops_per_s,
        transactions_per_s: head.transactions_per_s,
        sim_to_wall: head.sim_to_wall,
        floor_ratio: head.floor_ratio,
        workloads,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(super::median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(super::median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    /// The workloads take turns, and each figure holds its own repeats.
    #[test]
    fn workloads_take_turns() {
        let mut seen = Vec::new();
        let r = super::run_all(2, true, &mut |done, total, name| {
            seen.push((done, total, name.to_string()));
            true
        })
        .expect("ran to the end");
        let names: Vec<&str> = crate::registry().workloads().map(|w| w.name).collect();
        let expected: Vec<(usize, usize, String)> =
            names.iter().chain(&names).enumerate().map(|(k, n)| (k + 1, 2 * names.len(), n.to_string())).collect();
        assert_eq!(seen, expected);
        for (f, name) in r.workloads.iter().zip(&names) {
            assert_eq!((f.workload, f.repeats, f.wall_s_all.len()), (*name, 2, 2));
            assert!(f.packet_hops > 0 && f.packet_hops_per_s > 0.0, "{name}");
            // The yardstick ran on the workload's interfaces (its links), with packets in flight.
            let w = crate::registry().workloads().find(|w| w.name == *name).expect("a workload");
            let short = crate::load_str(w.scenario, &[("run.measure_transactions".into(), "100".into())]).expect("valid");
            let links = crate::registry().run(&short).expect("runs").report.per_link.len();
            assert_eq!(f.floor_nodes, links, "{name}");
            assert!(f.floor_packets > 0 && f.floor_packet_hops_per_s > 0.0, "{name}");
            assert!(f.floor_ratio > 0.0 && f.floor_ratio.is_finite(), "{name}");
            assert_eq!(f.floor_ratio, super::median(f.floor_ratio_all.clone()), "{name}");
            // The events by kind add up to the run's events.
            let by_kind: f64 = f.events_per_hop_by_kind.values().sum();
            assert!(f.events_per_hop > 0.0 && (by_kind - f.events_per_hop).abs() < 1e-9 * f.events_per_hop, "{name}: {by_kind} vs {}", f.events_per_hop);
            assert!(f.events_per_hop_by_kind.contains_key("output_free"), "{name}: {:?}", f.events_per_hop_by_kind);
        }
    }

    /// A `false` from the progress function stops the bench at once.
    #[test]
    fn progress_can_stop_the_bench() {
        let mut calls = 0;
        let r = super::run_all(3, true, &mut |_, _, _| {
            calls += 1;
            false
        });
        assert!(r.is_none());
        assert_eq!(calls, 1);
    }
}
