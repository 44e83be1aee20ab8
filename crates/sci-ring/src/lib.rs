//! # ringlet-sci
//!
//! The SCI register-insertion ring (IEEE 1596; seed 003 section 2.1 and
//! Figure 1) at exact symbol timing, with base SCI's flow control, and the
//! interface real-time protocols plug into. See `docs/model-sci.md`.

pub mod bypass;
pub mod chrome_trace;
pub mod measure;
pub mod node;
pub mod packet;
pub mod queue;
pub mod params;
pub mod protocol;
pub mod report;
pub mod ring;
pub mod traffic;

pub use report::{Conservation, Counters, LinkReport, PriorityReport, Report, Summary};

use protocol::{Registration, REGISTRY};
use ring::Ring;
use ringlet_scenario::schema::Schema;
use ringlet_scenario::{Scenario, ScenarioError};
use std::sync::OnceLock;

/// The scenario contract of the SCI ring: the core keys plus every
/// registered protocol's section.
pub fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| Schema::new(&REGISTRY.iter().map(|r| r.schema).collect::<Vec<_>>()))
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
    let p = params::Params::from_scenario(s)?;
    (registration(s).check)(&p, s)
}

/// Runs one SCI ring scenario. Fails only for parameter combinations the
/// scenario schema cannot check on its own (the message names the key).
pub fn simulate(s: &Scenario) -> Result<Report, String> {
    simulate_with(s, Mode::Plain).map(|o| o.report)
}

/// How to run a scenario: plainly, reporting progress, or traced.
pub enum Mode<'a> {
    Plain,
    /// Calls the function about every `every` of wall time with how far the
    /// run has got; the run stops early when it returns `false`.
    Observed { every: std::time::Duration, progress: &'a mut dyn FnMut(ring::Progress) -> bool },
    /// Records packet lifetimes in the window (the run ends at its end).
    Traced(ring::TraceWindow),
}

/// A run's report, and what its mode adds.
pub struct Outcome {
    pub report: Report,
    pub trace: Option<chrome_trace::TraceOutput>,
    /// The progress function asked to stop.
    pub interrupted: bool,
}

/// Runs one SCI ring scenario in `mode`.
pub fn simulate_with(s: &Scenario, mode: Mode<'_>) -> Result<Outcome, String> {
    let p = params::Params::from_scenario(s)?;
    (registration(s).run)(s, p, mode)
}

pub(crate) fn drive<P: protocol::RingProtocol>(ring: Ring<P>, mode: Mode<'_>) -> Outcome {
    match mode {
        Mode::Plain => Outcome { report: ring.run(), trace: None, interrupted: false },
        Mode::Observed { every, progress } => {
            let (report, finished) = ring.run_observed(every, progress);
            Outcome { report, trace: None, interrupted: !finished }
        }
        Mode::Traced(window) => {
            let (cycle, hop, nodes) = (ring.p.cycle, ring.p.hop, ring.p.nodes);
            let (report, records, truncated) = ring.run_traced(window);
            let trace = chrome_trace::TraceOutput { records, truncated, window, cycle, hop, nodes };
            Outcome { report, trace: Some(trace), interrupted: false }
        }
    }
}
