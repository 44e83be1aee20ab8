//! What an output link sends next, and sending it: the register-insertion
//! rule, own packets offered to the protocol, a packet put on a link.

use super::Fabric;
use crate::event::Event;
use crate::interface::{in_fifo, NO_DECISION};
use crate::packet::PacketKind;
use crate::protocol::{BypassOrder, Permit, RingProtocol};
use crate::topology::NO_IFACE;
use crate::trace::TraceKind;
use ringlet_engine::Time;

impl<P: RingProtocol> Fabric<P> {
    /// The output decision: forward buffered bypass traffic, or start an own
    /// packet; nothing while the link is busy or a decision is due now.
    #[inline(always)]
    pub(super) fn try_output(&mut self, i: usize) {
        let now = self.sched.now();
        let n = &self.ifaces[i];
        if n.decision_at == now {
            return;
        }
        if n.out_free_at > now {
            // The link's release is a time stamp; its decision is scheduled
            // only once something waits for it.
            if n.decision_at != n.out_free_at {
                self.decide_when_free(i);
            }
            return;
        }
        self.decide_output(i);
    }

    #[inline(never)]
    fn decide_when_free(&mut self, i: usize) {
        let n = &self.ifaces[i];
        let free = n.out_free_at;
        if P::RULES.firm_holds && n.held_past(free, P::RULES.recovery, |first| self.slab.at(first).eff) {
            // An own packet the protocol would hold as the others: their wake decides.
            self.wake_held(i, n.held_until);
        } else {
            self.decide_at(i, free);
        }
    }

    /// Lets each of agent `a`'s interfaces decide (something was put into their output queues).
    pub(super) fn try_outputs(&mut self, a: usize) {
        for k in 0..self.topo.agent(a as u16).ifaces.len() {
            self.try_output(self.topo.agent(a as u16).ifaces[k] as usize);
        }
    }

    #[inline(never)]
    fn decide_output(&mut self, i: usize) {
        self.decide_output_inline(i);
    }

    #[inline(always)]
    pub(super) fn decide_output_inline(&mut self, i: usize) {
        if !self.ifaces[i].generated.is_empty() {
            self.release_generated(i);
        }
        if P::RULES.bypass == BypassOrder::Priority {
            return self.decide_prioritized(i);
        }
        let now = self.sched.now();
        let n = &self.ifaces[i];
        // Register-insertion rule: a packet that arrived before this instant is
        // in the bypass FIFO and must drain first (the usual case at
        // saturation, so tested first); one arriving right now can still be
        // buffered while the interface inserts its own packet.
        if let Some(&(id, ready)) = n.bypass.front() {
            if ready < now {
                let has_own = n.has_own();
                self.bypass_leaves(i, id, ready);
                self.ifaces[i].bypass.pop_front();
                if has_own {
                    self.own_blocked_behind(i, id);
                }
                return self.transmit(i, id, false);
            }
        }
        if P::RULES.recovery && n.recovering {
            self.recovered(i);
        }
        let n = &self.ifaces[i];
        if n.has_own() && n.inserted.is_empty() && self.start_own(i) {
            return;
        }
        match self.ifaces[i].bypass.front() {
            Some(&(id, ready)) if ready <= now => {
                self.bypass_leaves(i, id, ready);
                self.ifaces[i].bypass.pop_front();
                self.transmit(i, id, false);
            }
            // A passing packet is on its way: decide again when it arrives.
            Some(&(_, ready)) => self.decide_at(i, ready),
            None => {}
        }
    }

    /// The interface's bypass FIFO is empty again after its own packet:
    /// its transmission recovery is over (with [`Rules::recovery`]).
    ///
    /// [`Rules::recovery`]: crate::protocol::Rules::recovery
    #[inline(never)]
    pub(super) fn recovered(&mut self, i: usize) {
        self.ifaces[i].recovering = false;
        let (r, at) = self.ifaces[i].place();
        self.protos[r].on_recovered(at, self.sched.now(), &mut self.fx);
        self.flush_effects(r);
    }

    /// The interface's own packet is held back by bypass traffic: tell the
    /// protocol (inlined into the forwarding decision: most calls end at the
    /// quiet check).
    #[inline(always)]
    pub(super) fn own_blocked(&mut self, i: usize) {
        self.counters.bypass_waits += 1;
        let n = &self.ifaces[i];
        if n.blocked_quiet == Some(n.own_changes()) {
            return; // the protocol said another call would change nothing
        }
        self.tell_blocked(i);
    }

    /// `own_blocked`, with bypass entry `id` about to go out: what the
    /// protocol puts into the stream now queues behind it.
    #[inline(always)]
    pub(super) fn own_blocked_behind(&mut self, i: usize, id: u32) {
        self.ifaces[i].out_free_at = self.sched.now() + self.slot_of(id);
        self.own_blocked(i);
    }

    /// Link time packet `id` takes (`Params::slot_of`).
    #[inline(always)]
    pub(super) fn slot_of(&self, id: u32) -> Time {
        self.p.slot_of(self.slab.at(id))
    }

    /// `own_blocked` when the protocol has to be told.
    #[inline(never)]
    fn tell_blocked(&mut self, i: usize) {
        let n = &self.ifaces[i];
        let (changes, (r, at)) = (n.own_changes(), n.place());
        let first = n.first_own().expect("has own packet");
        let waiting = self.slab.at(first).eff;
        let again = self.protos[r].on_blocked(at, self.sched.now(), waiting, &mut self.fx);
        self.ifaces[i].blocked_quiet = (!again).then_some(changes);
        self.flush_effects(r);
    }

    /// Offers the interface's own packets to the protocol in send order;
    /// starts the first one it lets go. Returns whether one was started.
    #[inline(always)]
    pub(super) fn start_own(&mut self, i: usize) -> bool {
        // Every own packet was skipped last time and nothing the answers
        // depend on has changed: they would all be skipped again.
        let n = &self.ifaces[i];
        let (r, at) = n.place();
        if P::RULES.firm_holds {
            if let Some(until) = n.firmly_held(self.sched.now(), |first| self.slab.at(first).eff) {
                self.protos[r].held_again(at);
                self.wake_held(i, until);
                return false;
            }
        }
        let epoch = self.protos[r].permit_epoch(at);
        if let (Some(e), Some((was, changes, skips))) = (epoch, n.all_skipped) {
            if e == was && changes == n.own_changes() {
                self.protos[r].skipped_again(at, skips as u64);
                return false;
            }
        }
        self.offer_own(i, epoch)
    }

    /// `start_own` when the protocol has to be asked.
    #[inline(never)]
    fn offer_own(&mut self, i: usize, epoch: Option<u64>) -> bool {
        let now = self.sched.now();
        let n = &self.ifaces[i];
        let (r, at) = n.place();
        let first = n.first_own().expect("has own packet");
        let mut pick = None;
        let permit = self.protos[r].may_send(at, now, first, self.slab.at(first), &mut self.fx);
        match permit {
            Permit::Go => pick = Some(first),
            Permit::Hold { wake_at } => {
                if let Some(w) = wake_at {
                    if P::RULES.firm_holds {
                        let n = &mut self.ifaces[i];
                        (n.held_until, n.held_eff) = (w, self.slab.at(first).eff);
                        self.wake_held(i, w);
                    } else {
                        self.decide_at(i, w);
                    }
                }
            }
            Permit::Skip => {
                // The protocol may let a later packet go: offer the rest in order.
                let slab = &self.slab;
                let mut cands = std::mem::take(&mut self.cands);
                match self.protos[r].only_candidates(at) {
                    Some(list) => {
                        cands.clear();
                        cands.push(first);
                        cands.extend(list.iter().copied().filter(|&id| id != first));
                    }
                    None => self.ifaces[i].own_in_order(&mut cands, |id| slab.at(id).eff),
                }
                let mut skips = 1;
                let mut held = false;
                for &id in cands.iter().skip(1) {
                    match self.protos[r].may_send(at, now, id, self.slab.at(id), &mut self.fx) {
                        Permit::Go => {
                            pick = Some(id);
                            break;
                        }
                        Permit::Skip => skips += 1,
                        Permit::Hold { wake_at } => {
                            if let Some(w) = wake_at {
                                self.decide_at(i, w);
                            }
                            held = true;
                            break;
                        }
                    }
                }
                self.cands = cands;
                if let (Some(e), None, false) = (epoch, pick, held) {
                    let n = &mut self.ifaces[i];
                    n.all_skipped = Some((e, n.own_changes(), skips));
                }
            }
        }
        // What the protocol asked for while deciding (a held node's idles now say it waits).
        if !self.fx.is_empty() {
            self.flush_effects(r);
        }
        let Some(id) = pick else { return false };
        let pk = *self.slab.at(id);
        self.ifaces[i].take_own(id, pk.class);
        // (Sending changes what held the others: PPQ's higher priority may go past a hold.)
        self.ifaces[i].held_until = 0;
        let next_own = self.ifaces[i].first_own().map(|next| self.slab.at(next).eff);
        // (What the protocol puts into the stream now waits for room behind the packet.)
        self.ifaces[i].out_free_at = now + self.slot_of(id);
        self.protos[r].on_sent(at, now, id, &pk, next_own, &mut self.fx);
        self.ifaces[i].recovering = P::RULES.recovery;
        self.flush_effects(r);
        self.counters.send_packets += 1;
        if self.p.client.keeps_send_times() {
            self.note_sent(id, now);
        }
        self.transmit(i, id, true);
        let q = self.ifaces[i].output(pk.class);
        if P::RULES.echo_waiting && q.ewq > 0 && q.has_room() {
            // Into an echo-waiting slot: the packet's output queue slot is
            // free now, not at its echo, for what waits for one.
            self.slot_freed(i, pk.class, self.p.is_request_class(pk.class));
        }
        true
    }

    /// Puts packet `id` on interface `i`'s output link now (inlined into
    /// both callers: it runs once per hop).
    #[inline(always)]
    pub(super) fn transmit(&mut self, i: usize, id: u32, own: bool) {
        let now = self.sched.now();
        let slot = self.slot_of(id);
        let pk = self.slab.at(id);
        let (len, mut to, send, kind, class, retries) = (pk.len, pk.to, pk.is_send(), pk.kind, pk.class, pk.retries);
        if send && self.inversions.is_some() {
            let pk = *pk;
            self.output_inversion(i, &pk);
        }
        let n = &mut self.ifaces[i];
        n.out_free_at = now + slot;
        // A decision at the link's release only if something already waits for it;
        // whatever comes later asks for one (try_output).
        if P::RULES.firm_holds && n.held_past(now + slot, P::RULES.recovery, |first| self.slab.at(first).eff) {
            // Only own packets the protocol holds wait for the link: the
            // hold's wake decides.
            let until = n.held_until;
            self.wake_held(i, until);
        } else if n.waits_for_link(P::RULES.recovery) {
            n.decision_at = now + slot;
            self.sched.at(now + slot, Event::OutputFree { iface: i as u16 }.pack());
        } else if n.decision_at < now + slot {
            n.decision_at = NO_DECISION;
        }
        let n = &self.ifaces[i];
        let (next, hop, strip_hop) = (n.next, n.hop, n.strip_hop);
        if self.cascades && to == next && send && retries == 0 {
            // (A retry goes back to the chip that busied it, which may hold its reservation.)
            to = self.cascade_target(next as usize, class as usize, id);
        }
        if to == next {
            let ready = now + strip_hop;
            if kind == PacketKind::Echo {
                // Stripped where it answers: its symbols become idles, and
                // that interface acts on the full echo, so nothing happens at its head.
                self.counters.packet_hops += 1;
                self.prefetch_echo(next as usize, id);
                self.sched.at(ready + len as Time * self.p.cycle, Event::EchoIn { iface: next, pkt: id }.pack());
            } else {
                self.prefetch_arrival(next as usize, id);
                self.sched.at(ready, Event::HeadArrive { iface: next, pkt: id }.pack());
            }
        } else {
            // Passing through `next`: into its bypass FIFO (this link delivers
            // in time order, so the entry goes last), decided on by then.
            let ready = now + hop;
            self.counters.packet_hops += 1;
            let m = &mut self.ifaces[next as usize];
            m.bypass.push_back((id, ready));
            let at = ready.max(m.out_free_at);
            if m.decide_by(at, now) {
                self.sched.at(at, Event::OutputFree { iface: next }.pack());
            }
        }
        if P::RULES.recovery && !own {
            let r = self.ifaces[i].ringlet as usize;
            let at = self.ifaces[i].pos as usize;
            self.protos[r].on_pass(at, now, len);
        }
        if P::RULES.traffic_control && send {
            let (r, at) = self.ifaces[i].place();
            let pk = self.slab.at_mut(id);
            if own {
                // A packet sent again starts with a fresh field.
                pk.traffic_control = self.protos[r].own_field(at);
            } else {
                self.protos[r].mark_passing(at, now, &mut pk.traffic_control);
            }
        }
        if own && send && self.copy_on_accept {
            // It carries its flow's floor (`sequence.rs`).
            self.sent_numbered(id);
        }
        self.measure.link_used(i, now, len as Time * self.p.cycle, send);
        self.record(i, TraceKind::Transmit { own }, id);
    }

    /// The interface that strips send packet `id`, of `class`, headed for
    /// interface `to`: `to` itself, or, where `to` is a chip of a cascade
    /// whose input queue of the class is full, the first later chip with
    /// room (else the last), which takes it in its stead and which its
    /// echo and any retry then name (Richter's multi-B-Link switch, SCINET
    /// book pp. 119-120: a busied packet's retry must find the chip
    /// responsible for it, so only a packet's first sending is passed on).
    /// Decided as the packet leaves for `to`: the fabric's bypass FIFOs
    /// take packets in the order a link delivers them.
    #[cold]
    #[inline(never)]
    fn cascade_target(&mut self, to: usize, class: usize, id: u32) -> u16 {
        let mut at = to;
        loop {
            let next = self.topo.cascade_next(at as u16);
            let q = self.ifaces[at].input(class);
            if next == NO_IFACE || q.occupied < q.capacity {
                break;
            }
            at = next as usize;
        }
        if at != to {
            self.slab.at_mut(id).to = at as u16;
        }
        at as u16
    }

    /// Makes sure interface `i` takes an output decision no later than `at`,
    /// or than the moment its link frees if that is later.
    #[inline(always)]
    pub(super) fn decide_at(&mut self, i: usize, at: Time) {
        let now = self.sched.now();
        // Not while the link is busy: that decision could send nothing.
        let at = at.max(self.ifaces[i].out_free_at);
        if self.ifaces[i].decide_by(at, now) {
            self.sched.at(at, Event::OutputFree { iface: i as u16 }.pack());
        }
    }

    /// `decide_at` for a firm hold's wake at `at` (later than now): no
    /// second event where one for that time is already pending. (A
    /// decision due while the link is busy does nothing: it is no decision.)
    #[inline(always)]
    pub(super) fn wake_held(&mut self, i: usize, at: Time) {
        let now = self.sched.now();
        let n = &mut self.ifaces[i];
        if n.decision_at < n.out_free_at {
            n.decision_at = NO_DECISION;
        }
        let at = at.max(n.out_free_at);
        if n.decide_by(at, now) && (n.wake_queued != at || at <= now) {
            n.wake_queued = at;
            self.sched.at(at, Event::OutputFree { iface: i as u16 }.pack());
        }
    }

    /// Bypass entry `id` (head ready at `ready`) of interface `i` starts to
    /// leave now: the FIFO's peak holding so far is counted first.
    #[inline(always)]
    pub(super) fn bypass_leaves(&mut self, i: usize, id: u32, ready: Time) {
        let (now, cycle, slab) = (self.sched.now(), self.p.cycle, &self.slab);
        let crate::interface::Iface { inserted, bypass, occupancy, .. } = &mut self.ifaces[i];
        if !inserted.is_empty() {
            inserted.retain(|&x| x != id);
        }
        let entries = bypass.iter().map(|&(e, r)| span(slab, e, r, cycle));
        let (came, len) = span(slab, id, ready, cycle);
        occupancy.leaves(entries, now, came, len);
    }

    /// Interface `i`'s bypass FIFO is about to change other than by an entry
    /// arriving or leaving: its peak holding so far is counted first.
    pub(super) fn bypass_seen(&mut self, i: usize) {
        let (now, cycle, slab) = (self.sched.now(), self.p.cycle, &self.slab);
        let crate::interface::Iface { bypass, occupancy, .. } = &mut self.ifaces[i];
        occupancy.seen(bypass.iter().map(|&(e, r)| span(slab, e, r, cycle)), now);
    }

    /// The most symbols interface `i`'s bypass FIFO has held so far.
    pub(super) fn bypass_max_symbols(&self, i: usize) -> u64 {
        let (cycle, slab, n) = (self.p.cycle, &self.slab, &self.ifaces[i]);
        let peak = n.occupancy.peak_until(n.bypass.iter().map(|&(e, r)| span(slab, e, r, cycle)), self.sched.now());
        peak.div_ceil(cycle)
    }

    /// Puts `id` into interface `i`'s bypass FIFO at the current position in
    /// the stream: behind what has arrived, ahead of what is still arriving.
    pub(super) fn insert_in_stream(&mut self, i: usize, id: u32) {
        self.insert_in_stream_ready(i, id, self.sched.now());
    }

    /// Puts `id`, a packet interface `i` generates itself (not in place of
    /// a stripped packet), into the stream as soon as its bypass FIFO has
    /// room for it: a node outputs nothing the FIFO could not hold, so
    /// until then it waits, behind any generated before it.
    pub(super) fn insert_generated(&mut self, i: usize, id: u32) {
        self.ifaces[i].generated.push_back(id);
        self.release_generated(i);
        if self.ifaces[i].generated.back() == Some(&id) {
            self.counters.generated_waits += 1;
        }
    }

    /// Inserts the generated packets waiting at interface `i` that now fit.
    #[inline(never)]
    pub(super) fn release_generated(&mut self, i: usize) {
        let (now, size) = (self.sched.now(), self.p.bypass_fifo_symbols);
        while let Some(&id) = self.ifaces[i].generated.front() {
            let n = &self.ifaces[i];
            let committed = n.bypass_committed(&self.slab, &self.p, now);
            // Its symbols and separator on top (one longer than the FIFO
            // could never fit: it goes when the FIFO is empty).
            let needs = self.slot_of(id).div_ceil(self.p.cycle) as u32;
            if committed != 0 && committed + needs > size {
                return;
            }
            self.ifaces[i].generated.pop_front();
            self.ifaces[i].inserted.push(id);
            self.slab.at_mut(id).queued_at = now;
            self.bypass_seen(i);
            self.insert_in_stream(i, id);
        }
    }

    /// `insert_in_stream`, the packet ready to leave only at `ready` (what
    /// follows it in the stream waits behind it).
    pub(super) fn insert_in_stream_ready(&mut self, i: usize, id: u32, ready: Time) {
        let now = self.sched.now();
        let slab = &self.slab;
        let arrived = |e: &(u32, Time)| in_fifo(slab, e, now);
        let bypass = &mut self.ifaces[i].bypass;
        if bypass.back().is_none_or(arrived) {
            // Usually nothing is on its way in: the end of the queue.
            bypass.push_back((id, ready));
            return;
        }
        let at = bypass.iter().rposition(arrived).map_or(0, |k| k + 1);
        bypass.insert(at, (id, ready));
    }
}

/// When bypass entry `id` (head ready to leave at `ready`) starts to come
/// into the FIFO, and its length, in symbol times: a control packet a node
/// holds while it handles it comes in from its arrival (`queued_at`, moved
/// earlier by any symbols the node added to it), before it can leave;
/// everything else from when it can leave.
#[inline(always)]
fn span(slab: &crate::packet::Slab, id: u32, ready: Time, cycle: Time) -> (Time, Time) {
    let pk = slab.at(id);
    let came = if pk.kind == PacketKind::Control { pk.queued_at.min(ready) } else { ready };
    (came, pk.len as Time * cycle)
}
