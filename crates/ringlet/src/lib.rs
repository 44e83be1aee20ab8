//! # ringlet
//!
//! The Rust front of ringlet: validates a scenario, runs it on the model of
//! its network family, and returns the result with its provenance. The
//! Python binding and the benchmarks call only this crate.

pub mod bench;

use ringlet_scenario::{NetworkKind, Scenario, ScenarioError};
use serde::Serialize;

/// The ringlet version every result carries.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

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
    pub report: ringlet_sci::Report,
    pub provenance: Provenance,
    /// Wall-clock seconds the simulation took (not part of the simulated result).
    pub wall_time_s: f64,
}

/// Checks what only the model can check (for example that the bypass FIFO
/// holds the longest packet of the chosen transaction), without running.
pub fn check(scenario: &Scenario) -> Result<(), ScenarioError> {
    match scenario.network.kind {
        NetworkKind::SciRing => ringlet_sci::check(scenario).map_err(ScenarioError::new),
    }
}

/// Runs one validated scenario.
pub fn run(scenario: &Scenario) -> Result<RunResult, ScenarioError> {
    let start = std::time::Instant::now();
    let report = match scenario.network.kind {
        NetworkKind::SciRing => ringlet_sci::simulate(scenario).map_err(ScenarioError::new)?,
    };
    Ok(RunResult {
        report,
        provenance: Provenance {
            ringlet_version: VERSION,
            seed: scenario.run.seed,
            scenario_hash: scenario.hash(),
            scenario: scenario.to_toml(),
        },
        wall_time_s: start.elapsed().as_secs_f64(),
    })
}

/// Parses scenario text with overrides and runs it.
pub fn run_str(text: &str, overrides: &[(String, String)]) -> Result<RunResult, ScenarioError> {
    run(&ringlet_scenario::load_str(text, overrides)?)
}

#[cfg(test)]
mod tests {
    #[test]
    fn model_checks_name_the_key() {
        let s = ringlet_scenario::load_str("[network]\nbypass_fifo_symbols = 10", &[]).unwrap();
        let e = super::check(&s).unwrap_err().message;
        assert!(e.starts_with("network.bypass_fifo_symbols: expected 0 (derived) or at least 41"), "{e}");
        assert!(super::run(&s).is_err());
        let ok = ringlet_scenario::load_str("[network]\nbypass_fifo_symbols = 41", &[]).unwrap();
        assert!(super::check(&ok).is_ok());
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
