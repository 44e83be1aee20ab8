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
            self.stream_echoed(echo.tag, echo.busy);
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
                // Congestion: the packet waits, keeping its send buffer slot,
                // while its stream's window goes to the packets of transfers
                // under way; it goes again when the window has room left
                // (`release_retries`).
                let st = &mut self.streams[echo.tag as usize];
                st.held.push_back((i as u16, echo.echo_of));
                st.state.held += 1;
                self.fill_requests(self.ifaces[i].agent as usize);
                self.release_retries(echo.tag as usize);
                return self.try_output(i);
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
            let agent = self.ifaces[i].agent as usize;
            if self.tracked {
                let request = self.p.is_request_class(class);
                if request {
                    self.fill_requests(agent);
                    // What window the stream's new packets left goes to its held retries.
                    if echo.tag != crate::client::NO_STREAM && self.streams[echo.tag as usize].state.held > 0 {
                        self.release_retries(echo.tag as usize);
                    }
                }
                // A handshake's ready and status go out in a request class.
                if !self.dma.is_empty() && (!request || self.p.client.handshake.is_some()) {
                    self.dma_fill(agent);
                }
            } else if class == self.p.shape().request_class {
                self.fill_requests(agent);
            }
            self.resume_waiters(i, class);
            self.output_room(i);
        }
        self.try_output(i);
    }

    /// An echo answering a packet of stream `stream` (`NO_STREAM` for one
    /// that is not a stream's request) came back: the request no longer
    /// counts against the window if accepted; the window adapts.
    fn stream_echoed(&mut self, stream: u32, busy: bool) {
        if stream == crate::client::NO_STREAM {
            return;
        }
        let st = &mut self.streams[stream as usize].state;
        if let crate::params::WindowPolicy::Adaptive { min, max } = self.p.client.window {
            let was = st.window;
            if busy {
                // Multiplicative decrease on congestion.
                let halved = (st.window / 2).max(min);
                if halved < st.window {
                    st.decreases += 1;
                }
                st.window = halved;
                st.accepted_run = 0;
            } else {
                // Additive increase: one more per window's worth accepted.
                st.accepted_run += 1;
                if st.accepted_run >= st.window {
                    st.window = (st.window + 1).min(max);
                    st.accepted_run = 0;
                }
            }
            if st.window != was && stream < self.hand_streams {
                let (now, is) = (self.sched.now(), st.window);
                self.measure.window_changed(now, was, is);
            }
        }
        let st = &mut self.streams[stream as usize].state;
        if !busy {
            st.outstanding -= 1;
        }
    }

    /// Whether a busied request of `stream` waits before going again: under
    /// adaptive congestion control, unless its target reserved a place for
    /// it (`phase`: it will be accepted, and holding it would keep the
    /// place from others). The seed: the mechanism "regulates data
    /// transfers to minimize retransmission traffic" by limiting
    /// outstanding requests; a busied request resent at once would keep the
    /// ring as full of retries as without it (the window would bound only
    /// new requests), and one that took the window from the packets of
    /// transfers under way could keep a full DMA engine full for ever.
    #[inline]
    fn holds_retry(&self, stream: u32, phase: crate::packet::Phase) -> bool {
        stream != crate::client::NO_STREAM
            && matches!(self.p.client.window, crate::params::WindowPolicy::Adaptive { .. })
            && !matches!(phase, crate::packet::Phase::Retry(_))
    }

    /// Stream `s`'s held retries go again, oldest first, while its window has room.
    fn release_retries(&mut self, s: usize) {
        loop {
            let st = &self.streams[s].state;
            if st.held == 0 || st.outstanding - st.held >= st.window {
                return;
            }
            let (i, id) = self.streams[s].held.pop_front().expect("held retries");
            self.streams[s].state.held -= 1;
            // (A reconfiguration may have moved it meanwhile: then it is gone from here.)
            if self.ifaces[i as usize].live && self.ifaces[i as usize].output(self.slab.at(id).class).awaiting.contains(&id) {
                self.requeue(i as usize, id);
            }
        }
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
