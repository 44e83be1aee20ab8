//! A packet reaching the ring interface that strips it: a control packet
//! handed to the protocol, a send packet admitted to (or busied at) an
//! input queue and answered with an echo in its place.

use super::Fabric;
use crate::packet::{Packet, PacketKind, Phase};
use crate::protocol::{Admission, EchoAt, QueueView, RingProtocol};
use crate::event::Event;
use crate::trace::TraceKind;
use ringlet_engine::Time;

impl<P: RingProtocol> Fabric<P> {
    pub(super) fn on_head(&mut self, i: usize, id: u32) {
        let now = self.sched.now();
        self.counters.packet_hops += 1;
        let pk = *self.slab.at(id);
        debug_assert_eq!(pk.to as usize, i, "only the stripping interface gets a HeadArrive");
        match pk.kind {
            PacketKind::Echo => unreachable!("an echo goes straight to its EchoIn (see `transmit`)"),
            PacketKind::Control => {
                self.record(i, TraceKind::Control, id);
                let mut c = pk;
                let (r, at) = self.ifaces[i].place();
                let keep = self.protos[r].on_control(at, now, &mut c, &self.ifaces[i], &self.slab, &mut self.fx);
                if keep {
                    let hold = self.protos[r].control_hold();
                    if c.len > pk.len || hold > 0 {
                        // Made longer here (more than the link brought in),
                        // or held while it still comes in: it is in the
                        // FIFO before it can leave, so no own packet goes first.
                        self.ifaces[i].inserted.push(id);
                    }
                    let next = self.ifaces[i].next;
                    c.to = next;
                    c.dst = self.ifaces[next as usize].agent;
                    // The symbols it added are buffered as if they had come
                    // in before its head: what the link brings behind it
                    // waits for them (`span` counts the FIFO's holding from
                    // `queued_at`).
                    c.queued_at =
                        now.saturating_sub(c.len.saturating_sub(pk.len) as Time * self.p.cycle);
                    *self.slab.at_mut(id) = c;
                    self.insert_in_stream_ready(i, id, now + hold);
                } else {
                    self.slab.free(id);
                }
                self.flush_effects(r);
            }
            PacketKind::Request | PacketKind::Response => self.on_send_packet(i, id, pk),
        }
        self.try_output(i);
    }

    /// A send packet for this interface: decide on its header; answer with
    /// an echo in its place (or, with echoes at service, only once it is serviced).
    fn on_send_packet(&mut self, i: usize, id: u32, pk: Packet) {
        let class = pk.class as usize;
        let (r, at) = self.ifaces[i].place();
        // The packet before this one on the link is in by now.
        self.settle_arrival(i, class);
        if self.copy_on_accept && self.is_duplicate(id) {
            // Known by its number at the header: echoed as accepted and
            // dropped, whatever room its input queue has.
            self.record(i, TraceKind::Accepted, id);
            let e = self.accept_echo(i, id, &pk);
            return self.put_echo(i, e, &pk);
        }
        let me = self.ifaces[i].agent;
        let dma_bounded = self.dma_bounded(me, &pk);
        let view = QueueView::of(self.ifaces[i].input(class));
        let mut admission = self.protos[r].admit(at, self.sched.now(), class, id, &pk, view);
        if dma_bounded && matches!(admission, Admission::Accept | Admission::Evict) && self.dma_full(me as usize, &pk, false) {
            // The receive buffer would take it (a place reserved for it is
            // spent), but its responder's DMA engine holds all the transfers
            // it may: busied with nothing reserved (BUSY_N), as the engine
            // reserves nothing. A place kept for a packet the engine refuses
            // would keep out the block requests whose data frees the engine.
            admission = Admission::Busy(Phase::Fresh);
        }
        let echo = match admission {
            Admission::Accept => self.accept(i, class, id, &pk),
            Admission::Evict => {
                let q = self.ifaces[i].input_mut(class);
                let victim = q.waiting.pop_lowest_below(pk.eff).expect("protocol evicts only a lower-priority waiting packet");
                q.occupied -= 1;
                self.counters.preemptions += 1;
                self.record(i, TraceKind::Preempted, victim);
                if self.inversions.is_some() {
                    let v = *self.slab.at(victim);
                    self.busied_for_inversions(i, class, victim, &v);
                }
                let e = self.busy_echo(i, victim, Phase::Fresh);
                self.insert_generated(i, e);
                self.accept(i, class, id, &pk)
            }
            Admission::Busy(phase) => {
                if self.inversions.is_some() {
                    self.busied_for_inversions(i, class, id, &pk);
                }
                self.count_busy(&pk, false);
                self.record(i, TraceKind::Busied, id);
                Some(self.busy_echo(i, id, phase))
            }
            Admission::Reserved(phase) => {
                if self.inversions.is_some() {
                    self.busied_for_inversions(i, class, id, &pk);
                }
                self.count_busy(&pk, true);
                self.record(i, TraceKind::Busied, id);
                Some(self.busy_echo(i, id, phase))
            }
        };
        if let Some(e) = echo {
            self.put_echo(i, e, &pk);
        }
        self.input_changed(i, class);
    }

    /// Echo `e` for send packet `pk` takes the stripped packet's place:
    /// ahead of packets that arrive after it.
    fn put_echo(&mut self, i: usize, e: u32, pk: &Packet) {
        if self.p.client.echo_at_tail {
            // Ready to leave once the checksum is in: what arrives next waits behind it.
            let tail = self.sched.now() + pk.len as Time * self.p.cycle;
            self.insert_in_stream_ready(i, e, tail);
        } else {
            self.insert_in_stream(i, e);
        }
    }

    /// Counts a busy echo by the kind of packet busied and its cause.
    fn count_busy(&mut self, pk: &Packet, reserved: bool) {
        let c = &mut self.counters;
        *match (pk.kind == PacketKind::Request, reserved) {
            (true, false) => &mut c.busy_requests_full,
            (true, true) => &mut c.busy_requests_reserved,
            (false, false) => &mut c.busy_responses_full,
            (false, true) => &mut c.busy_responses_reserved,
        } += 1;
    }

    /// Takes `id` into the input queue of `class`; returns the echo to send now, if any.
    ///
    /// The packet is fully in at its tail. Nothing else can arrive on the
    /// link before then, so no event marks that instant: an idle server
    /// takes the packet now and starts at the tail; otherwise the packet is
    /// `arriving` and joins the waiting packets whenever the queue is next
    /// looked at after its tail (`settle_arrival`).
    fn accept(&mut self, i: usize, class: usize, id: u32, pk: &Packet) -> Option<u32> {
        if self.inversions.is_some() {
            self.accepted_for_inversions(i, class, id, pk);
        }
        let tail = self.sched.now() + pk.len as Time * self.p.cycle;
        self.record(i, TraceKind::Accepted, id);
        self.record_at(tail, i, TraceKind::Received, id);
        if self.ifaces[i].pipelined {
            // Its own copy now (the sender only awaits the echo): when its tail is in.
            self.slab.at_mut(id).queued_at = tail;
        }
        let echo_of = id;
        let id = if self.copy_on_accept { self.accepted_copy(id) } else { id };
        let me = self.ifaces[i].agent;
        if self.dma_bounded(me, pk) {
            // Taken, not a duplicate: if it opens a transfer, the slot is its from now on.
            self.dma_full(me as usize, pk, true);
        }
        let q = self.ifaces[i].input_mut(class);
        q.occupied += 1;
        debug_assert!(q.arriving.is_none(), "the packet before is settled first");
        if q.in_service.is_none() {
            // (An idle server has nothing waiting or arriving.)
            q.in_service = Some(id);
            self.decode(i, class, id);
            let done = if self.ifaces[i].pipelined { self.pipelined_done(i, class, tail, tail) } else { self.service_done_at(i, class, tail, pk.len) };
            self.sched.at(done, Event::ServiceDone { iface: i as u16, class: class as u8 }.pack());
        } else {
            q.arriving = Some((id, tail));
        }
        match P::RULES.echo {
            EchoAt::Service => None,
            EchoAt::Acceptance => Some(self.accept_echo(i, echo_of, pk)),
        }
    }

    /// A busy echo from `i` for send packet `id` (its sender retries in `phase`).
    pub(super) fn busy_echo(&mut self, i: usize, id: u32, phase: Phase) -> u32 {
        let pk = *self.slab.at(id);
        self.counters.busy_echoes += 1;
        self.echo(i, id, &pk, Some(phase))
    }

    /// An accepting echo from `i` for send packet `pk` (id `id`).
    pub(super) fn accept_echo(&mut self, i: usize, id: u32, pk: &Packet) -> u32 {
        self.echo(i, id, pk, None)
    }

    /// An echo from `i` answering send packet `pk` (id `id`), back to the
    /// interface that sent it: busy with the retry phase, or accepting.
    #[inline(always)]
    fn echo(&mut self, i: usize, id: u32, pk: &Packet, busy: Option<Phase>) -> u32 {
        let back = self.ifaces[pk.from as usize].agent;
        let mut echo = Packet::new(PacketKind::Echo, pk.class, self.ifaces[i].agent, back, pk.priority, self.p.echo_len, self.sched.now()).on(i as u16, pk.from);
        echo.echo_of = id;
        echo.traffic_control = pk.traffic_control;
        if let Some(phase) = busy {
            echo.busy = true;
            echo.echo_phase = phase;
        }
        if self.tracked && pk.kind == PacketKind::Request {
            // The echo tells the sender's stream how its request fared.
            echo.tag = pk.echo_of;
        }
        self.counters.echoes += 1;
        let e = self.slab.alloc(echo);
        if self.p.client.channel_latency {
            let carries = self.p.shapes[self.kind_of(pk)].carries_data(pk.kind == PacketKind::Response);
            let sent = if carries { self.sent_at.get(id as usize).copied().unwrap_or(Time::MAX) } else { Time::MAX };
            self.note_sent(e, sent);
        }
        e
    }

    /// Notes when packet `id` was sent (or, for an echo, when the packet it answers was).
    pub(super) fn note_sent(&mut self, id: u32, at: Time) {
        let k = id as usize;
        if k >= self.sent_at.len() {
            self.sent_at.resize(k + 1, Time::MAX);
        }
        self.sent_at[k] = at;
    }
}
