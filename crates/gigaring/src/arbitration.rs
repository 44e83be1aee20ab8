//! The arbitration each GigaRing ring runs on its own (seed 002 section 3):
//!
//! - **bandwidth allocation**, as adaptive bandwidth sharing (US patent
//!   6,205,119): a node whose own packet is held back by passing traffic
//!   asks to share in the traffic-control field of the send packets it
//!   passes on (the field counts the nodes that ask); their targets copy
//!   the field into the echoes; a source whose echo comes back with
//!   requests inserts idle symbols (holds its next own packet) for one
//!   maximum packet slot per request. Only nodes whose traffic passes a
//!   waiting node are slowed: a lone sender, or senders whose packets pass
//!   no one (a two-node channel), keep the whole ring;
//! - **queue reservation**: a busied packet gets a reserved place in the
//!   receive buffer after a second busy (IEEE 1596's A/B queue allocation,
//!   `ringlet_sci`), so no packet is busied forever.
//!
//! The patent does not give its control law's constants; the idles per
//! request are a parameter (`docs/assumptions.md`).

use ringlet_engine::Time;
use ringlet_fabric::packet::Packet;
use ringlet_fabric::protocol::{Admission, BypassOrder, EchoAt, Effects, Permit, ProtoCounters, QueueView, RingProtocol, Rules};
use ringlet_sci::protocol::queue_allocation::QueueAllocation;

/// The request-to-share bit of the traffic-control field.
pub const REQUEST_TO_SHARE: u8 = 1;

/// One ring's arbitration.
pub struct Arbitration {
    queues: QueueAllocation,
    sharing: bool,
    /// Idle time a source inserts per request to share it hears.
    per_request: Time,
    /// Per node: its own packet waits behind passing traffic (it asks to share).
    wants: Vec<bool>,
    /// Per node: it inserts idles (sends no own packet) until then.
    hold_until: Vec<Time>,
    /// Requests set in passing packets; requests heard back by sources; own packets held for them.
    requests_set: u64,
    requests_heard: u64,
    holds: u64,
}

impl Arbitration {
    /// The arbitration of a ring of `nodes`; `per_request`: the idles a
    /// source inserts per request to share.
    pub fn new(nodes: usize, sharing: bool, queue_reservation: bool, per_request: Time) -> Self {
        Arbitration {
            queues: QueueAllocation::new(nodes, queue_reservation),
            sharing,
            per_request,
            wants: vec![false; nodes],
            hold_until: vec![0; nodes],
            requests_set: 0,
            requests_heard: 0,
            holds: 0,
        }
    }

    /// Whether the node at `at` asks to share (for tests).
    pub fn wants(&self, at: usize) -> bool {
        self.wants[at]
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
    };

    fn may_send(&mut self, at: usize, now: Time, _id: u32, _pk: &Packet, _fx: &mut Effects) -> Permit {
        if now < self.hold_until[at] {
            self.holds += 1;
            return Permit::Hold { wake_at: Some(self.hold_until[at]) };
        }
        Permit::Go
    }

    fn on_sent(&mut self, at: usize, _now: Time, _id: u32, _pk: &Packet, _next: Option<u16>, _fx: &mut Effects) {
        self.wants[at] = false;
    }

    fn on_blocked(&mut self, at: usize, _now: Time, _waiting: u16, _fx: &mut Effects) -> bool {
        self.wants[at] = self.sharing;
        // It asks until it sends; nothing else changes that.
        false
    }

    #[inline(always)]
    fn mark_passing(&mut self, at: usize, _now: Time, field: &mut u8) {
        if self.wants[at] {
            // One more node asks to share (a count, the patent's hierarchy of request bits in its simplest form).
            *field = field.saturating_add(REQUEST_TO_SHARE);
            self.requests_set += 1;
        }
    }

    fn on_echo_field(&mut self, at: usize, now: Time, field: u8, _fx: &mut Effects) {
        if field != 0 {
            // Idles scaled by the number of requests: a packet slot for each node that waits.
            self.requests_heard += field as u64;
            self.hold_until[at] = self.hold_until[at].max(now) + self.per_request * field as Time;
        }
    }

    fn admit(&mut self, at: usize, _now: Time, class: usize, _id: u32, pk: &Packet, q: QueueView) -> Admission {
        self.queues.admit(at, class, pk.phase, q.free())
    }

    fn counters(&self) -> ProtoCounters {
        ProtoCounters { reservations: self.queues.reservations, flow_holds: self.holds, control_symbols: 0, inheritances: 0, ..ProtoCounters::default() }
    }
}
