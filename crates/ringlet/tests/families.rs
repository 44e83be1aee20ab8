//! A network family plugs in as one module and one registry line: the toy
//! bridge family (`toy_bridge`), two ringlets joined by a bridge agent,
//! joins the scenario contract, runs through the registry, and carries a
//! transaction across the bridge with exact timings.

mod toy_bridge;

use ringlet::registry::Registry;
use ringlet_fabric::family::Family;
use ringlet_fabric::packet::PacketKind::{self, Echo, Request, Response};
use ringlet_fabric::trace::{TraceKind, TraceKind::*};
use std::sync::OnceLock;
use ringlet_engine::time::time_to_ns;
use toy_bridge::{CYCLE, HOP};

/// The registry line.
const FAMILIES: &[Family] = &[ringlet_sci::FAMILY, toy_bridge::FAMILY];

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| Registry::new(FAMILIES))
}

fn scenario(sets: &[&str]) -> ringlet_scenario::Scenario {
    let mut o = vec![("network.kind".to_string(), "toy-bridge".to_string()), ("network.nodes".to_string(), "6".to_string())];
    o.extend(sets.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")));
    registry().load_str("[run]\nwarmup_ns = 0\n", &o).expect("a valid toy scenario")
}

const NS: u64 = ringlet_engine::time::TICKS_PER_NS;

/// The family's kind, keys and workload are part of the contract and the
/// reference; the SCI ring's keys are not its keys, and its own are not the ring's.
#[test]
fn the_family_joins_the_contract() {
    let doc = registry().schema().markdown();
    assert!(doc.contains("| `toy-bridge` | Two ringlets joined by a bridge (a test family). |"), "{doc}");
    assert!(doc.contains("## network.kind = \"toy-bridge\""));
    assert!(doc.contains("| `source_buffer` | integer 0..1000000 | 0 |"), "{doc}");
    assert!(doc.contains("| `kind` | `sci-ring` \\| `toy-bridge` |"), "{doc}");
    let s = scenario(&["bridge.iqst_ns=20"]);
    assert_eq!((s.network.kind, s.section("bridge").float("iqst_ns")), ("toy-bridge", 20.0));
    let err = |sets: &[(&str, &str)]| {
        let o: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        registry().load_str("", &o).unwrap_err().message
    };
    assert_eq!(err(&[("network.kind", "toy-bridge"), ("network.protocol", "dfc")]), "network.protocol: not a key of network.kind = \"toy-bridge\" (it is one of network.kind = \"sci-ring\")");
    assert!(err(&[("bridge.iqst_ns", "1")]).starts_with("bridge: unknown section for network.kind = \"sci-ring\""));
    assert_eq!(err(&[("network.kind", "toy-bridge"), ("network.nodes", "8")]), "network.nodes: expected 6 for network.kind = \"toy-bridge\", got 8");
    assert_eq!(err(&[("network.kind", "mesh")]), "network.kind: expected one of \"sci-ring\", \"toy-bridge\", got \"mesh\"");
    let names: Vec<&str> = registry().workloads().map(|w| w.name).collect();
    assert_eq!(names, ["reference-8node", "sci-8node", "ring-64node", "ppq-8node", "train-8node", "toy-bridge"]);
    for w in registry().workloads() {
        let s = registry().load_str(w.scenario, &[]).unwrap();
        registry().check(&s).unwrap();
    }
}

/// Times (ticks) of the trace records matching `what` at interface `iface` for packets of `kind`.
fn times(f: &ringlet_fabric::Fabric<toy_bridge::Greedy>, iface: u16, what: TraceKind, kind: PacketKind) -> Vec<u64> {
    f.records().iter().filter(|r| r.iface == iface && r.what == what && r.kind == kind).map(|r| r.time).collect()
}

/// A read64 from node 0 (ringlet 0, interface 0) to node 4 (ringlet 1,
/// interface 6), crossing the bridge (interfaces 3 and 4) both ways, with
/// 10 ns of service at every input queue. Each ringlet strips and echoes
/// its own hop: the request's echo returns to node 0 from the bridge, the
/// bridge's to the bridge from node 4; the response's likewise.
#[test]
fn a_transaction_crosses_the_bridge_with_exact_timings() {
    let s = scenario(&["bridge.iqst_ns=10"]);
    let mut f = toy_bridge::hand_built(&s);
    f.inject(0, 4, 0, 0);
    f.run_until(1_000 * NS);
    let iqst = 10 * NS;
    // Ringlet 0: three hops to the bridge's port; its echo one hop back.
    assert_eq!(times(&f, 0, Transmit { own: true }, Request), vec![0]);
    let at_bridge = 3 * HOP;
    assert_eq!(times(&f, 3, Accepted, Request), vec![at_bridge]);
    assert_eq!(times(&f, 3, Received, Request), vec![at_bridge + 8 * CYCLE]);
    assert_eq!(times(&f, 3, Transmit { own: false }, Echo), vec![at_bridge]);
    assert_eq!(times(&f, 0, EchoBack { busy: false }, Echo), vec![at_bridge + HOP + 4 * CYCLE]);
    // The bridge services it and sends it on from its port on ringlet 1, two hops to node 4.
    let sent_on = at_bridge + 8 * CYCLE + iqst;
    assert_eq!(times(&f, 3, Serviced, Request), vec![sent_on]);
    assert_eq!(times(&f, 4, Transmit { own: true }, Request), vec![sent_on]);
    let at_node = sent_on + 2 * HOP;
    assert_eq!(times(&f, 6, Accepted, Request), vec![at_node]);
    assert_eq!(times(&f, 4, EchoBack { busy: false }, Echo), vec![at_node + 2 * HOP + 4 * CYCLE]);
    // Node 4 answers; the response comes back the same way: stripped and
    // echoed by the bridge on ringlet 1, sent on and echoed by node 0 on ringlet 0.
    let answered = at_node + 8 * CYCLE + iqst;
    assert_eq!(times(&f, 6, Serviced, Request), vec![answered]);
    assert_eq!(times(&f, 6, Transmit { own: true }, Response), vec![answered]);
    let back_at_bridge = answered + 2 * HOP;
    assert_eq!(times(&f, 4, Accepted, Response), vec![back_at_bridge]);
    assert_eq!(times(&f, 6, EchoBack { busy: false }, Echo), vec![back_at_bridge + 2 * HOP + 4 * CYCLE]);
    let sent_back = back_at_bridge + 40 * CYCLE + iqst;
    assert_eq!(times(&f, 4, Serviced, Response), vec![sent_back]);
    assert_eq!(times(&f, 3, Transmit { own: true }, Response), vec![sent_back]);
    let home = sent_back + HOP;
    assert_eq!(times(&f, 0, Accepted, Response), vec![home]);
    assert_eq!(times(&f, 3, EchoBack { busy: false }, Echo), vec![home + 3 * HOP + 4 * CYCLE]);
    let done = home + 40 * CYCLE + iqst;
    assert_eq!(times(&f, 0, Serviced, Response), vec![done]);
    // One transaction, measured end to end: the request from its
    // application queue to node 4's service, the response from its creation
    // to node 0's; node 0's, not node 4's or the bridge's.
    let r = f.report();
    assert_eq!(r.transactions, 1);
    let (request, response) = (time_to_ns(answered), time_to_ns(done - answered));
    assert!((r.latency_ns_mean - (request + response) / 2.0).abs() < 1e-9, "{}", r.latency_ns_mean);
    let txns: Vec<u64> = r.per_node.iter().map(|n| n.transactions).collect();
    assert_eq!(txns, [1, 0, 0, 0, 0, 0, 0]);
    assert_eq!(r.per_node[0].packets, 2);
    assert_eq!(r.counters.echoes, 4);
}

/// A read answered by three responses (node 0 to its neighbour, node 1):
/// they leave node 1 back to back, and the transaction completes when the
/// last is serviced, its 64 data bytes delivered a share per response.
#[test]
fn a_transaction_of_several_packets_completes_at_its_last() {
    let s = scenario(&["bridge.iqst_ns=10", "bridge.responses=3"]);
    let mut f = toy_bridge::hand_built(&s);
    f.inject(0, 1, 0, 0);
    let iqst = 10 * NS;
    let answered = HOP + 8 * CYCLE + iqst;
    let slot = 41 * CYCLE;
    // Node 1 to node 0 is three hops round ringlet 0 (through node 2 and the bridge).
    let first_done = answered + 3 * HOP + 40 * CYCLE + iqst;
    f.run_until(first_done);
    assert_eq!(times(&f, 0, Serviced, Response), vec![first_done]);
    assert_eq!(f.report().transactions, 0, "one response of three is not the transaction");
    f.run_until(1_000 * NS);
    assert_eq!(times(&f, 1, Transmit { own: true }, Response), vec![answered, answered + slot, answered + 2 * slot]);
    let tails: Vec<u64> = (0..3).map(|k| answered + k * slot + 3 * HOP + 40 * CYCLE).collect();
    assert_eq!(times(&f, 0, Received, Response), tails);
    // The requestor serves them as they come in (the first is done before the second is in).
    assert_eq!(times(&f, 0, Serviced, Response), tails.iter().map(|t| t + iqst).collect::<Vec<_>>());
    let r = f.report();
    assert_eq!((r.transactions, r.per_priority[0].packets, r.conservation.completed, r.conservation.in_flight), (1, 4, 1, 0));
    let bytes = r.throughput_mbps * r.measure_time_ns * 1e-3;
    assert!((bytes - 64.0).abs() < 1e-9, "{bytes} bytes delivered");
}

/// Run through the registry: figures by structure (two ringlets of four
/// links, seven agents, the bridge offering nothing), every transaction
/// accounted for, and at low load the offered load delivered.
#[test]
fn runs_through_the_registry_with_figures_by_structure() {
    let s = scenario(&["traffic.load_mbps_per_node=20", "run.measure_transactions=6000", "run.warmup_ns=5000"]);
    let r = registry().run(&s).unwrap().report;
    assert_eq!(r.stopped_by, "transactions");
    // Several responses per read: the same data, each transaction complete.
    let several = registry().run(&scenario(&["traffic.load_mbps_per_node=20", "run.measure_transactions=3000", "run.warmup_ns=5000", "bridge.responses=3"])).unwrap().report;
    assert!((several.throughput_mbps - 120.0).abs() / 120.0 < 0.08, "{}", several.throughput_mbps);
    let c = &several.conservation;
    assert_eq!(c.generated, c.completed + c.queued + c.in_flight + c.lost);
    assert!(several.per_class[1].packets > 2 * several.per_class[0].packets, "{:?}", several.per_class);
    assert_eq!(r.per_ringlet.len(), 2);
    assert!(r.per_ringlet.iter().all(|g| g.interfaces == 4 && g.utilization_mean > 0.0 && g.utilization_max <= 1.0));
    let ringlets: Vec<u32> = r.per_link.iter().map(|l| l.ringlet).collect();
    assert_eq!(ringlets, [0, 0, 0, 0, 1, 1, 1, 1]);
    assert_eq!((r.per_link[3].from_node, r.per_link[3].to_node), (6, 0), "the bridge's link on ringlet 0 leads to node 0");
    assert_eq!(r.per_node.len(), 7);
    assert_eq!(r.per_node[6].offered_mbps, 0.0);
    assert!(r.per_node[..6].iter().all(|n| n.offered_mbps == 20.0 && n.transactions > 0));
    let c = &r.conservation;
    assert_eq!(c.generated, c.completed + c.queued + c.in_flight + c.lost);
    assert_eq!((c.lost, r.loss_mbps), (0, 0.0));
    assert!((r.throughput_mbps - 120.0).abs() / 120.0 < 0.06, "{}", r.throughput_mbps);
    let per_node: f64 = r.per_node.iter().map(|n| n.throughput_mbps).sum();
    assert!((per_node - r.throughput_mbps).abs() < 1e-6 * r.throughput_mbps);
    let classes: Vec<(&str, u64)> = r.per_class.iter().map(|c| (c.name, c.packets)).collect();
    assert_eq!(classes.iter().map(|c| c.0).collect::<Vec<_>>(), ["request", "response"]);
    assert_eq!(classes[0].1 + classes[1].1, r.per_priority[0].packets);
}

/// A source whose application queue holds one transaction loses what it
/// generates while that one waits: loss in MB/s, every transaction still
/// accounted for.
#[test]
fn full_source_buffers_lose_transactions() {
    let s = scenario(&["traffic.load_mbps_per_node=400", "bridge.source_buffer=1", "run.measure_transactions=3000"]);
    let r = registry().run(&s).unwrap().report;
    let c = &r.conservation;
    assert!(c.lost > 0 && r.loss_mbps > 0.0, "{c:?}");
    assert_eq!(c.generated, c.completed + c.queued + c.in_flight + c.lost);
    assert!(c.queued <= 6, "at most one waiting per source: {c:?}");
    let lost: f64 = r.per_node.iter().map(|n| n.loss_mbps).sum();
    assert!((lost - r.loss_mbps).abs() < 1e-6 * r.loss_mbps);
    assert!(r.throughput_mbps + r.loss_mbps <= r.offered_mbps * 1.05);
    // Lost transactions are not outstanding: a backlog cap far below the
    // number lost (but above what waits or is in flight) does not stop the run.
    let capped = scenario(&["traffic.load_mbps_per_node=400", "bridge.source_buffer=1", "run.measure_transactions=3000", "run.max_backlog_transactions=100"]);
    let r = registry().run(&capped).unwrap().report;
    assert!(r.conservation.lost > 100 && r.conservation.queued + r.conservation.in_flight <= 100, "{:?}", r.conservation);
    assert_eq!(r.stopped_by, "transactions");
}
