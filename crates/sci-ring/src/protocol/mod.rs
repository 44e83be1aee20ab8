//! Ring protocols behind one interface.
//!
//! The ring (`crate::ring`) owns the shared mechanism every protocol keeps:
//! symbols, the bypass FIFO and the register-insertion rule, echoes, input
//! queues and their service, priority queues. A protocol decides what the
//! seed's protocols differ in: which own packet a node may start now, whether
//! an input queue admits an arriving send packet, what a congested node tells
//! the others, and what its own control symbols do on their way round.
//!
//! Adding a protocol is one new file here, implementing [`RingProtocol`]
//! (what it decides) and [`Registered`] (its name, its `[section]` of
//! scenario keys, how it is built), plus one line in the registry below.

use crate::node::Node;
use crate::packet::{Packet, Phase, Slab};
use crate::params::Params;
use crate::ring::Ring;
use crate::{Mode, Outcome};
use ringlet_engine::Time;
use ringlet_scenario::schema::{Param, ProtocolSchema};
use ringlet_scenario::Scenario;

/// Declares each protocol module and lists its type in [`REGISTRY`].
macro_rules! registry {
    ($($module:ident :: $protocol:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// Every protocol this build runs, in the order the scenario
        /// reference lists them.
        pub const REGISTRY: &[Registration] = &[$(Registration::of::<$module::$protocol>()),*];
    };
}

registry! {
    sci::BaseSci,
    ppq::Ppq,
    train::Train,
    dfc::Dfc,
}

/// What a protocol tells the registry about itself.
pub trait Registered: RingProtocol + Sized {
    /// Its value of `network.protocol`, and the name of its own section.
    const NAME: &'static str;
    /// One line on what it is, for the scenario reference.
    const DOC: &'static str;
    /// The keys of its section `[NAME]` (none: no section).
    const PARAMS: &'static [Param] = &[];

    /// Checks across its section's keys and the core ones, when a scenario
    /// is loaded, whichever protocol it runs (as key ranges are checked).
    fn validate(_s: &Scenario) -> Result<(), String> {
        Ok(())
    }

    /// Checks that need the model's parameters, before a run of this
    /// protocol (a sweep checks every point before running any).
    fn check(_p: &Params, _s: &Scenario) -> Result<(), String> {
        Ok(())
    }

    /// The protocol for a run of `s`.
    fn build(p: &Params, s: &Scenario) -> Result<Self, String>;
}

/// A registered protocol: its part of the scenario contract, and how to
/// check and run a scenario with it.
pub struct Registration {
    pub schema: ProtocolSchema,
    pub check: fn(&Params, &Scenario) -> Result<(), String>,
    pub run: fn(&Scenario, Params, Mode<'_>) -> Result<Outcome, String>,
}

impl Registration {
    pub const fn of<P: Registered>() -> Registration {
        Registration {
            schema: ProtocolSchema { name: P::NAME, doc: P::DOC, params: P::PARAMS, validate: P::validate },
            check: P::check,
            run: run_as::<P>,
        }
    }
}

/// The ring is generic over its protocol: one monomorphised run per protocol.
fn run_as<P: Registered>(s: &Scenario, p: Params, mode: Mode<'_>) -> Result<Outcome, String> {
    let protocol = P::build(&p, s)?;
    Ok(crate::drive(Ring::new(s, p, protocol), mode))
}

/// Answer to "may this node start this own packet now?".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Permit {
    Go,
    /// Not this packet, but the node may try its next one (DFC: a packet
    /// that does not pass a congested node may go).
    Skip,
    /// The node sends nothing now; it decides again at `wake_at` if given,
    /// otherwise when the protocol wakes it (`Effects::wakes`).
    Hold { wake_at: Option<Time> },
}

/// Answer of an input queue to an arriving send packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    Accept,
    /// Busy echo; the source retries in the given phase.
    Busy(Phase),
    /// PPQ: evict the lowest-priority waiting packet (it is busied) and accept.
    Preempt,
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
pub struct QueueView {
    pub capacity: u32,
    /// Slots taken (arriving, waiting and in service).
    pub occupied: u32,
    /// Scheduling priority of the lowest-priority packet that waits (and
    /// could be evicted), if any.
    pub lowest_waiting: Option<u16>,
}

impl QueueView {
    #[inline]
    pub fn free(&self) -> u32 {
        self.capacity - self.occupied
    }
}

/// What a protocol asks the ring to do after one of its calls.
#[derive(Default)]
pub struct Effects {
    /// (node, time): the node takes an output decision then.
    pub wakes: Vec<(u16, Time)>,
    /// (node, length in symbols, tag, time): the node puts a control packet
    /// on the ring then (now if in the past); it visits every node
    /// downstream until the protocol strips it.
    pub controls: Vec<(u16, u16, u32, Time)>,
    /// (node, packet, priority): if the packet waits in that node's bypass
    /// or input queue, raise its scheduling priority (PPQ inheritance).
    pub raises: Vec<(u16, u32, u16)>,
}

impl Effects {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.wakes.is_empty() && self.controls.is_empty() && self.raises.is_empty()
    }
}

/// What a protocol's control packets carry, indexed by the tag the packet
/// holds (`Packet::ctl`); slots are reused once a packet is removed.
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
    pub reservations: u64,
    pub preemptions: u64,
    pub control_symbols: u64,
    pub tickets_deleted: u64,
    /// Times a node held a packet because of another node's state (DFC
    /// STOP-THRU / STOP-TO holds, TRAIN waits for the LocalMotive).
    pub flow_holds: u64,
    pub inheritances: u64,
}

/// What a ring protocol decides.
pub trait RingProtocol {
    /// Output and input queues are priority queues (highest first, oldest
    /// first within a priority); otherwise FIFO whatever the priority.
    const PRIORITY_QUEUES: bool;
    /// PPQ: the bypass queue is prioritized and its lower-priority send
    /// packets can be preempted into busy echoes.
    const PRIORITY_BYPASS: bool = false;
    /// PPQ: the accepting echo is sent when the packet is serviced, not when
    /// it enters the input queue (it can still be preempted until then).
    const ECHO_ON_SERVICE: bool = false;
    /// The responder holds a serviced request while its response output
    /// queue is full (base SCI). PPQ's host queue is a preemptive priority
    /// queue instead: a response joins it in priority order and never holds
    /// the responder, so a low-priority response cannot block the service of
    /// high-priority requests.
    const RESPONDER_STALLS: bool = true;

    /// The run starts (TRAIN puts its LocalMotive on the ring here).
    fn on_start(&mut self, _fx: &mut Effects) {}

    /// Whether `node` may start own packet `id` now. Called in the order the
    /// node would send, only when the output link is free and the bypass
    /// FIFO lets an own packet in.
    fn may_send(&mut self, node: usize, now: Time, id: u32, pk: &Packet) -> Permit;

    /// A number that changes whenever anything `may_send` reads about
    /// `node` (besides the packet offered) may have changed, or `None` if the
    /// protocol makes no such promise. While it and the node's own packets
    /// stay the same, a node whose packets were all skipped is not asked
    /// again: at saturation a held DFC node would otherwise re-offer every
    /// own packet on each decision.
    fn permit_epoch(&self, _node: usize) -> Option<u64> {
        None
    }

    /// The ring repeated `skips` answers of `Skip` for `node` without asking
    /// (see [`RingProtocol::permit_epoch`]), for the protocol's counters.
    fn skipped_again(&mut self, _node: usize, _skips: u64) {}

    /// When the node's first own packet is skipped: the only packets worth
    /// offering next, in order (TRAIN: its granted ones), or `None` for all.
    fn only_candidates(&self, _node: usize) -> Option<&[u32]> {
        None
    }

    /// `node` has started own packet `id`; `next_own` is the priority of its
    /// next own packet, if it has one.
    fn on_sent(&mut self, node: usize, now: Time, id: u32, pk: &Packet, next_own: Option<u16>, fx: &mut Effects);

    /// `node` forwards bypass traffic while its own packet of priority
    /// `waiting` is held back by the register-insertion rule. Returns whether
    /// to call again on the next such forward; `false` promises that further
    /// calls would change nothing until the node's own packets change (it
    /// sends one, or one joins or leaves its queues). At saturation a node
    /// forwards several packets per own packet it sends.
    fn on_blocked(&mut self, node: usize, now: Time, waiting: u16, fx: &mut Effects) -> bool;

    /// Whether input queue `side` of `node` admits send packet `id`.
    fn admit(&mut self, node: usize, side: usize, id: u32, pk: &Packet, q: QueueView) -> Admission;

    /// Input queue `side` of `node` changed its occupancy (a packet
    /// accepted, or one removed for service).
    fn on_input_change(&mut self, _node: usize, _side: usize, _q: QueueView, _now: Time, _fx: &mut Effects) {}

    /// Control packet `pk` (tag `pk.ctl`) reaches `node`. Return `true` to
    /// pass it on downstream (the protocol may change its length), `false`
    /// when it ends here.
    fn on_control(&mut self, _node: usize, _now: Time, _pk: &mut Packet, _n: &Node, _slab: &Slab, _fx: &mut Effects) -> bool {
        false
    }

    /// PPQ: the priority a send packet has in a bypass queue after waiting
    /// there for `waited` (aging raises it).
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

    /// `node`'s request output queue is full while an application
    /// transaction of priority `waiting` has no room (PPQ inheritance).
    fn on_output_full(&mut self, _node: usize, _now: Time, _waiting: u16, _n: &Node, _slab: &mut Slab, _fx: &mut Effects) {}

    fn counters(&self) -> ProtoCounters;
}
