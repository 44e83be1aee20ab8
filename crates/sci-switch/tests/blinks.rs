//! A switch of several B-Links (Richter, SCINET book section 8.3.2): each
//! port a cascade of LC-II chips in series on its ringlet, chip j of every
//! port on B-Link j. A packet for the switch is taken by the port's first
//! chip with room in its input buffer, else by the last (which busies it if
//! it has none); the chip that took it echoes it, and it crosses that
//! chip's B-Link. Between the chips of one port there is no link, only the
//! next chip's bypass FIFO (48 ns) or address decode (20 ns).
//!
//! bO2nS2 (bidirectional ringlets) with `switch.blinks = 2` and one packet
//! of buffer per port: agents P0 = 0, P1 = 1, M0 = 2, M1 = 3, the switch's
//! B-Link 0 agent = 4 and B-Link 1 agent = 5; P0's ringlet is P0
//! (interface 0), chip 0 (1), chip 1 (2).

use ringlet_engine::time::ns_to_time;
use ringlet_engine::Time;
use ringlet_fabric::packet::PacketKind::{self, Echo, Request};
use ringlet_fabric::trace::TraceKind::{self, *};
use ringlet_fabric::Fabric;
use ringlet_sci::protocol::sci::BaseSci;

fn ns(x: f64) -> Time {
    ns_to_time(x)
}

/// One B-Link cycle.
fn beat() -> Time {
    ns(40.0 / 3.0)
}

fn switch(blinks: u32) -> Fabric<BaseSci> {
    let text = format!(
        "[network]\nkind = \"sci-switch\"\nnodes = 2\nringlets = \"bidirectional\"\n[switch]\nblinks = {blinks}\nbuffer_packets = 1\n[traffic]\nload_mbps_per_node = 0\n[run]\nwarmup_ns = 0\n"
    );
    ringlet_switch::hand_built(&ringlet_switch::load_str(&text, &[]).unwrap()).unwrap()
}

fn times(f: &Fabric<BaseSci>, iface: u16, what: TraceKind, kind: PacketKind, src: u16) -> Vec<Time> {
    f.records().iter().filter(|r| r.iface == iface && r.what == what && r.kind == kind && r.src == src).map(|r| r.time).collect()
}

/// P0 sends two packets back to back (at 82 and 250 ns). The first is in
/// chip 0's buffer at 82 + 1 + 20 ns and asks B-Link 0 when its tail is in
/// (160 ns on); the second, leaving P0 while chip 0's one slot is taken,
/// passes chip 0's bypass FIFO (1 + 48 ns) and is in chip 1's buffer 20 ns
/// after that, and crosses B-Link 1 while the first is still on B-Link 0
/// (a transfer: 106 ns and 12 cycles). Each chip echoes what it took: chip
/// 0's echo passes chip 1 (48 ns) on its way to P0.
#[test]
fn a_packet_the_first_chip_has_no_room_for_crosses_the_second_b_link() {
    let mut f = switch(2);
    f.inject(0, 2, 0, 0);
    f.inject(0, 2, 0, 0);
    f.run_until(ns(3000.0));
    let first = ns(82.0 + 21.0);
    let second = ns(250.0 + 49.0 + 20.0);
    assert_eq!(times(&f, 1, Accepted, Request, 0), vec![first]);
    assert_eq!(times(&f, 2, Accepted, Request, 0), vec![second]);
    let transfer = ns(106.0) + 12 * beat();
    let granted = [first + ns(160.0) + beat(), second + ns(160.0) + beat()];
    assert_eq!(times(&f, 1, BusGranted, Request, 0), vec![granted[0]]);
    assert_eq!(times(&f, 2, BusGranted, Request, 0), vec![granted[1]]);
    assert!(granted[1] < granted[0] + transfer, "the two B-Links carry the packets at once");
    assert_eq!(times(&f, 0, EchoBack { busy: false }, Echo, 4), vec![first + ns(48.0 + 21.0 + 16.0)]);
    assert_eq!(times(&f, 0, EchoBack { busy: false }, Echo, 5), vec![second + ns(21.0 + 16.0)]);
    assert!(f.records().iter().all(|r| r.what != Busied), "nothing is busied");
    let r = f.report();
    assert_eq!(r.transactions, 2);
    assert_eq!(r.per_switch.iter().map(|s| s.crossings).collect::<Vec<_>>(), vec![1, 1]);
    assert_eq!((r.hardware.switches, r.hardware.ports, r.hardware.blinks, r.hardware.links), (1, 4, 2, 8));
}

/// With one B-Link the same second packet finds the port's only chip full
/// and is busied there as its header is decoded, to be sent again.
#[test]
fn with_one_b_link_the_second_packet_is_busied() {
    let mut f = switch(1);
    f.inject(0, 2, 0, 0);
    f.inject(0, 2, 0, 0);
    f.run_until(ns(3000.0));
    assert_eq!(times(&f, 1, Busied, Request, 0).first(), Some(&ns(250.0 + 21.0)));
    assert_eq!(f.report().transactions, 2, "the retry gets through");
}

/// A busied packet's retry goes back to the chip that busied it, which may
/// hold a reservation for it (IEEE 1596's A/B queue allocation), not to
/// another chip of the cascade that has room by then (SCINET book p. 120:
/// the retry must find the chip responsible for it). Found by the invariant
/// campaign (`banyan` #9 of `campaign 300 13 wide banyan`): a 2x2 Banyan of
/// two-B-Link switches with 720 ns links, overloaded, where a retry passed
/// on to the second chip was admitted against a reservation it never had.
#[test]
fn a_retry_goes_back_to_the_chip_that_busied_it() {
    let text = "[network]\nkind = \"banyan\"\nnodes = 2\nlink_delay_ns = 720.1709577372914\nbandwidth_allocation = \"debts\"\n\
                [switch]\nblinks = 2\n[node]\nbuffer_packets = 8931\n[traffic]\nload_mbps_per_node = 2333.333333333333\n\
                [run]\nseed = 114208\nwarmup_ns = 50000.0\nmeasure_transactions = 1000000000\nmax_sim_time_ns = 500000.0\nmax_backlog_transactions = 20000\n";
    let s = ringlet_switch::load_str(text, &[]).unwrap();
    let r = (ringlet_switch::BANYAN.run)(&s, ringlet_fabric::family::Mode::Plain).unwrap().report;
    let c = &r.conservation;
    assert_eq!(c.delivered_twice, 0);
    assert_eq!(c.generated, c.completed + c.queued + c.in_flight + c.lost, "{c:?}");
    assert!(r.counters.reservations > 0 && r.counters.retries > 0, "the run exercises reservations and retries");
}
