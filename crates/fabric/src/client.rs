//! The client side of an agent (seed 003 Figure 1): its application queue,
//! and at each of its ring interfaces an output queue and an input queue
//! (with the server that empties it) per traffic class.

use crate::queue::PriorityFifo;
use crate::topology::{Leg, NO_LEG};
use ringlet_engine::Time;
use std::collections::VecDeque;

/// A transaction waiting in an agent's application queue.
#[derive(Clone, Copy, Debug)]
pub struct AppEntry {
    pub born: Time,
    pub dst: u16,
    pub priority: u16,
    /// Its kind: which of the fabric's `Params::shapes` it is.
    pub kind: u8,
    /// The traffic source (stream) it came from; `NO_STREAM` if injected by hand.
    pub stream: u32,
    /// Request packets put into output queues so far (a block write's go one by one).
    pub sent: u16,
    /// Its slot in the fabric's transaction table once it has one (`NO_TAG` before).
    pub tag: u32,
}

/// No stream: a transaction injected by hand.
pub const NO_STREAM: u32 = u32::MAX;

impl AppEntry {
    /// A new transaction of `kind` from `stream`.
    pub fn new(born: Time, dst: u16, priority: u16, kind: u8, stream: u32) -> AppEntry {
        AppEntry { born, dst, priority, kind, stream, sent: 0, tag: crate::packet::NO_TAG }
    }
}

/// A transaction in flight that has a slot in the fabric's transaction
/// table: every transaction where `Params::tracks_transactions`, else only
/// those answered by several responses. Its packets carry the slot (`Packet::tag`).
#[derive(Clone, Copy, Debug)]
pub struct Txn {
    /// When it was generated (its latency's start).
    pub born: Time,
    /// Its requester and target.
    pub src: u16,
    pub dst: u16,
    pub kind: u8,
    pub stream: u32,
    /// Its request packets not yet serviced at the target.
    pub requests_left: u16,
    /// Its response packets not yet serviced back at the requester.
    pub responses_left: u16,
    /// Where its handshake is (`stage`; `TRANSFER` without one).
    pub stage: u8,
    /// It holds one of its responder's DMA slots (`ClientRules::dma_queue`).
    pub dma_held: bool,
    pub priority: u16,
    /// A response time-out is scheduled for it (`ClientRules::response_timeout`).
    pub timing_out: bool,
}

/// A transaction's stages under a handshake (`params::Handshake`).
pub mod stage {
    /// Its requests and responses under way (or no handshake).
    pub const TRANSFER: u8 = 0;
    /// Its set-up sent, the ready not yet back: its requests wait.
    pub const SETUP: u8 = 1;
    /// Its status is in at the requester.
    pub const STATUS_IN: u8 = 2;
}

/// What limits one stream (a traffic source) of an agent: its window of
/// outstanding request packets, its hold-off below the window's floor, and
/// its transfers in flight (see `params::WindowPolicy`,
/// `ClientRules::transactions_per_stream`).
#[derive(Clone, Copy, Debug, Default)]
pub struct StreamState {
    /// Request packets in send buffers and not yet accepted (not those held back in the stream).
    pub outstanding: u16,
    /// Request packets it may have outstanding now.
    pub window: u16,
    /// Accepting echoes since the window last changed.
    pub accepted_run: u16,
    /// Transfers (transactions with responses) issued and not complete.
    pub in_flight: u16,
    /// Times the window closed on a busy echo, for the report.
    pub decreases: u64,
    /// Halvings of the window below its floor: after a busy echo there the
    /// stream sends nothing (but blocks whose ready is back) for 2^pace - 1
    /// of the busied packet's round trips.
    pub pace: u8,
    /// It sends no request before then.
    pub resume_at: Time,
}

/// One stream of an agent (a traffic source, or the agent's hand-injected
/// transactions) where streams are kept: its own application queue and limits.
#[derive(Debug, Default)]
pub struct Stream {
    pub queue: VecDeque<AppEntry>,
    /// Under a handshake: transactions whose ready is back, their requests still to put out (they go first).
    pub ready: VecDeque<AppEntry>,
    /// Busied request packets out of the send buffers, waiting for room in the window to go again, oldest first.
    pub held: VecDeque<u32>,
    pub state: StreamState,
}

/// Responses an agent's DMA engine still has to put into output queues
/// (`params::Responder::Dma`), first come first: a transaction's
/// responses (and status, `params::Handshake`), or the ready answering its set-up.
#[derive(Clone, Copy, Debug)]
pub struct DmaJob {
    /// The ready answering a set-up (else the responses).
    pub ready: bool,
    /// The requester they go to.
    pub dst: u16,
    pub priority: u16,
    pub kind: u8,
    /// The transaction's slot.
    pub tag: u32,
    /// Response packets put out so far.
    pub sent: u16,
}

/// An agent's application: the transactions it has generated and not yet
/// put into an output queue.
#[derive(Debug)]
pub struct Application {
    pub queue: PriorityFifo<AppEntry>,
    /// Transactions the queue holds; `None`: unbounded (see `topology::Agent::app_capacity`).
    pub capacity: Option<u32>,
    /// The agent's interface, if it has only one (`NO_IFACE` otherwise):
    /// where all it sends goes, without asking the routes.
    pub iface: u16,
    /// Where streams are kept: transactions waiting in its streams' queues
    /// (with request packets still to put out), and the stream that takes
    /// the first turn next.
    pub waiting: u32,
    pub turn: u32,
    /// Transactions with responses issued and not complete, counted only
    /// under `ClientRules::transactions_per_agent` (its response waiting queue).
    pub in_flight: u32,
    /// Transactions whose response time-out ran out while the request
    /// output queue was full: their copies go first when it has room
    /// (`ClientRules::response_timeout`).
    pub timed_out: std::collections::VecDeque<u32>,
}

impl Application {
    /// Whether a new transaction finds room.
    #[inline]
    pub fn has_room(&self) -> bool {
        self.capacity.is_none_or(|c| self.queue.len() + (self.waiting as usize) < c as usize)
    }
}

/// One traffic class's output queue at one interface. Its capacity counts
/// packets waiting to be sent *and* sent packets kept until their echo
/// returns (beyond `capacity` a protocol may give a separate echo-waiting
/// queue, PPQ's EWQ).
#[derive(Debug)]
pub struct OutputQueue {
    pub to_send: PriorityFifo<u32>,
    /// Sent packets whose echo has not returned (or busied ones held off before their retry).
    pub awaiting: Vec<u32>,
    pub capacity: u32,
    /// Slots of a separate echo-waiting queue beyond `capacity`; 0 = sent
    /// packets keep their output queue slot (base SCI).
    pub ewq: u32,
    /// Servers (interface, class) holding a serviced packet until this
    /// queue has room for the packets it produces (how many).
    pub waiters: Vec<(u16, u8, u16)>,
    /// Slots held for packets on their way in (across the agent's bus, or
    /// down its send path).
    pub incoming: u32,
}

impl OutputQueue {
    pub fn new(capacity: u32, ewq: u32, levels: usize) -> Self {
        OutputQueue {
            to_send: PriorityFifo::new(levels),
            // (A queue as large as the scenario allows would take memory for
            // packets that may never be: it grows as they come, and keeps it.)
            awaiting: Vec::with_capacity(((capacity + ewq) as usize).min(64)),
            capacity,
            ewq,
            waiters: Vec::new(),
            incoming: 0,
        }
    }

    #[inline]
    pub fn has_room(&self) -> bool {
        self.has_room_for(1)
    }

    /// Whether `n` more packets fit.
    #[inline]
    pub fn has_room_for(&self, n: usize) -> bool {
        let waiting = self.to_send.len() + self.incoming as usize + n;
        waiting <= self.capacity as usize && waiting + self.awaiting.len() <= (self.capacity + self.ewq) as usize
    }

    /// Packets it holds: to send, and sent ones awaiting their echo.
    #[inline]
    pub fn held(&self) -> usize {
        self.to_send.len() + self.awaiting.len()
    }

    /// The echo for `id` came back: it no longer waits.
    #[inline]
    pub fn echoed(&mut self, id: u32) {
        if let Some(k) = self.awaiting.iter().position(|&x| x == id) {
            self.awaiting.swap_remove(k);
        }
    }
}

/// One traffic class's input queue at one interface, and the server that empties it.
#[derive(Debug)]
pub struct InputQueue {
    pub capacity: u32,
    /// Slots taken: accepted packets still arriving, waiting, or in service.
    pub occupied: u32,
    /// Fully received packets waiting for service, in service order.
    pub waiting: PriorityFifo<u32>,
    /// The accepted packet still coming in, and when its tail is in; it joins
    /// `waiting` when the queue is next looked at after that.
    pub arriving: Option<(u32, Time)>,
    /// The packet in service (its service time running, or done but held
    /// for room in an output queue).
    pub in_service: Option<u32>,
    /// Service finished, but what it produced (a response, or the packet
    /// itself to be sent on) waits for room in an output queue.
    pub stalled: bool,
    /// Where the server is a pipeline: the earliest the next service may
    /// start (the last one's start plus the spacing).
    pub next_begin: Time,
    /// Where the interface's agent passes packets on across its bus: the
    /// next leg of the way of the packet in service, if it is for another
    /// agent (`crossing::decode`).
    pub leg: Leg,
    /// The server's service time, and where it is a pipeline the least time
    /// between two services' starts (`Iface::service_time`, `Iface::spacing`).
    pub service_time: Time,
    pub spacing: Time,
}

impl InputQueue {
    pub fn new(capacity: u32, levels: usize, service_time: Time, spacing: Time) -> Self {
        InputQueue { capacity, occupied: 0, waiting: PriorityFifo::new(levels), arriving: None, in_service: None, stalled: false, next_begin: 0, leg: NO_LEG, service_time, spacing }
    }
}
