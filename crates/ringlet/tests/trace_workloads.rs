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
