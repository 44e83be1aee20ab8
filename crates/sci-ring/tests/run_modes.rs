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

/// An observed base SCI run with `extra` settings, asked for its progress
/// after every chunk of events (and at its end); `go_on` answers. Returns
/// the outcome and each progress seen as (transactions, target, fraction,
/// simulated ns).
fn observed(extra: &[&str], go_on: bool) -> (Outcome, Vec<(u64, u64, f64, f64)>) {
    let mut all = vec!["traffic.load_mbps_per_node=200"];
    all.extend_from_slice(extra);
    let (s, p) = setup(4, &all);
    let sci = ringlet_sci::protocol::REGISTRY.iter().find(|r| r.schema.name == "sci").expect("registered");
    let mut seen = Vec::new();
    let mut progress = |x: ringlet_engine::run::Progress| {
        seen.push((x.transactions, x.target_transactions, x.fraction, x.sim_time_ns));
        go_on
    };
    let out = (sci.run)(&s, topology(&s), p, Mode::Observed { every: std::time::Duration::ZERO, progress: &mut progress }).expect("runs");
    (out, seen)
}

#[test]
fn an_observed_run_reports_progress_and_stops_when_asked() {
    // 200 transactions: progress at the end, complete.
    let (out, seen) = observed(&["run.measure_transactions=200"], true);
    assert!(!out.interrupted);
    assert_eq!((out.report.stopped_by, out.report.transactions), ("transactions", 200));
    assert_eq!(seen.last().map(|&(_, _, f, _)| f), Some(1.0));
    assert!(out.report.counters.events > 0, "the events executed are reported");
    // 20 000 transactions, far more events than one chunk: on the way the
    // fraction is the transactions' (the time cap is far off).
    let (out, seen) = observed(&["run.measure_transactions=20000"], true);
    assert!(seen.len() >= 3, "{} progress calls", seen.len());
    for &(done, target, fraction, t) in &seen[..seen.len() - 1] {
        assert_eq!(target, 20_000);
        assert_eq!(fraction, done as f64 / 20_000.0, "{done} of {target} at {t} ns");
    }
    assert_eq!((out.report.transactions, seen.last().map(|&(_, _, f, _)| f)), (20_000, Some(1.0)));
    // Bound by its time cap (200 us): on the way the fraction is the time's.
    let (out, seen) = observed(&["run.measure_transactions=1000000", "run.max_sim_time_ns=200000"], true);
    assert!(seen.len() >= 3, "{} progress calls", seen.len());
    for &(done, _, fraction, t) in &seen[..seen.len() - 1] {
        assert!(done > 0 && t > 0.0 && t < 200_000.0);
        assert!((fraction - t / 200_000.0).abs() < 1e-12, "{fraction} at {t} ns");
    }
    assert_eq!(out.report.stopped_by, "time_cap");
    // Ended by its time cap: complete too.
    let (out, seen) = observed(&["run.measure_transactions=1000000", "run.max_sim_time_ns=10000"], true);
    assert_eq!((out.report.stopped_by, seen.last().map(|&(_, _, f, _)| f)), ("time_cap", Some(1.0)));
    // Asked once, and stopped.
    let (out, seen) = observed(&["run.measure_transactions=20000"], false);
    assert!(out.interrupted);
    assert_eq!((out.report.stopped_by, seen.len()), ("interrupted", 1));
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

/// A run stops for backlog only when the transactions generated and not
/// completed (nor lost) pass `run.max_backlog_transactions`: a light load
/// (20 MB/s a node) keeps few outstanding, so a cap of 20 never stops a run
/// of 500 transactions, while one of 1 does.
#[test]
fn a_run_stops_for_backlog_only_past_its_cap() {
    let run = |cap: &str| {
        let (s, p) = setup(4, &["traffic.load_mbps_per_node=20", "run.measure_transactions=500", cap]);
        let sci = ringlet_sci::protocol::REGISTRY.iter().find(|r| r.schema.name == "sci").expect("registered");
        let out = (sci.run)(&s, topology(&s), p, Mode::Plain).expect("runs");
        (out.report.stopped_by, out.report.transactions)
    };
    assert_eq!(run("run.max_backlog_transactions=20"), ("transactions", 500));
    assert_eq!(run("run.max_backlog_transactions=1").0, "backlog");
}
