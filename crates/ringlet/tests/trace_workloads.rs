//! Trace-driven workloads (`traffic.source = "trace"`): a trace that
//! writes out the built-in sources' transactions row for row gives the
//! built-in run's figures on every family; CSV and Parquet of one trace
//! give one result; bad rows are refused with the file, the row and the
//! column; the trace's span is stated beside the run's windows.

use ringlet_fabric::params::Params;
use ringlet_fabric::topology::Topology;
use ringlet_fabric::traffic::Traffic;
use ringlet_scenario::Scenario;
use serde_json::Value;
use std::path::PathBuf;

/// A fresh file name in the temporary folder.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ringlet-trace-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn load(text: &str, sets: &[(&str, &str)]) -> Scenario {
    let o: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    ringlet::load_str(text, &o).unwrap_or_else(|e| panic!("{}", e.message))
}

/// The network and parameters a scenario runs on, by its family.
fn built(s: &Scenario) -> (Topology, Params) {
    match s.network.kind {
        "sci-ring" => {
            let k = ringlet_sci::keys::Settings::of(s);
            (ringlet_sci::ring::topology(s, &k), ringlet_sci::params::params(&k).unwrap())
        }
        "gigaring" => {
            let k = ringlet_gigaring::keys::Settings::of(s);
            (ringlet_gigaring::network::topology(&k).unwrap(), ringlet_gigaring::params::params(&k))
        }
        _ => {
            let k = ringlet_switch::keys::Settings::of(s);
            (ringlet_switch::network::topology(&k).unwrap(), ringlet_switch::params::params(&k))
        }
    }
}

/// The built-in sources' transactions of `s` before `until_ns`, as a CSV trace.
fn written_out(s: &Scenario, until_ns: f64) -> String {
    let (topo, p) = built(s);
    let endpoint = |a: u16| topo.endpoints().iter().position(|&e| e == a).unwrap();
    let mut csv = String::from("time_ns,src,dst,transaction,bytes,priority\n");
    for r in Traffic::new(s, &topo, &p).rows_until(ringlet_engine::time::ns_to_time(until_ns)) {
        let (name, bytes) = (p.kind_names[r.kind as usize], p.shapes[r.kind as usize].data_bytes);
        csv.push_str(&format!("{},{},{},{name},{bytes},{}\n", ringlet_engine::time::time_to_ns(r.at), endpoint(r.src), endpoint(r.dst), r.priority));
    }
    csv
}

/// A run's report as JSON, less what only says where the load came from:
/// offered load (the trace's is what its rows carry) and the shares and
/// fairness computed from it, the trace's own section, and the events
/// counted (rows due at one instant are issued by one event).
fn figures(r: &ringlet::RunResult) -> Value {
    let mut v = serde_json::to_value(&r.report).unwrap();
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for k in ["offered_mbps", "carried_share", "fairness_index", "min_carried_share", "min_carried_share_node", "starved_nodes", "trace", "stopped_by", "events"] {
                    m.remove(k);
                }
                // The analytic model is of the built-in sources' rates; a trace has none.
                m.retain(|k, _| !k.starts_with("model_"));
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

/// Runs `text` with its built-in sources, and again from a trace of the
/// same transactions: identical figures.
fn replays_the_generator(name: &str, text: &str, until_ns: f64) {
    let generated = load(text, &[]);
    let path = temp(&format!("{name}.csv"));
    std::fs::write(&path, written_out(&generated, until_ns)).unwrap();
    let traced = load(text, &[("traffic.source", "trace"), ("traffic.trace", path.to_str().unwrap())]);
    let (a, b) = (ringlet::run(&generated).unwrap(), ringlet::run(&traced).unwrap());
    assert_eq!(a.report.stopped_by, "transactions", "{name}: the generator run measures its transactions");
    assert_eq!(b.report.stopped_by, "transactions", "{name}");
    assert!(a.report.transactions > 0);
    assert_eq!(figures(&a), figures(&b), "{name}: the trace of the built-in transactions gives their figures");
    let t = b.report.trace.as_ref().expect("a trace section");
    assert!(t.rows_issued < t.rows && t.warnings.len() == 1 && t.warnings[0].contains("raise run.measure_transactions"), "{name}: {t:?}");
}

#[test]
fn a_trace_of_the_built_in_transactions_gives_their_figures_on_every_family() {
    let run = "[run]\nmeasure_transactions = 1500\nwarmup_ns = 2000\n";
    replays_the_generator("ring-poisson", &format!("[network]\nnodes = 6\nprotocol = \"dfc\"\n[traffic]\nload_mbps_per_node = 120\npriorities = 2\n{run}"), 1_000_000.0);
    replays_the_generator("ring-deterministic", &format!("[network]\nnodes = 4\n[traffic]\narrivals = \"deterministic\"\ndestinations = \"permutation\"\ntransaction = \"write64\"\nload_mbps_per_node = 90\n{run}"), 1_000_000.0);
    replays_the_generator("switch", &format!("[network]\nkind = \"sci-switch\"\nnodes = 4\n[traffic]\narrivals = \"deterministic\"\nstart = \"aligned\"\nload_mbps_per_node = 100\n{run}"), 1_000_000.0);
    replays_the_generator("banyan", &format!("[network]\nkind = \"banyan\"\nnodes = 8\n[traffic]\nload_mbps_per_node = 60\n{run}"), 1_000_000.0);
    replays_the_generator("gigaring", "[network]\nkind = \"gigaring\"\nnodes = 4\n[traffic]\ntransaction = \"message\"\nblock_words = 16\nload_mbps_per_node = 100\n[run]\nmeasure_transactions = 800\nwarmup_ns = 2000\n", 1_000_000.0);
}

/// A trace file of `text` beside the tests, and a scenario of `family_text` replaying it.
fn with_trace(name: &str, text: &str, family_text: &str) -> (PathBuf, Result<ringlet::RunResult, String>) {
    let path = temp(name);
    std::fs::write(&path, text).unwrap();
    let s = ringlet::load_str(family_text, &[("traffic.source".into(), "trace".into()), ("traffic.trace".into(), path.to_str().unwrap().into())]);
    let run = s.map_err(|e| e.message).and_then(|s| ringlet::run(&s).map_err(|e| e.message));
    (path, run)
}

const RING: &str = "[network]\nnodes = 4\n[traffic]\npriorities = 2\n[run]\nwarmup_ns = 1000\n";

/// Each kind of bad row or column is refused before anything runs, in
/// one line naming the file, the row (and the CSV line) and the column.
#[test]
fn bad_rows_are_refused_with_file_row_and_column() {
    let good = "0,0,1,read64,0\n";
    let cases: &[(&str, &str, &str)] = &[
        ("time_ns,src,dst,transaction,priority\n0,0,1,read64,0\n5,1,2,read64,0\n4,2,3,read64,0\n", "row 3 (line 4), column time_ns: 4 ns is before the row before's 5 ns", "out of order"),
        ("time_ns,src,dst,transaction,priority\n0,0,1,read64,0\n10,4,1,read64,0\n", "row 2 (line 3), column src: expected an endpoint in 0..3", "unknown node"),
        ("time_ns,src,dst,transaction,priority\n0,0,0,read64,0\n", "row 1 (line 2), column dst: the same endpoint as src", "to itself"),
        ("time_ns,src,dst,transaction,priority\n-3,0,1,read64,0\n", "row 1 (line 2), column time_ns: expected a time in 0..", "negative time"),
        ("time_ns,src,dst,transaction,priority\nsoon,0,1,read64,0\n", "row 1 (line 2), column time_ns: expected a number, got \"soon\"", "non-numeric"),
        ("time_ns,src,dst,transaction,priority\n0,0,1.5,read64,0\n", "row 1 (line 2), column dst: expected an integer, got \"1.5\"", "fractional node"),
        ("time_ns,src,dst,transaction,priority\n0,0,1,write64,0\n", "row 1 (line 2), column transaction: expected one of this run's kinds, read64 (64 bytes), got \"write64\"", "unknown kind"),
        ("time_ns,src,dst,bytes\n0,0,1,128\n", "row 1 (line 2), column bytes: no transaction of this run carries 128 bytes", "bytes of no kind"),
        ("time_ns,src,dst,bytes\n0,0,1,-64\n", "row 1 (line 2), column bytes: expected a payload > 0 bytes, got -64", "negative bytes"),
        ("time_ns,src,dst,transaction,priority\n0,0,1,read64,2\n", "row 1 (line 2), column priority: expected a priority in 0..1 (traffic.priorities = 2), got 2", "priority out of range"),
        ("time_ns,src,dst,transaction,priority\n0,0,1,read64\n", "line 2: 4 fields, the header has 5", "short row"),
        ("time_ns,src,transaction\n0,0,read64\n", "missing column \"dst\"", "missing column"),
        ("time_ns,src,dst\n0,0,1\n", "missing column \"transaction\" or \"bytes\"", "no kind column"),
        ("time_ns,src,dst,transaction,prio\n0,0,1,read64,0\n", "column \"prio\" (number 5): unknown; a trace has columns time_ns, src, dst, transaction, bytes, priority, vc, class", "unknown column"),
        ("time_ns,src,dst,transaction,vc\n0,0,1,read64,response\n", "row 1 (line 2), column vc: a read64 travels in class 0 (request), not 1", "wrong class"),
        ("", "empty trace", "empty file"),
        ("time_ns,src,dst,transaction,priority\n", "no rows after the header", "header only"),
    ];
    for (k, (text, want, what)) in cases.iter().enumerate() {
        let (path, got) = with_trace(&format!("bad-{k}.csv"), text, RING);
        let e = got.err().unwrap_or_else(|| panic!("{what}: accepted"));
        assert!(e.starts_with(&format!("{}: ", path.display())), "{what}: names the file: {e}");
        assert!(e.contains(want), "{what}: {e}");
        assert_eq!(e.lines().count(), 1, "{what}: one line: {e}");
    }
    // The same rows, good, run.
    let (_, ok) = with_trace("good.csv", &format!("time_ns,src,dst,transaction,priority\n{good}"), RING);
    assert_eq!(ok.unwrap().report.stopped_by, "trace_done");
    // On a switch, processors (0..3) send and memories (4..7) receive.
    let switch = "[network]\nkind = \"sci-switch\"\nnodes = 4\n";
    let (_, got) = with_trace("switch-dst.csv", "time_ns,src,dst,bytes\n0,0,4,64\n1,1,2,64\n", switch);
    let e = got.unwrap_err();
    assert!(e.contains("row 2 (line 3), column dst: endpoint 2 only sends (the endpoints that receive are 4..7)"), "{e}");
    let (_, got) = with_trace("switch-src.csv", "time_ns,src,dst,bytes\n0,5,4,64\n", switch);
    assert!(got.unwrap_err().contains("column src: endpoint 5 only receives (the endpoints that send are 0..3)"));
}

/// A bad row far into the file (beyond the first chunk the run reads) is
/// found by the check before the run: the run never starts.
#[test]
fn a_bad_row_deep_in_the_file_stops_the_run_before_it_starts() {
    let mut text = String::from("time_ns,src,dst,transaction\n");
    for k in 0..10_000u32 {
        text.push_str(&format!("{},{},{},read64\n", k * 50, k % 4, (k + 1) % 4));
    }
    text.push_str("400000,0,9,read64\n");
    let (_, got) = with_trace("deep.csv", &text, RING);
    assert!(got.unwrap_err().contains("row 10001 (line 10002), column dst: expected an endpoint in 0..3"));
}

/// The lazy reader reports a bad row only when it reaches it, as an error,
/// after the rows before it (what a run would meet if the file changed under it).
#[test]
fn the_reader_meets_a_bad_row_as_an_error_not_a_panic() {
    let s = load(RING, &[]);
    let (topo, p) = built(&s);
    let mut text = String::from("time_ns,src,dst,transaction\n");
    for k in 0..5000u32 {
        text.push_str(&format!("{k},0,1,read64\n"));
    }
    text.push_str("5000,0,1,read65\n");
    let path = temp("lazy.csv");
    std::fs::write(&path, text).unwrap();
    let mut r = ringlet_fabric::trace_source::TraceReader::open(path.to_str().unwrap(), ringlet_fabric::trace_source::TraceSpec::new(&topo, &p, 1)).unwrap();
    let mut read = 0;
    let e = loop {
        match r.next_row() {
            Ok(Some(_)) => read += 1,
            Ok(None) => panic!("the bad row is read"),
            Err(e) => break e,
        }
    };
    // The first chunk came whole; the second stopped at its bad row.
    assert_eq!(read, ringlet_fabric::trace_source::CHUNK_ROWS);
    assert!(e.contains("row 5001 (line 5002), column transaction"), "{e}");
}

/// A trace played out stops the run there; its span, the rows issued in
/// the warm-up and in the window, and the load they offer are stated; a
/// trace that ends in the warm-up, or a run that stops before the trace
/// does, is warned of.
#[test]
fn the_trace_is_set_beside_the_runs_windows() {
    // 4 nodes, each a read64 every 500 ns for 20 us (40 rows each), warm-up 1 us.
    let mut text = String::from("time_ns,src,dst,transaction\n");
    for k in 0..40u32 {
        for n in 0..4u32 {
            text.push_str(&format!("{},{n},{},read64\n", k * 500, (n + 1) % 4));
        }
    }
    let (_, got) = with_trace("span.csv", &text, RING);
    let r = got.unwrap();
    let t = r.report.trace.clone().unwrap();
    assert_eq!(r.report.stopped_by, "trace_done");
    assert_eq!((t.rows, t.first_ns, t.last_ns, t.rows_due_in_warmup), (160, 0.0, 19_500.0, 8));
    assert_eq!((t.rows_issued, t.rows_issued_in_warmup, t.rows_issued_measured), (160, 8, 152));
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    assert_eq!(r.report.conservation.completed, 160);
    assert_eq!(t.measure_to_ns, r.report.sim_time_ns);
    // Offered: the 152 rows issued in the window, 64 bytes each, over it,
    // and what the 8 of the warm-up had not delivered when it ended.
    let window_s = (t.measure_to_ns - t.measure_from_ns) * 1e-9;
    let (in_window, with_warmup) = (152.0 * 64.0 / window_s / 1e6, 160.0 * 64.0 / window_s / 1e6);
    assert!(r.report.offered_mbps >= in_window - 1e-9 && r.report.offered_mbps <= with_warmup + 1e-9, "{}", r.report.offered_mbps);
    // Played out to its end, the trace has everything it offered carried.
    assert!((r.report.throughput_mbps / r.report.offered_mbps - 1.0).abs() < 1e-12, "{} vs {}", r.report.throughput_mbps, r.report.offered_mbps);
    // Stopped short by the transactions to measure: said, with the way out.
    let (_, got) = with_trace("span-short.csv", &text, &format!("{RING}measure_transactions = 50\n"));
    let t = got.unwrap().report.trace.unwrap();
    assert!(t.rows_issued < 160 && t.warnings[0].contains("before the trace was done") && t.warnings[0].contains("raise run.measure_transactions"), "{:?}", t.warnings);
    // Ends before the warm-up does: nothing measured, said.
    let (_, got) = with_trace("span-early.csv", &text, "[network]\nnodes = 4\n[run]\nwarmup_ns = 50000\n");
    let r = got.unwrap();
    let t = r.report.trace.clone().unwrap();
    assert!(t.warnings[0].contains("before run.warmup_ns (50000 ns) does"), "{:?}", t.warnings);
    assert_eq!(r.report.transactions, 0);
}

/// A trace's rows issued in the warm-up and delivered in the window are
/// offered there as well as carried: the shipped all-reduce (320 rows in
/// its 10 µs warm-up) carried 762.9 against 717.2 MB/s offered, its nodes
/// 106% of their load, when only the rows issued in the window counted.
#[test]
fn a_trace_never_carries_more_than_it_offers() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/traces/allreduce-8node.toml");
    let s = ringlet::load_file(&path, &[]).unwrap_or_else(|e| panic!("{}", e.message));
    let r = ringlet::run(&s).unwrap().report;
    let t = r.trace.clone().unwrap();
    assert!(t.rows_issued_in_warmup > 0 && r.stopped_by == "trace_done", "{t:?}");
    assert!(r.throughput_mbps <= r.offered_mbps * (1.0 + 1e-12), "{} carried of {} offered", r.throughput_mbps, r.offered_mbps);
    for n in &r.per_node {
        assert!(n.carried_share <= 1.0 + 1e-12, "node {}: carried share {}", n.node, n.carried_share);
    }
    for p in &r.per_priority {
        assert!(p.throughput_mbps <= p.offered_mbps * (1.0 + 1e-12), "priority {}: {} of {}", p.priority, p.throughput_mbps, p.offered_mbps);
    }
}

/// A trace named relative to its scenario file is found beside it, and
/// the scenario hash follows the file's content: edit the trace and the
/// hash (so every results store's key) changes; a scenario that gives the
/// old digest is refused.
#[test]
fn relative_paths_and_the_content_hash() {
    let dir = temp("rel");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("t.csv"), "time_ns,src,dst,transaction\n0,0,1,read64\n").unwrap();
    let text = "[network]\nnodes = 4\n[traffic]\nsource = \"trace\"\ntrace = \"t.csv\"\n";
    let origin = dir.join("s.toml");
    let s = ringlet::load_named(text, origin.to_str().unwrap(), &[]).unwrap();
    assert_eq!(s.traffic.trace.as_deref(), Some(dir.join("t.csv").to_str().unwrap()));
    let before = s.hash();
    std::fs::write(dir.join("t.csv"), "time_ns,src,dst,transaction\n0,0,1,read64\n9,1,2,read64\n").unwrap();
    let edited = ringlet::load_named(text, origin.to_str().unwrap(), &[]).unwrap();
    assert_ne!(edited.hash(), before, "an edited trace is another scenario");
    // The stored scenario (its TOML) names the old content: refused now.
    let e = ringlet::load_str(&s.to_toml(), &[]).unwrap_err().message;
    assert!(e.starts_with("traffic.trace_sha256: the trace file") && e.contains("has changed"), "{e}");
    // ...and reloads to the same hash while the file is as it was.
    assert_eq!(ringlet::load_str(&edited.to_toml(), &[]).unwrap().hash(), edited.hash());
    // A scenario without a trace is as it was: no trace keys in its TOML.
    assert!(!ringlet::load_str("", &[]).unwrap().to_toml().contains("source"));
    let e = ringlet::load_str("[traffic]\nsource = \"trace\"\n", &[]).unwrap_err().message;
    assert_eq!(e, "traffic.trace: expected a CSV or Parquet file with traffic.source = \"trace\", got none");
    let e = ringlet::load_str("[traffic]\nsource = \"trace\"\ntrace = \"/nowhere/t.csv\"\n", &[]).unwrap_err().message;
    assert!(e.starts_with("traffic.trace: cannot read /nowhere/t.csv: "), "{e}");
}
