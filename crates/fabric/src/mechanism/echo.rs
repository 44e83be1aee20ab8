//! An echo fully back at the interface that sent the packet it answers: a
//! busy echo sends the packet again; an accepting one frees its output
//! queue slot (so the application, or a server waiting for room, may use it).

use super::Fabric;
use crate::event::Event;
use crate::protocol::RingProtocol;
use crate::trace::TraceKind;

impl<P: RingProtocol> Fabric<P> {
    pub(super) fn on_echo(&mut self, i: usize, e: u32) {
        let echo = *self.slab.at(e);
        self.record(i, TraceKind::EchoBack { busy: echo.busy }, e);
        self.slab.free(e);
        let class = echo.echoed_class;
        if self.tracked {
            self.stream_echoed(echo.tag, echo.busy, echo.echo_of);
        }
        if P::RULES.traffic_control {
            let (r, at) = self.ifaces[i].place();
            self.protos[r].on_echo_field(at, self.sched.now(), echo.traffic_control, &mut self.fx);
            self.flush_effects(r);
        }
        if echo.busy {
            // The target kept nothing: the sender's copy goes again, ahead of its
            // priority's packets not yet sent, behind those busied before it.
            let pk = self.slab.at_mut(echo.echo_of);
            pk.phase = echo.echo_phase;
            pk.retries = pk.retries.saturating_add(1);
            let (eff, requester) = (pk.eff, pk.requester());
            self.counters.retries += 1;
            self.measure.retried(self.sched.now(), requester, class);
            if self.holds_retry(echo.tag, echo.echo_phase) {
                return self.hold_back(i, class, echo.tag as usize, echo.echo_of);
            }
            let holdoff = self.protos[self.ifaces[i].place().0].retry_holdoff();
            if holdoff > 0 {
                // Still counted in its output queue until it rejoins it.
                self.sched.after(holdoff, Event::Requeue { iface: i as u16, pkt: echo.echo_of }.pack());
                return;
            }
            let slab = &self.slab;
            self.ifaces[i].retry(class, eff, echo.echo_of, |x| slab.at(x).retries > 0);
        } else {
            if self.p.client.channel_latency {
                self.channel_latency(e, &echo);
            }
            self.ifaces[i].echoed(class, echo.echo_of);
            if self.copy_on_accept {
                self.sender_copy_done(echo.echo_of);
            }
            self.slot_freed(i, class, self.p.is_request_class(class));
        }
        self.try_output(i);
    }

    /// A slot of interface `i`'s send buffer of `class` is free (its
    /// packet accepted, sent into an echo-waiting slot, or held back in its
    /// stream): the agent's streams (if a `request` left it), its DMA
    /// engine and servers waiting for room may use it.
    #[inline(always)]
    pub(super) fn slot_freed(&mut self, i: usize, class: u8, request: bool) {
        let agent = self.ifaces[i].agent as usize;
        if self.tracked {
            // A handshake's ready and status go out in a request class.
            let answers = !self.dma.is_empty() && (!request || self.p.client.handshake.is_some());
            if request {
                self.fill_requests(agent);
            }
            if answers {
                self.dma_fill(agent);
            }
        } else if class == self.p.shape().request_class {
            self.fill_requests(agent);
        }
        self.resume_waiters(i, class);
        self.output_room(i);
    }

    /// Congestion: busied request `id` of `stream` leaves interface `i`'s
    /// send buffer and waits in its stream (`issue_one`), so that the
    /// window bounds what a congested stream holds of the channel (seed
    /// 002: congested streams "waste channel bandwidth and send buffer
    /// space"; a busied request that kept its slot could fill a send buffer
    /// whose packets of transfers under way, which free the target's DMA
    /// engine, then found no room: a hold-and-wait).
    #[inline(never)]
    fn hold_back(&mut self, i: usize, class: u8, stream: usize, id: u32) {
        self.ifaces[i].echoed(class, id);
        let st = &mut self.streams[stream];
        st.held.push_back(id);
        st.state.outstanding -= 1;
        if self.copy_on_accept {
            // Moved packets waiting for room after a change go first.
            self.moved_may_enter(self.slab.at(id).src, class);
        }
        // (A handshake's set-up is a stream's request in a class no kind's requests use.)
        self.slot_freed(i, class, true);
        self.try_output(i);
    }

    /// An echo answering packet `id` of stream `stream` (`NO_STREAM` for
    /// one that is not a stream's request) came back: the request no
    /// longer counts against the window if accepted; the window adapts.
    fn stream_echoed(&mut self, stream: u32, busy: bool, id: u32) {
        if stream == crate::client::NO_STREAM {
            return;
        }
        let now = self.sched.now();
        let backoff = self.p.client.backoff as u32;
        let sent_at = &self.sent_at;
        let st = &mut self.streams[stream as usize].state;
        if let crate::params::WindowPolicy::Adaptive { min, max } = self.p.client.window {
            let was = st.window;
            if busy {
                if st.window == min {
                    // Below the floor the decrease goes on in time: one
                    // request per 2, 4, ... of its round trips, down to one
                    // per `backoff` (`ClientRules::backoff`).
                    if 2 << st.pace <= backoff {
                        st.pace += 1;
                    }
                    // In the packet's round trips, from its sending to this echo.
                    let round_trip = now - sent_at.get(id as usize).copied().unwrap_or(now).min(now);
                    st.resume_at = now + ((1 << st.pace) - 1) * round_trip;
                    if st.resume_at > now {
                        let at = st.resume_at;
                        self.sched.at(at, Event::StreamWake { stream }.pack());
                    }
                }
                // Multiplicative decrease on congestion.
                let halved = (st.window / 2).max(min);
                if halved < st.window {
                    st.decreases += 1;
                }
                st.window = halved;
                st.accepted_run = 0;
            } else {
                st.pace = 0;
                // Additive increase: one more per window's worth accepted.
                st.accepted_run += 1;
                if st.accepted_run >= st.window {
                    st.window = (st.window + 1).min(max);
                    st.accepted_run = 0;
                }
            }
            if st.window != was && stream < self.stream_map.sourced {
                let is = st.window;
                self.measure.window_changed(now, was, is);
            }
        }
        let st = &mut self.streams[stream as usize].state;
        if !busy {
            st.outstanding -= 1;
        }
    }

    /// Stream `stream`'s hold-off below its window's floor may be over: it
    /// sends what it may, and its agent's interfaces decide on what it put
    /// out (nothing else would: the wake is this stream's alone).
    #[cold]
    #[inline(never)]
    pub(super) fn stream_wake(&mut self, stream: u32) {
        let agent = self.stream_agent(stream as usize);
        if self.sched.now() >= self.streams[stream as usize].state.resume_at && !self.has_failed(agent) {
            self.serve_application(agent as usize);
        }
    }

    /// Whether a busied request of `stream` is held back in its stream
    /// (`hold_back`): under adaptive congestion control, unless its target
    /// reserved a place for it (`phase`: it will be accepted, and holding
    /// it would keep the place from others). The seed: the mechanism
    /// "regulates data transfers to minimize retransmission traffic" by
    /// limiting outstanding requests; a busied request resent at once would
    /// keep the ring as full of retries as without it (the window would
    /// bound only new requests), and one that took the window from the
    /// packets of transfers under way could keep a full DMA engine full for ever.
    #[inline]
    fn holds_retry(&self, stream: u32, phase: crate::packet::Phase) -> bool {
        stream != crate::client::NO_STREAM
            && matches!(self.p.client.window, crate::params::WindowPolicy::Adaptive { .. })
            && !matches!(phase, crate::packet::Phase::Retry(_))
    }

    /// The accepting echo `e` came back to the sender of a packet: the
    /// channel latency (seed 002 Figure 6) of one that carries data.
    fn channel_latency(&mut self, e: u32, echo: &crate::packet::Packet) {
        let Some(&sent) = self.sent_at.get(e as usize) else { return };
        if echo.busy || sent == ringlet_engine::Time::MAX {
            return;
        }
        self.measure.channel(self.sched.now(), self.sched.now() - sent);
    }

    /// Servers holding a serviced packet for room in this output queue go
    /// on, first come first, while there is room for what each produces.
    #[inline(always)]
    fn resume_waiters(&mut self, i: usize, class: u8) {
        while let Some(&(w, c, need)) = self.ifaces[i].output(class).waiters.first() {
            if !self.ifaces[i].output(class).has_room_for(need as usize) {
                return;
            }
            self.ifaces[i].waiters(class).remove(0);
            self.finish(w as usize, c as usize);
        }
    }

    /// A busied packet's retry hold-off is over: it rejoins its output queue, ahead of the packets of its priority not yet sent.
    pub(super) fn requeue(&mut self, i: usize, id: u32) {
        let pk = self.slab.at(id);
        let (class, eff) = (pk.class, pk.eff);
        let slab = &self.slab;
        self.ifaces[i].retry(class, eff, id, |x| slab.at(x).retries > 0);
        self.try_output(i);
    }
}
