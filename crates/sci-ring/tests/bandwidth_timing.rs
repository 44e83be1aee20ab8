//! Base SCI's bandwidth allocation on whole tiny rings, with exact times
//! (seed 003 Table 1: 2 ns symbols, 1-cycle node delay, one idle between
//! packets; `network.bandwidth_allocation = "ieee"`, the default).
//!
//! Each expected time is derived by hand in the comment above it from the
//! rules of `protocol/bandwidth/` (docs/model-sci.md, "Bandwidth
//! allocation"): a node's recovery ends when its bypass FIFO is empty; if it
//! then sees another node waiting, it owes the packet it sent plus its idle
//! (`S` symbols) and repays them by converting the next `S` idles it passes
//! on (packets passing meanwhile do not count); nodes downstream see the
//! converted idles, and may not start a packet while they do, the travel
//! time later; a node that sees nobody waiting owes nothing.
//!
//! On a 4-node ring a hop is 2 ns; node `i` sees node `j`'s idles
//! `2 * ((i - j) mod 4)` ns after `j` emits them. Service is long
//! (`node.iqst_ns = 10000`): no response is sent within these windows.

mod common;
use common::*;
use ringlet_fabric::packet::PacketKind::{Control, Echo, Request};
use ringlet_fabric::trace::TraceKind::*;
use ringlet_sci::protocol::dfc::Dfc;
use ringlet_sci::protocol::Registered;

/// Node 0 sends two requests to node 3 and node 1 two to node 2, all
/// queued at 0; `extra` adds settings, `more` more injections.
fn two_senders(extra: &[&str], more: &[(u16, u16, u64)]) -> ringlet_fabric::Fabric<ringlet_sci::protocol::sci::BaseSci> {
    two_senders_with(extra, more)
}

fn two_senders_with<P: Registered>(extra: &[&str], more: &[(u16, u16, u64)]) -> ringlet_fabric::Fabric<P> {
    let mut settings = vec!["node.iqst_ns=10000.0"];
    settings.extend_from_slice(extra);
    let mut r = ring_with::<P>(4, &settings);
    for _ in 0..2 {
        r.inject(0, 3, 0, 0);
        r.inject(1, 2, 0, 0);
    }
    for &(src, dst, at) in more {
        r.inject(src, dst, 0, at);
    }
    r
}

fn own<P: ringlet_fabric::protocol::RingProtocol>(r: &ringlet_fabric::Fabric<P>, node: u16) -> Vec<u64> {
    times(r, node, Transmit { own: true }, Request, node)
}

/// (a) A transmitter's recovery and debt.
///
/// write64 requests: 40 symbols, a slot of 41 symbols (82 ns) with the idle.
/// - 0: node 0 sends W1 (0..82) and node 1 sends V1 (0..82); each has a
///   second packet queued, so the idles after their packets say "waiting"
///   (from 82).
/// - V1 is stripped by node 2 at 2; its echo E1 (2 -> 3 -> 0 -> 1) reaches
///   node 0 at 6 and waits in node 0's bypass FIFO. W1 reaches node 1 at 2
///   and waits in node 1's FIFO.
/// - 82: node 0 forwards E1 (82..92), node 1 forwards W1 (82..164).
/// - 92: node 0's FIFO is empty: its recovery ends. Node 1 has been waiting
///   since 82, seen at node 0 (three hops) since 88: node 0 owes 41 idles
///   and repays them 92..174.
/// - 164: node 1's FIFO is empty (E1 was stripped there at 92). Node 0 is
///   seen waiting (since 84): node 1 owes 41 idles, repays them 164..246;
///   nothing passes node 1 meanwhile, so it sends V2 at 164 + 82 = 246.
///   (Node 0's converted idles, 92..174, reach node 1 from 94 to 176,
///   inside that repayment.)
/// - Node 0 has repaid at 174, but node 1's converted idles (164..246)
///   reach it three hops later, 170..252: W2 goes at 252 (rule (c)).
#[test]
fn a_transmitter_repays_its_debt_once_its_bypass_fifo_is_empty() {
    let mut r = two_senders(&["traffic.transaction=write64"], &[]);
    r.run_until(300 * NS);
    // The bypass FIFOs drain: E1 at node 0, W1 at node 1, both from 82.
    assert_eq!(times(&r, 0, Transmit { own: false }, Echo, 2), vec![82 * NS]);
    assert_eq!(times(&r, 1, Transmit { own: false }, Request, 0), vec![82 * NS]);
    assert_eq!(own(&r, 1), vec![0, 164 * NS + 41 * CYCLE]);
    assert_eq!(own(&r, 0), vec![0, 246 * NS + 3 * HOP]);
    let c = r.report().counters;
    // Debt holds: node 0 at 92 and at 96 (W1's echo back: a new decision),
    // node 1 at 164. Go-bit holds: node 1 at 164 (node 0's converted idles
    // too), node 0 at 174. Both debts repaid; none forgiven yet (the
    // second packets' recoveries end after 300).
    assert_eq!((c.debt_holds, c.go_bit_holds, c.debts_repaid, c.debts_forgiven), (3, 2, 2, 0));
}

/// DFC with the allocation under it (`dfc.bandwidth_allocation = "ieee"`,
/// beyond the seed) repays debts as base SCI does; case (a) with DFC's
/// control symbols added. Nodes 0 and 1 each find their second packet
/// behind a bypass packet at 82 and announce STOP-THRU (2 symbols; with one
/// priority it holds nobody). Node 0's symbol leaves after E1 (92..96) and
/// waits in node 1's FIFO behind W1: node 1 forwards it at 164..168, then
/// its own symbol (168..172), so node 1's recovery ends at 172, not 164:
/// it repays 41 idles and sends V2 at 172 + 82 = 254. Its converted idles
/// reach node 0 three hops later, until 260: W2 goes at 260. The seed's DFC
/// has no debt, and node 1 pays for it: node 0 sends W2 right behind its
/// symbol (96), and W2 reaches node 1 at 98, while W1 still leaves it; node
/// 1 forwards W1, node 0's symbol, W2 (168..250) and node 0's lift (250),
/// then its own symbol, and sends V2 only at 258.
#[test]
fn dfc_repays_debts_only_with_the_allocation_under_it() {
    let mut r = two_senders_with::<Dfc<true>>(&["network.protocol=dfc", "dfc.bandwidth_allocation=ieee", "traffic.transaction=write64"], &[]);
    r.run_until(300 * NS);
    assert_eq!(times(&r, 1, Transmit { own: false }, Control, 0), vec![164 * NS]);
    assert_eq!(times(&r, 1, Transmit { own: false }, Control, 1), vec![168 * NS]);
    assert_eq!(own(&r, 1), vec![0, 172 * NS + 41 * CYCLE]);
    assert_eq!(own(&r, 0), vec![0, 254 * NS + 3 * HOP]);
    let c = r.report().counters;
    assert_eq!((c.debts_repaid, c.debts_forgiven), (2, 0));
    assert!(c.debt_holds > 0 && c.go_bit_holds > 0);
    let mut r = two_senders_with::<Dfc>(&["network.protocol=dfc", "traffic.transaction=write64"], &[]);
    r.run_until(300 * NS);
    assert_eq!(own(&r, 0), vec![0, 96 * NS]);
    assert_eq!(own(&r, 1), vec![0, 258 * NS]);
    let c = r.report().counters;
    assert_eq!((c.debt_holds, c.go_bit_holds, c.debts_repaid, c.debts_forgiven), (0, 0, 0, 0));
}

/// (c) A downstream node held by converted idles, and released when the
/// last of them has passed it.
///
/// As above, and node 2 (which has sent nothing, so owes nothing) gets a
/// request for node 3 at 130 ns. It is forwarding W1 then (84..166); at
/// 166 it sees node 0's converted idles (92..174, two hops: 96..178) and
/// node 1's (164..246, one hop: 166..248): it sends at 248, one hop after
/// node 1's repayment ends; node 0, three hops on, at 252. Its waiting
/// changes nothing for nodes 0 and 1, which already repay.
#[test]
fn converted_idles_hold_downstream_nodes_until_they_have_passed() {
    let mut r = two_senders(&["traffic.transaction=write64"], &[(2, 3, 130 * NS)]);
    r.run_until(300 * NS);
    assert_eq!(times(&r, 2, Transmit { own: false }, Request, 0), vec![84 * NS]);
    let repaid_1 = 164 * NS + 41 * CYCLE; // 246 ns
    assert_eq!(own(&r, 1), vec![0, repaid_1]);
    assert_eq!(own(&r, 2), vec![repaid_1 + HOP]);
    assert_eq!(own(&r, 0), vec![0, repaid_1 + 3 * HOP]);
    let report = r.report();
    let c = &report.counters;
    // One go-bit hold more than above: node 2 at 166.
    assert_eq!((c.debt_holds, c.go_bit_holds, c.debts_repaid, c.debts_forgiven), (3, 3, 2, 0));
    // Each on the link its node sends onto: node 0 at 174, node 1 at 164, node 2 at 166.
    let mut per_link: Vec<(u32, u64)> = report.per_link.iter().map(|l| (l.from_node, l.go_bit_holds)).collect();
    per_link.sort();
    assert_eq!(per_link, vec![(0, 1), (1, 1), (2, 1), (3, 0)]);
}

/// (b) A debt is repaid by idles only: a packet passing during the
/// repayment moves its end back by the packet's length.
///
/// read64 requests: 8 symbols, slot 9 symbols (18 ns); echoes 4 symbols.
/// Without the passing packet:
/// - 0: nodes 0 and 1 send W1 (to 3) and V1 (to 2), 0..18, each waiting
///   with a second one from 18. E1 (V1's echo) waits in node 0's FIFO from
///   6, W1 in node 1's from 2; node 0 forwards E1 18..28, node 1 W1 18..36.
/// - node 0: FIFO empty at 28, node 1 seen waiting: repays 9 idles 28..46.
/// - node 1: FIFO empty at 36, node 0 seen waiting: repays 36..54 and
///   sends V2 at 54 (node 0's converted idles pass it by 48).
/// - node 0: repaid at 46; node 1's converted idles reach it 42..60: W2 at 60.
///
/// With node 3 sending a request R3 to node 2 (queued at 30 ns):
/// - node 3 forwards W1's echo (stripped and answered at node 3 at 22)
///   until 32, then sends R3 (32..50): no converted idles have reached it
///   (node 0's arrive at 34, node 1's at 40).
/// - R3 passes node 0 at 34..52 (its repayment: 46 + 16 = 62) and node 1
///   at 36..54, just as node 1's recovery ends: node 1's repayment, 36..54,
///   ends 8 symbols later, at 70.
/// - node 3: FIFO empty at 50, node 0 seen waiting: repays 9 idles 50..68,
///   seen at node 0 52..70 and at node 1 54..72.
/// - node 1: repaid at 70, node 0's idles pass it by 64, node 3's by 72:
///   V2 at 72.
/// - node 0: repaid at 62, node 3's idles pass by 70, node 1's (36..70) by
///   76: W2 at 76. Had R3's symbols counted as repayment, node 1's would
///   have ended at 54 and node 0 would have sent at 70.
#[test]
fn packets_passing_during_a_repayment_do_not_repay_it() {
    let mut r = two_senders(&[], &[]);
    r.run_until(300 * NS);
    assert_eq!(own(&r, 1), vec![0, 36 * NS + 9 * CYCLE]);
    assert_eq!(own(&r, 0), vec![0, 54 * NS + 3 * HOP]);

    let mut r = two_senders(&[], &[(3, 2, 30 * NS)]);
    r.run_until(300 * NS);
    assert_eq!(own(&r, 3), vec![32 * NS]);
    assert_eq!(times(&r, 0, Transmit { own: false }, Request, 3), vec![34 * NS]);
    assert_eq!(times(&r, 1, Transmit { own: false }, Request, 3), vec![36 * NS]);
    let node1_repaid = 36 * NS + 9 * CYCLE + 8 * CYCLE; // 70 ns
    let node3_seen_until = 50 * NS + 9 * CYCLE + 2 * HOP; // 72 ns at node 1
    assert_eq!(own(&r, 1), vec![0, node3_seen_until.max(node1_repaid)]);
    assert_eq!(own(&r, 0), vec![0, node1_repaid + 3 * HOP]);
    let c = r.report().counters;
    // Debt holds: node 0 at 28, 32 (W1's echo back), 34 (R3 arrives), 52;
    // node 1 at 36 and 64 (held firmly until then: R3's end at 54 is no
    // decision). Go-bit holds: node 0 at 52, node 1 at 36 and 64. Node 3
    // repays but sends nothing more: counted neither way.
    assert_eq!((c.debt_holds, c.go_bit_holds, c.debts_repaid, c.debts_forgiven), (6, 3, 2, 2));
}

/// (d) Idle priority: a node that sees nobody waiting when its recovery
/// ends owes nothing, and sends back to back.
#[test]
fn without_a_visible_contender_a_debt_is_forgiven() {
    // Node 0 alone, two write64 requests: W1 at 0 (0..82); its FIFO is
    // empty at 82 (W1's echo is stripped at node 0 at 16), nobody waits:
    // W2 follows at 82, one idle after W1. Both debts forgiven (the second
    // when W2's recovery ends at 164).
    let mut r = ring(4, &["node.iqst_ns=10000.0", "traffic.transaction=write64"]);
    r.inject(0, 3, 0, 0);
    r.inject(0, 3, 0, 0);
    r.run_until(300 * NS);
    assert_eq!(own(&r, 0), vec![0, 41 * CYCLE]);
    let c = r.report().counters;
    assert_eq!((c.debt_holds, c.go_bit_holds, c.debts_repaid, c.debts_forgiven), (0, 0, 0, 2));

    // The ring of the first test, but node 1 sends only one packet: its
    // idles never say "waiting". Node 0's recovery ends at 92 as there, and
    // W2 goes at once (versus 252). Node 1's recovery ends at 246 (W2 came
    // into its FIFO at 94, behind W1), with node 0 seen waiting no more
    // (nothing queued after W2, from 174): forgiven too, as is node 0's
    // second debt at 174.
    let mut r = ring(4, &["node.iqst_ns=10000.0", "traffic.transaction=write64"]);
    r.inject(0, 3, 0, 0);
    r.inject(0, 3, 0, 0);
    r.inject(1, 2, 0, 0);
    r.run_until(300 * NS);
    assert_eq!(own(&r, 0), vec![0, 92 * NS]);
    assert_eq!(own(&r, 1), vec![0]);
    assert_eq!(times(&r, 1, Transmit { own: false }, Request, 0), vec![82 * NS, 164 * NS]);
    let c = r.report().counters;
    assert_eq!((c.debt_holds, c.go_bit_holds, c.debts_repaid, c.debts_forgiven), (0, 0, 0, 3));
}
