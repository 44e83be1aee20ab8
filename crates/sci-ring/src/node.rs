//! One SCI node (seed 003 Figure 1): application queue, request and response
//! output queues, the bypass FIFO in front of the output link, and requestor
//! and responder input queues with their service.

use ringlet_engine::Time;
use std::collections::VecDeque;

/// A transaction waiting in the (arbitrarily large) application queue.
#[derive(Clone, Copy, Debug)]
pub struct AppEntry {
    pub born: Time,
    pub dst: u16,
    pub priority: u16,
}

/// A request or response output queue. Its capacity counts packets waiting
/// to be sent *and* sent packets kept until their echo returns.
#[derive(Debug)]
pub struct OutputQueue {
    pub to_send: VecDeque<u32>,
    pub awaiting_echo: u32,
    pub capacity: u32,
}

impl OutputQueue {
    pub fn new(capacity: u32) -> Self {
        OutputQueue { to_send: VecDeque::with_capacity(capacity as usize), awaiting_echo: 0, capacity }
    }

    #[inline]
    pub fn has_room(&self) -> bool {
        (self.to_send.len() as u32 + self.awaiting_echo) < self.capacity
    }
}

/// Which input queue: the responder's takes requests, the requestor's responses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputSide {
    Responder = 0,
    Requestor = 1,
}

/// A requestor or responder input queue and the server that empties it.
#[derive(Debug)]
pub struct InputQueue {
    pub capacity: u32,
    /// Slots taken: accepted packets still arriving, waiting, or in service.
    pub occupied: u32,
    /// Fully received packets waiting for service, in arrival order.
    pub waiting: VecDeque<u32>,
    /// The packet in service (IQST running, or done but stalled for output room).
    pub in_service: Option<u32>,
    /// Service finished but the response output queue was full.
    pub stalled: bool,
}

impl InputQueue {
    pub fn new(capacity: u32) -> Self {
        InputQueue { capacity, occupied: 0, waiting: VecDeque::with_capacity(capacity as usize), in_service: None, stalled: false }
    }
}

/// No output decision is pending.
pub const NO_DECISION: Time = Time::MAX;

/// The output side of a node: link, bypass FIFO, and whether it is blocked.
#[derive(Debug)]
pub struct Node {
    pub app: VecDeque<AppEntry>,
    pub requests: OutputQueue,
    pub responses: OutputQueue,
    /// Packets in (or on their way into) the bypass FIFO, in arrival order,
    /// with the time each can leave (head arrival + node delay). Entries with
    /// a time still in the future have not arrived yet.
    pub bypass: VecDeque<(u32, Time)>,
    /// The output link is busy (packet symbols and separator idles) until then.
    pub out_free_at: Time,
    /// Time of the pending output decision (`OutputFree` event), or
    /// `NO_DECISION`. Packets arriving at that instant wait for it, so an own
    /// packet can take the idle slot (register insertion wins ties).
    pub decision_at: Time,
    pub inputs: [InputQueue; 2],
}

impl Node {
    pub fn new(output_queue: u32, responder_queue: u32, requestor_queue: u32) -> Self {
        Node {
            app: VecDeque::new(),
            requests: OutputQueue::new(output_queue),
            responses: OutputQueue::new(output_queue),
            bypass: VecDeque::with_capacity(16),
            out_free_at: 0,
            decision_at: NO_DECISION,
            inputs: [InputQueue::new(responder_queue), InputQueue::new(requestor_queue)],
        }
    }

    /// Takes the next own packet to send, which then awaits its echo:
    /// responses before requests, so a node first drains the work that frees
    /// other nodes' resources.
    #[inline]
    pub fn take_own(&mut self) -> Option<u32> {
        let q = if !self.responses.to_send.is_empty() { &mut self.responses } else { &mut self.requests };
        let id = q.to_send.pop_front()?;
        q.awaiting_echo += 1;
        Some(id)
    }

    #[inline]
    pub fn has_own(&self) -> bool {
        !self.responses.to_send.is_empty() || !self.requests.to_send.is_empty()
    }
}
