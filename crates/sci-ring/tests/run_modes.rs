//! How a run ends in each mode: a traced run (`ringlet trace`) runs to the
//! end of its window, or to the run's time cap if that comes first, or
//! until its trace is full, and says which; an observed run reports its
//! progress and stops when asked to.

mod common;
use common::*;
use ringlet_engine::run::TraceWindow;
use ringlet_fabric::family::{Mode, Outcome};

/// (simulated time, why it stopped, records, trace full) of a traced base SCI run.
fn traced(extra: &[&str], window: TraceWindow) -> (f64, &'static str, usize, bool) {
    let mut all = vec!["traffic.load_mbps_per_node=200", "run.measure_transactions=1000000"];
    all.extend_from_slice(extra);
    let (s, p) = setup(4, &all);
    let sci = ringlet_sci::protocol::REGISTRY.iter().find(|r| r.schema.name == "sci").expect("registered");
    let out = (sci.run)(&s, topology(&s), p, Mode::Traced(window)).expect("runs");
    let trace = out.trace.expect("a trace");
    (out.report.sim_time_ns, out.report.stopped_by, trace.records.len(), trace.truncated)
}

#[test]
fn a_traced_run_ends_at_its_window_its_time_cap_or_a_full_trace() {
    let all = |to_ns: u64, max_records: usize| TraceWindow { from: 0, to: to_ns * NS, max_records };
    // To the window's end (100 us, far more events than one batch of the run loop).
    let (t, by, n, full) = traced(&[], all(100_000, usize::MAX));
    assert!(t > 99_900.0 && t <= 100_000.0, "ran to {t} ns");
    assert_eq!((by, full), ("trace_end", false));
    assert!(n > 10_000, "{n} records");
    // A full trace ends the run early.
    let (t, by, n, full) = traced(&[], all(100_000, 50));
    assert_eq!((by, n, full), ("trace_end", 50, true));
    assert!(t < 100_000.0);
    // The run's time cap before the window's end.
    let (t, by, _, full) = traced(&["run.max_sim_time_ns=10000"], all(100_000, usize::MAX));
    assert_eq!((t, by, full), (10_000.0, "time_cap", false));
}

/// An observed base SCI run of `transactions`, asked for its progress
/// after every chunk of events (and at its end); `go_on` answers.
fn observed(transactions: u32, go_on: bool) -> (Outcome, u32) {
    let n = format!("run.measure_transactions={transactions}");
    let (s, p) = setup(4, &["traffic.load_mbps_per_node=200", &n]);
    let sci = ringlet_sci::protocol::REGISTRY.iter().find(|r| r.schema.name == "sci").expect("registered");
    let mut calls = 0;
    let mut progress = |_| {
        calls += 1;
        go_on
    };
    let out = (sci.run)(&s, topology(&s), p, Mode::Observed { every: std::time::Duration::ZERO, progress: &mut progress }).expect("runs");
    (out, calls)
}

#[test]
fn an_observed_run_reports_progress_and_stops_when_asked() {
    let (out, calls) = observed(200, true);
    assert!(!out.interrupted);
    assert_eq!((out.report.stopped_by, out.report.transactions), ("transactions", 200));
    assert!(calls >= 1);
    assert!(out.report.counters.events > 0, "the events executed are reported");
    // Long enough for more than one chunk of events: asked once, and stopped.
    let (out, calls) = observed(20_000, false);
    assert!(out.interrupted);
    assert_eq!((out.report.stopped_by, calls), ("interrupted", 1));
}

/// A hand-built ring says when it has stopped: not before its one
/// transaction is complete (a read64 to the next node, 1 us service at
/// each end), then because the transactions asked for are measured.
#[test]
fn a_ring_says_why_it_stopped() {
    let mut r = ring(4, &["run.measure_transactions=1", "node.iqst_ns=1000.0"]);
    r.inject(0, 1, 0, 0);
    r.run_until(1_000 * NS);
    assert_eq!(r.stopped(), None);
    r.run_until(3_000 * NS);
    assert_eq!(r.stopped(), Some(ringlet_engine::run::Stop::Transactions));
}
