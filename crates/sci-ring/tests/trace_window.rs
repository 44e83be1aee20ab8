//! A traced run (`ringlet trace`) runs to the end of its window, or to the
//! run's time cap if that comes first, or until its trace is full, and
//! says which.

mod common;
use common::*;
use ringlet_engine::run::TraceWindow;
use ringlet_fabric::family::Mode;

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
