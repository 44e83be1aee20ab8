//! Richter's elementary SCI ring (SCINET book section 7.2): a processor and
//! its memory alone on a ring of two LC-II nodes, no switch, with the
//! switch study's timing, and the write64 transaction the book simulates:
//! an 80-byte request (40 symbols, 2 idles), its echo, a 16-byte response
//! (8 symbols) once the memory has stored the data, and the response's
//! echo (4 symbols), which travels the request's link.
//!
//! Agents: P0 = 0, P1 = 1, M0 = 2, M1 = 3; ring 0 is P0 (interface 0) and
//! M0 (interface 1).

use ringlet_engine::time::ns_to_time;
use ringlet_engine::Time;
use ringlet_fabric::packet::PacketKind::{self, Echo, Request, Response};
use ringlet_fabric::trace::TraceKind::{self, *};
use ringlet_fabric::Fabric;
use ringlet_sci::protocol::sci::BaseSci;

const RINGS: &str = "[network]\nkind = \"sci-switch\"\nnodes = 2\nelementary_rings = true\n[traffic]\ntransaction = \"write64\"\narrivals = \"deterministic\"\ndestinations = \"local\"\n";

fn ns(x: f64) -> Time {
    ns_to_time(x)
}

fn overrides(extra: &[&str]) -> Vec<(String, String)> {
    extra.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect()
}

fn hand_built() -> Fabric<BaseSci> {
    let text = format!("{RINGS}load_mbps_per_node = 0\n[run]\nwarmup_ns = 0\n");
    ringlet_switch::hand_built(&ringlet_switch::load_str(&text, &[]).unwrap()).unwrap()
}

/// Times of the records of `what` at interface `iface` for packets of `kind` from agent `src`.
fn times(f: &Fabric<BaseSci>, iface: u16, what: TraceKind, kind: PacketKind, src: u16) -> Vec<Time> {
    f.records().iter().filter(|r| r.iface == iface && r.what == what && r.kind == kind && r.src == src).map(|r| r.time).collect()
}

/// The request leaves P0's send path at 82 ns and is in M0's buffer 1 + 20
/// ns later (no bypass FIFO between them), fully in after its 160 ns,
/// stored 106 + 40 ns on; its echo is back 21 ns and 4 symbols after M0
/// took it. The response goes down M0's send path (82 ns), is in P0's
/// buffer 21 ns later, fully in after its 8 symbols and handed to the
/// processor 106 ns after that; its echo is back at M0 21 + 16 ns after P0
/// took it.
#[test]
fn a_write64_is_request_echo_response_echo() {
    let mut f = hand_built();
    f.inject(0, 2, 0, 0);
    f.run_until(ns(2000.0));
    assert_eq!(times(&f, 0, Transmit { own: true }, Request, 0), vec![ns(82.0)]);
    let accepted = ns(82.0 + 21.0);
    assert_eq!(times(&f, 1, Accepted, Request, 0), vec![accepted]);
    assert_eq!(times(&f, 1, Received, Request, 0), vec![accepted + ns(160.0)]);
    let stored = accepted + ns(160.0 + 106.0 + 40.0);
    assert_eq!(times(&f, 1, Serviced, Request, 0), vec![stored]);
    assert_eq!(times(&f, 0, EchoBack { busy: false }, Echo, 2), vec![accepted + ns(21.0 + 16.0)]);
    let answered = stored + ns(82.0);
    assert_eq!(times(&f, 1, Transmit { own: true }, Response, 2), vec![answered]);
    let back = answered + ns(21.0);
    assert_eq!(times(&f, 0, Accepted, Response, 2), vec![back]);
    assert_eq!(times(&f, 0, Serviced, Response, 2), vec![back + ns(32.0 + 106.0)]);
    assert_eq!(times(&f, 1, EchoBack { busy: false }, Echo, 0), vec![back + ns(21.0 + 16.0)]);
    let r = f.report();
    assert_eq!(r.transactions, 1);
    assert_eq!(r.per_switch.len(), 0, "an elementary ring has no switch");
}

/// Past its saturation a ring's request link carries, per transaction, the
/// request's 84 bytes and the 12 bytes of its response's echo (SCINET book
/// p. 82): 96 bytes, 192 ns. The ring then carries 64 bytes per 192 ns,
/// (64/96) x 500 = 333.3 MB/s. With DMOVE64 (no response) the same link carries 84 bytes a
/// packet: (64/84) x 500 = 381 MB/s.
#[test]
fn a_write64_costs_its_request_link_96_bytes() {
    let run = |transaction: &str| {
        let text = format!("{RINGS}load_mbps_per_node = 500\n[run]\nmeasure_transactions = 20000\n");
        let s = ringlet_switch::load_str(&text, &overrides(&[&format!("traffic.transaction={transaction}")])).unwrap();
        (ringlet_switch::SWITCH.run)(&s, ringlet_fabric::family::Mode::Plain).unwrap().report
    };
    let write = run("write64");
    let per_ring = write.throughput_mbps / 2.0;
    assert!((per_ring - 64.0 / 192.0 * 1000.0).abs() < 0.05, "{per_ring}");
    let link = &write.per_link[0];
    assert_eq!((link.from_node, link.to_node), (0, 2));
    // Packet symbols (idles not counted): the request's 80 bytes and the echo's 8 of every 96.
    assert!((link.utilization - 88.0 / 96.0).abs() < 1e-3, "{}", link.utilization);
    assert!((link.send_utilization - 80.0 / 96.0).abs() < 1e-3, "{}", link.send_utilization);
    assert!(write.loss_mbps > 0.0);
    let dmove = run("dmove64");
    assert!((dmove.throughput_mbps / 2.0 - 64.0 / 168.0 * 1000.0).abs() < 0.05, "{}", dmove.throughput_mbps);
}

/// Elementary rings hold a processor and its own memory only: anything
/// that would send a packet off the ring is refused, naming the key.
#[test]
fn an_elementary_ring_refuses_what_would_leave_it() {
    for (extra, key) in [
        ("network.ringlets=bidirectional", "network.ringlets: expected \"unidirectional\""),
        ("network.nodes_per_ring=2", "network.nodes_per_ring: expected 1"),
        ("traffic.destinations=uniform", "traffic.destinations: expected \"local\""),
        ("traffic.locality=0.5", "traffic.locality: expected 1"),
    ] {
        let text = format!("{RINGS}load_mbps_per_node = 100\n");
        let e = ringlet_switch::load_str(&text, &overrides(&[extra])).unwrap_err().to_string();
        assert!(e.contains(key) && e.contains("network.elementary_rings = true"), "{extra}: {e}");
    }
}
