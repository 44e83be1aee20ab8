//! # ringlet-sci
//!
//! The SCI register-insertion ring family (IEEE 1596; seed 003 section 2.1
//! and Figure 1): its scenario keys, the ring's builder and parameters,
//! base SCI's flow control and the three real-time protocols, on the
//! shared fabric (`ringlet-fabric`). See `docs/model-sci.md` and
//! `docs/model-rt.md`.

pub mod keys;
pub mod params;
pub mod protocol;
pub mod ring;

use keys::Settings;
use protocol::{Registration, REGISTRY, SCHEMAS};
use ringlet_fabric::family::{Family, Mode, Outcome, Workload};
use ringlet_fabric::Report;
use ringlet_scenario::schema::{FamilySchema, Schema};
use ringlet_scenario::{Scenario, ScenarioError};
use std::sync::OnceLock;

/// The SCI ring as a network family.
pub const FAMILY: Family = Family {
    schema: FamilySchema {
        kind: "sci-ring",
        doc: "SCI register-insertion ring (IEEE 1596; seed 003): one ringlet of `network.nodes` nodes, base SCI or a real-time protocol.",
        params: keys::PARAMS,
        protocols: SCHEMAS,
        validate: |_| Ok(()),
    },
    check,
    run: simulate_with,
    workloads: WORKLOADS,
};

/// SPEC section 7's reference workload (DFC at saturation), base SCI on the
/// same ring for comparison, a 64-node ring, and the two real-time
/// protocols most of the sci-rt study's time goes to, on its costliest
/// kind of point (three priorities, a backlog growing without bound).
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
    Workload {
        name: "ppq-8node",
        description: "8-node ring, PPQ, 3 priorities, read64, uniform, Poisson, 150 MB/s per node, IQST 1000 ns (far beyond saturation: the sci-rt study's costliest kind of point)",
        scenario: "[network]\nnodes = 8\nprotocol = \"ppq\"\n[node]\niqst_ns = 1000.0\n[traffic]\nload_mbps_per_node = 150.0\npriorities = 3\n[run]\nmeasure_transactions = 20000\n",
    },
    Workload {
        name: "train-8node",
        description: "8-node ring, TRAIN, 3 priorities, read64, uniform, Poisson, 150 MB/s per node, IQST 1000 ns (far beyond saturation: the sci-rt study's costliest kind of point)",
        scenario: "[network]\nnodes = 8\nprotocol = \"train\"\n[node]\niqst_ns = 1000.0\n[traffic]\nload_mbps_per_node = 150.0\npriorities = 3\n[run]\nmeasure_transactions = 20000\n",
    },
];

/// The scenario contract with the SCI ring as its only family (for this
/// crate's tests and tools; the front crate's registry joins every family).
pub fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| Schema::new(&[FAMILY.schema]))
}

/// Parses and validates scenario text against [`schema`].
pub fn load_str(text: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    ringlet_scenario::load_str(schema(), text, overrides)
}

/// The protocol a (validated) scenario runs.
fn registration(k: &Settings) -> &'static Registration {
    REGISTRY.iter().find(|r| r.schema.name == k.protocol).expect("the schema admits only registered protocols")
}

/// Checks the parameters only the model can check, without running.
pub fn check(s: &Scenario) -> Result<(), String> {
    let k = Settings::of(s);
    let p = params::params(&k)?;
    (registration(&k).check)(&ring::topology(s, &k), &p, s)
}

/// Runs one SCI ring scenario. Fails only for parameter combinations the
/// scenario schema cannot check on its own (the message names the key).
pub fn simulate(s: &Scenario) -> Result<Report, String> {
    simulate_with(s, Mode::Plain).map(|o| o.report)
}

/// Runs one SCI ring scenario in `mode`.
pub fn simulate_with(s: &Scenario, mode: Mode<'_>) -> Result<Outcome, String> {
    let k = Settings::of(s);
    let p = params::params(&k)?;
    (registration(&k).run)(s, ring::topology(s, &k), p, mode)
}
