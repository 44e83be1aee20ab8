//! A requester's response time-out (`ClientRules::response_timeout`): the
//! response waiting queue (RWQ) of seed 003's node "handles
//! retransmissions in the event of a timeout condition while the
//! destination node is servicing a request". Each transaction with a
//! response (a read64, a write64) then has a slot in the fabric's
//! transaction table, which its request and response carry as their tag.
//! When its responder services the request, a time-out starts (one at a
//! time per transaction); if the response has not been serviced when it
//! runs out, the requester queues a copy of the request, or, if its output
//! queue is full, the first room there goes to it, before any new request.
//! Every copy costs its responder a service and brings a response; the
//! first response serviced answers the transaction, a later one is
//! dropped, and a copy's request delivers no data (a write's was delivered
//! by the first). The slot is released once no copy and no time-out of it
//! is left.
//!
//! In the slot, `requests_left` counts the copies under way (request or
//! response), `responses_left` is 1 until the transaction is answered.
//! Copies exist only once a request was serviced, and that request's
//! response is under way until it is serviced and answers: so a request
//! is a copy exactly when others are under way or the transaction is
//! answered (`is_copy`).

use super::Fabric;
use crate::client::{stage, AppEntry, Txn, NO_STREAM};
use crate::event::Event;
use crate::packet::{Packet, PacketKind};
use crate::protocol::RingProtocol;

impl<P: RingProtocol> Fabric<P> {
    /// Whether transactions are timed: a time-out is set and they have a
    /// response (each then gets a slot).
    #[inline(always)]
    pub(super) fn timed_transactions(&self) -> bool {
        self.p.client.response_timeout > 0 && self.p.shape().has_response()
    }

    /// The slot of timed transaction `e` of `agent`, whose first request goes out now.
    pub(super) fn open_timed(&mut self, agent: usize, e: &AppEntry) -> u32 {
        debug_assert_eq!(self.p.shape().responses, 1, "a response time-out times single-response transactions");
        self.txns.put(Txn { born: e.born, src: agent as u16, dst: e.dst, kind: e.kind, stream: NO_STREAM, requests_left: 1, responses_left: 1, stage: stage::TRANSFER, dma_held: false, priority: e.priority, timing_out: false })
    }

    /// Whether a request of timed transaction `tag` is a time-out's copy.
    pub(super) fn is_copy(&self, tag: u32) -> bool {
        let t = self.txns.get(tag);
        t.requests_left > 1 || t.responses_left == 0
    }

    /// The responder has serviced a request of timed transaction `tag`:
    /// its time-out runs from now, unless one already does or it is answered.
    pub(super) fn start_response_timeout(&mut self, tag: u32) {
        let t = self.txns.get(tag);
        if t.timing_out || t.responses_left == 0 {
            return;
        }
        self.txns.set(tag, Txn { timing_out: true, ..t });
        self.sched.after(self.p.client.response_timeout, Event::ResponseTimeout { txn: tag }.pack());
    }

    /// Timed transaction `tag`'s time-out has run out: it joins its
    /// requester's list of those to ask again (still `timing_out`, so its
    /// slot is kept while it waits there).
    pub(super) fn on_response_timeout(&mut self, tag: u32) {
        let agent = self.txns.get(tag).src as usize;
        // Every room that appears serves the list: what still waits there waits for room.
        debug_assert!(
            self.apps[agent].timed_out.front().is_none_or(|&w| !self.copy_room(&self.txns.get(w)).1),
            "a copy waits for room its request queue has"
        );
        self.apps[agent].timed_out.push_back(tag);
        self.send_timed_out(agent);
    }

    /// Copies for `agent`'s transactions whose time-out ran out, in that
    /// order, as far as its request output queue has room (a full one
    /// keeps them waiting, ahead of any new request); one answered
    /// meanwhile is released instead.
    pub(super) fn send_timed_out(&mut self, agent: usize) {
        while let Some(&tag) = self.apps[agent].timed_out.front() {
            let t = self.txns.get(tag);
            let (route, room) = self.copy_room(&t);
            if t.responses_left > 0 && !room {
                return;
            }
            self.apps[agent].timed_out.pop_front();
            if t.responses_left == 0 {
                // Answered meanwhile: no copy.
                self.txns.set(tag, Txn { timing_out: false, ..t });
                self.release_timed(tag);
            } else {
                self.send_copy(tag, route);
            }
        }
    }

    /// Where a copy of timed transaction `t`'s request goes (its route),
    /// and whether that request output queue has room for it.
    fn copy_room(&self, t: &Txn) -> ((usize, u16), bool) {
        let route = self.route_to(t.src, t.dst);
        (route, self.ifaces[route.0].output(self.p.shape().request_class).has_room())
    }

    /// Queues a copy of timed transaction `tag`'s request at interface `i`
    /// towards `to` (its route); its time-out is over.
    fn send_copy(&mut self, tag: u32, (i, to): (usize, u16)) {
        let t = Txn { timing_out: false, ..self.txns.get(tag) };
        let shape = *self.p.shape();
        self.counters.request_timeouts += 1;
        self.txns.set(tag, Txn { requests_left: t.requests_left + 1, ..t });
        let mut pk = Packet::new(PacketKind::Request, shape.request_class, t.src, t.dst, t.priority, shape.request_len, t.born).on(i as u16, to);
        pk.queued_at = self.sched.now();
        pk.tag = tag;
        let id = self.slab.alloc(pk);
        self.queue_own(i, shape.request_class, t.priority, id);
        self.try_output(i);
    }

    /// A response of timed transaction `tag` has been serviced at its
    /// requester: whether it answers the transaction (the first to); a
    /// copy's is dropped.
    pub(super) fn timed_response_serviced(&mut self, tag: u32) -> bool {
        let t = self.txns.get(tag);
        let answers = t.responses_left == 1;
        self.txns.set(tag, Txn { requests_left: t.requests_left - 1, responses_left: 0, ..t });
        if answers {
            self.answered_held += 1;
        } else {
            self.counters.duplicate_responses += 1;
        }
        self.release_timed(tag);
        answers
    }

    /// A request of timed transaction `tag` leaves its output queue unsent
    /// (host preemption): a copy is dropped (returns true; what is under
    /// way answers, or a later time-out asks again); the first request,
    /// never serviced, frees the slot and goes back to the application
    /// queue whole (false).
    pub(super) fn drop_timed_copy(&mut self, tag: u32) -> bool {
        if self.is_copy(tag) {
            let t = self.txns.get(tag);
            self.txns.set(tag, Txn { requests_left: t.requests_left - 1, ..t });
            self.release_timed(tag);
            return true;
        }
        self.txns.release(tag);
        false
    }

    /// Releases timed transaction `tag`'s slot if it is answered and nothing of it is left.
    fn release_timed(&mut self, tag: u32) {
        let t = self.txns.get(tag);
        if t.responses_left == 0 && t.requests_left == 0 && !t.timing_out {
            self.txns.release(tag);
            self.answered_held -= 1;
        }
    }

    /// Timed transactions under way (for conservation): slots not yet answered.
    pub(super) fn timed_in_flight(&self) -> u64 {
        self.txns.live() as u64 - self.answered_held
    }
}
