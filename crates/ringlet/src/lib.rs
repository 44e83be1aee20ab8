//! # ringlet
//!
//! The Rust front of ringlet: the registry of network families ([`FAMILIES`],
//! [`registry::Registry`]), which validates a scenario against the contract
//! they make together and runs it on the model of its family; results with
//! their provenance; benchmarks. The Python binding calls only this crate.

pub mod bench;
pub mod campaign;
pub mod capacity;
pub mod registry;
pub mod yardstick;

use registry::Registry;
use ringlet_fabric::family::Family;
use ringlet_scenario::schema::Schema;
use ringlet_scenario::{Scenario, ScenarioError};
use serde::Serialize;
use std::sync::OnceLock;

/// Every network family this build runs, in the order the reference lists
/// them. A new family is one crate and one line here.
pub const FAMILIES: &[Family] = &[ringlet_sci::FAMILY, ringlet_switch::SWITCH, ringlet_switch::BANYAN, ringlet_gigaring::GIGARING];

/// The registry of [`FAMILIES`].
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| Registry::new(FAMILIES))
}

/// The scenario contract this build accepts: the core keys plus each
/// family's keys, protocols and their sections.
pub fn schema() -> &'static Schema {
    registry().schema()
}

/// Parses and validates scenario text with `--set` overrides applied.
pub fn load_str(text: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    registry().load_str(text, overrides)
}

/// Parses and validates the text of the file named `origin` (its name
/// leads a syntax error's message).
pub fn load_named(text: &str, origin: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    registry().load_named(text, origin, overrides)
}

/// Reads, parses and validates a scenario file.
pub fn load_file(path: &std::path::Path, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    registry().load_file(path, overrides)
}

/// The ringlet version every result carries: the release plus a hash of the
/// model sources (see `build.rs`), so results of different models never mix.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("RINGLET_MODEL_HASH"));

/// Where a result came from: enough to re-run it exactly.
#[derive(Clone, Debug, Serialize)]
pub struct Provenance {
    pub ringlet_version: &'static str,
    pub seed: u64,
    pub scenario_hash: String,
    /// The full scenario, every default filled, as TOML.
    pub scenario: String,
}

/// One simulation point's result: the model's report plus provenance.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    #[serde(flatten)]
    pub report: ringlet_fabric::Report,
    pub provenance: Provenance,
    /// Wall-clock seconds the point took, set-up and run (not part of the
    /// simulated result).
    pub wall_time_s: f64,
    /// Of `wall_time_s`, the set-up: loading the scenario (when the caller
    /// says when that began, see [`run_since`]) and building the network
    /// (topology, routes, protocol instances), before the first event.
    pub setup_time_s: f64,
}

pub(crate) fn provenance(scenario: &Scenario) -> Provenance {
    Provenance {
        ringlet_version: VERSION,
        seed: scenario.run.seed,
        scenario_hash: scenario.hash(),
        scenario: scenario.to_toml(),
    }
}

/// Checks what only the model can check, without running.
pub fn check(scenario: &Scenario) -> Result<(), ScenarioError> {
    registry().check(scenario)
}

/// Runs one validated scenario.
pub fn run(scenario: &Scenario) -> Result<RunResult, ScenarioError> {
    registry().run(scenario)
}

/// Runs one validated scenario whose set-up (reading and checking it)
/// began at `since`: its wall and set-up times count from there.
pub fn run_since(scenario: &Scenario, since: std::time::Instant) -> Result<RunResult, ScenarioError> {
    registry().run_since(scenario, since)
}

/// The report's column schema: every table's columns with units and
/// meanings, the counters, and what a sweep table copies (as JSON).
pub fn report_schema() -> serde_json::Value {
    ringlet_fabric::report::schema()
}

/// Two-sided 95% Student t quantile with `df` degrees of freedom: the one
/// the batch-means intervals use, shared with the Python side's intervals
/// across replications.
pub use ringlet_engine::stats::t95;

/// How far a long run has got (passed to the progress function).
pub use ringlet_engine::run::Progress;

/// Runs one validated scenario reporting progress (see [`Registry::run_with_progress`]).
/// `since`: when its set-up began, as for [`run_since`] (`None`: now).
pub fn run_with_progress(
    scenario: &Scenario,
    every: std::time::Duration,
    progress: &mut dyn FnMut(Progress) -> bool,
    since: Option<std::time::Instant>,
) -> Result<(RunResult, bool), ScenarioError> {
    registry().run_with_progress(scenario, every, progress, since)
}

/// The window and size bound of a trace.
#[derive(Clone, Copy, Debug)]
pub struct TraceOptions {
    pub from_ns: f64,
    /// `None`: until the run stops.
    pub to_ns: Option<f64>,
    pub max_records: usize,
}

/// A traced run: its result (the run ends at the trace window's end), the
/// packet lifetimes as Chrome trace-event JSON, and that file's `otherData`.
pub struct Traced {
    pub result: RunResult,
    pub json: String,
    pub info: serde_json::Value,
}

/// Runs a scenario traced (see [`Traced`]).
pub fn trace(scenario: &Scenario, opts: TraceOptions) -> Result<Traced, ScenarioError> {
    registry().trace(scenario, opts)
}

/// Parses scenario text with overrides and runs it.
pub fn run_str(text: &str, overrides: &[(String, String)]) -> Result<RunResult, ScenarioError> {
    run(&load_str(text, overrides)?)
}

#[cfg(test)]
mod tests {
    #[test]
    fn model_checks_name_the_key() {
        let s = super::load_str("[network]\nbypass_fifo_symbols = 10", &[]).unwrap();
        let e = super::check(&s).unwrap_err().message;
        assert!(e.starts_with("network.bypass_fifo_symbols: expected 0 (derived) or at least 41"), "{e}");
        assert!(super::run(&s).is_err());
        let ok = super::load_str("[network]\nbypass_fifo_symbols = 41", &[]).unwrap();
        assert!(super::check(&ok).is_ok());
    }

    const SMALL: &str = "[network]\nnodes = 4\n[traffic]\nload_mbps_per_node = 150.0\n[run]\nmeasure_transactions = 300\nwarmup_ns = 1000\n";

    fn scenario(text: &str, sets: &[(&str, &str)]) -> ringlet_scenario::Scenario {
        let o: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        super::load_str(text, &o).unwrap()
    }

    fn trace_doc(s: &ringlet_scenario::Scenario, opts: super::TraceOptions) -> (super::RunResult, serde_json::Value) {
        let t = super::trace(s, opts).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&t.json).unwrap();
        assert_eq!(doc["otherData"], t.info);
        (t.result, doc)
    }

    const WHOLE: super::TraceOptions = super::TraceOptions { from_ns: 0.0, to_ns: None, max_records: usize::MAX };

    /// A whole-run trace shows exactly what the counters count.
    #[test]
    fn trace_counts_match_the_counters() {
        for protocol in ["sci", "ppq", "dfc"] {
            // IQST 1 us: the input queues fill, so there are busy echoes and retries.
            let s = scenario(SMALL, &[("network.protocol", &format!("\"{protocol}\"")), ("node.iqst_ns", "1000")]);
            let (r, doc) = trace_doc(&s, WHOLE);
            let c = &r.report.counters;
            let counts = &doc["otherData"]["counts"];
            assert_eq!(counts["send_packets"], c.send_packets, "{protocol}");
            assert_eq!(counts["retries"], c.retries, "{protocol}");
            assert!(c.send_packets > 0 && c.retries > 0, "{protocol}: {c:?}");
            let hops = counts["link_transmissions"].as_u64().unwrap();
            // Every hop counted is a transmission in the trace; at most a
            // few heads are still on their last link when the run stops.
            assert!(hops >= c.packet_hops && hops - c.packet_hops <= 8, "{protocol}: {hops} vs {}", c.packet_hops);
            let links = doc["traceEvents"].as_array().unwrap().iter().filter(|e| e["ph"] == "X").count() as u64;
            assert_eq!(links, hops);
            if protocol == "sci" {
                assert!(c.busy_echoes > 0, "the small ring should busy some packets");
                assert_eq!(counts["busied"], c.busy_echoes);
            }
            // The same run untraced gives the same figures: tracing observes only.
            let plain = super::run(&s).unwrap();
            assert_eq!(serde_json::to_value(&plain.report).unwrap(), serde_json::to_value(&r.report).unwrap());
        }
    }

    /// The window bounds what is kept, the run ends at its end, and the size bound holds.
    #[test]
    fn trace_window_and_size_bound() {
        let s = scenario(SMALL, &[]);
        let (r, doc) = trace_doc(&s, super::TraceOptions { from_ns: 2000.0, to_ns: Some(3000.0), max_records: usize::MAX });
        assert_eq!(r.report.stopped_by, "trace_end");
        assert!(r.report.sim_time_ns <= 3000.0 && r.report.sim_time_ns > 2900.0, "{}", r.report.sim_time_ns);
        let events = doc["traceEvents"].as_array().unwrap();
        let times: Vec<f64> = events.iter().filter(|e| e["ph"] == "X" || e["ph"] == "i").map(|e| e["ts"].as_f64().unwrap()).collect();
        assert!(!times.is_empty());
        assert!(times.iter().all(|&t| (2.0..=3.0).contains(&t)), "times in microseconds within [2, 3]");
        let (r, doc) = trace_doc(&s, super::TraceOptions { from_ns: 0.0, to_ns: None, max_records: 100 });
        assert_eq!(doc["otherData"]["records"], 100);
        assert_eq!(doc["otherData"]["truncated"], true);
        assert_eq!(r.report.stopped_by, "trace_end");
        for bad in [
            super::TraceOptions { from_ns: -1.0, ..WHOLE },
            super::TraceOptions { from_ns: 10.0, to_ns: Some(10.0), ..WHOLE },
            super::TraceOptions { max_records: 0, ..WHOLE },
        ] {
            assert!(super::trace(&s, bad).is_err());
        }
    }

    /// Progress is reported without changing the result, and can stop a run.
    #[test]
    fn progress_observes_and_can_interrupt() {
        let s = scenario(SMALL, &[("run.measure_transactions", "3000")]);
        let mut seen = Vec::new();
        let (r, finished) = super::run_with_progress(&s, std::time::Duration::ZERO, &mut |p| {
            seen.push(p.fraction);
            true
        }, None)
        .unwrap();
        assert!(finished);
        assert!(seen.len() > 2, "progress reported during the run");
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "fraction never goes back");
        assert_eq!(*seen.last().unwrap(), 1.0);
        let plain = super::run(&s).unwrap();
        assert_eq!(serde_json::to_value(&plain.report).unwrap(), serde_json::to_value(&r.report).unwrap());
        let mut calls = 0;
        let (r, finished) = super::run_with_progress(&s, std::time::Duration::ZERO, &mut |_| {
            calls += 1;
            calls < 2
        }, None)
        .unwrap();
        assert!(!finished);
        assert_eq!(r.report.stopped_by, "interrupted");
        assert!(r.report.conservation.completed < plain.report.conservation.completed);
    }

    /// The wall time splits into set-up and run: the set-up counts from
    /// when the caller began it (here half a second before the call), the
    /// run from the built fabric's first event; both are in the JSON.
    #[test]
    fn wall_time_splits_into_set_up_and_run() {
        let s = scenario(SMALL, &[("run.measure_transactions", "500")]);
        let before = std::time::Instant::now() - std::time::Duration::from_millis(500);
        let r = super::run_since(&s, before).unwrap();
        assert!(r.setup_time_s >= 0.5, "the set-up counts from `since`: {}", r.setup_time_s);
        assert!(r.wall_time_s >= r.setup_time_s, "{} < {}", r.wall_time_s, r.setup_time_s);
        let now = super::run(&s).unwrap();
        assert!(now.setup_time_s < 0.5 + r.setup_time_s && now.setup_time_s <= now.wall_time_s);
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["setup_time_s"].as_f64(), Some(r.setup_time_s));
        assert_eq!(v["wall_time_s"].as_f64(), Some(r.wall_time_s));
    }

    #[test]
    fn result_json_has_the_contract_keys() {
        let r = super::run_str("[run]\nmeasure_transactions = 500\nwarmup_ns = 1000", &[]).unwrap();
        let v = serde_json::to_value(&r).unwrap();
        for key in ["throughput_mbps", "latency_ns_mean", "latency_ns_p99", "transactions", "retries", "sim_time_ns", "per_priority", "per_link", "provenance"] {
            assert!(v.get(key).is_some(), "missing {key}");
        }
        for key in ["priority", "throughput_mbps", "latency_ns_mean", "latency_ns_p99"] {
            assert!(v["per_priority"][0].get(key).is_some(), "per_priority missing {key}");
        }
        for key in ["ringlet_version", "seed", "scenario_hash", "scenario"] {
            assert!(v["provenance"].get(key).is_some(), "provenance missing {key}");
        }
        // The scenario in the provenance re-runs to the identical result.
        let again = super::run_str(v["provenance"]["scenario"].as_str().unwrap(), &[]).unwrap();
        assert_eq!(serde_json::to_value(&again.report).unwrap(), serde_json::to_value(&r.report).unwrap());
    }
}
