//! Base SCI's and PPQ's flow control as the fabric drives it, through
//! `RingProtocol` (a waiting node, an own packet sent, the end of its
//! recovery, a packet passing, a decision), with exact times; and base
//! SCI's queue allocation state on a running ring.

mod common;
use common::*;
use ringlet_fabric::packet::{Packet, PacketKind};
use ringlet_fabric::protocol::{Effects, Permit, ProtoCounters};
use ringlet_fabric::trace::TraceKind;
use ringlet_sci::protocol::ppq::Ppq;
use ringlet_sci::protocol::sci::BaseSci;
use ringlet_sci::protocol::Registered;

/// Four nodes, 2 ns hops, 2 ns symbols. Node 3 waits behind bypass traffic
/// from 0 ns (node 0 sees that from 2 ns). Node 0 sends a read64 request
/// (8 symbols and its idle: a debt of 18 ns) at 10 ns; its recovery ends at
/// 28 ns, so it repays until 46 ns; a 40-symbol packet passing it at 30 ns
/// is no idle: repaid at 126 ns. Node 1, one hop on, is held by the
/// converted idles from 30 ns to 128 ns. Later node 0's next debt is
/// forgiven: nobody waits any more.
fn recovery_debt_and_go_bits<P: Registered>(protocol: &str) -> ProtoCounters {
    let (s, p) = setup(4, &[&format!("network.protocol=\"{protocol}\"")]);
    let mut proto = P::build(&topology(&s).view(0), &p, &s).unwrap();
    let mut fx = Effects::default();
    let pk = |src: u16| Packet::new(PacketKind::Request, 0, src, 2, 0, 8, 0).on(src, 2);
    proto.on_blocked(3, 0, 0, &mut fx);
    proto.on_sent(0, 10 * NS, 0, &pk(0), None, &mut fx);
    proto.on_recovered(0, 28 * NS, &mut fx);
    proto.on_pass(0, 30 * NS, 40);
    assert_eq!(proto.may_send(1, 30 * NS, 1, &pk(1), &mut fx), Permit::Hold { wake_at: Some(128 * NS) }, "{protocol}");
    assert_eq!(proto.may_send(0, 40 * NS, 2, &pk(0), &mut fx), Permit::Hold { wake_at: Some(126 * NS) }, "{protocol}");
    assert_eq!(proto.may_send(0, 126 * NS, 2, &pk(0), &mut fx), Permit::Go, "{protocol}");
    // Nodes 3 and 1 are served at 130 and 132 ns; node 0 sends again at
    // 140 ns and owes nothing when its recovery ends at 158 ns.
    proto.on_sent(3, 130 * NS, 3, &pk(3), None, &mut fx);
    proto.on_sent(1, 132 * NS, 1, &pk(1), None, &mut fx);
    proto.on_sent(0, 140 * NS, 2, &pk(0), None, &mut fx);
    proto.on_recovered(0, 158 * NS, &mut fx);
    assert_eq!(proto.may_send(0, 158 * NS, 4, &pk(0), &mut fx), Permit::Go, "{protocol}");
    proto.counters()
}

#[test]
fn base_sci_recovery_debt_and_go_bits_through_the_protocol_interface() {
    let c = recovery_debt_and_go_bits::<BaseSci>("sci");
    assert_eq!((c.go_bit_holds, c.debt_holds, c.debts_repaid, c.debts_forgiven), (1, 1, 1, 1));
}

/// PPQ runs the same flow control within priority levels: all at priority 0 here.
#[test]
fn ppq_recovery_debt_and_go_bits_through_the_protocol_interface() {
    let c = recovery_debt_and_go_bits::<Ppq>("ppq");
    assert_eq!((c.go_bit_holds, c.debt_holds, c.debts_repaid, c.debts_forgiven), (1, 1, 1, 1));
}

/// Queue allocation on a running ring (responder queues of one packet,
/// 1 us service): node 2's request takes node 3's only slot at 2 ns; node
/// 1's is busied (BUSY_D, at 20 ns: nothing reserved) and retried as DOTRY,
/// busied again at 38 ns: phase A now holds one reservation, and stays so
/// while the slot is taken.
#[test]
fn base_sci_reserves_a_slot_on_a_dotry_rejection_on_the_ring() {
    let mut r = ring(4, &["node.responder_input_queue_packets=1", "node.iqst_ns=1000.0"]);
    r.inject(2, 3, 0, 0);
    r.inject(1, 3, 0, 0);
    r.run_until(30 * NS);
    assert_eq!(times(&r, 3, TraceKind::Busied, PacketKind::Request, 1), vec![20 * NS]);
    assert_eq!(r.protocol(0).ab_state(3, 0), (0, [0, 0]));
    assert_eq!(r.report().counters.reservations, 0);
    r.run_until(100 * NS);
    assert_eq!(times(&r, 3, TraceKind::Busied, PacketKind::Request, 1), vec![20 * NS, 38 * NS, 56 * NS, 74 * NS, 92 * NS]);
    assert_eq!(r.protocol(0).ab_state(3, 0), (0, [1, 0]));
    assert_eq!(r.report().counters.reservations, 1);
}
