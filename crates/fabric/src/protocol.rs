//! The interface every ring protocol implements.
//!
//! The fabric (`crate::mechanism`) owns the mechanism every SCI-family
//! protocol shares: symbols, the bypass FIFO and the register-insertion
//! rule, echoes, input queues and their service, priority queues. A
//! protocol decides what the seed's protocols differ in: which own packet an
//! interface may start now, whether an input queue admits an arriving send
//! packet, what a congested interface tells the others, and what its own
//! control symbols do on their way round. It also picks, once, which of the
//! mechanism's variants it runs on ([`Rules`]).
//!
//! One protocol instance runs each ringlet: it holds that ringlet's
//! flow-control state (go bits, A/B phases, STOP-THRU tables, the train) and
//! sees the ringlet through its [`RingletView`]: interfaces by *position*
//! (0 to len - 1 in ring order), with distances and travel times. Every call
//! names the interface by its position, and every effect it asks for too.
//!
//! A family registers its protocols (see `ringlet_sci::protocol`): adding
//! one is one new file and one registry line.

use crate::client::InputQueue;
use crate::interface::Iface;
use crate::packet::{Packet, Phase, Slab};
use crate::queue::PriorityFifo;
use ringlet_engine::Time;

pub use crate::topology::RingletView;

/// How a packet in a bypass FIFO is chosen to go next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BypassOrder {
    /// In arrival order (a FIFO, as IEEE 1596 has it).
    Arrival,
    /// Echoes and control symbols first, then send packets by priority
    /// ([`RingProtocol::bypass_priority`]), oldest first; and a held own
    /// packet may turn lower-priority send packets buffered there into busy
    /// echoes to make room for itself (PPQ's preemptive bypass queue).
    Priority,
}

/// When an accepted send packet is echoed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EchoAt {
    /// As it enters the input queue, in its place in the stream (IEEE 1596).
    Acceptance,
    /// When it is serviced: until then it can still be evicted and busied
    /// (PPQ, whose input queues preempt).
    Service,
}

/// The mechanism's variants a protocol runs on, fixed for the protocol (so
/// the fabric, generic over it, compiles to exactly the variant used).
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// Output, input and application queues are priority queues (highest
    /// first, oldest first within a priority); otherwise FIFO whatever the priority.
    pub priority_queues: bool,
    pub bypass: BypassOrder,
    pub echo: EchoAt,
    /// A server whose serviced packet produces one for an output queue (a
    /// response, or the packet itself sent on by a bridge) holds it while
    /// that queue is full (base SCI); otherwise the new packet joins the
    /// queue regardless, in priority order, and never holds the server (a
    /// low-priority response cannot block the service of high-priority requests).
    pub server_waits_for_room: bool,
    /// The protocol follows each interface's transmission recovery: it is
    /// told of every packet the interface passes on
    /// ([`RingProtocol::on_pass`]) and when its bypass FIFO is empty again
    /// after an own packet ([`RingProtocol::on_recovered`]) (IEEE 1596's
    /// bandwidth allocation repays a debt from there).
    pub recovery: bool,
    /// Send packets carry a traffic-control field: nodes they pass may
    /// mark it ([`RingProtocol::mark_passing`]), the target copies it into
    /// the echo, and the source hears it ([`RingProtocol::on_echo_field`])
    /// (GigaRing's adaptive bandwidth sharing).
    pub traffic_control: bool,
    /// The host side is a preemptive priority queue: a request from the
    /// application queue that finds its output queue full takes the slot of
    /// the lowest-priority (youngest) packet there of a lower priority that
    /// has never been sent, which goes back to the head of its priority in
    /// the application queue. Without it a high-priority request waits in
    /// the application queue while lower-priority requests that have not
    /// left the node hold every slot (seed 003: the protocols' queues are
    /// prioritized; PPQ's HIQ preemptive). Only never-sent packets move:
    /// nothing on the ring, and no protocol state, refers to them.
    pub host_preempts: bool,
    /// Sent packets may wait for their echoes in slots beyond the output
    /// queue ([`RingProtocol::echo_wait_slots`], PPQ's EWQ), so that
    /// sending a packet can free its output queue slot.
    pub echo_waiting: bool,
    /// A `Hold` with a wake is firm: asked again before that wake about an
    /// own packet of the same effective priority, the protocol would hold
    /// the interface again, unless it has woken it meanwhile
    /// (`Effects::wakes`). The fabric then neither asks
    /// ([`RingProtocol::held_again`]) nor decides at the link's release
    /// when only such packets wait for it: a held node that forwards
    /// passing traffic, or queues more of the same priority, costs no
    /// decision per packet.
    pub firm_holds: bool,
}

impl Rules {
    /// IEEE 1596's: FIFO queues, a FIFO bypass, echoes on acceptance,
    /// servers that wait for room, bandwidth allocation after recovery.
    pub const IEEE: Rules = Rules { priority_queues: false, bypass: BypassOrder::Arrival, echo: EchoAt::Acceptance, server_waits_for_room: true, recovery: true, traffic_control: false, host_preempts: false, echo_waiting: false, firm_holds: false };
}

/// Answer to "may this interface start this own packet now?".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Permit {
    Go,
    /// Not this packet, but the interface may try its next one (DFC: a
    /// packet that does not pass a congested interface may go).
    Skip,
    /// The interface sends nothing now; it decides again at `wake_at` if given,
    /// otherwise when the protocol wakes it (`Effects::wakes`).
    Hold { wake_at: Option<Time> },
}

/// Answer of an input queue to an arriving send packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    Accept,
    /// Busy echo, the queue being full; the source retries in the given phase.
    Busy(Phase),
    /// Busy echo although a slot is free: it is reserved for packets busied
    /// earlier (queue allocation); the source retries in the given phase.
    Reserved(Phase),
    /// Evict the lowest-priority waiting packet, of a lower priority than
    /// the arriving one (it is busied back to its source), and accept.
    Evict,
}

impl Admission {
    /// The queue without reservations: a packet that finds a free slot is
    /// accepted, any other is busied and retries as a fresh packet.
    #[inline]
    pub fn if_room(free: u32) -> Admission {
        if free > 0 {
            Admission::Accept
        } else {
            Admission::Busy(Phase::Fresh)
        }
    }
}

/// What an input queue looks like to an arriving packet.
#[derive(Clone, Copy, Debug)]
pub struct QueueView<'a> {
    pub capacity: u32,
    /// Slots taken (arriving, waiting and in service).
    pub occupied: u32,
    /// The packets waiting for service (`None`: not shown).
    waiting: Option<&'a PriorityFifo<u32>>,
}

impl<'a> QueueView<'a> {
    /// A queue of `capacity` with `occupied` slots taken, its waiting packets not shown.
    pub fn new(capacity: u32, occupied: u32) -> Self {
        QueueView { capacity, occupied, waiting: None }
    }

    /// What input queue `q` looks like.
    #[inline]
    pub fn of(q: &'a InputQueue) -> Self {
        QueueView { capacity: q.capacity, occupied: q.occupied, waiting: Some(&q.waiting) }
    }

    #[inline]
    pub fn free(&self) -> u32 {
        self.capacity - self.occupied
    }

    /// The scheduling priority of the lowest-priority packet that waits
    /// (and could be evicted), if any (looked for only when asked).
    pub fn lowest_waiting(&self) -> Option<u16> {
        self.waiting.and_then(|w| w.lowest_level())
    }
}

/// What a protocol asks the fabric to do after one of its calls; interfaces
/// are named by their position on the protocol's ringlet.
#[derive(Default)]
pub struct Effects {
    /// (position, time): the interface takes an output decision then.
    pub wakes: Vec<(u16, Time)>,
    /// (position, length in symbols, tag, time): the interface puts a
    /// control packet on the ringlet then (now if in the past); it visits
    /// every interface downstream until the protocol strips it.
    pub controls: Vec<(u16, u16, u32, Time)>,
    /// (position, packet, priority): if the packet waits in that
    /// interface's bypass FIFO or input queue, raise its scheduling priority
    /// to `priority` (PPQ's priority inheritance).
    pub raises: Vec<(u16, u32, u16)>,
}

impl Effects {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.wakes.is_empty() && self.controls.is_empty() && self.raises.is_empty()
    }
}

/// What a protocol's control packets carry, indexed by the tag the packet
/// holds (`Packet::tag`); slots are reused once a packet is removed.
pub struct Payloads<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T: Copy> Payloads<T> {
    pub fn new() -> Self {
        Payloads { items: Vec::new(), free: Vec::new() }
    }

    /// Stores `item`; returns its tag.
    pub fn put(&mut self, item: T) -> u32 {
        match self.free.pop() {
            Some(t) => {
                self.items[t as usize] = item;
                t
            }
            None => {
                self.items.push(item);
                (self.items.len() - 1) as u32
            }
        }
    }

    #[inline]
    pub fn get(&self, tag: u32) -> T {
        self.items[tag as usize]
    }

    #[inline]
    pub fn set(&mut self, tag: u32, item: T) {
        self.items[tag as usize] = item;
    }

    /// The control packet with `tag` has been removed from the ring.
    pub fn release(&mut self, tag: u32) {
        self.free.push(tag);
    }

    /// Items stored and not released.
    pub fn live(&self) -> usize {
        self.items.len() - self.free.len()
    }

    /// The tags of the items stored and not released, in tag order.
    pub fn live_tags(&self) -> Vec<u32> {
        let mut free = vec![false; self.items.len()];
        for &t in &self.free {
            free[t as usize] = true;
        }
        (0..self.items.len() as u32).filter(|&t| !free[t as usize]).collect()
    }
}

impl<T: Copy> Default for Payloads<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Counters a protocol contributes to the report (zero where not applicable).
#[derive(Clone, Copy, Debug, Default)]
pub struct ProtoCounters {
    pub go_bit_holds: u64,
    pub debt_holds: u64,
    pub debts_repaid: u64,
    pub debts_forgiven: u64,
    pub reservations: u64,
    pub preemptions: u64,
    pub control_symbols: u64,
    pub tickets_deleted: u64,
    pub tickets_without_room: u64,
    /// Times a node held a packet because of another node's state (DFC
    /// STOP-THRU / STOP-TO holds, TRAIN waits for the LocalMotive).
    pub flow_holds: u64,
    pub inheritances: u64,
    /// Input-queue slots reserved ahead of a packet's arrival (TRAIN: for
    /// an approved ticket), and released (the packet arrived, or its ticket
    /// was deleted); how long the released ones were held, in total and at
    /// most.
    pub slots_reserved: u64,
    pub slots_released: u64,
    pub slot_held: Time,
    pub slot_held_max: Time,
}

impl ProtoCounters {
    /// A reservation made at `since` is released at `now`.
    pub fn slot_released(&mut self, since: Time, now: Time) {
        self.slots_released += 1;
        self.slot_held += now - since;
        self.slot_held_max = self.slot_held_max.max(now - since);
    }
}

/// The counters of all of a fabric's protocol instances (one per ringlet).
impl std::iter::Sum for ProtoCounters {
    fn sum<I: Iterator<Item = ProtoCounters>>(counters: I) -> ProtoCounters {
        counters.fold(ProtoCounters::default(), |a, c| ProtoCounters {
            go_bit_holds: a.go_bit_holds + c.go_bit_holds,
            debt_holds: a.debt_holds + c.debt_holds,
            debts_repaid: a.debts_repaid + c.debts_repaid,
            debts_forgiven: a.debts_forgiven + c.debts_forgiven,
            reservations: a.reservations + c.reservations,
            preemptions: a.preemptions + c.preemptions,
            control_symbols: a.control_symbols + c.control_symbols,
            tickets_deleted: a.tickets_deleted + c.tickets_deleted,
            tickets_without_room: a.tickets_without_room + c.tickets_without_room,
            flow_holds: a.flow_holds + c.flow_holds,
            inheritances: a.inheritances + c.inheritances,
            slots_reserved: a.slots_reserved + c.slots_reserved,
            slots_released: a.slots_released + c.slots_released,
            slot_held: a.slot_held + c.slot_held,
            slot_held_max: a.slot_held_max.max(c.slot_held_max),
        })
    }
}

/// What a ring protocol decides. `at` is always the position, on the
/// protocol's ringlet, of the interface concerned.
pub trait RingProtocol {
    /// The mechanism's variants this protocol runs on.
    const RULES: Rules;

    /// The run starts (TRAIN puts its LocalMotive on the ring here).
    fn on_start(&mut self, _fx: &mut Effects) {}

    /// Whether the interface at `at` may start own packet `id` now. Called in
    /// the order the interface would send, only when the output link is free
    /// and the bypass FIFO lets an own packet in.
    fn may_send(&mut self, at: usize, now: Time, id: u32, pk: &Packet, fx: &mut Effects) -> Permit;

    /// A number that changes whenever anything `may_send` reads about the
    /// interface at `at` (besides the packet offered) may have changed, or
    /// `None` if the protocol makes no such promise. While it and the
    /// interface's own packets stay the same, an interface whose packets
    /// were all skipped is not asked again: at saturation a held DFC node
    /// would otherwise re-offer every own packet on each decision.
    fn permit_epoch(&self, _at: usize) -> Option<u64> {
        None
    }

    /// The fabric repeated `skips` answers of `Skip` for `at` without
    /// asking (see [`RingProtocol::permit_epoch`]), for the protocol's counters.
    fn skipped_again(&mut self, _at: usize, _skips: u64) {}

    /// With [`Rules::firm_holds`]: the fabric repeated the interface's last
    /// `Hold` without asking, for the protocol's counters.
    fn held_again(&mut self, _at: usize) {}

    /// With [`Rules::host_preempts`]: whether own packet `id` of the
    /// interface at `at`, never sent, may go back to the application queue
    /// (TRAIN: not while a ticket or a grant refers to it).
    fn may_unqueue(&self, _at: usize, _id: u32) -> bool {
        true
    }

    /// A hint: the interface at `at` will soon be asked to admit a packet
    /// or to send one; start fetching what that reads (a protocol of
    /// thousands of small ringlets keeps most of its state out of cache).
    /// Changes nothing.
    #[inline(always)]
    fn prefetch(&self, _at: usize) {}

    /// When the interface's first own packet is skipped: the only packets
    /// worth offering next, in order (TRAIN: its granted ones), or `None` for all.
    fn only_candidates(&self, _at: usize) -> Option<&[u32]> {
        None
    }

    /// The interface at `at` has started own packet `id`; `next_own` is the
    /// priority of its next own packet, if it has one.
    fn on_sent(&mut self, at: usize, now: Time, id: u32, pk: &Packet, next_own: Option<u16>, fx: &mut Effects);

    /// The interface at `at` forwards bypass traffic while its own packet of
    /// priority `waiting` is held back by the register-insertion rule.
    /// Returns whether to call again on the next such forward; `false`
    /// promises that further calls would change nothing until the
    /// interface's own packets change (it sends one, or one joins or leaves
    /// its queues). At saturation an interface forwards several packets per
    /// own packet it sends.
    fn on_blocked(&mut self, at: usize, now: Time, waiting: u16, fx: &mut Effects) -> bool;

    /// With [`Rules::recovery`]: the interface at `at` passes on a packet
    /// of `symbols` (not its own: bypass traffic, or an echo or control
    /// packet it put in the stream). Runs once per hop: keep it small.
    #[inline(always)]
    fn on_pass(&mut self, _at: usize, _now: Time, _symbols: u16) {}

    /// With [`Rules::traffic_control`]: the interface at `at` passes on a
    /// send packet (not its own) whose traffic-control field is `field`;
    /// it may set bits in it. Runs once per hop of a send packet.
    #[inline(always)]
    fn mark_passing(&mut self, _at: usize, _now: Time, _field: &mut u8) {}

    /// With [`Rules::traffic_control`]: the traffic-control field the
    /// interface at `at` starts its own send packet with (sent now, after
    /// [`RingProtocol::on_sent`]; a packet sent again starts afresh too).
    #[inline(always)]
    fn own_field(&mut self, _at: usize) -> u8 {
        0
    }

    /// With [`Rules::traffic_control`]: an echo carrying `field` (the
    /// traffic-control field of the packet it answers, as the target got
    /// it) is back at the interface at `at`.
    fn on_echo_field(&mut self, _at: usize, _now: Time, _field: u8, _fx: &mut Effects) {}

    /// With [`Rules::recovery`]: the bypass FIFO of the interface at `at`
    /// is empty again after its own packet (its transmission recovery ends).
    fn on_recovered(&mut self, _at: usize, _now: Time, _fx: &mut Effects) {}

    /// Whether the input queue of `class` at `at` admits send packet `id`, arriving `now`.
    fn admit(&mut self, at: usize, now: Time, class: usize, id: u32, pk: &Packet, q: QueueView) -> Admission;

    /// The input queue of `class` at `at` changed its occupancy (a packet
    /// accepted, or one removed for service).
    fn on_input_change(&mut self, _at: usize, _class: usize, _q: QueueView, _now: Time, _fx: &mut Effects) {}

    /// Control packet `pk` (tag `pk.tag`, put on by the interface `pk.from`)
    /// reaches the interface at `at`, whose queues are `iface`. Return
    /// `true` to pass it on downstream (the protocol may change its
    /// length), `false` when it ends here.
    fn on_control(&mut self, _at: usize, _now: Time, _pk: &mut Packet, _iface: &Iface, _slab: &Slab, _fx: &mut Effects) -> bool {
        false
    }

    /// How long an interface holds a control packet it passes on, from the
    /// arrival of its head, in its bypass FIFO (in its place in the stream:
    /// what arrives later waits behind it) before forwarding it (TRAIN: a
    /// node handling the train).
    fn control_hold(&self) -> Time {
        0
    }

    /// How long, on average, an own packet waits on an idle ringlet for the
    /// protocol's leave to go (the analytic estimate's; TRAIN: the
    /// LocalMotive coming round). 0: it goes at once.
    fn idle_send_wait(&self) -> Time {
        0
    }

    /// With [`BypassOrder::Priority`]: the priority a send packet has in a
    /// bypass FIFO after waiting there for `waited` (PPQ's aging raises it).
    fn bypass_priority(&self, pk: &Packet, _waited: Time) -> u32 {
        pk.eff as u32
    }

    /// Slots of a separate echo-waiting queue (PPQ's EWQ) per output queue;
    /// 0 = a sent packet keeps its output queue slot until its echo.
    fn echo_wait_slots(&self) -> u32 {
        0
    }

    /// A busied packet waits this long before it may be sent again.
    fn retry_holdoff(&self) -> Time {
        0
    }

    /// The output queue of `class` at `at` (whose queues are `iface`) is
    /// full while an application transaction of priority `waiting` has no
    /// room (PPQ's priority inheritance).
    #[allow(clippy::too_many_arguments)]
    fn on_output_full(&mut self, _at: usize, _now: Time, _class: u8, _waiting: u16, _iface: &Iface, _slab: &mut Slab, _fx: &mut Effects) {}

    fn counters(&self) -> ProtoCounters;

    /// Times the interface at place `at` was held by go bits (IEEE 1596's
    /// bandwidth allocation): the report's per-link `go_bit_holds`.
    fn go_bit_holds_at(&self, _at: usize) -> u64 {
        0
    }
}
