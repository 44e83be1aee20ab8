//! One SCI node (seed 003 Figure 1): application queue, request and response
//! output queues, the bypass FIFO in front of the output link, and requestor
//! and responder input queues with their service.

use crate::bypass::BypassFifo;
use crate::queue::PriorityFifo;
use ringlet_engine::Time;
use std::cell::Cell;

/// A transaction waiting in the (arbitrarily large) application queue.
#[derive(Clone, Copy, Debug)]
pub struct AppEntry {
    pub born: Time,
    pub dst: u16,
    pub priority: u16,
}

/// A request or response output queue. Its capacity counts packets waiting
/// to be sent *and* sent packets kept until their echo returns (PPQ's EWQ).
#[derive(Debug)]
pub struct OutputQueue {
    pub to_send: PriorityFifo<u32>,
    /// Sent packets whose echo has not returned (or busied ones held off before their retry).
    pub awaiting: Vec<u32>,
    pub capacity: u32,
    /// Slots of a separate echo-waiting queue (PPQ's EWQ) beyond `capacity`;
    /// 0 = sent packets keep their output queue slot (base SCI).
    pub ewq: u32,
}

impl OutputQueue {
    pub fn new(capacity: u32, ewq: u32, levels: usize) -> Self {
        OutputQueue { to_send: PriorityFifo::new(levels), awaiting: Vec::with_capacity((capacity + ewq) as usize), capacity, ewq }
    }

    #[inline]
    pub fn has_room(&self) -> bool {
        self.to_send.len() < self.capacity as usize && (self.to_send.len() + self.awaiting.len()) < (self.capacity + self.ewq) as usize
    }

    /// The echo for `id` came back: it no longer waits.
    #[inline]
    pub fn echoed(&mut self, id: u32) {
        if let Some(k) = self.awaiting.iter().position(|&x| x == id) {
            self.awaiting.swap_remove(k);
        }
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
    /// Fully received packets waiting for service, in service order.
    pub waiting: PriorityFifo<u32>,
    /// The accepted packet still coming in, and when its tail is in; it joins
    /// `waiting` when the queue is next looked at after that.
    pub arriving: Option<(u32, Time)>,
    /// The packet in service (IQST running, or done but stalled for output room).
    pub in_service: Option<u32>,
    /// Service finished but the response output queue was full.
    pub stalled: bool,
}

impl InputQueue {
    pub fn new(capacity: u32, levels: usize) -> Self {
        InputQueue { capacity, occupied: 0, waiting: PriorityFifo::new(levels), arriving: None, in_service: None, stalled: false }
    }
}

/// No output decision is pending.
pub const NO_DECISION: Time = Time::MAX;

/// The output side of a node: link, bypass FIFO, and whether it is blocked.
#[derive(Debug)]
pub struct Node {
    pub app: PriorityFifo<AppEntry>,
    pub requests: OutputQueue,
    pub responses: OutputQueue,
    /// Packets in (or on their way into) the bypass FIFO, in arrival order,
    /// with the time each can leave (head arrival + node delay). Entries with
    /// a time still in the future have not arrived yet.
    pub bypass: BypassFifo,
    /// The output link is busy (packet symbols and separator idles) until then.
    pub out_free_at: Time,
    /// Time of the pending output decision (`OutputFree` event), or
    /// `NO_DECISION`. Packets arriving at that instant wait for it, so an own
    /// packet can take the idle slot (register insertion wins ties).
    pub decision_at: Time,
    pub inputs: [InputQueue; 2],
    /// The protocol skipped every own packet when last asked: its permit
    /// epoch then, the own queues' change count then, and how many packets
    /// it skipped (see `RingProtocol::permit_epoch`).
    pub all_skipped: Option<(u64, u64, u32)>,
    /// The protocol asked not to hear of this node's own packet being
    /// blocked again until `own_changes()` differs from this count.
    pub blocked_quiet: Option<u64>,
    /// `first_own()` as of an `own_changes()` count.
    first_own_cache: Cell<(u64, Option<u32>)>,
}

impl Node {
    /// A node whose queues have `levels` priority levels (1 = FIFO, base
    /// SCI) and `ewq` echo-waiting slots beyond each output queue.
    pub fn new(output_queue: u32, responder_queue: u32, requestor_queue: u32, levels: usize, ewq: u32) -> Self {
        Node {
            app: PriorityFifo::new(levels),
            requests: OutputQueue::new(output_queue, ewq, levels),
            responses: OutputQueue::new(output_queue, ewq, levels),
            bypass: BypassFifo::with_capacity(16),
            out_free_at: 0,
            decision_at: NO_DECISION,
            inputs: [InputQueue::new(responder_queue, levels), InputQueue::new(requestor_queue, levels)],
            all_skipped: None,
            blocked_quiet: None,
            first_own_cache: Cell::new((u64::MAX, None)),
        }
    }

    /// The own packet that goes first: highest priority; on a tie the
    /// response, so a node first drains the work that frees other nodes' resources.
    #[inline(always)]
    pub fn first_own(&self) -> Option<u32> {
        // Asked several times per packet sent (each output decision, each
        // wait behind bypass traffic); the queues change far less often.
        let changes = self.own_changes();
        let (at, first) = self.first_own_cache.get();
        if at == changes {
            return first;
        }
        self.first_own_again(changes)
    }

    /// `first_own` when the queues have changed since it was cached.
    #[inline(never)]
    fn first_own_again(&self, changes: u64) -> Option<u32> {
        let first = match (self.responses.to_send.head(), self.requests.to_send.head()) {
            (Some((r, _)), Some((q, id))) if q > r => Some(id),
            (Some((_, id)), _) => Some(id),
            (None, q) => q.map(|(_, id)| id),
        };
        self.first_own_cache.set((changes, first));
        first
    }

    /// Every own packet in the order they would go (see [`Node::first_own`]),
    /// lazily: callers that stop early do not pay for long queues.
    pub fn own_iter<'a>(&'a self, level: impl Fn(u32) -> u16 + 'a) -> impl Iterator<Item = u32> + 'a {
        let mut r = self.responses.to_send.iter().copied().peekable();
        let mut q = self.requests.to_send.iter().copied().peekable();
        std::iter::from_fn(move || {
            let pick_q = match (r.peek(), q.peek()) {
                (Some(&a), Some(&b)) => level(b) > level(a),
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (None, None) => return None,
            };
            if pick_q {
                q.next()
            } else {
                r.next()
            }
        })
    }

    /// Every own packet in send order, into `out`.
    pub fn own_in_order(&self, out: &mut Vec<u32>, level: impl Fn(u32) -> u16) {
        // The same merge as `own_iter`, looking each packet's level up once
        // and copying the rest of one queue when the other runs out.
        out.clear();
        let mut r = self.responses.to_send.iter().copied();
        let mut q = self.requests.to_send.iter().copied();
        let (mut a, mut b) = (r.next(), q.next());
        let (mut la, mut lb) = (a.map(&level), b.map(&level));
        loop {
            match (a, b) {
                (Some(x), Some(y)) => {
                    if lb > la {
                        out.push(y);
                        b = q.next();
                        lb = b.map(&level);
                    } else {
                        out.push(x);
                        a = r.next();
                        la = a.map(&level);
                    }
                }
                (Some(x), None) => {
                    out.push(x);
                    out.extend(r);
                    return;
                }
                (None, Some(y)) => {
                    out.push(y);
                    out.extend(q);
                    return;
                }
                (None, None) => return,
            }
        }
    }

    /// Takes own packet `id` (a response if `response`) out to be sent; it then awaits its echo.
    #[inline(always)]
    pub fn take_own(&mut self, id: u32, response: bool) {
        let q = if response { &mut self.responses } else { &mut self.requests };
        let taken = if q.to_send.peek() == Some(&id) { q.to_send.pop() } else { q.to_send.remove_first(|&x| x == id) };
        debug_assert_eq!(taken, Some(id));
        q.awaiting.push(id);
    }

    /// Makes an output decision due no later than `at` (the time now is
    /// `now`); returns whether that needs a new decision event.
    #[inline(always)]
    pub fn decide_by(&mut self, at: Time, now: Time) -> bool {
        // (`NO_DECISION` is later than any time; one in the past is spent.)
        if self.decision_at > at || self.decision_at < now {
            self.decision_at = at;
            true
        } else {
            false
        }
    }

    /// Changes so far to the own packets waiting to be sent.
    #[inline]
    pub fn own_changes(&self) -> u64 {
        self.requests.to_send.changes() + self.responses.to_send.changes()
    }

    #[inline]
    pub fn has_own(&self) -> bool {
        (self.responses.to_send.len() | self.requests.to_send.len()) != 0
    }
}

/// The ring's nodes, indexed by node number without a bounds check: node
/// numbers are made only by the ring itself (its events, `downstream`, the
/// traffic sources, protocol effects naming nodes of this ring), all below
/// `len()`. Crate-private, so no caller outside can break that; debug builds
/// (every `cargo test`) check. The check costs about 4% of a ring
/// simulation, which indexes nodes several times per event.
pub(crate) struct Nodes(Vec<Node>);

impl Nodes {
    pub fn new(nodes: Vec<Node>) -> Self {
        Nodes(nodes)
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Node> {
        self.0.iter()
    }
}

impl std::ops::Index<usize> for Nodes {
    type Output = Node;
    #[inline(always)]
    fn index(&self, i: usize) -> &Node {
        debug_assert!(i < self.0.len(), "node {i} of a {}-node ring", self.0.len());
        // SAFETY: see the type's documentation; `i < self.0.len()`.
        unsafe { self.0.get_unchecked(i) }
    }
}

impl std::ops::IndexMut<usize> for Nodes {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut Node {
        debug_assert!(i < self.0.len(), "node {i} of a {}-node ring", self.0.len());
        // SAFETY: as for `index`.
        unsafe { self.0.get_unchecked_mut(i) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The collecting merge and the lazy one agree: highest level first,
    /// responses before requests on a tie, FIFO within a level.
    #[test]
    fn own_packets_in_send_order() {
        let mut x: u64 = 7;
        for case in 0..200 {
            let mut n = Node::new(8, 5, 5, 4, 0);
            let mut level = std::collections::HashMap::new();
            for id in 0..(case % 9) as u32 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let prio = (x % 4) as u16;
                level.insert(id, prio);
                if x.is_multiple_of(3) {
                    n.responses.to_send.push(prio, id);
                } else {
                    n.requests.to_send.push(prio, id);
                }
            }
            let lazy: Vec<u32> = n.own_iter(|id| level[&id]).collect();
            let mut collected = Vec::new();
            n.own_in_order(&mut collected, |id| level[&id]);
            assert_eq!(collected, lazy, "case {case}");
            assert_eq!(lazy.first().copied(), n.first_own(), "case {case}");
            let levels: Vec<u16> = lazy.iter().map(|id| level[id]).collect();
            assert!(levels.windows(2).all(|w| w[0] >= w[1]), "case {case}: {levels:?}");
        }
    }
}
