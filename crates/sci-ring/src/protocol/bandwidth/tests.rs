//! The bandwidth allocation's rules on hand-made histories, with exact
//! times (2 ns symbols, one separating idle).

use super::*;
use ringlet_engine::time::TICKS_PER_NS as NS;

/// Table 1's parameters: 2 ns symbols, one separating idle.
fn params() -> Params {
    let s = crate::load_str("", &[]).expect("defaults");
    crate::params::params(&crate::keys::Settings::of(&s)).expect("params")
}

/// A ring of `nodes` with 2 ns hops and 2 ns symbols.
fn bw(nodes: usize) -> Bandwidth {
    Bandwidth::new(&crate::ring::view_of(nodes, 2 * NS), &params(), true, false)
}

#[test]
fn a_debt_is_forgiven_when_nobody_waits() {
    let mut b = bw(4);
    let mut fx = Effects::default();
    b.on_sent(0, 0, 0, 9, None, &mut fx);
    b.on_recovered(0, 18 * NS);
    assert_eq!(b.forgiven, 1);
    assert_eq!(b.may_start(0, 18 * NS, 0, &mut fx), Permit::Go);
}

#[test]
fn a_debt_is_repaid_by_idles_while_another_node_waits() {
    let mut b = bw(4);
    let mut fx = Effects::default();
    // Node 2 waits behind bypass traffic from 0 ns; node 0 (2 hops on
    // from node 2: 4 ns) sees it from 4 ns.
    b.on_blocked(2, 0, 0, &mut fx);
    // Node 0 sends a request (9 symbols with its idle: 18 ns) at 10 ns;
    // its FIFO is empty at 28 ns: it repays 9 idles, until 46 ns.
    b.on_sent(0, 10 * NS, 0, 9, Some(0), &mut fx);
    b.on_recovered(0, 28 * NS);
    assert_eq!(b.may_start(0, 28 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(46 * NS) });
    // A 41-symbol packet passing at 30 ns is no idle: repaid at 46 + 80 ns.
    b.on_pass(0, 30 * NS, 40);
    assert_eq!(b.may_start(0, 46 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(126 * NS) });
    assert_eq!(b.may_start(0, 126 * NS, 0, &mut fx), Permit::Go);
    assert_eq!((b.holds.debt, b.repaid), (2, 1));
}

#[test]
fn converted_idles_hold_downstream_nodes_after_their_travel() {
    let mut b = bw(4);
    let mut fx = Effects::default();
    b.on_blocked(3, 0, 0, &mut fx); // seen by node 0 from 2 ns
    b.on_sent(0, 10 * NS, 0, 9, None, &mut fx);
    b.on_recovered(0, 28 * NS); // repays until 46 ns
    // Node 1 (one hop on) sees the converted idles from 30 ns to 48 ns.
    assert_eq!(b.may_start(1, 30 * NS - 2, 0, &mut fx), Permit::Go);
    assert_eq!(b.may_start(1, 30 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(48 * NS) });
    assert_eq!(b.may_start(1, 48 * NS, 0, &mut fx), Permit::Go);
    // Node 2 sees them from 32 ns to 50 ns.
    assert_eq!(b.may_start(2, 40 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(50 * NS) });
    assert_eq!(b.holds.go, 2);
}

/// The two rules alone (`network.bandwidth_allocation = "debts"` and
/// `"go-bits"`). A ring of 4 nodes 20 ns apart: node 3 waits from 0 ns
/// (node 0 sees it from 20 ns); node 0 sends 9 symbols at 30 ns, recovers
/// at 48 ns and owes 18 ns of idles; node 1 sees its idles 20 ns later.
#[test]
fn each_rule_alone() {
    let rules = |name| Bandwidth::new(&crate::ring::view_of(4, 20 * NS), &params(), Allocation::named(name), false);
    let mut fx = Effects::default();
    let start = |b: &mut Bandwidth, fx: &mut Effects| {
        b.on_blocked(3, 0, 0, fx);
        b.on_sent(0, 30 * NS, 0, 9, Some(0), fx);
        b.on_recovered(0, 48 * NS);
    };
    // Both: node 0 repays until 66 ns; node 1 is held while it sees the
    // converted idles, 68 to 86 ns.
    let mut b = rules("ieee");
    start(&mut b, &mut fx);
    assert_eq!(b.may_start(0, 48 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(66 * NS) });
    assert_eq!(b.may_start(1, 70 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(86 * NS) });
    // Debts alone: node 0 waits out its debt, its idles hold nobody.
    let mut b = rules("debts");
    start(&mut b, &mut fx);
    assert_eq!(b.may_start(0, 48 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(66 * NS) });
    assert_eq!(b.may_start(1, 70 * NS, 0, &mut fx), Permit::Go);
    assert_eq!((b.holds.debt, b.holds.go), (1, 0));
    // Go bits alone: node 0 may send before its debt is repaid (at 56
    // ns), and converts idles only until then: node 1 is held by them
    // from 68 to 76 ns.
    let mut b = rules("go-bits");
    start(&mut b, &mut fx);
    assert_eq!(b.may_start(0, 48 * NS, 0, &mut fx), Permit::Go);
    b.on_sent(0, 56 * NS, 0, 9, None, &mut fx);
    assert_eq!(b.may_start(1, 72 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(76 * NS) });
    assert_eq!((b.holds.debt, b.holds.go), (0, 1));
    // Neither: nobody is held.
    let mut b = rules("none");
    start(&mut b, &mut fx);
    assert_eq!((b.may_start(0, 48 * NS, 0, &mut fx), b.may_start(1, 70 * NS, 0, &mut fx)), (Permit::Go, Permit::Go));
}

#[test]
fn repayment_ends_early_once_the_waiting_node_is_seen_served() {
    let mut b = bw(4);
    let mut fx = Effects::default();
    b.on_blocked(3, 0, 0, &mut fx);
    b.on_sent(0, 10 * NS, 0, 9, Some(0), &mut fx);
    b.on_recovered(0, 28 * NS);
    // A response passes node 0 at 30 ns: repaid at 126 ns if nothing changes.
    b.on_pass(0, 30 * NS, 40);
    assert_eq!(b.may_start(0, 40 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(126 * NS) });
    // Node 3 sends at 32 ns with nothing more: its idles say so after
    // the packet, from 50 ns; node 0 (one hop on) sees it at 52 ns and
    // is woken then.
    b.on_sent(3, 32 * NS, 0, 9, None, &mut fx);
    assert_eq!(fx.wakes, vec![(0, 52 * NS)]);
    assert_eq!(b.may_start(0, 52 * NS - 2, 0, &mut fx), Permit::Hold { wake_at: Some(52 * NS) });
    assert_eq!(b.may_start(0, 52 * NS, 0, &mut fx), Permit::Go);
    assert_eq!((b.forgiven, b.repaid, b.holds.debt), (1, 0, 2));
}

#[test]
fn a_node_held_by_converted_idles_keeps_the_repayment_going() {
    let mut b = bw(4);
    let mut fx = Effects::default();
    b.on_blocked(3, 0, 0, &mut fx);
    b.on_sent(0, 10 * NS, 0, 9, None, &mut fx);
    b.on_recovered(0, 28 * NS); // repays until 46 ns
    // Node 3 is served at 32 ns, but node 1, held from 30 ns, now waits
    // itself: node 0 sees that (three hops on) from 36 ns.
    assert_eq!(b.may_start(1, 30 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(48 * NS) });
    b.on_sent(3, 32 * NS, 0, 9, None, &mut fx);
    assert_eq!(b.may_start(0, 44 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(46 * NS) });
    assert_eq!(b.may_start(0, 46 * NS, 0, &mut fx), Permit::Go);
    assert_eq!(b.repaid, 1);
}

/// On a long ring a node far downstream still sees an older repayment
/// while the repaying node has begun a newer one: node 3 is 60 ns from
/// node 0 (20 ns hops), node 0 repays 28-46 ns and again from 64 ns.
#[test]
fn a_far_node_sees_an_older_repayment_behind_a_newer_one() {
    let mut b = Bandwidth::new(&crate::ring::view_of(4, 20 * NS), &params(), true, false);
    let mut fx = Effects::default();
    b.on_blocked(3, 0, 0, &mut fx); // seen by node 0 from 20 ns
    b.on_sent(0, 10 * NS, 0, 9, Some(0), &mut fx);
    b.on_recovered(0, 28 * NS); // repays until 46 ns
    b.on_sent(0, 46 * NS, 0, 9, None, &mut fx);
    b.on_recovered(0, 64 * NS); // repays until 82 ns
    // At 90 ns node 3 sees node 0's idles of 30 ns: converted (the first
    // repayment, seen until 46 + 60 ns), not those of the second.
    assert_eq!(b.may_start(3, 90 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(106 * NS) });
    assert_eq!(b.may_start(3, 106 * NS, 0, &mut fx), Permit::Go);
    // The second repayment reaches it at 124 ns.
    assert_eq!(b.may_start(3, 124 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(142 * NS) });
    assert_eq!(b.holds.go, 2);
}

/// A node that starts a packet forgets only what no node can see any
/// more. Node 3 is 60 ns (the longest travel) downstream of node 0 (20
/// ns hops); node 0 repays 28-46 ns, then starts an 82 ns response at
/// 46 ns with nothing waiting after it. Node 3 sees the converted idles
/// from 88 to 106 ns and is held by them (forgetting them as of the
/// response's end, 128 ns, let it send at 90 ns, and its wake at 106 ns
/// went unsent: only another event of its own asked again).
#[test]
fn a_node_that_sends_forgets_only_what_no_node_sees_any_more() {
    let mut b = Bandwidth::new(&crate::ring::view_of(4, 20 * NS), &params(), true, false);
    let mut fx = Effects::default();
    b.on_blocked(3, 0, 0, &mut fx); // seen by node 0 from 20 ns
    b.on_sent(0, 10 * NS, 0, 9, Some(0), &mut fx);
    b.on_recovered(0, 28 * NS); // repays until 46 ns
    assert_eq!(b.may_start(2, 70 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(86 * NS) });
    b.on_sent(0, 46 * NS, 0, 41, None, &mut fx);
    assert_eq!(b.may_start(3, 90 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(106 * NS) });
    assert_eq!(b.may_start(3, 106 * NS, 0, &mut fx), Permit::Go);
}

/// A node's idle priority is seen as it was when the idles left it, even
/// after it changed twice since: node 2 is 60 ns downstream of node 3
/// (20 ns hops); node 3 waits from 5 ns, sends at 10 ns (its idles show
/// nothing waiting from 28 ns) and waits again from 40 ns.
#[test]
fn an_idle_priority_is_seen_as_it_was_when_its_idles_left() {
    let mut b = Bandwidth::new(&crate::ring::view_of(4, 20 * NS), &params(), true, false);
    let mut fx = Effects::default();
    b.on_blocked(3, 5 * NS, 0, &mut fx);
    b.on_sent(3, 10 * NS, 0, 9, None, &mut fx);
    b.on_blocked(3, 40 * NS, 0, &mut fx);
    // Node 2's recovery ends at 68 ns: it sees node 3's idles of 8 ns,
    // which show a packet waiting, so it repays, until 86 ns.
    b.on_sent(2, 50 * NS, 0, 9, None, &mut fx);
    b.on_recovered(2, 68 * NS);
    assert_eq!(b.forgiven, 0);
    assert_eq!(b.may_start(2, 68 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(86 * NS) });
}

/// Rings of more than 64 nodes: node 65's state is kept in the second
/// word of the set of nodes whose idles may show something.
#[test]
fn a_node_beyond_the_64th_is_seen_waiting() {
    let mut b = bw(70);
    let mut fx = Effects::default();
    b.on_blocked(65, 0, 0, &mut fx); // seen by node 0 from 10 ns
    b.on_sent(0, 10 * NS, 0, 9, None, &mut fx);
    b.on_recovered(0, 28 * NS);
    assert_eq!(b.forgiven, 0);
    assert_eq!(b.may_start(0, 28 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(46 * NS) });
}

/// A node that no longer shows anything is dropped from the nodes the
/// decisions look at, and only it: node 1 waited and was served long
/// before node 0's recovery ends; node 3 waits from 30 ns.
#[test]
fn a_node_that_shows_nothing_any_more_is_dropped_alone() {
    let mut b = bw(4);
    let mut fx = Effects::default();
    b.on_blocked(1, 0, 0, &mut fx);
    b.on_sent(1, 2 * NS, 0, 9, None, &mut fx); // nothing waiting from 20 ns
    b.on_blocked(3, 30 * NS, 0, &mut fx); // seen by node 0 from 32 ns
    b.on_sent(0, 40 * NS, 0, 9, None, &mut fx);
    b.on_recovered(0, 58 * NS); // repays until 76 ns
    assert_eq!(b.may_start(0, 58 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(76 * NS) });
    assert_eq!(b.may_start(0, 60 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(76 * NS) });
    assert_eq!((b.forgiven, b.holds.debt), (0, 2));
}

/// Two upstream nodes repaying at once: a node is held until the later
/// of the two releases reaches it. Node 0 repays 28-46 ns (seen at node 2
/// 4 ns later), node 1 repays 38-56 ns (seen 2 ns later).
#[test]
fn a_node_held_by_two_repayments_waits_for_the_later_release() {
    let mut b = bw(4);
    let mut fx = Effects::default();
    b.on_blocked(3, 0, 0, &mut fx);
    b.on_sent(0, 10 * NS, 0, 9, None, &mut fx);
    b.on_recovered(0, 28 * NS);
    b.on_sent(1, 20 * NS, 0, 9, None, &mut fx);
    b.on_recovered(1, 38 * NS);
    assert_eq!(b.may_start(2, 45 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(58 * NS) });
    assert_eq!(b.may_start(2, 50 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(58 * NS) });
    assert_eq!(b.may_start(2, 58 * NS, 0, &mut fx), Permit::Go);
    assert_eq!(b.holds.go, 2);
}

/// A packet's debt is its symbols and its separating idle: a read64
/// request of 8 symbols owes 9 idles (18 ns).
#[test]
fn a_packets_debt_is_its_symbols_and_its_separator() {
    let mut b = bw(4);
    let mut fx = Effects::default();
    b.on_blocked(2, 0, 0, &mut fx);
    let pk = Packet::new(ringlet_fabric::packet::PacketKind::Request, 0, 0, 2, 0, 8, 0);
    b.on_sent_packet(0, 10 * NS, &pk, None, &mut fx);
    b.on_recovered(0, 28 * NS);
    assert_eq!(b.may_start(0, 28 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(46 * NS) });
}

/// What the report shows: go-bit holds, debt holds, debts repaid and
/// debts forgiven, each counted once here.
#[test]
fn the_counters_report_holds_and_debts() {
    let mut b = bw(4);
    let mut fx = Effects::default();
    b.on_blocked(3, 0, 0, &mut fx);
    b.on_sent(0, 10 * NS, 0, 9, None, &mut fx);
    b.on_recovered(0, 28 * NS); // repays until 46 ns
    assert_eq!(b.may_start(1, 30 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(48 * NS) });
    assert_eq!(b.may_start(0, 30 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(46 * NS) });
    assert_eq!(b.may_start(0, 46 * NS, 0, &mut fx), Permit::Go);
    // Nodes 1 and 3 are served at 48 and 50 ns; node 0's next debt
    // (recovered at 78 ns) is forgiven.
    b.on_sent(1, 48 * NS, 0, 9, None, &mut fx);
    b.on_sent(3, 50 * NS, 0, 9, None, &mut fx);
    b.on_sent(0, 60 * NS, 0, 9, None, &mut fx);
    b.on_recovered(0, 78 * NS);
    let c = b.counters();
    assert_eq!((c.go_bit_holds, c.debt_holds, c.debts_repaid, c.debts_forgiven), (1, 1, 1, 1));
}

/// A packet that reaches the node the instant its repayment ends is not
/// counted into it: node 0 repays 28-46 ns, a response passes at 46 ns.
#[test]
fn a_packet_passing_as_the_repayment_ends_does_not_extend_it() {
    let mut b = bw(4);
    let mut fx = Effects::default();
    b.on_blocked(2, 0, 0, &mut fx);
    b.on_sent(0, 10 * NS, 0, 9, Some(0), &mut fx);
    b.on_recovered(0, 28 * NS);
    b.on_pass(0, 46 * NS, 40);
    assert_eq!(b.may_start(0, 46 * NS, 0, &mut fx), Permit::Go);
    assert_eq!(b.repaid, 1);
}

/// A repayment that ends early (nobody waits any more) stops its
/// converted idles there: downstream nodes are released as soon as the
/// last converted idle has passed them, not when the debt would have
/// been repaid.
#[test]
fn a_repayment_ended_early_releases_downstream_nodes_then() {
    let mut b = bw(4);
    let mut fx = Effects::default();
    b.on_blocked(3, 0, 0, &mut fx);
    b.on_sent(0, 10 * NS, 0, 9, Some(0), &mut fx);
    b.on_recovered(0, 28 * NS);
    b.on_pass(0, 30 * NS, 40); // repays until 126 ns if nothing changes
    b.on_sent(3, 32 * NS, 0, 9, None, &mut fx); // node 0 sees it served at 52 ns
    assert_eq!(b.may_start(0, 52 * NS, 0, &mut fx), Permit::Go);
    assert_eq!(b.forgiven, 1);
    // Node 1, one hop on, saw converted idles until 54 ns.
    assert_eq!(b.may_start(1, 54 * NS - 2, 0, &mut fx), Permit::Hold { wake_at: Some(54 * NS) });
    assert_eq!(b.may_start(1, 54 * NS, 0, &mut fx), Permit::Go);
}

#[test]
fn within_priority_levels_a_repayment_holds_only_lower_or_equal_priorities() {
    let mut b = Bandwidth::new(&crate::ring::view_of(4, 2 * NS), &params(), true, true);
    let mut fx = Effects::default();
    b.on_blocked(3, 0, 7, &mut fx);
    b.on_sent(0, 10 * NS, 5, 9, None, &mut fx);
    b.on_recovered(0, 28 * NS);
    assert_eq!(b.may_start(1, 30 * NS, 6, &mut fx), Permit::Go);
    assert_eq!(b.may_start(1, 30 * NS, 5, &mut fx), Permit::Hold { wake_at: Some(48 * NS) });
}

/// A repaying node held by a waiting node decides again when it first sees
/// that node with nothing waiting, even if the node waits again later: node
/// 1 is 6 ns upstream of node 0 (three 2 ns hops); it waits from 0 ns, is
/// served at 32 ns (its idles show nothing waiting from 50 ns) and waits
/// again from 53 ns. Node 0 repays from 28 ns, until 126 ns with a response
/// passing at 30 ns.
#[test]
fn a_repayment_ends_when_the_waiting_node_is_first_seen_served() {
    let mut b = bw(4);
    let mut fx = Effects::default();
    b.on_blocked(1, 0, 0, &mut fx);
    b.on_sent(0, 10 * NS, 0, 9, Some(0), &mut fx);
    b.on_recovered(0, 28 * NS);
    b.on_pass(0, 30 * NS, 40);
    b.on_sent(1, 32 * NS, 0, 9, None, &mut fx);
    b.on_blocked(1, 53 * NS, 0, &mut fx);
    // At 54 ns node 0 sees node 1's idles of 48 ns (waiting); those of 50
    // ns, which show nothing waiting, reach it at 56 ns.
    assert_eq!(b.may_start(0, 54 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(56 * NS) });
    assert_eq!(b.may_start(0, 56 * NS, 0, &mut fx), Permit::Go);
    assert_eq!((b.forgiven, b.repaid), (1, 0));
}

/// A node held both by its own debt and by converted idles decides again
/// when its repayment may end early, not only when the go bits come back:
/// the repayment's own converted idles stop then. Node 3 waits from 0 ns
/// and is served at 31 ns (nothing waiting from 49 ns). Node 0 repays from
/// 28 ns, until 126 ns (a response passes at 29 ns): node 1 sees its
/// converted idles from 30 to 128 ns. Node 1 repays from 30 ns, until 128
/// ns (a response passes at 31 ns), while it sees node 3 waiting: until
/// 53 ns (node 3's idles of 49 ns, 4 ns on).
#[test]
fn a_node_held_by_its_debt_and_by_go_bits_ends_its_repayment_in_time() {
    let mut b = bw(4);
    let mut fx = Effects::default();
    b.on_blocked(3, 0, 0, &mut fx);
    b.on_sent(0, 10 * NS, 0, 9, None, &mut fx);
    b.on_recovered(0, 28 * NS);
    b.on_pass(0, 29 * NS, 40);
    b.on_sent(1, 12 * NS, 0, 9, None, &mut fx);
    b.on_recovered(1, 30 * NS);
    b.on_pass(1, 31 * NS, 40);
    b.on_sent(3, 31 * NS, 0, 9, None, &mut fx);
    assert_eq!(b.may_start(1, 32 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(53 * NS) });
    // At 53 ns its repayment ends (nobody waits); node 0's go bits hold it on.
    assert_eq!(b.may_start(1, 53 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(128 * NS) });
    assert_eq!((b.forgiven, b.holds.debt, b.holds.go), (1, 1, 2));
    // Its converted idles stopped at 53 ns.
    assert_eq!(b.withheld.latest_mut(1).map(|s| (s.from, s.to)), Some((30 * NS, 53 * NS)));
}

/// With the go-bit rule alone, a node that sends before its debt is repaid
/// converts no more idles, and the nodes they held are woken as the last
/// converted idle reaches them. A ring of 4 nodes 20 ns apart: node 0 repays
/// from 48 ns (until 146 ns with a response passing at 50 ns); node 1 sees
/// the converted idles from 68 ns; node 0 sends at 100 ns.
#[test]
fn with_go_bits_alone_a_node_that_sends_releases_those_it_held() {
    let mut b = Bandwidth::new(&crate::ring::view_of(4, 20 * NS), &params(), Allocation::named("go-bits"), false);
    let mut fx = Effects::default();
    b.on_blocked(3, 0, 0, &mut fx);
    b.on_sent(0, 30 * NS, 0, 9, Some(0), &mut fx);
    b.on_recovered(0, 48 * NS);
    b.on_pass(0, 50 * NS, 40);
    assert_eq!(b.may_start(1, 70 * NS, 0, &mut fx), Permit::Hold { wake_at: Some(166 * NS) });
    assert!(fx.wakes.is_empty());
    assert_eq!(b.may_start(0, 100 * NS, 0, &mut fx), Permit::Go);
    b.on_sent(0, 100 * NS, 0, 9, None, &mut fx);
    assert_eq!(fx.wakes, vec![(1, 120 * NS)]);
    assert_eq!(b.may_start(1, 120 * NS, 0, &mut fx), Permit::Go);
}
