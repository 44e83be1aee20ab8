//! How a network family plugs in, and how any fabric is run: plainly,
//! reporting progress, or traced.
//!
//! A family is one crate (or module) giving a [`Family`] value: its part of
//! the scenario contract, its check and run (its builder makes the
//! topology and protocol instances, then [`drive`]s the fabric), and its
//! benchmark workloads. The front crate's registry lists the families; a
//! new family is one more line there.

use crate::analytic::Plan;
use crate::chrome_trace::TraceOutput;
use crate::mechanism::Fabric;
use crate::protocol::RingProtocol;
use crate::report::Report;
use ringlet_engine::run::{Progress, TraceWindow};
use ringlet_scenario::schema::FamilySchema;
use ringlet_scenario::Scenario;

/// A network family, as the registry knows it.
pub struct Family {
    /// Its `network.kind`, its keys and its protocols.
    pub schema: FamilySchema,
    /// Checks what only the model can check, without running (a sweep
    /// checks every point before running any); the message names the key.
    pub check: fn(&Scenario) -> Result<(), String>,
    /// Builds and runs a validated scenario of this family in `mode`.
    pub run: fn(&Scenario, Mode<'_>) -> Result<Outcome, String>,
    /// What `ringlet bench` runs of it.
    pub workloads: &'static [Workload],
}

/// A named benchmark workload: scenario text.
pub struct Workload {
    pub name: &'static str,
    pub description: &'static str,
    pub scenario: &'static str,
}

/// How to run a scenario: plainly, reporting progress, or traced.
pub enum Mode<'a> {
    Plain,
    /// Calls the function about every `every` of wall time with how far the
    /// run has got; the run stops early when it returns `false`.
    Observed { every: std::time::Duration, progress: &'a mut dyn FnMut(Progress) -> bool },
    /// Records packet lifetimes in the window (the run ends at its end).
    Traced(TraceWindow),
    /// Builds the fabric and runs nothing: the report holds only the
    /// analytic model's figures (`model_*`, docs/analytic.md), the model
    /// going over the traffic as the plan says (a run's: `Plan::default()`).
    Model(Plan),
}

/// A run's report, and what its mode adds.
pub struct Outcome {
    pub report: Report,
    pub trace: Option<TraceOutput>,
    /// The progress function asked to stop.
    pub interrupted: bool,
    /// When the fabric was built and began to run: the end of the set-up
    /// (scenario and topology), the start of the run proper.
    pub started: std::time::Instant,
}

/// Runs a built fabric in `mode`: first its trace, if it replays one, is
/// checked and opened (an error names the file, row and column); a row
/// unreadable mid-run is an error too, never a partial result.
pub fn drive<P: RingProtocol>(mut fabric: Fabric<P>, mode: Mode<'_>) -> Result<Outcome, String> {
    if let Mode::Model(plan) = mode {
        fabric.analyse(plan);
        return Ok(Outcome { report: fabric.report(), trace: None, interrupted: false, started: std::time::Instant::now() });
    }
    fabric.start_trace()?;
    let mut outcome = run_in(fabric, mode);
    match outcome.report.trace_error.take() {
        Some(e) => Err(e),
        None => Ok(outcome),
    }
}

fn run_in<P: RingProtocol>(fabric: Fabric<P>, mode: Mode<'_>) -> Outcome {
    let started = std::time::Instant::now();
    match mode {
        Mode::Plain => Outcome { report: fabric.run(), trace: None, interrupted: false, started },
        Mode::Observed { every, progress } => {
            let (report, finished) = fabric.run_observed(every, progress);
            Outcome { report, trace: None, interrupted: !finished, started }
        }
        Mode::Model(_) => unreachable!("handled by `drive`"),
        Mode::Traced(window) => {
            let (cycle, topology, classes) = (fabric.p.cycle, fabric.topology().clone(), fabric.p.classes.names.clone());
            let (report, recorder) = fabric.run_traced(window);
            let trace = TraceOutput { records: recorder.records, truncated: recorder.truncated, window, cycle, topology, classes };
            Outcome { report, trace: Some(trace), interrupted: false, started }
        }
    }
}
