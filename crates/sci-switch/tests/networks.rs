//! The networks the builder makes: the seed's port counts, and every
//! processor reaching every memory (and, for read64, back) over the routes
//! the fabric follows; conservation on random small networks.

use ringlet_fabric::family::Mode;
use ringlet_fabric::topology::{AgentId, Topology, NO_IFACE};
use ringlet_switch::keys::Settings;
use ringlet_switch::network;
use ringlet_switch::wiring::Kind;

fn settings(kind: &str, nodes: usize, extra: &[&str]) -> Settings {
    let text = format!("[network]\nkind = \"{kind}\"\nnodes = {nodes}\n");
    let overrides: Vec<_> = extra.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    Settings::of(&ringlet_switch::load_str(&text, &overrides).expect("valid scenario"))
}

/// Ports of the switches (interfaces of agents with a bus).
fn switch_ports(t: &Topology) -> usize {
    t.agents().iter().filter(|a| a.bus.is_some()).map(|a| a.ifaces.len()).sum()
}

/// Seed 001 section V: a 16x16 network needs 32 ports second-grade
/// optimized (s = 4), 64 first-grade (s = 2), 128 with bidirectional ringlets.
#[test]
fn port_counts_of_a_16x16_network_are_the_seeds() {
    for (ports, ringlets, want) in [(4, "unidirectional", 32), (2, "unidirectional", 64), (2, "bidirectional", 128)] {
        let k = settings("banyan", 16, &[&format!("network.switch_ports={ports}"), &format!("network.ringlets={ringlets}")]);
        let t = network::topology(&k).unwrap();
        assert_eq!(switch_ports(&t), want, "s = {ports}, {ringlets}");
    }
    // Figure 6b: eight processors and memories, two of each per ring, on four ports.
    assert_eq!(switch_ports(&network::topology(&settings("sci-switch", 8, &["network.nodes_per_ring=2"])).unwrap()), 4);
    // One switch: two ports used with unidirectional rings (Figure 5b), four with bidirectional ringlets (5a).
    assert_eq!(switch_ports(&network::topology(&settings("sci-switch", 2, &[])).unwrap()), 2);
    assert_eq!(switch_ports(&network::topology(&settings("sci-switch", 2, &["network.ringlets=bidirectional"])).unwrap()), 4);
}

/// Follows the fabric's routes from `src` to `dst`: the interface each
/// agent sends on, the one that strips; returns the switches crossed, or
/// `None` if the packet is lost on the way.
fn walk(t: &Topology, src: AgentId, dst: AgentId) -> Option<usize> {
    let (mut at, mut crossed) = (src, 0);
    for _ in 0..64 {
        let out = t.out_iface(at, dst);
        if out == NO_IFACE {
            return None;
        }
        let strip = t.strip_from(out, t.ringlet_of(out), dst);
        if strip == NO_IFACE {
            return None;
        }
        at = t.agent_of(strip);
        if at == dst {
            return Some(crossed);
        }
        if !t.agent(at).endpoint {
            crossed += 1;
        } else {
            return None; // stripped by another endpoint
        }
    }
    None
}

/// Destination-tag routing takes every processor to every memory, crossing
/// each stage's switch at most once (a Banyan's unique path), and with
/// unidirectional rings a processor's own memory without a crossing; on
/// read64 the response finds its way back.
#[test]
fn every_processor_reaches_every_memory() {
    for kind in Kind::ALL {
        for (n, s) in [(2, 2), (8, 2), (16, 2), (16, 4), (27, 3)] {
            for ringlets in ["unidirectional", "bidirectional"] {
                let k = settings("banyan", n, &[&format!("network.topology={}", kind.name()), &format!("network.switch_ports={s}"), &format!("network.ringlets={ringlets}"), "traffic.transaction=read64"]);
                let t = network::topology(&k).unwrap();
                let stages = network::banyan(&k).unwrap().stages();
                for p in 0..n as AgentId {
                    for m in n as AgentId..2 * n as AgentId {
                        let what = format!("{} {n}x{n} s={s} {ringlets}: P{p} -> M{}", kind.name(), m as usize - n);
                        let crossed = walk(&t, p, m).unwrap_or_else(|| panic!("{what}: no route"));
                        assert!(crossed <= stages, "{what}: {crossed} switches");
                        if ringlets == "bidirectional" {
                            assert_eq!(crossed, stages, "{what}");
                        } else if Some(m) == t.agent(p).home {
                            assert_eq!(crossed, 0, "{what}: its own memory is on its ring");
                        }
                        assert!(walk(&t, m, p).is_some(), "{what}: no way back");
                    }
                }
            }
        }
    }
}

/// Figure 6b's rings of two processors and two memories: each processor
/// reaches its own memory without the B-Link and every other one across it;
/// other sizes are refused with the key named.
#[test]
fn two_processors_per_ring() {
    let k = settings("sci-switch", 8, &["network.nodes_per_ring=2", "traffic.transaction=read64"]);
    let t = network::topology(&k).unwrap();
    for p in 0..8 {
        for m in 8..16 {
            let crossed = walk(&t, p, m).unwrap_or_else(|| panic!("P{p} -> M{}: no route", m - 8));
            assert_eq!(crossed, usize::from(m - 8 != p && (m - 8) / 2 != p / 2), "P{p} -> M{}", m - 8);
            assert!(walk(&t, m, p).is_some());
        }
        assert_eq!(t.agent(p).home, Some(p + 8));
    }
    // Refused when the scenario is loaded, naming the key.
    let refused = |nodes: u32, extra: &[&str]| {
        let overrides: Vec<_> = extra.iter().map(|e| ringlet_scenario::parse_override(e).unwrap()).collect();
        ringlet_switch::load_str(&format!("[network]\nkind = \"sci-switch\"\nnodes = {nodes}\n"), &overrides).unwrap_err().to_string()
    };
    for (nodes, per) in [(6, "network.nodes_per_ring=4"), (4, "network.nodes_per_ring=4")] {
        let err = refused(nodes, &[per]);
        assert!(err.contains("network.nodes: expected a multiple of network.nodes_per_ring"), "{err}");
    }
    // Two rings are enough.
    assert!(ringlet_switch::load_str("[network]\nkind = \"sci-switch\"\nnodes = 4\nnodes_per_ring = 2\n", &[]).is_ok());
    let err = refused(4, &["network.nodes_per_ring=2", "network.ringlets=bidirectional"]);
    assert!(err.contains("network.nodes_per_ring: expected 1 with bidirectional"), "{err}");
}

/// Every transaction a run generates is completed, in flight, queued or
/// lost, on assorted small networks, loads and patterns.
#[test]
fn transactions_are_conserved() {
    let cases: &[&[&str]] = &[
        &["network.kind=sci-switch", "network.nodes=2", "network.ringlets=bidirectional", "traffic.arrivals=deterministic", "traffic.load_mbps_per_node=400"],
        &["network.kind=sci-switch", "network.nodes=4", "traffic.destinations=local", "traffic.locality=0.5", "traffic.load_mbps_per_node=300"],
        &["network.kind=banyan", "network.nodes=8", "network.topology=baseline", "traffic.destinations=permutation", "traffic.load_mbps_per_node=200"],
        &["network.kind=banyan", "network.nodes=9", "network.switch_ports=3", "traffic.destinations=hotspot", "traffic.hotspot_node=3", "traffic.load_mbps_per_node=100"],
        &["network.kind=banyan", "network.nodes=8", "network.ringlets=bidirectional", "traffic.transaction=read64", "traffic.load_mbps_per_node=150"],
    ];
    for case in cases {
        let overrides: Vec<_> = case.iter().chain(&["run.measure_transactions=3000"]).map(|e| ringlet_scenario::parse_override(e).unwrap()).collect();
        let s = ringlet_switch::load_str("", &overrides).unwrap();
        let family = if s.network.kind == "banyan" { ringlet_switch::BANYAN } else { ringlet_switch::SWITCH };
        let r = (family.run)(&s, Mode::Plain).unwrap().report;
        let c = &r.conservation;
        assert_eq!(c.generated, c.completed + c.queued + c.in_flight + c.lost, "{case:?}: {c:?}");
        assert!(r.transactions > 0, "{case:?}");
        assert!(r.throughput_mbps > 0.0 && r.throughput_mbps <= r.offered_mbps * 1.02, "{case:?}: {} of {}", r.throughput_mbps, r.offered_mbps);
    }
}

/// Runs a scenario of either kind with `overrides`.
fn run(overrides: &[&str]) -> ringlet_fabric::Report {
    let overrides: Vec<_> = overrides.iter().map(|e| ringlet_scenario::parse_override(e).unwrap()).collect();
    let s = ringlet_switch::load_str("", &overrides).unwrap();
    let family = if s.network.kind == "banyan" { ringlet_switch::BANYAN } else { ringlet_switch::SWITCH };
    (family.run)(&s, Mode::Plain).unwrap().report
}

/// With unidirectional rings a packet crosses the B-Link exactly when it
/// is not for the processor's own memory: the share crossing is one less
/// the locality; with a permutation each processor's packets all cross or
/// none do.
#[test]
fn locality_and_permutations_decide_what_crosses_the_b_link() {
    let base = ["network.kind=sci-switch", "network.nodes=4", "traffic.arrivals=poisson", "traffic.load_mbps_per_node=100", "run.measure_transactions=20000"];
    for locality in [1.0, 0.75, 0.25, 0.0] {
        let l = format!("traffic.locality={locality}");
        let r = run(&[&base[..], &["traffic.destinations=local", &l]].concat());
        let crossed = r.per_switch[0].crossings as f64 / r.transactions as f64;
        assert!((crossed - (1.0 - locality)).abs() < 0.02, "locality {locality}: {crossed}");
    }
    let r = run(&[&base[..], &["traffic.destinations=permutation"]].concat());
    for p in &r.per_port {
        let own = r.per_node[p.port as usize].throughput_mbps;
        assert!(p.to_bus_mbps < 1e-9 || (p.to_bus_mbps - own).abs() < 0.02 * own, "{p:?}, processor carried {own}");
    }
}

/// Switches are named in traces and the model's bottleneck: "switch 0"
/// when there is one, by stage and position in a Banyan.
#[test]
fn switches_are_named() {
    let names = |kind: &str, nodes: usize, extra: &[&str]| -> Vec<String> {
        let t = network::topology(&settings(kind, nodes, extra)).unwrap();
        t.agents().iter().filter(|a| a.bus.is_some()).map(|a| a.label.clone()).collect()
    };
    assert_eq!(names("sci-switch", 2, &[]), ["switch 0"]);
    assert_eq!(names("banyan", 4, &["network.switch_ports=4"]), ["switch 0"]);
    assert_eq!(names("banyan", 4, &["network.ringlets=bidirectional"]), ["S0.0", "S0.1", "S1.0", "S1.1"]);
}

/// Base SCI's queue allocation runs on every ringlet of a switch network
/// (`network.queue_allocation`): overloaded, a switch port's full buffer
/// reserves its freed slots for packets it busied (A/B), or, without it,
/// reserves nothing.
#[test]
fn queue_allocation_reserves_a_full_ports_slots() {
    let reservations = |extra: &str| {
        run(&["network.kind=sci-switch", "network.nodes=2", "network.ringlets=bidirectional", "traffic.load_mbps_per_node=400", "run.measure_transactions=3000", extra]).counters.reservations
    };
    assert!(reservations("network.queue_allocation=ab") > 0);
    assert_eq!(reservations("network.queue_allocation=none"), 0);
}

/// A network too large for the fabric passes the scenario's own checks but
/// is refused by the family's check, before anything runs; one that fits
/// passes it.
#[test]
fn the_family_check_refuses_a_network_too_large() {
    let load = |nodes: u32| ringlet_switch::load_str(&format!("[network]\nkind = \"banyan\"\nnodes = {nodes}\nringlets = \"bidirectional\"\n"), &[]).unwrap();
    let err = (ringlet_switch::BANYAN.check)(&load(4096)).unwrap_err();
    assert!(err.contains("65535 ring interfaces"), "{err}");
    // It names the keys that change the size.
    assert!(err.starts_with("network.nodes: ") && err.contains("network.switch_ports") && err.contains("network.ringlets"), "{err}");
    assert_eq!((ringlet_switch::BANYAN.check)(&load(64)), Ok(()));
}

/// One switch has a port per ring (a pair per ringlet pair), at most
/// `MAX_LINES` of them, as a Banyan's elements: more is refused when the
/// scenario is loaded, naming `network.nodes`, not built as one switch of
/// thousands of ports.
#[test]
fn one_switch_takes_at_most_max_lines_rings() {
    let load = |nodes: usize, extra: &str| ringlet_switch::load_str(&format!("[network]\nkind = \"sci-switch\"\nnodes = {nodes}\n{extra}"), &[]);
    let max = ringlet_switch::keys::MAX_LINES;
    let err = load(4096, "").unwrap_err().message;
    assert!(err.starts_with("network.nodes: ") && err.contains(&format!("at most {max}")) && err.contains("got 4096"), "{err}");
    assert!(err.contains("network.kind = \"banyan\""), "{err}");
    assert!(load(max, "").is_ok());
    assert!(load(max + 1, "ringlets = \"bidirectional\"").is_err());
    // Two processors per ring: twice as many nodes on as many ports.
    assert!(load(2 * max, "nodes_per_ring = 2").is_ok());
}

/// The processors start together (`aligned`: every first packet generated
/// at time 0, so all are sent at the same instant) or at random phases; the
/// default is aligned for one switch, random for a Banyan.
#[test]
fn the_start_phase_key() {
    let together = |kind: &str, extra: &[&str]| {
        let overrides: Vec<_> = extra.iter().map(|e| ringlet_scenario::parse_override(e).unwrap()).collect();
        let text = format!("[network]\nkind = \"{kind}\"\nnodes = 4\n[traffic]\narrivals = \"deterministic\"\nload_mbps_per_node = 10\n[run]\nmeasure_transactions = 100\n");
        let s = ringlet_switch::load_str(&text, &overrides).unwrap();
        let family = if kind == "banyan" { ringlet_switch::BANYAN } else { ringlet_switch::SWITCH };
        let window = ringlet_engine::run::TraceWindow { from: 0, to: ringlet_engine::time::ns_to_time(20_000.0), max_records: 100_000 };
        let trace = (family.run)(&s, Mode::Traced(window)).unwrap().trace.expect("traced");
        // Each processor's first packet onto its ring.
        let first: Vec<_> = (0..4u16)
            .map(|p| trace.records.iter().find(|r| r.what == ringlet_fabric::trace::TraceKind::Transmit { own: true } && r.src == p).expect("a first packet").time)
            .collect();
        first.iter().all(|&t| t == first[0])
    };
    assert!(together("sci-switch", &[]));
    assert!(!together("sci-switch", &["traffic.start=random"]));
    assert!(!together("banyan", &[]));
    assert!(together("banyan", &["traffic.start=aligned"]));
}

/// The largest sizes: a 1024x1024 Omega of 2-port switches on
/// unidirectional rings (12 288 interfaces, beyond the 8 191 an event
/// could name before) and a 256x256 one on bidirectional ringlets run and
/// deliver.
#[test]
fn the_largest_networks_run() {
    for case in [
        &["network.kind=banyan", "network.nodes=1024", "network.switch_ports=2"][..],
        &["network.kind=banyan", "network.nodes=256", "network.switch_ports=2", "network.ringlets=bidirectional"][..],
    ] {
        let r = run(&[case, &["traffic.destinations=uniform", "traffic.load_mbps_per_node=20", "run.measure_transactions=3000", "run.warmup_ns=1000"]].concat());
        let c = &r.conservation;
        assert_eq!(c.generated, c.completed + c.queued + c.in_flight + c.lost, "{case:?}");
        assert!(r.transactions >= 3000 && c.lost == 0, "{case:?}: {c:?}");
    }
    let t = network::topology(&settings("banyan", 1024, &["network.switch_ports=2"])).unwrap();
    assert_eq!(t.ifaces(), 1024 * (10 + 2));
}
