//! TRAIN's budget, mode switches, grants and counters on a bench: the
//! protocol driven by hand round four idle interfaces, the train a
//! nanosecond a node (seed 003 section 2.3; gearshift is beyond the seed).

mod common;
use common::*;
use ringlet_fabric::interface::Iface;
use ringlet_fabric::packet::{Packet, PacketKind, Slab};
use ringlet_fabric::protocol::{Effects, Permit, RingProtocol};
use ringlet_sci::protocol::train::{Train, TrainPhase};
use ringlet_sci::protocol::Registered;

/// The derived budget of a 4-node ring (1-cycle hops, an 8-symbol
/// LocalMotive, 1 separator idle): what the ring carries, twice what one
/// link does, over the two revolutions from a grant train to the next,
/// 2 x 2 x (4 x 1 + 4 x (8 + 1)) = 160; an immediate-mode revolution's
/// tally is one revolution's, 80.
const BUDGET: u32 = 160;
const TALLY: u32 = 80;

struct Bench {
    t: Train,
    nodes: Vec<Iface>,
    slab: Slab,
    fx: Effects,
    train: BenchTrain,
}

impl Bench {
    fn new(extra: &[&str]) -> Bench {
        let mut all = vec!["network.protocol=\"train\""];
        all.extend_from_slice(extra);
        let (s, p) = setup(4, &all);
        let topo = topology(&s);
        let mut t = Train::build(&topo.view(0), &p, &s).unwrap();
        let mut fx = Effects::default();
        t.on_start(&mut fx);
        let train = BenchTrain::launched(&mut fx);
        Bench {
            t,
            nodes: (0..4u16).map(|i| Iface::new(&topo, i, &p, 1, 0)).collect(),
            slab: Slab::with_capacity(16),
            fx,
            train,
        }
    }

    /// A request of `len` symbols from `src` to node 0, waiting in `src`'s output queue.
    fn request(&mut self, src: u16, len: u16) -> u32 {
        self.request_queued(src, len, 0, 0)
    }

    /// The same, born at `born` and in the output queue since `queued`.
    fn request_queued(&mut self, src: u16, len: u16, born: u64, queued: u64) -> u32 {
        self.request_full(src, 0, len, born, queued)
    }

    /// A request of `len` symbols from `src` to `dst`, born at `born` and in
    /// `src`'s output queue since `queued`.
    fn request_full(&mut self, src: u16, dst: u16, len: u16, born: u64, queued: u64) -> u32 {
        let mut pk = Packet::new(PacketKind::Request, 0, src, dst, 0, len, born).on(src, dst);
        pk.queued_at = queued;
        let id = self.slab.alloc(pk);
        self.nodes[src as usize].push_own(0, 0, id);
        id
    }

    /// One revolution; the phase the TicketMaster launches next.
    fn revolution(&mut self) -> TrainPhase {
        self.train
            .revolution(&mut self.t, &self.nodes, &self.slab, &mut self.fx);
        self.t.phase()
    }

    /// Node `node` reports having sent packet `id` at `now`.
    fn sent(&mut self, node: usize, now: u64, id: u32) {
        let pk = *self.slab.get(id);
        self.t.on_sent(node, now, id, &pk, None, &mut self.fx);
    }
}

/// The derived budget, an explicit one, and one too small for the longest
/// send packet (a read64 response, 40 symbols), refused before any run.
#[test]
fn the_budget_is_two_idle_revolutions_unless_set() {
    assert_eq!(Bench::new(&[]).t.budget(), BUDGET);
    assert_eq!(Bench::new(&["train.budget_symbols=40"]).t.budget(), 40);
    let train = ringlet_sci::protocol::REGISTRY.iter().find(|r| r.schema.name == "train").expect("registered");
    let (s, p) = setup(4, &["network.protocol=\"train\"", "train.budget_symbols=39"]);
    assert_eq!(
        (train.check)(&topology(&s), &p, &s),
        Err("train.budget_symbols: expected 0 (derived) or at least the longest send packet (40 symbols), got 39".into())
    );
    let (s, p) = setup(4, &["network.protocol=\"train\"", "train.budget_symbols=40"]);
    assert_eq!((train.check)(&topology(&s), &p, &s), Ok(()));
}

/// An idle revolution claims nothing: even with `arbitrate_above = 0` the
/// TicketMaster switches to arbitrated mode only when more than that share
/// was claimed (or, with gearshift, reported sent).
#[test]
fn an_idle_revolution_keeps_the_low_load_mode() {
    let mut b = Bench::new(&["train.arbitrate_above=0", "train.immediate_below=0"]);
    assert_eq!(b.revolution(), TrainPhase::Immediate { tally: TALLY });
    let mut b = Bench::new(&[
        "train.arbitrate_above=0",
        "train.immediate_below=0",
        "train.gearshift=true",
    ]);
    assert_eq!(b.revolution(), TrainPhase::Free { used: 0 });
    // One symbol reported is more than none.
    let id = b.request(1, 8);
    b.sent(1, 0, id);
    assert_eq!(b.revolution(), TrainPhase::Request);
}

/// Gearshift: nodes report on the passing LocalMotive the symbols they sent
/// since it last passed, and the TicketMaster switches to arbitrated mode
/// when a revolution's reports exceed `arbitrate_above` of the tally (0.75 x 80 = 60).
#[test]
fn gearshift_switches_to_arbitrated_mode_on_the_symbols_reported_sent() {
    // 40 symbols: below the threshold.
    let mut b = Bench::new(&["train.gearshift=true"]);
    let a = b.request(1, 40);
    b.sent(1, 0, a);
    assert_eq!(b.revolution(), TrainPhase::Free { used: 0 });
    // 40 + 40 from two nodes: above it.
    let mut b = Bench::new(&["train.gearshift=true"]);
    let (a, c) = (b.request(1, 40), b.request(2, 40));
    b.sent(1, 0, a);
    b.sent(2, 0, c);
    assert_eq!(b.revolution(), TrainPhase::Request);
}

/// After a grant train the TicketMaster goes back to immediate mode when the
/// request train before it asked for less than `immediate_below` of the
/// budget. Node 1's first packet (40 symbols, more than `arbitrate_above` of
/// the tally) is claimed on revolution 1; its second (8 symbols, if any) is
/// ticketed on the request train, revolution 2, and granted on revolution 3.
#[test]
fn arbitrated_mode_ends_when_a_request_train_asks_below_the_threshold() {
    let after_grant = |threshold: &str, second: bool| {
        let mut b = Bench::new(&[&format!("train.arbitrate_above={threshold}"), &format!("train.immediate_below={threshold}")]);
        b.request(1, 40);
        if second {
            b.request(1, 8);
        }
        assert_eq!(b.revolution(), TrainPhase::Request);
        assert_eq!(b.revolution(), TrainPhase::Grant);
        b.revolution()
    };
    // 8 symbols against 0.25 x 160 = 40: back to immediate mode.
    assert_eq!(
        after_grant("0.25", true),
        TrainPhase::Immediate { tally: TALLY }
    );
    // 8 against 0.04 x 160 = 6.4: arbitrated on.
    assert_eq!(after_grant("0.04", true), TrainPhase::Request);
    // An empty request train (0 symbols) against a threshold of 0: not below it.
    assert_eq!(after_grant("0", false), TrainPhase::Request);
}

/// A claimed packet goes only once the LocalMotive has left the node: the
/// node is woken just after the train passes (the train reaches node 1 at 1
/// ns and leaves after its 16 ns handling, at 17 ns); asked before that the
/// answer is to wait until then. A packet with no claim or grant is skipped
/// (a flow hold) while the node does not see the ring free.
#[test]
fn a_granted_packet_waits_for_the_train_to_pass() {
    let mut b = Bench::new(&[]);
    let claimed = b.request(1, 8);
    let other = b.request(1, 8);
    b.revolution();
    let pass = 17 * NS;
    assert!(b.fx.wakes.contains(&(1, pass + 1)), "{:?}", b.fx.wakes);
    let pk = *b.slab.get(claimed);
    assert_eq!(b.t.may_send(1, 10 * NS, claimed, &pk, &mut b.fx), Permit::Hold { wake_at: Some(pass + 1) });
    assert_eq!(b.t.may_send(1, pass, claimed, &pk, &mut b.fx), Permit::Hold { wake_at: Some(pass + 1) });
    assert_eq!(b.t.may_send(1, pass + 1, claimed, &pk, &mut b.fx), Permit::Go);
    assert_eq!(b.t.counters().flow_holds, 0);
    let pk = *b.slab.get(other);
    assert_eq!(b.t.may_send(1, pass + 1, other, &pk, &mut b.fx), Permit::Skip);
    assert_eq!(b.t.counters().flow_holds, 1);
}

/// The train counts as one control packet at its launch and once more each
/// time it comes home (one per revolution).
#[test]
fn each_launched_train_counts_once() {
    let mut b = Bench::new(&[]);
    for _ in 0..3 {
        b.revolution();
    }
    assert_eq!(b.t.counters().control_symbols, 4);
}

/// Gearshift's low-load mode is base SCI's go bits: a node blocked by bypass
/// traffic holds the others once its idles reach them (node 2 to node 1:
/// 3 hops, 6 ns), and the hold is counted. The node asks to hear of every
/// further forward whether or not it sees the ring free, since that changes
/// as the train passes.
#[test]
fn gearshift_holds_nodes_behind_a_blocked_one() {
    let mut b = Bench::new(&["train.gearshift=true"]);
    let id = b.request(1, 8);
    let pk = *b.slab.get(id);
    assert!(b.t.on_blocked(2, 0, 0, &mut b.fx));
    assert_eq!(b.t.may_send(1, 5 * NS, id, &pk, &mut b.fx), Permit::Go);
    assert!(matches!(b.t.may_send(1, 6 * NS, id, &pk, &mut b.fx), Permit::Hold { .. }));
    assert_eq!(b.t.counters().go_bit_holds, 1);
    // Immediate mode: the go bits are not used, yet the node asks again.
    let mut b = Bench::new(&[]);
    assert!(b.t.on_blocked(2, 0, 0, &mut b.fx));
    assert_eq!(b.t.counters().go_bit_holds, 0);
}

/// `send_mode = "arbitrated"`: no immediate send mode. The first train is a
/// request train even on an idle ring; an empty grant train is followed by
/// a request train, however little was asked (`immediate_below` is not
/// read); a waiting packet is ticketed on the request train and granted on
/// the grant train, never claimed. The switching default starts immediate.
/// Arbitrated with gearshift is refused: it has no low-load mode to change.
#[test]
fn always_arbitrated_never_uses_immediate_send_mode() {
    let mut b = Bench::new(&["train.send_mode=\"arbitrated\""]);
    assert_eq!(b.t.phase(), TrainPhase::Request);
    let id = b.request(1, 8);
    assert_eq!(b.revolution(), TrainPhase::Grant);
    assert!(
        b.fx.wakes.is_empty(),
        "a request train grants nothing: {:?}",
        b.fx.wakes
    );
    assert_eq!(b.revolution(), TrainPhase::Request);
    let pk = *b.slab.get(id);
    let late = 1_000 * NS;
    assert_eq!(
        b.t.may_send(1, late, id, &pk, &mut b.fx),
        Permit::Go,
        "granted on the grant train"
    );
    for _ in 0..4 {
        assert!(matches!(
            b.revolution(),
            TrainPhase::Request | TrainPhase::Grant
        ));
    }
    assert_eq!(
        Bench::new(&[]).t.phase(),
        TrainPhase::Immediate { tally: TALLY }
    );
    let o: Vec<_> = [
        "network.protocol=\"train\"",
        "train.send_mode=\"arbitrated\"",
        "train.gearshift=true",
    ]
    .iter()
    .map(|e| ringlet_scenario::parse_override(e).expect("KEY=VALUE"))
    .collect();
    let refused = ringlet_sci::load_str("", &o).expect_err("refused").message;
    assert!(
        refused.starts_with("train.send_mode: \"arbitrated\" has no low-load mode"),
        "{refused}"
    );
}

/// A node whose packet is larger than the tally left still shows what it
/// wishes to send (the seed: nodes "decrement this field by the amount they
/// wish to send"), and the TicketMaster counts it: node 1 claims 40 of the
/// tally's 80 symbols, node 2's 48-symbol packet does not fit the 40 left and waits;
/// 40 claimed + 48 wished is over 0.75 x 80, so the next train arbitrates.
/// Counting the claims alone (40, under 60), it would stay immediate and
/// node 2 would wait behind node 1's claims as long as node 1 has packets.
#[test]
fn a_packet_too_large_for_the_tally_counts_toward_arbitration() {
    let mut b = Bench::new(&[]);
    b.request(1, 40);
    let big = b.request(2, 48);
    assert_eq!(b.revolution(), TrainPhase::Request);
    let pk = *b.slab.get(big);
    assert_eq!(b.t.may_send(2, 1_000 * NS, big, &pk, &mut b.fx), Permit::Skip, "not claimed: it waits for its ticket");
    // The same claim with nothing wished: immediate mode goes on.
    let mut b = Bench::new(&[]);
    b.request(1, 40);
    assert_eq!(b.revolution(), TrainPhase::Immediate { tally: TALLY });
}

/// Tickets rank by the time their packet entered its output queue, not by
/// the transaction's birth (under overload a request waits long in the
/// application queue, and by birth every request ticket would outrank every
/// response ticket). Always arbitrated, a 40-symbol budget: one 40-symbol
/// packet per train. Node 1's A was born first (0 ns) but entered its
/// output queue at 82 ns; node 3's B, born at 20 ns, entered at once. On the
/// request train B goes ahead of A and A, past the budget, is truncated; the
/// grant train grants B only.
#[test]
fn tickets_rank_by_output_queue_entry_time() {
    let mut b = Bench::new(&[
        "train.send_mode=\"arbitrated\"",
        "train.budget_symbols=40",
        "traffic.transaction=write64",
    ]);
    let a = b.request_queued(1, 40, 0, 82 * NS);
    let late = b.request_queued(3, 40, 20 * NS, 20 * NS);
    assert_eq!(b.revolution(), TrainPhase::Grant);
    assert_eq!(b.t.counters().tickets_deleted, 1);
    assert_eq!(b.revolution(), TrainPhase::Request);
    let after = 1_000 * NS;
    let (pa, pb) = (*b.slab.get(a), *b.slab.get(late));
    assert_eq!(
        b.t.may_send(3, after, late, &pb, &mut b.fx),
        Permit::Go,
        "B granted"
    );
    assert_eq!(
        b.t.may_send(1, after, a, &pa, &mut b.fx),
        Permit::Skip,
        "A waits for the next request train"
    );
}

/// A request train counts what nodes asked for, not what is left on it when
/// it comes home: node 1's second 40-symbol request (its first was claimed,
/// 40 of the tally's 80, more than 0.25 of it: the ring arbitrates next) is ticketed on the request train and
/// deleted by node 3, its destination, whose input queue is full. 40 asked
/// is not below 0.2 x 160 = 32, so the ring stays arbitrated after the grant
/// train. (Counting the tickets left, none, it went back to immediate send
/// mode: at a 400-symbol budget that sent packets into full input queues,
/// which deleted the next request train's tickets, and the ring carried
/// 41 MB/s in busy retries.)
#[test]
fn a_request_train_counts_the_tickets_a_destination_deleted() {
    let mut b = Bench::new(&["train.arbitrate_above=0.25", "train.immediate_below=0.2"]);
    b.request_full(1, 3, 40, 0, 0);
    b.request_full(1, 3, 40, 0, 0);
    let full = b.nodes[3].input(0).capacity;
    b.nodes[3].input_mut(0).occupied = full;
    assert_eq!(b.revolution(), TrainPhase::Request);
    assert_eq!(b.revolution(), TrainPhase::Grant);
    assert_eq!(b.t.counters().tickets_deleted, 1);
    assert_eq!(b.revolution(), TrainPhase::Request);
}
