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
mod report;
pub mod ring;
pub mod traffic;

pub use report::*;

use protocol::dfc::Dfc;
use protocol::ppq::Ppq;
use protocol::sci::BaseSci;
use protocol::train::Train;
use ring::Ring;
use ringlet_scenario::{BandwidthAllocation, Protocol, QueueAllocation, Scenario};

/// Checks the parameters only the model can check, without running.
pub fn check(s: &Scenario) -> Result<(), String> {
    let p = params::Params::from_scenario(s)?;
    match s.network.protocol {
        Protocol::Sci | Protocol::Ppq => Ok(()),
        Protocol::Train => Train::check(&p, &s.train),
        Protocol::Dfc => Dfc::check(&p, &s.dfc),
    }
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
    Ok(match s.network.protocol {
        Protocol::Sci => {
            let proto = BaseSci::new(
                &p,
                s.network.bandwidth_allocation == BandwidthAllocation::GoBits,
                s.network.queue_allocation == QueueAllocation::Ab,
            );
            drive(Ring::new(s, p, proto), mode)
        }
        Protocol::Ppq => drive(Ring::new(s, p.clone(), Ppq::new(&p, &s.ppq, s.traffic.priorities)), mode),
        Protocol::Train => drive(Ring::new(s, p.clone(), Train::new(&p, &s.train)?), mode),
        Protocol::Dfc => drive(Ring::new(s, p.clone(), Dfc::new(&p, &s.dfc)?), mode),
    })
}

fn drive<P: protocol::RingProtocol>(ring: Ring<P>, mode: Mode<'_>) -> Outcome {
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
