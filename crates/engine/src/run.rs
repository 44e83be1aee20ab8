//! What every model's run shares: why it stopped, how far it has got, which
//! records a traced run keeps, and the loop that reports progress on a long
//! run without slowing it down.

use crate::Time;

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Transactions,
    Precision,
    TimeCap,
    /// More transactions outstanding than `run.max_backlog_transactions`.
    Backlog,
    /// A traced run reached the end of its window, or its trace was full.
    TraceEnd,
    /// The caller's progress function asked to stop.
    Interrupted,
    /// A trace-driven run's trace is done: every row issued and every
    /// transaction completed or lost.
    TraceDone,
}

impl Stop {
    pub fn name(self) -> &'static str {
        match self {
            Stop::Transactions => "transactions",
            Stop::Precision => "precision",
            Stop::TimeCap => "time_cap",
            Stop::Backlog => "backlog",
            Stop::TraceEnd => "trace_end",
            Stop::Interrupted => "interrupted",
            Stop::TraceDone => "trace_done",
        }
    }
}

/// How far a run has got (for progress reports on long runs).
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub sim_time_ns: f64,
    /// Transactions completed in the measurement window, and the target.
    pub transactions: u64,
    pub target_transactions: u64,
    /// 0..1: the larger of transactions/target and time/time cap.
    pub fraction: f64,
}

/// Which records a traced run keeps: those in `[from, to]`, at most `max_records`.
#[derive(Clone, Copy, Debug)]
pub struct TraceWindow {
    pub from: Time,
    pub to: Time,
    pub max_records: usize,
}

impl TraceWindow {
    /// Everything (hand-built test cases).
    pub const ALL: TraceWindow = TraceWindow { from: 0, to: Time::MAX, max_records: usize::MAX };
}

/// A model the engine drives.
pub trait Model {
    /// Handles at most `budget` events up to time `until`; returns whether
    /// more remain (the budget ran out before the run stopped).
    fn run_events(&mut self, until: Time, budget: u64) -> bool;
    /// Handles every event up to `until`, and records why the run stopped.
    fn run_until(&mut self, until: Time);
    fn progress(&self) -> Progress;
    /// The caller asked to stop.
    fn interrupt(&mut self);
}

/// Runs `model` up to `until`, calling `progress` about every `every` of
/// wall time and once at the end; stops early, returning `false`, if it
/// returns `false` (the caller was interrupted). The clock is read only
/// every few thousand events, which keeps its cost out of measurement.
pub fn run_observed<M: Model>(model: &mut M, until: Time, every: std::time::Duration, progress: &mut dyn FnMut(Progress) -> bool) -> bool {
    const CHUNK: u64 = 1 << 14;
    let mut last = std::time::Instant::now();
    while model.run_events(until, CHUNK) {
        if last.elapsed() >= every {
            last = std::time::Instant::now();
            if !progress(model.progress()) {
                model.interrupt();
                return false;
            }
        }
    }
    // Nothing is left to handle: this records why the run stopped.
    model.run_until(until);
    progress(model.progress());
    true
}
