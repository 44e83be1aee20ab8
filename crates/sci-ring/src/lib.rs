//! # ringlet-sci
//!
//! The SCI register-insertion ring family (IEEE 1596; seed 003 section 2.1
//! and Figure 1): the ring's builder and parameters, base SCI's flow
//! control and the three real-time protocols, on the shared fabric
//! (`ringlet-fabric`). See `docs/model-sci.md` and `docs/model-rt.md`.

pub mod params;
pub mod protocol;
pub mod ring;

use protocol::{Registration, REGISTRY, SCHEMAS};
use ringlet_fabric::family::{Mode, Outcome};
use ringlet_fabric::Report;
use ringlet_scenario::schema::Schema;
use ringlet_scenario::{Scenario, ScenarioError};
use std::sync::OnceLock;

/// The scenario contract of the SCI ring: the core keys plus every
/// registered protocol's section.
pub fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| Schema::new(SCHEMAS))
}

/// Parses and validates scenario text against [`schema`].
pub fn load_str(text: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    ringlet_scenario::load_str(schema(), text, overrides)
}

/// The protocol a (validated) scenario runs.
fn registration(s: &Scenario) -> &'static Registration {
    let name = s.network.protocol;
    REGISTRY.iter().find(|r| r.schema.name == name).expect("the schema admits only registered protocols")
}

/// Checks the parameters only the model can check, without running.
pub fn check(s: &Scenario) -> Result<(), String> {
    let p = params::params(s)?;
    (registration(s).check)(&ring::topology(s)?, &p, s)
}

/// Runs one SCI ring scenario. Fails only for parameter combinations the
/// scenario schema cannot check on its own (the message names the key).
pub fn simulate(s: &Scenario) -> Result<Report, String> {
    simulate_with(s, Mode::Plain).map(|o| o.report)
}

/// Runs one SCI ring scenario in `mode`.
pub fn simulate_with(s: &Scenario, mode: Mode<'_>) -> Result<Outcome, String> {
    let p = params::params(s)?;
    (registration(s).run)(s, ring::topology(s)?, p, mode)
}
