//! The arbitration each GigaRing ring runs on its own (seed 002 section 3):
//!
//! - **bandwidth allocation**, as adaptive bandwidth sharing (US patent
//!   6,205,119): nodes that want bandwidth say so in the traffic-control
//!   field of the send packets they pass on; the targets copy the field
//!   into the echoes; a source inserts idle symbols after its own packets
//!   "as a function of" what its echoes bring back "and the traffic at the
//!   source node". How much is the control law ([`SharingLaw`]);
//! - **queue reservation**: a busied packet gets a reserved place in the
//!   receive buffer after a second busy (IEEE 1596's A/B queue allocation,
//!   `ringlet_sci`), so no packet is busied forever. A node owed such a
//!   place contends for the ring until its packet is accepted (it asks to
//!   share, and its packets say their source contends): the promise holds
//!   only if the bandwidth allocation lets every node owed a place reach it.
//!
//! The patent does not give its control law's constants; see
//! `docs/model-gigaring.md` and `docs/assumptions.md`.

use ringlet_engine::Time;
use ringlet_fabric::packet::{Packet, Phase};
use ringlet_fabric::protocol::{Admission, BypassOrder, EchoAt, Effects, Permit, ProtoCounters, QueueView, RingProtocol, RingletView, Rules};
use ringlet_sci::protocol::queue_allocation::QueueAllocation;

/// The request-to-share count's unit in the traffic-control field.
pub const REQUEST_TO_SHARE: u8 = 1;
/// The field's top bit: the packet's source has more own packets waiting
/// (it contends for the ring too); the other seven bits count the
/// requests to share of the nodes the packet passed.
pub const SOURCE_WAITS: u8 = 0x80;
const COUNT: u8 = 0x7f;
/// No other place of the node on the ring.
const NO_TWIN: u16 = u16::MAX;

/// How a source turns the requests it hears into idles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharingLaw {
    /// Equal shares: a source that waits to send counts the nodes that
    /// contend with it on its packets' path (those its own packets pass
    /// that ask to share, from its echoes; those upstream whose packets
    /// pass it, from the fields of those packets, their sources
    /// included) and, with n contenders, follows each own packet with
    /// n - 1 packets' worth of idles: it takes one n-th of the ring.
    EqualShare,
    /// One fixed slot of idles per request heard (`per_request`), added
    /// as each echo comes back. Nodes near the hot spot starve: the
    /// fractions the sources give up do not add up to what the waiting
    /// nodes need, and the gaps go to the first waiter downstream.
    PerRequest,
}

/// One ring's arbitration.
pub struct Arbitration {
    view: RingletView,
    queues: QueueAllocation,
    /// Per node: its packets the receive buffers have reserved a place for
    /// (answered BUSY_A / BUSY_B) and not yet accepted.
    owed: Vec<u32>,
    sharing: bool,
    law: SharingLaw,
    /// Idle time a source inserts per request to share it hears (`PerRequest`).
    per_request: Time,
    /// A symbol's time and the idles that follow every packet.
    cycle: Time,
    separator: Time,
    /// Per node: it asks to share (its own packet waits to be sent).
    wants: Vec<bool>,
    /// Per node: it has more own packets after the one it sent last.
    backlogged: Vec<bool>,
    /// Per node: the most contenders upstream of it seen in the field of
    /// a packet passing it since its last own packet (`EqualShare`).
    upstream: Vec<u8>,
    /// Per node: the requests to share its last echo brought back.
    downstream: Vec<u8>,
    /// Per node: it inserts idles (sends no own packet) until then (set at
    /// all its node's places, `twin`).
    hold_until: Vec<Time>,
    /// Per node (place): the contenders it stands for (`with_nodes`): 1, or 2
    /// where it is a node's one place on a folded ring that passes the
    /// others twice (`EqualShare`).
    weight: Vec<u8>,
    /// Per node (place): its node's other place on the ring, or `NO_TWIN`.
    twin: Vec<u16>,
    /// The contenders each node stands for, all its places together.
    node_weight: u8,
    /// Per node (place): it sent its node's last packet while its twin
    /// waited to send, so its node's next turn is its twin's.
    yields: Vec<bool>,
    /// Own packets held for the idles (decisions that found the node holding).
    holds: u64,
}

impl Arbitration {
    /// The arbitration of ring `view`; `per_request`: the idles a source
    /// inserts per request to share under [`SharingLaw::PerRequest`].
    pub fn new(view: &RingletView, sharing: bool, law: SharingLaw, queue_reservation: bool, per_request: Time, cycle: Time, separator: u32) -> Self {
        let nodes = view.len();
        Arbitration {
            view: view.clone(),
            cycle,
            separator: separator as Time,
            queues: QueueAllocation::new(nodes, queue_reservation),
            owed: vec![0; nodes],
            sharing,
            law,
            per_request,
            wants: vec![false; nodes],
            backlogged: vec![false; nodes],
            upstream: vec![0; nodes],
            downstream: vec![0; nodes],
            hold_until: vec![0; nodes],
            weight: vec![1; nodes],
            twin: vec![NO_TWIN; nodes],
            node_weight: 1,
            yields: vec![false; nodes],
            holds: 0,
        }
    }

    /// The arbitration of a ring whose places (positions) belong to
    /// `nodes` (each place's node; a folded ring passes most nodes twice
    /// and the two next to the failure once): seed 002's "approximately
    /// equal portion of the ring bandwidth for each node", not for each
    /// place. Every node stands for as many contenders as the most places
    /// a node has: a place asks to share for the whole node where the node
    /// asks there alone, for its part where it asks at both
    /// (`asking_for`), and says its source waits for its part; and a node's places hold together,
    /// the node taking its contenders' share of what the contenders on an
    /// own packet's path count, whichever place it sends from; but while
    /// one of its places waits with a retry a receive buffer owes a place,
    /// the node serves its two places in turn (`yields`).
    pub fn with_nodes(mut self, nodes: &[u16]) -> Self {
        assert_eq!(nodes.len(), self.weight.len(), "a node per place");
        let places = |n: u16| nodes.iter().filter(|&&m| m == n).count();
        let most = nodes.iter().map(|&n| places(n)).max().unwrap_or(1);
        self.weight = nodes.iter().map(|&n| (most / places(n)) as u8).collect();
        assert!(most <= 2, "a ring passes a node at most twice (a folded ring)");
        self.twin = (0..nodes.len()).map(|p| (0..nodes.len()).find(|&q| q != p && nodes[q] == nodes[p]).map_or(NO_TWIN, |q| q as u16)).collect();
        self.node_weight = most as u8;
        self
    }

    /// The node at `at` inserts idles until `until`, at all its node's places.
    #[inline(always)]
    fn hold(&mut self, at: usize, until: Time) {
        self.hold_until[at] = until;
        let twin = self.twin[at];
        if twin != NO_TWIN {
            self.hold_until[twin as usize] = until;
        }
    }

    /// The nodes the node at `at` counts as contending for the ring with
    /// it, itself included (`EqualShare`).
    pub fn contenders(&self, at: usize) -> u32 {
        self.upstream[at] as u32 + self.weight[at] as u32 + self.downstream[at] as u32
    }

    /// Whether the node at `at` asks to share: its own packet waits, or a
    /// receive buffer holds a reserved place for one of its packets.
    ///
    /// A node owed a place wants the ring until that packet is in, though
    /// between its retries it has nothing waiting: the packet is on the
    /// ring, to come back busied while the receive buffer serves the other
    /// phase. Counted only while waiting, nodes whose retries go round are
    /// missed by every source, so each source leaves idles for too few
    /// contenders, the others' retries fill the link into the target, and
    /// the node just upstream of it, owed the served phase's place, never
    /// finds its bypass buffer empty: the place waits for it, every other
    /// packet is refused, and the channel livelocks.
    #[inline(always)]
    fn asks(&self, at: usize) -> bool {
        self.wants[at] || (self.sharing && self.owed[at] > 0)
    }

    /// The contenders the place at `at` asks to share for: its node's
    /// (`node_weight`), split among the node's places that ask. A node of
    /// a folded ring that asks at one of its two places asks there for the
    /// whole node: a packet may pass that place only. (Asking for its part
    /// there, it was half a contender to every packet passing it, the
    /// others left it half the idles it needed, and six masters folded
    /// around their one slave's 1-packet receive buffer livelocked: the
    /// node owed the served phase's place just upstream of the slave never
    /// found its bypass buffer empty.)
    #[inline(always)]
    fn asking_for(&self, at: usize) -> u8 {
        if !self.asks(at) {
            0
        } else if self.twin[at] != NO_TWIN && !self.asks(self.twin[at] as usize) {
            self.node_weight
        } else {
            self.weight[at]
        }
    }

    /// Whether the place at `at` waits to send while a receive buffer
    /// holds a place reserved for one of its packets.
    #[inline(always)]
    fn retries(&self, at: usize) -> bool {
        self.wants[at] && self.owed[at] > 0
    }

    /// Follows the places reserved for each node's packets: one more for
    /// a DOTRY packet answered BUSY_A / BUSY_B, one fewer for a RETRY
    /// packet accepted (`admission` is the receive buffer's answer to `pk`).
    #[inline]
    fn follow_reservations(&mut self, pk: &Packet, admission: Admission) {
        let from = self.view.pos(pk.from);
        match (pk.phase, admission) {
            (Phase::DoTry, Admission::Busy(Phase::Retry(_)) | Admission::Reserved(Phase::Retry(_))) => self.owed[from] += 1,
            (Phase::Retry(_), Admission::Accept) => {
                debug_assert!(self.owed[from] > 0, "a RETRY packet accepted with no place reserved for its node");
                self.owed[from] -= 1;
            }
            _ => {}
        }
    }
}

impl RingProtocol for Arbitration {
    const RULES: Rules = Rules {
        priority_queues: false,
        bypass: BypassOrder::Arrival,
        echo: EchoAt::Acceptance,
        server_waits_for_room: true,
        recovery: false,
        traffic_control: true,
        host_preempts: false,
        echo_waiting: false,
        firm_holds: false,
    };

    fn may_send(&mut self, at: usize, now: Time, _id: u32, pk: &Packet, _fx: &mut Effects) -> Permit {
        let until = self.hold_until[at];
        if self.yields[at] && self.retries(self.twin[at] as usize) {
            // Its node's turn is its twin's (woken when the twin sends; and
            // after a packet's slot in case the twin stops waiting unsent).
            self.holds += 1;
            self.wants[at] = self.sharing;
            return Permit::Hold { wake_at: Some(until.max(now) + (pk.len as Time + self.separator) * self.cycle) };
        }
        if now < until {
            self.holds += 1;
            if self.law == SharingLaw::EqualShare {
                // Held by its own idles, it still wants the ring.
                self.wants[at] = self.sharing;
            }
            return Permit::Hold { wake_at: Some(until) };
        }
        Permit::Go
    }

    fn on_sent(&mut self, at: usize, now: Time, _id: u32, pk: &Packet, next_own: Option<u16>, fx: &mut Effects) {
        self.wants[at] = false;
        let twin = self.twin[at];
        if twin != NO_TWIN {
            // A node that waits to send at both its places serves them in
            // turn: sending from whichever place found its bypass buffer
            // empty first, it spent its share where its other place's
            // buffer, filled by the traffic of the first, never emptied.
            let twin = twin as usize;
            self.yields[at] = self.retries(twin);
            if self.yields[twin] {
                self.yields[twin] = false;
                fx.wakes.push((twin as u16, self.hold_until[twin].max(now)));
            }
        }
        self.backlogged[at] = next_own.is_some();
        if self.sharing && self.law == SharingLaw::EqualShare {
            // Its node's part of the ring, node_weight n-ths: the packet, then n / node_weight - 1 packets' worth of idles, at all its places.
            let n = self.contenders(at) as Time;
            let hold = n * (pk.len as Time + self.separator) * self.cycle;
            self.hold(at, now + if self.node_weight > 1 { hold / self.node_weight as Time } else { hold });
            // Counted afresh for the next packet.
            self.upstream[at] = 0;
        }
    }

    fn on_blocked(&mut self, at: usize, _now: Time, _waiting: u16, _fx: &mut Effects) -> bool {
        self.wants[at] = self.sharing;
        // It asks until it sends; nothing else changes that.
        false
    }

    #[inline(always)]
    fn mark_passing(&mut self, at: usize, _now: Time, field: &mut u8) {
        if self.law == SharingLaw::EqualShare {
            // The nodes upstream that contend on this packet's path: those that asked, and its source.
            let ahead = (*field & COUNT) + (*field >> 7);
            self.upstream[at] = self.upstream[at].max(ahead);
        }
        let asking = self.asking_for(at);
        if asking > 0 {
            // One more node asks to share (a count, the patent's hierarchy of request bits in its simplest form).
            *field = (*field & SOURCE_WAITS) | ((*field & COUNT) + REQUEST_TO_SHARE * asking).min(COUNT);
        }
    }

    fn own_field(&mut self, at: usize) -> u8 {
        // (A node owed a reserved place has more to send: that packet, until it is accepted.)
        if self.sharing && self.law == SharingLaw::EqualShare && (self.backlogged[at] || self.owed[at] > 0) {
            // A source that stands for more contenders counts the rest in the field (taken back from its echo).
            SOURCE_WAITS | (self.weight[at] - 1)
        } else {
            0
        }
    }

    fn on_echo_field(&mut self, at: usize, now: Time, field: u8, _fx: &mut Effects) {
        let requests = field & COUNT;
        match self.law {
            SharingLaw::EqualShare => self.downstream[at] = requests - if field & SOURCE_WAITS != 0 { (self.weight[at] - 1).min(requests) } else { 0 },
            SharingLaw::PerRequest => {
                // Idles scaled by the number of requests: a packet slot for each node that waits.
                self.hold(at, self.hold_until[at].max(now) + self.per_request * requests as Time);
            }
        }
    }

    fn admit(&mut self, at: usize, _now: Time, class: usize, _id: u32, pk: &Packet, q: QueueView) -> Admission {
        let admission = self.queues.admit(at, class, pk.phase, q.free());
        self.follow_reservations(pk, admission);
        admission
    }

    fn counters(&self) -> ProtoCounters {
        ProtoCounters { reservations: self.queues.reservations, flow_holds: self.holds, ..ProtoCounters::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ringlet_fabric::packet::PacketKind;
    use ringlet_sci::ring::view_of;

    const CYCLE: Time = 20_000;

    /// A 32-word message of 81 symbols (one idle after it: 82 symbol times).
    fn packet() -> Packet {
        Packet::new(PacketKind::Request, 2, 0, 1, 0, 81, 0)
    }

    fn ring(law: SharingLaw) -> Arbitration {
        Arbitration::new(&view_of(4, CYCLE), true, law, true, 100 * CYCLE, CYCLE, 1)
    }

    /// A source counts three requests from its last echo, two contenders
    /// upstream (a passing packet's source that waits and one node that
    /// asked) and itself: six, so after its own packet it holds for five
    /// more packets' worth of idles; the count upstream starts afresh.
    #[test]
    fn equal_share_holds_a_source_for_its_contenders() {
        let mut a = ring(SharingLaw::EqualShare);
        let mut fx = Effects::default();
        a.on_echo_field(0, 0, 3, &mut fx);
        let mut passing = SOURCE_WAITS | 1;
        a.mark_passing(0, 0, &mut passing);
        assert_eq!(passing, SOURCE_WAITS | 1, "a node that does not wait leaves the field");
        let mut smaller = 1;
        a.mark_passing(0, 0, &mut smaller);
        assert_eq!(a.contenders(0), 6);
        a.on_sent(0, 1000, 0, &packet(), Some(0), &mut fx);
        assert_eq!(a.contenders(0), 4, "upstream counted afresh after an own packet");
        let until = 1000 + 6 * 82 * CYCLE;
        assert_eq!(a.may_send(0, until - 1, 0, &packet(), &mut fx), Permit::Hold { wake_at: Some(until) });
        assert_eq!(a.may_send(0, until, 0, &packet(), &mut fx), Permit::Go);
        assert_eq!(a.counters().flow_holds, 1);
        // Held by its idles it asks to share: passing packets count it.
        let mut field = SOURCE_WAITS | 2;
        a.may_send(0, 1000, 0, &packet(), &mut fx);
        a.mark_passing(0, 1000, &mut field);
        assert_eq!(field, SOURCE_WAITS | 3);
        let mut full = COUNT;
        a.mark_passing(0, 1000, &mut full);
        assert_eq!(full, COUNT, "the count saturates");
    }

    /// A source marks its own packets when it has more to send, only under
    /// the equal-share law with the sharing on.
    #[test]
    fn a_source_says_it_waits_when_it_has_more() {
        let mut fx = Effects::default();
        let mut a = ring(SharingLaw::EqualShare);
        a.on_sent(1, 0, 0, &packet(), Some(0), &mut fx);
        assert_eq!(a.own_field(1), SOURCE_WAITS);
        a.on_sent(1, 0, 0, &packet(), None, &mut fx);
        assert_eq!(a.own_field(1), 0);
        let mut b = ring(SharingLaw::PerRequest);
        b.on_sent(1, 0, 0, &packet(), Some(0), &mut fx);
        assert_eq!(b.own_field(1), 0);
        let mut c = Arbitration::new(&view_of(4, CYCLE), false, SharingLaw::EqualShare, true, 0, CYCLE, 1);
        c.on_sent(1, 0, 0, &packet(), Some(0), &mut fx);
        assert_eq!(c.own_field(1), 0);
    }

    /// Per request: each echo's requests add a slot of idles to the hold,
    /// from the later of now and the hold already due.
    #[test]
    fn per_request_holds_a_slot_per_request() {
        let mut fx = Effects::default();
        let mut a = ring(SharingLaw::PerRequest);
        a.on_echo_field(2, 500, SOURCE_WAITS | 2, &mut fx);
        a.on_echo_field(2, 600, 1, &mut fx);
        let until = 500 + 300 * CYCLE;
        assert_eq!(a.may_send(2, until - 1, 0, &packet(), &mut fx), Permit::Hold { wake_at: Some(until) });
        assert_eq!(a.may_send(2, until, 0, &packet(), &mut fx), Permit::Go);
        a.on_sent(2, until, 0, &packet(), Some(0), &mut fx);
        assert_eq!(a.may_send(2, until + 1, 0, &packet(), &mut fx), Permit::Go, "no hold of its own after a packet");
    }

    /// On a folded ring's places of nodes [0, 1, 2, 1], node 1 waits to
    /// send a retry at place 1, where node 2's receive buffer owes it a
    /// place; it sends from place 3 first, so its next turn is place 1's:
    /// place 3 holds past its idles until place 1 has sent, which wakes it.
    #[test]
    fn a_node_owed_a_place_serves_its_two_places_in_turn() {
        let mut a = Arbitration::new(&view_of(4, CYCLE), true, SharingLaw::EqualShare, true, 0, CYCLE, 1).with_nodes(&[0, 1, 2, 1]);
        let mut fx = Effects::default();
        let mut pk = packet().on(1, 2);
        let full = QueueView::new(1, 1);
        a.admit(2, 0, 0, 0, &pk, full);
        pk.phase = Phase::DoTry;
        assert_eq!(a.admit(2, 0, 0, 0, &pk, full), Admission::Busy(Phase::Retry(0)));
        a.on_blocked(1, 0, 0, &mut fx);
        a.on_sent(3, 0, 0, &packet(), Some(0), &mut fx);
        let idles = a.hold_until[3];
        assert_eq!(a.hold_until[1], idles, "its places hold together");
        let slot = 82 * CYCLE;
        assert_eq!(a.may_send(3, idles, 0, &packet(), &mut fx), Permit::Hold { wake_at: Some(idles + slot) }, "place 1's turn");
        assert_eq!(a.may_send(1, idles, 0, &packet(), &mut fx), Permit::Go);
        a.on_sent(1, idles, 0, &packet(), Some(0), &mut fx);
        assert_eq!(fx.wakes, vec![(3, idles)], "place 3 woken for its turn");
        assert_eq!(a.may_send(3, a.hold_until[3], 0, &packet(), &mut fx), Permit::Go);
        // Without a place owed, the node sends from whichever place is free.
        let mut b = Arbitration::new(&view_of(4, CYCLE), true, SharingLaw::EqualShare, true, 0, CYCLE, 1).with_nodes(&[0, 1, 2, 1]);
        b.on_blocked(1, 0, 0, &mut fx);
        b.on_sent(3, 0, 0, &packet(), Some(0), &mut fx);
        assert_eq!(b.may_send(3, b.hold_until[3], 0, &packet(), &mut fx), Permit::Go);
    }

    /// A node a receive buffer owes a place asks to share on every packet
    /// it passes and marks its own as contending, with nothing waiting,
    /// until that packet is accepted; a BUSY_D reserves nothing.
    #[test]
    fn a_node_owed_a_reserved_place_contends_until_its_packet_is_in() {
        let mut a = ring(SharingLaw::EqualShare);
        // Node 1's packet to node 3, whose one-slot receive buffer is full.
        let mut pk = packet().on(1, 3);
        let full = QueueView::new(1, 1);
        assert_eq!(a.admit(3, 0, 0, 0, &pk, full), Admission::Busy(Phase::DoTry));
        pk.phase = Phase::DoTry;
        let mut field = 0;
        a.mark_passing(1, 0, &mut field);
        assert_eq!((field, a.own_field(1)), (0, 0), "BUSY_D: nothing owed");
        assert_eq!(a.admit(3, 0, 0, 0, &pk, full), Admission::Busy(Phase::Retry(0)));
        pk.phase = Phase::Retry(0);
        a.mark_passing(1, 0, &mut field);
        assert_eq!((field, a.own_field(1)), (REQUEST_TO_SHARE, SOURCE_WAITS), "owed a place: asks, and its packets say it contends");
        // Refused again (the buffer still full): still owed.
        assert_eq!(a.admit(3, 0, 0, 0, &pk, full), Admission::Busy(Phase::Retry(0)));
        assert_eq!(a.own_field(1), SOURCE_WAITS);
        assert_eq!(a.admit(3, 0, 0, 0, &pk, QueueView::new(1, 0)), Admission::Accept);
        let mut after = 0;
        a.mark_passing(1, 0, &mut after);
        assert_eq!((after, a.own_field(1)), (0, 0), "accepted: nothing owed");
        // Without the sharing, nobody asks.
        let mut off = Arbitration::new(&view_of(4, CYCLE), false, SharingLaw::EqualShare, true, 0, CYCLE, 1);
        pk.phase = Phase::DoTry;
        assert_eq!(off.admit(3, 0, 0, 0, &pk, full), Admission::Busy(Phase::Retry(0)));
        let mut quiet = 0;
        off.mark_passing(1, 0, &mut quiet);
        assert_eq!(quiet, 0);
    }
}
