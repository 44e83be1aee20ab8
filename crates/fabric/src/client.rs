//! The client side of an agent (seed 003 Figure 1): its application queue,
//! and at each of its ring interfaces an output queue and an input queue
//! (with the server that empties it) per traffic class.

use crate::queue::PriorityFifo;
use ringlet_engine::Time;

/// A transaction waiting in an agent's application queue.
#[derive(Clone, Copy, Debug)]
pub struct AppEntry {
    pub born: Time,
    pub dst: u16,
    pub priority: u16,
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
}

impl Application {
    /// Whether a new transaction finds room.
    #[inline]
    pub fn has_room(&self) -> bool {
        self.capacity.is_none_or(|c| self.queue.len() < c as usize)
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
    /// Slots held for packets on their way in across the agent's bus.
    pub incoming: u32,
}

impl OutputQueue {
    pub fn new(capacity: u32, ewq: u32, levels: usize) -> Self {
        OutputQueue {
            to_send: PriorityFifo::new(levels),
            awaiting: Vec::with_capacity((capacity + ewq) as usize),
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
}

impl InputQueue {
    pub fn new(capacity: u32, levels: usize) -> Self {
        InputQueue { capacity, occupied: 0, waiting: PriorityFifo::new(levels), arriving: None, in_service: None, stalled: false }
    }
}
