//! Exact timings through one SCI switch (seed 001 section VI's LC-II
//! figures: 4 ns symbols, 1 ns links, 20 ns address decode, 48 ns bypass
//! FIFO, 106 ns FIFO to B-Link, 8-byte B-Link beats at 600 MB/s, 82 ns
//! B-Link to FIFO, 40 ns memory store; DMOVE64 packets of 40 symbols and
//! 2 idles, echoes of 4 symbols).
//!
//! Agents: P0 = 0, P1 = 1, M0 = 2, M1 = 3, the switch = 4.

use ringlet_engine::time::ns_to_time;
use ringlet_engine::Time;
use ringlet_fabric::packet::PacketKind::{self, Echo, Request};
use ringlet_fabric::trace::TraceKind::{self, *};
use ringlet_fabric::Fabric;
use ringlet_sci::protocol::sci::BaseSci;

fn ns(x: f64) -> Time {
    ns_to_time(x)
}

fn switch(extra: &[&str]) -> Fabric<BaseSci> {
    let text = "[network]\nkind = \"sci-switch\"\nnodes = 2\n[traffic]\nload_mbps_per_node = 0\n[run]\nwarmup_ns = 0\n";
    let overrides: Vec<_> = extra.iter().map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE")).collect();
    ringlet_switch::hand_built(&ringlet_switch::load_str(text, &overrides).unwrap()).unwrap()
}

/// Times of the records of `what` at interface `iface` for packets of `kind` from agent `src`.
fn times(f: &Fabric<BaseSci>, iface: u16, what: TraceKind, kind: PacketKind, src: u16) -> Vec<Time> {
    f.records().iter().filter(|r| r.iface == iface && r.what == what && r.kind == kind && r.src == src).map(|r| r.time).collect()
}

/// Unidirectional ring P0 -> port -> M0 (interfaces 0, 1, 2): the packet
/// passes the port's bypass FIFO in 1 + 48 ns, is in M0's buffer 1 + 20 ns
/// later, fully in after its 40 symbols and stored 40 ns after that; the
/// B-Link never sees it. M0's echo is back at P0 after 1 + 20 ns and its 4 symbols.
#[test]
fn a_packet_through_the_bypass_fifo() {
    let mut f = switch(&[]);
    f.inject(0, 2, 0, 0);
    f.run_until(ns(2000.0));
    assert_eq!(times(&f, 0, Transmit { own: true }, Request, 0), vec![0]);
    assert_eq!(times(&f, 1, Transmit { own: false }, Request, 0), vec![ns(49.0)]);
    assert_eq!(times(&f, 2, Accepted, Request, 0), vec![ns(70.0)]);
    assert_eq!(times(&f, 2, Received, Request, 0), vec![ns(230.0)]);
    assert_eq!(times(&f, 2, Serviced, Request, 0), vec![ns(270.0)]);
    assert_eq!(times(&f, 0, EchoBack { busy: false }, Echo, 2), vec![ns(70.0 + 21.0 + 16.0)]);
    let r = f.report();
    assert_eq!(r.per_switch[0].crossings, 0);
    assert_eq!(r.transactions, 1);
    assert!((r.latency_ns_max - 270.0).abs() < 0.5, "{}", r.latency_ns_max);
}

/// Bidirectional ringlets (P0 on interface 0 with the switch's 1; the
/// switch's 4 with M0 on 5): the port has the packet 21 ns after P0 sent
/// it and all of it after its 40 symbols; 106 ns later it wins the free
/// B-Link, holds it for 10 beats of 40/3 ns, and is in the output port's
/// buffer 82 ns after that, which sends it at once; M0 decodes it 21 ns on.
#[test]
fn a_packet_across_the_b_link() {
    let mut f = switch(&["network.ringlets=bidirectional"]);
    f.inject(0, 2, 0, 0);
    f.run_until(ns(3000.0));
    let tail_in = ns(21.0 + 160.0);
    assert_eq!(times(&f, 1, Accepted, Request, 0), vec![ns(21.0)]);
    let granted = tail_in + ns(106.0);
    assert_eq!(times(&f, 1, BusGranted, Request, 0), vec![granted]);
    let transfer = 10 * ns(40.0 / 3.0);
    let delivered = granted + transfer + ns(82.0);
    assert_eq!(times(&f, 4, BusDelivered, Request, 0), vec![delivered]);
    assert_eq!(times(&f, 4, Transmit { own: true }, Request, 0), vec![delivered]);
    assert_eq!(times(&f, 5, Accepted, Request, 0), vec![delivered + ns(21.0)]);
    assert_eq!(times(&f, 5, Serviced, Request, 0), vec![delivered + ns(21.0 + 160.0 + 40.0)]);
    let r = f.report();
    assert_eq!((r.per_switch[0].crossings, r.per_port[0].to_bus_mbps > 0.0, r.per_port[2].from_bus_mbps > 0.0), (1, true, true));
}

/// A full port buffer busies the next packet as it enters (the echo on the
/// incoming ringlet), and the sender retries: with a one-packet buffer the
/// second of two back-to-back packets is busied at the port, and again on
/// its first retry, and taken in on its second once the first has crossed
/// the B-Link and left the buffer.
#[test]
fn a_busy_echo_from_a_full_port_buffer_and_the_retry() {
    let mut f = switch(&["network.ringlets=bidirectional", "switch.buffer_packets=1", "network.queue_allocation=none", "network.bandwidth_allocation=none"]);
    f.inject(0, 2, 0, 0);
    f.inject(0, 2, 0, 0);
    f.run_until(ns(5000.0));
    let slot = ns(42.0 * 4.0);
    // P0 sends both back to back, then the busied one again each time its link is free.
    assert_eq!(times(&f, 0, Transmit { own: true }, Request, 0), vec![0, slot, 2 * slot, 3 * slot]);
    // The first holds the buffer until its transfer ends (21 + 160 + 106 + 10 beats).
    let freed = ns(21.0 + 160.0 + 106.0) + 10 * ns(40.0 / 3.0);
    let busied: Vec<Time> = vec![slot + ns(21.0), 2 * slot + ns(21.0)];
    assert!(busied.iter().all(|&t| t < freed));
    assert_eq!(times(&f, 1, Busied, Request, 0), busied);
    assert_eq!(times(&f, 0, EchoBack { busy: true }, Echo, 4), busied.iter().map(|&t| t + ns(21.0 + 16.0)).collect::<Vec<_>>());
    assert!(3 * slot + ns(21.0) > freed);
    assert_eq!(times(&f, 1, Accepted, Request, 0), vec![ns(21.0), 3 * slot + ns(21.0)]);
    assert_eq!(f.report().counters.retries, 2);
}
