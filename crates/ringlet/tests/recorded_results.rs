//! Speed work changes no result: every case below gives, figure for figure,
//! the report recorded in `recorded/reports.json` by an earlier build (all
//! of the run's JSON but its wall time, provenance, which names the
//! build, and the count of events handled, which is the run's cost).
//!
//! Each case is recorded as a SHA-256 digest of each section of its report
//! (`throughput_mbps`, `per_node`, `counters`, ...), so that a failure says
//! which figures moved, and its headline figures, so that it says by how
//! much. The cases cover base SCI, PPQ, TRAIN and DFC, 2 to 256 nodes,
//! every destination pattern and arrival process, every transaction type,
//! and the options that switch flow-control rules on and off; SCI switches
//! and Banyans; GigaRing channels (the DMA handshake, both sharing laws,
//! congestion control on and off, a fold).
//!
//! Recorded anew (only when a change is meant to move results, and said so
//! in its commit) with
//! `RINGLET_RECORD=1 cargo test -p ringlet --test recorded_results`.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// (name, scenario settings as `section.key=value`).
const CASES: &[(&str, &[&str])] = &[
    // Base SCI.
    ("sci-2node-saturated", &["network.nodes=2", "traffic.load_mbps_per_node=400"]),
    ("sci-3node-local", &["network.nodes=3", "traffic.destinations=\"local\"", "traffic.load_mbps_per_node=200"]),
    ("sci-8node-saturated", &["traffic.load_mbps_per_node=150"]),
    ("sci-8node-half-load", &["traffic.load_mbps_per_node=60"]),
    ("sci-8node-hotspot", &["traffic.destinations=\"hotspot\"", "traffic.hotspot_node=3", "traffic.load_mbps_per_node=80"]),
    ("sci-8node-deterministic", &["traffic.arrivals=\"deterministic\"", "traffic.load_mbps_per_node=120"]),
    ("sci-8node-write64", &["traffic.transaction=\"write64\"", "traffic.load_mbps_per_node=150"]),
    ("sci-8node-move64", &["traffic.transaction=\"move64\"", "traffic.load_mbps_per_node=200"]),
    ("sci-8node-long-links", &["network.link_delay_ns=10", "network.node_delay_cycles=4", "traffic.load_mbps_per_node=150"]),
    ("sci-8node-no-bandwidth-allocation", &["network.bandwidth_allocation=\"none\"", "traffic.load_mbps_per_node=150"]),
    ("sci-8node-no-queue-allocation", &["network.queue_allocation=\"none\"", "traffic.load_mbps_per_node=150"]),
    ("sci-8node-three-priorities", &["traffic.priorities=3", "traffic.load_mbps_per_node=60"]),
    ("sci-8node-small-queues", &["node.input_queue_packets=1", "node.output_queue_packets=2", "traffic.load_mbps_per_node=150"]),
    ("sci-8node-three-separators", &["network.idle_symbols_between_packets=3", "network.cycle_ns=1.5", "traffic.load_mbps_per_node=150"]),
    ("sci-17node-local", &["network.nodes=17", "traffic.destinations=\"local\"", "traffic.load_mbps_per_node=300"]),
    ("sci-64node", &["network.nodes=64", "traffic.load_mbps_per_node=20"]),
    ("sci-64node-hotspot", &["network.nodes=64", "traffic.destinations=\"hotspot\"", "traffic.load_mbps_per_node=15"]),
    ("sci-130node", &["network.nodes=130", "traffic.load_mbps_per_node=10", "network.link_delay_ns=3"]),
    ("sci-256node", &["network.nodes=256", "traffic.load_mbps_per_node=6", "run.measure_transactions=1500"]),
    // PPQ.
    ("ppq-2node", &["network.protocol=\"ppq\"", "network.nodes=2", "traffic.priorities=2", "traffic.load_mbps_per_node=200"]),
    ("ppq-8node-aging", &["network.protocol=\"ppq\"", "traffic.priorities=3", "traffic.load_mbps_per_node=60"]),
    ("ppq-8node-inheritance", &["network.protocol=\"ppq\"", "ppq.starvation=\"inheritance\"", "traffic.priorities=3", "traffic.load_mbps_per_node=60"]),
    ("ppq-8node-holdoff-ewq", &["network.protocol=\"ppq\"", "ppq.retry_holdoff_ns=200", "ppq.ewq_packets=2", "traffic.priorities=2", "traffic.load_mbps_per_node=90"]),
    ("ppq-8node-hotspot-deterministic", &["network.protocol=\"ppq\"", "traffic.destinations=\"hotspot\"", "traffic.arrivals=\"deterministic\"", "traffic.priorities=4", "traffic.load_mbps_per_node=25"]),
    ("ppq-8node-no-bandwidth-allocation", &["network.protocol=\"ppq\"", "network.bandwidth_allocation=\"none\"", "traffic.priorities=3", "traffic.load_mbps_per_node=60"]),
    ("ppq-64node", &["network.protocol=\"ppq\"", "network.nodes=64", "traffic.priorities=2", "traffic.load_mbps_per_node=10"]),
    ("ppq-256node", &["network.protocol=\"ppq\"", "network.nodes=256", "traffic.priorities=2", "traffic.load_mbps_per_node=3", "run.measure_transactions=1500"]),
    // TRAIN.
    ("train-8node", &["network.protocol=\"train\"", "traffic.priorities=3", "traffic.load_mbps_per_node=60"]),
    ("train-8node-gearshift", &["network.protocol=\"train\"", "train.gearshift=true", "traffic.priorities=3", "traffic.load_mbps_per_node=40"]),
    ("train-8node-local-write64", &["network.protocol=\"train\"", "traffic.destinations=\"local\"", "traffic.transaction=\"write64\"", "traffic.priorities=2", "traffic.load_mbps_per_node=100"]),
    ("train-64node", &["network.protocol=\"train\"", "network.nodes=64", "traffic.priorities=2", "traffic.load_mbps_per_node=8"]),
    ("train-256node", &["network.protocol=\"train\"", "network.nodes=256", "traffic.load_mbps_per_node=4", "run.measure_transactions=1500"]),
    // DFC.
    ("dfc-2node", &["network.protocol=\"dfc\"", "network.nodes=2", "traffic.load_mbps_per_node=400"]),
    ("dfc-8node-saturated", &["network.protocol=\"dfc\"", "traffic.load_mbps_per_node=150"]),
    ("dfc-8node-three-priorities", &["network.protocol=\"dfc\"", "traffic.priorities=3", "traffic.load_mbps_per_node=60"]),
    ("dfc-8node-hotspot-stop-thru-3", &["network.protocol=\"dfc\"", "dfc.stop_thru_after_packets=3", "traffic.destinations=\"hotspot\"", "traffic.load_mbps_per_node=80"]),
    ("dfc-8node-move64-long-links", &["network.protocol=\"dfc\"", "traffic.transaction=\"move64\"", "network.link_delay_ns=8", "traffic.load_mbps_per_node=200"]),
    ("dfc-64node", &["network.protocol=\"dfc\"", "network.nodes=64", "traffic.priorities=2", "traffic.load_mbps_per_node=10"]),
    ("dfc-256node", &["network.protocol=\"dfc\"", "network.nodes=256", "traffic.load_mbps_per_node=6", "run.measure_transactions=1500"]),
    // SCI switches and Banyans (seed 001).
    ("switch-uO2nS2-saturated", &["network.kind=\"sci-switch\"", "network.nodes=2", "network.ringlets=\"unidirectional\"", "traffic.transaction=\"dmove64\"", "traffic.arrivals=\"deterministic\"", "traffic.destinations=\"local\"", "traffic.locality=1.0", "traffic.load_mbps_per_node=450"]),
    ("switch-bO2nS2-half-locality", &["network.kind=\"sci-switch\"", "network.nodes=2", "network.ringlets=\"bidirectional\"", "traffic.transaction=\"dmove64\"", "traffic.destinations=\"local\"", "traffic.locality=0.5", "traffic.load_mbps_per_node=200"]),
    ("banyan-uO4nS16-permutation", &["network.kind=\"banyan\"", "network.nodes=16", "network.switch_ports=4", "network.ringlets=\"unidirectional\"", "traffic.transaction=\"dmove64\"", "traffic.arrivals=\"deterministic\"", "traffic.destinations=\"permutation\"", "traffic.load_mbps_per_node=150"]),
    ("banyan-bO2nS16-uniform", &["network.kind=\"banyan\"", "network.nodes=16", "network.switch_ports=2", "network.ringlets=\"bidirectional\"", "traffic.transaction=\"dmove64\"", "traffic.destinations=\"uniform\"", "traffic.load_mbps_per_node=100"]),
    // GigaRing channels (seed 002): the DMA handshake, both sharing laws,
    // congestion control on and off at a congested slave, a fold.
    ("gigaring-p2p-half-duplex", &["network.kind=\"gigaring\"", "network.nodes=2", "traffic.masters=1", "traffic.block_words=1024", "traffic.load_mbps_per_node=2000", "run.measure_transactions=300"]),
    ("gigaring-8node-mixed", &["network.kind=\"gigaring\"", "network.nodes=8", "traffic.transaction=\"mixed\"", "traffic.block_words=512", "traffic.load_mbps_per_node=120", "run.measure_transactions=1500"]),
    ("gigaring-8node-per-request-hotspot", &["network.kind=\"gigaring\"", "network.nodes=8", "gigaring.sharing_law=\"per-request\"", "traffic.transaction=\"writeblk\"", "traffic.block_words=64", "traffic.destinations=\"hotspot\"", "traffic.hotspot_fraction=1.0", "traffic.load_mbps_per_node=200", "run.measure_transactions=1500"]),
    ("gigaring-congested-slave-cc", &["network.kind=\"gigaring\"", "network.nodes=10", "traffic.masters=9", "traffic.transaction=\"mixed\"", "traffic.block_words=256", "gigaring.dma_queue_transfers=8", "traffic.load_mbps_per_node=200", "run.measure_transactions=600"]),
    ("gigaring-congested-slave-no-cc", &["network.kind=\"gigaring\"", "network.nodes=10", "traffic.masters=9", "traffic.transaction=\"readblk\"", "traffic.block_words=256", "gigaring.dma_queue_transfers=8", "gigaring.congestion_control=false", "traffic.load_mbps_per_node=200", "run.measure_transactions=600"]),
    ("gigaring-8node-fold", &["network.kind=\"gigaring\"", "network.nodes=8", "traffic.transaction=\"mixed\"", "traffic.block_words=96", "traffic.load_mbps_per_node=300", "faults.fail_node=3", "faults.at_ns=40000", "run.measure_transactions=2000"]),
];

/// Every case's base: short runs (the comparison is exact, so a few
/// thousand transactions exercise every rule many times over).
const BASE: &str = "[run]\nwarmup_ns = 5000\nmeasure_transactions = 3000\nseed = 7\n";

/// Headline figures, shown beside the digests when a case moves.
const HEADLINES: &[&str] = &["throughput_mbps", "latency_ns_mean", "latency_ns_p99", "transactions", "retries", "sim_time_ns"];

fn recorded_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/recorded/reports.json")
}

/// What a case's run is recorded as: each section's digest, and the headlines.
fn record_of(settings: &[&str]) -> Value {
    let overrides: Vec<_> = settings.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    let s = ringlet::load_str(BASE, &overrides).expect("a valid case");
    let r = ringlet::run(&s).expect("the case runs");
    let Value::Object(all) = serde_json::to_value(&r).expect("json") else { panic!("a run is a JSON object") };
    let mut sections = Map::new();
    for (key, value) in &all {
        if key == "wall_time_s" || key == "setup_time_s" || key == "provenance" {
            continue;
        }
        // The events handled are what the simulation cost, not a result:
        // work on speed changes them and nothing else.
        let mut value = value.clone();
        if key == "counters" {
            value.as_object_mut().expect("counters are an object").remove("events");
        }
        let text = serde_json::to_string(&value).expect("json");
        let digest = Sha256::digest(text.as_bytes());
        sections.insert(key.clone(), Value::String(digest.iter().map(|b| format!("{b:02x}")).collect()));
    }
    // As text: a float read back from JSON may differ in its last bit.
    let headlines: Map<String, Value> = HEADLINES.iter().map(|&k| (k.to_string(), Value::String(all[k].to_string()))).collect();
    serde_json::json!({ "sections": sections, "headlines": headlines })
}

#[test]
fn every_case_gives_the_recorded_report() {
    let runs: BTreeMap<String, Value> = CASES.iter().map(|(name, settings)| (name.to_string(), record_of(settings))).collect();
    if std::env::var_os("RINGLET_RECORD").is_some() {
        let text = serde_json::to_string_pretty(&runs).expect("json") + "\n";
        std::fs::create_dir_all(recorded_path().parent().expect("a folder")).expect("create tests/recorded");
        std::fs::write(recorded_path(), text).expect("write the recorded reports");
    }
    let recorded: BTreeMap<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(recorded_path()).expect("tests/recorded/reports.json")).expect("recorded JSON");
    assert_eq!(
        recorded.keys().collect::<Vec<_>>(),
        runs.keys().collect::<Vec<_>>(),
        "the recorded cases are not the cases run"
    );
    let mut moved = Vec::new();
    for (name, now) in &runs {
        let was = &recorded[name];
        if now == was {
            continue;
        }
        let sections: Vec<&String> = now["sections"]
            .as_object()
            .expect("sections")
            .iter()
            .filter(|(k, v)| was["sections"].get(k.as_str()) != Some(v))
            .map(|(k, _)| k)
            .collect();
        moved.push(format!("{name}: sections {sections:?} differ; headlines now {} recorded {}", now["headlines"], was["headlines"]));
    }
    assert!(moved.is_empty(), "{} of {} cases moved:\n{}", moved.len(), runs.len(), moved.join("\n"));
}
