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
