//! Input queues and their servers, and what a serviced packet produces: at
//! its destination, a request's response or, for a response (or a
//! responseless request), the transaction's completion; at a bridge or
//! switch on the way, the packet itself, sent on toward its destination.

use super::Fabric;
use crate::client::{stage, DmaJob, Txn, NO_STREAM};
use crate::event::Event;
use crate::packet::{Packet, PacketKind, Phase, NO_TAG};
use crate::protocol::{EchoAt, QueueView, RingProtocol};
use crate::topology::Leg;
use ringlet_engine::Time;
use crate::trace::TraceKind;

impl<P: RingProtocol> Fabric<P> {
    /// The packet arriving into the input queue of `class` joins the waiting ones if its tail is in.
    #[inline(always)]
    pub(super) fn settle_arrival(&mut self, i: usize, class: usize) {
        let now = self.sched.now();
        let q = self.ifaces[i].input_mut(class);
        if let Some((id, tail)) = q.arriving {
            if tail <= now {
                q.arriving = None;
                q.waiting.push(self.slab.at(id).eff, id);
            }
        }
    }

    /// An idle server takes the first waiting packet, or else the one still
    /// arriving (starting when its tail is in). Its caller, `finish`, has
    /// settled the arriving packet already.
    #[inline(always)]
    fn start_service(&mut self, i: usize, class: usize) {
        let q = self.ifaces[i].input_mut(class);
        if q.in_service.is_some() {
            return;
        }
        let (id, start) = match q.waiting.pop() {
            Some(id) => (id, self.sched.now()),
            None => match q.arriving.take() {
                Some(arriving) => arriving,
                None => return,
            },
        };
        q.in_service = Some(id);
        self.decode(i, class, id);
        let done = if self.ifaces[i].pipelined {
            // Its tail came in at `queued_at` (`accept`).
            self.pipelined_done(i, class, start, self.slab.at(id).queued_at)
        } else {
            let len = self.slab.at(id).len;
            self.service_done_at(i, class, start, len)
        };
        self.sched.at(done, Event::ServiceDone { iface: i as u16, class: class as u8 }.pack());
    }

    /// When the next service of the pipelined input queue of `class` at `i`
    /// is done, its packet's tail in at `tail` and the server free from
    /// `start`: it starts at its tail, but not before the spacing after the
    /// previous one's start, and ends its service time later, not before
    /// `start` (in order, also behind a packet held for the bus or for room).
    #[inline(always)]
    pub(super) fn pipelined_done(&mut self, i: usize, class: usize, start: Time, tail: Time) -> Time {
        let n = &self.ifaces[i];
        let (took, spacing) = (n.service_time(class), n.spacing(class));
        let q = self.ifaces[i].input_mut(class);
        let done = (tail.max(q.next_begin) + took).max(start);
        q.next_begin = done - took + spacing;
        done
    }

    /// When a service of the input queue of `class` at `i` of a packet of
    /// `len` symbols that can start at `start` is done: its service time
    /// (the class's, and the packet's symbols' where the client moves them,
    /// `ClientRules::service_per_symbol`) later, or, where the agent's
    /// queues share one server, once that server has also finished the
    /// services that started before (which it then holds for this one).
    #[inline(always)]
    pub(super) fn service_done_at(&mut self, i: usize, class: usize, start: Time, len: u16) -> Time {
        let n = &self.ifaces[i];
        let took = n.service_time(class) + len as Time * self.p.client.service_per_symbol;
        if !n.shared_server {
            return start + took;
        }
        let a = n.agent as usize;
        let done = start.max(self.port_free[a]) + took;
        self.port_free[a] = done;
        done
    }

    /// The output queue (interface, class) a serviced packet produces
    /// packets for, and how many, if any.
    #[inline(always)]
    fn produces_for(&self, i: usize, pk: &Packet) -> Option<(usize, u8, u16)> {
        let me = self.ifaces[i].agent;
        if pk.dst != me {
            return Some((self.out_iface(me, pk.dst), pk.class, 1));
        }
        let shape = &self.p.shapes[self.kind_of(pk)];
        let last_request = !self.tracked || self.txns.get(pk.tag).requests_left == 1;
        if pk.kind == PacketKind::Request && shape.has_response() && last_request && self.p.client.responder == crate::params::Responder::Server {
            Some((self.out_iface(me, pk.src), shape.response_class, shape.responses))
        } else {
            None
        }
    }

    pub(super) fn on_service_done(&mut self, i: usize, class: usize) {
        if self.has_bus(i) {
            let id = self.ifaces[i].input(class).in_service.expect("a packet in service");
            if self.slab.at(id).dst != self.ifaces[i].agent {
                return self.ask_bus(i, class);
            }
        }
        if P::RULES.server_waits_for_room {
            let id = self.ifaces[i].input(class).in_service.expect("a packet in service");
            if let Some((o, c, n)) = self.produces_for(i, self.slab.at(id)) {
                if !self.ifaces[o].output(c).has_room_for(n as usize) {
                    // What it produces has nowhere to go: the server holds the
                    // packet until echoes free the slots there (`on_echo`).
                    self.ifaces[i].input_mut(class).stalled = true;
                    self.ifaces[o].waiters(c).push((i as u16, class as u8, n));
                    return;
                }
            }
        }
        self.finish(i, class);
    }

    /// The server of the input queue of `class` at `i` finishes its packet.
    #[inline(always)]
    pub(super) fn finish(&mut self, i: usize, class: usize) {
        self.finish_on(i, class, None);
    }

    /// `finish`, a packet for another agent going on along `leg` where that
    /// is known (chosen when it asked for the agent's bus).
    #[inline(always)]
    pub(super) fn finish_on(&mut self, i: usize, class: usize, leg: Option<Leg>) {
        let now = self.sched.now();
        self.settle_arrival(i, class);
        let q = self.ifaces[i].input_mut(class);
        let id = q.in_service.take().expect("a packet in service");
        q.stalled = false;
        q.occupied -= 1;
        let pk = *self.slab.at(id);
        self.record(i, TraceKind::Serviced, id);
        self.serviced(i, class, id, &pk);
        let me = self.ifaces[i].agent;
        if pk.dst != me {
            self.send_on(i, pk, leg);
            self.start_service(i, class);
            return;
        }
        #[cfg(debug_assertions)]
        assert!(self.delivered_serials.insert(pk.serial), "send packet {} ({:?} of class {} from agent {} to {}) delivered twice at {now}", pk.serial, pk.kind, pk.class, pk.src, pk.dst);
        let requester = pk.requester();
        self.measure.packet_serviced(now, pk.born, pk.priority, requester, pk.class);
        if self.tracked {
            self.delivered(i, &pk);
            self.start_service(i, class);
            self.try_output(i);
            return;
        }
        let shape = *self.p.shape();
        // A timed read's slot (`response_timeout.rs`) is kept there, not counted here.
        let (mut tag, mut timed, mut copy) = (pk.tag, NO_TAG, false);
        if tag != NO_TAG && self.timed_transactions() {
            if pk.kind == PacketKind::Response && !self.timed_response_serviced(tag) {
                // A copy's response: the transaction is answered already; dropped.
                self.start_service(i, class);
                return;
            }
            // (A copy's request delivers no data: the first one serviced did.)
            copy = pk.kind == PacketKind::Request && self.is_copy(tag);
            (tag, timed) = (NO_TAG, tag);
        }
        // The last of a transaction's packets completes it.
        let (k, of) = match tag {
            NO_TAG => (0, 1),
            slot => {
                let left = self.txns.get(slot).responses_left - 1;
                self.txns.set(slot, Txn { responses_left: left, ..self.txns.get(slot) });
                (shape.responses - 1 - left, shape.responses)
            }
        };
        if shape.carries_data(pk.kind == PacketKind::Response) && !copy {
            self.data_delivered(now, shape.data_share(k, of), pk.priority, requester);
        }
        let (mut answered_on, mut slot_freed) = (None, false);
        if pk.kind == PacketKind::Request && shape.has_response() {
            let (o, to) = self.route_to(me, pk.src);
            let mut resp = Packet::new(PacketKind::Response, shape.response_class, me, pk.src, pk.priority, shape.response_len, now).on(o as u16, to);
            if timed != NO_TAG {
                // A timed read's: its response carries its slot, and the time-out runs.
                resp.tag = timed;
                self.start_response_timeout(timed);
            } else if shape.responses > 1 {
                resp.tag = self.txns.put(Txn { born: now, src: pk.src, dst: me, kind: 0, stream: NO_STREAM, requests_left: 0, responses_left: shape.responses, stage: crate::client::stage::TRANSFER, dma_held: false, priority: pk.priority, timing_out: false });
            }
            for _ in 0..shape.responses {
                let r = self.slab.alloc(resp);
                self.queue_own(o, shape.response_class, pk.priority, r);
            }
            answered_on = Some(o);
        } else if k + 1 == of {
            if tag != NO_TAG {
                self.txns.release(tag);
            }
            self.complete(pk.priority, requester);
            slot_freed = shape.has_response() && self.release_response_slot(requester as usize);
        }
        self.start_service(i, class);
        if slot_freed {
            // A slot of its response waiting queue is free: the next request may go.
            return self.serve_application(requester as usize);
        }
        if pk.kind == PacketKind::Request {
            if let Some(o) = answered_on.filter(|&o| o != i) {
                self.try_output(o);
            }
            self.try_output(i);
        }
    }

    /// Send packet `pk` of a transaction with a slot (where every one has)
    /// serviced at its destination, interface `i`: its data counted; the
    /// last request answered (by the server, or handed to the DMA engine)
    /// or, with no response, the transaction complete; the last response
    /// completes it.
    fn delivered(&mut self, i: usize, pk: &Packet) {
        if !self.lost_tags.is_empty() && self.lost_tags.contains(&pk.tag) {
            return; // Lost with a failed node: dropped where it arrives.
        }
        let (me, now, requester) = (self.ifaces[i].agent, self.sched.now(), pk.requester());
        let mut t = self.txns.get(pk.tag);
        let shape = self.p.shapes[t.kind as usize];
        let response = pk.kind == PacketKind::Response;
        if self.handshakes(&shape) && self.handshake_in(me as usize, pk, &mut t) {
            return;
        }
        let (left, n) = if response { (&mut t.responses_left, shape.responses) } else { (&mut t.requests_left, shape.requests) };
        let k = n - *left;
        *left -= 1;
        let side_done = *left == 0;
        self.txns.set(pk.tag, t);
        if shape.carries_data(response) {
            let bytes = shape.data_share(k, n);
            self.data_delivered(now, bytes, pk.priority, requester);
            self.measure.class_data(now, pk.class, bytes);
        }
        if !side_done {
            return;
        }
        if !response && shape.has_response() {
            let job = DmaJob { ready: false, dst: pk.src, priority: pk.priority, kind: t.kind, tag: pk.tag, sent: 0 };
            self.dma[me as usize].push_back(job);
            return self.dma_fill(me as usize);
        }
        if !self.awaits_status(&t, &shape) {
            self.txn_complete(pk.tag, &t, pk.priority, requester);
        }
    }

    /// Transaction `t` (slot `tag`) of `requester` is complete: its slot
    /// freed, its latency counted, its stream may issue another transfer.
    fn txn_complete(&mut self, tag: u32, t: &Txn, priority: u16, requester: u16) {
        let now = self.sched.now();
        self.txns.release(tag);
        self.measure.transaction_latency(now, now - t.born);
        self.complete(priority, requester);
        if self.p.shapes[t.kind as usize].has_response() {
            // A transfer done: its stream may issue another; its target has
            // freed a slot, so a hold-off below the window's floor ends.
            let st = &mut self.streams[t.stream as usize].state;
            st.in_flight -= 1;
            let woke = st.resume_at > now;
            if woke {
                (st.resume_at, st.pace) = (now, 0);
            }
            let rwq = self.release_response_slot(requester as usize);
            if self.p.client.transactions_per_stream > 0 || rwq || woke {
                self.fill_requests(requester as usize);
            }
        }
    }

    /// Send packet `pk` of transaction `t`, which has a handshake, serviced
    /// at its destination `me`: if it is the set-up, the ready or the status
    /// (`params::Handshake`), what it does is done here and it returns true.
    fn handshake_in(&mut self, me: usize, pk: &Packet, t: &mut Txn) -> bool {
        let response = pk.kind == PacketKind::Response;
        if t.stage == stage::SETUP {
            if !response {
                // The set-up: the responder's DMA engine answers with the ready.
                self.setup_in(me, pk, t.kind);
            } else {
                // The ready: the requests may go.
                t.stage = stage::TRANSFER;
                self.txns.set(pk.tag, *t);
                self.ready_in(pk.tag, t);
            }
            return true;
        }
        let status = self.p.client.handshake.map(|h| h.status_class);
        if !response || status != Some(pk.class) {
            return false;
        }
        // The status: the transaction completes if its data is all in.
        t.stage = stage::STATUS_IN;
        self.txns.set(pk.tag, *t);
        if t.responses_left == 0 {
            self.txn_complete(pk.tag, t, pk.priority, pk.dst);
        }
        true
    }

    /// A bridge or switch has serviced `pk`, for another agent: it goes on,
    /// as a fresh packet, from the interface toward its destination (across
    /// the agent's bus if it has one), along `leg` if it is known.
    fn send_on(&mut self, i: usize, pk: Packet, leg: Option<Leg>) {
        let (o, to) = match leg {
            Some(leg) => (leg.out as usize, leg.strip),
            None => self.route_on(self.ifaces[i].agent, pk.dst),
        };
        let mut next = pk.on(o as u16, to);
        next.phase = Phase::Fresh;
        next.eff = next.priority;
        next.queued_at = self.sched.now();
        if self.has_bus(i) {
            return self.cross(i, o, next);
        }
        let id = self.slab.alloc_copy(next);
        self.ifaces[o].push_own(next.class, next.priority, id);
        self.try_output(o);
    }

    /// Send packet `id` has left the input queue of `class` serviced: the
    /// slot is free, and with echoes at service its accepting echo goes out now.
    #[inline(always)]
    fn serviced(&mut self, i: usize, class: usize, id: u32, pk: &Packet) {
        if P::RULES.echo == EchoAt::Service {
            let e = self.accept_echo(i, id, pk);
            self.insert_generated(i, e);
            self.decide_at(i, self.sched.now());
        }
        self.slab.free(id);
        self.input_changed(i, class);
    }

    /// The input queue of `class` at `i` took in or let go of a packet: its protocol hears of it.
    #[inline(always)]
    pub(super) fn input_changed(&mut self, i: usize, class: usize) {
        let (r, at) = self.ifaces[i].place();
        let view = QueueView::of(self.ifaces[i].input(class));
        self.protos[r].on_input_change(at, class, view, self.sched.now(), &mut self.fx);
        self.flush_effects(r);
    }

    /// Data of `requester`'s transaction delivered: measured (in the
    /// window), or, from a trace in the warm-up, no longer offered; its
    /// transaction has advanced (`Stalls::delivered`).
    #[inline]
    fn data_delivered(&mut self, now: Time, bytes: u32, priority: u16, requester: u16) {
        if now < self.measure.warmup_end && self.replay.is_some() {
            self.delivered_in_warmup(bytes, priority, requester);
        }
        self.measure.data_delivered(now, bytes, priority, requester);
        self.stalls.delivered(requester as usize, now);
    }

    fn complete(&mut self, priority: u16, requester: u16) {
        self.completed += 1;
        self.note_ended(requester, true);
        let now = self.sched.now();
        if let Some(stop) = self.measure.transaction_completed(now, priority, requester) {
            self.stop = Some(stop);
        }
        self.check_drained();
    }
}
