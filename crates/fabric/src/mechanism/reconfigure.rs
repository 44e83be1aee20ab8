//! A network that changes mid-run (a GigaRing folding its two rings into
//! one around a failed node or link; US patent 6,233,704).
//!
//! The family builds the network after the change beside the one before:
//! its ringlets wait, not live, until the change. A [`Reconfiguration`]
//! happens in three steps:
//!
//! 1. **The failure** (`failed_at`): the `cut` links deliver nothing from
//!    then on, and what is on them (not yet at the next interface) is lost;
//!    the failed agents stop: what their interfaces held on the ring and
//!    in their receive buffers is lost, they send, service and generate
//!    nothing more. Everyone else
//!    goes on as before, sending into the broken ringlets, not knowing.
//! 2. **The change** (`at`: the failure detected): the retired ringlets'
//!    interfaces stop: nothing they held on the ring (bypass FIFOs,
//!    packets on their links, echoes on the way) survives, and events still
//!    due at them are dropped when they come. The packets their output
//!    queues held go to the agents' live interfaces, as far as those have
//!    room (the rest wait, in order, and enter as room frees): those not yet
//!    sent, and those sent and awaiting an echo, which are sent again. A
//!    packet its target already accepted goes again as a duplicate, which
//!    the target recognises by its sequence number (`sequence`), echoes
//!    and drops. Every transaction a failed agent was requester or target
//!    of is lost ("at the fold"); one later generated for a failed agent is
//!    lost at once ("after the fold").
//! 3. **The new ringlets start** (`live_at`: reinitialised): their links
//!    carry nothing before; the send buffers fill meanwhile.
//!
//! Receive buffers at the agents that survive are serviced as before (the
//! client side does not fail with the ring). A packet a step frees that an
//! event may still name is freed only once every such event is past, so
//! that no event acts on a slot reused by another packet.
//!
//! It takes a fabric that keeps transactions (`Params::tracks_transactions`).

use super::Fabric;
use crate::event::Event;
use crate::packet::{PacketKind, Phase};
use crate::protocol::RingProtocol;
use crate::topology::{AgentId, IfaceId, RingletId};
use ringlet_engine::Time;
use std::collections::VecDeque;

/// A change of the network: a failure, and the ringlets retired and
/// brought in (built beside the others, idle until then) when it is detected.
#[derive(Clone, Debug)]
pub struct Reconfiguration {
    /// When the failure happens.
    pub failed_at: Time,
    /// Interfaces whose output link fails then.
    pub cut: Vec<IfaceId>,
    /// Agents that fail then.
    pub failed: Vec<AgentId>,
    /// When the failure is known and the network changes (at or after `failed_at`).
    pub at: Time,
    pub retire: Vec<RingletId>,
    pub activate: Vec<RingletId>,
    /// When the activated ringlets' links start to carry packets (at or after `at`).
    pub live_at: Time,
}

/// What a reconfiguration did, for the report.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReconfigurationCounts {
    /// Packets sent again (not yet echoed when the ring went).
    pub resent: u64,
    /// Copies their target had already accepted, echoed and dropped there.
    pub duplicates_suppressed: u64,
    /// Transactions lost with the failed agents: at the change (in flight
    /// or waiting then), and afterwards (generated for or by a failed agent).
    pub lost_at_fold: u64,
    pub lost_after_fold: u64,
    /// Moved packets that found no room in a live send buffer and waited.
    pub held: u64,
}

/// How long a cut link takes to deliver: never, within any run.
const CUT: Time = Time::MAX / 8;

/// The steps of a reconfiguration, in the low bits of its event's index.
const FAIL: u32 = 0;
const CHANGE: u32 = 1;
const RELEASE: u32 = 2;
const STEP_BITS: u32 = 2;

/// A fabric's state for its changes (empty where it never changes).
#[derive(Default)]
pub(super) struct FoldState {
    /// By receiving interface: when its input link was cut (events that
    /// come over it afterwards, sent before, are dropped). Empty if none.
    cut_at: Vec<Time>,
    /// By agent: failed and known to have (the network has changed since).
    pub(super) known: Vec<bool>,
    /// By agent and class: moved packets waiting for room in a send buffer, in order.
    held: Vec<VecDeque<u32>>,
    /// Packets freed once the events that may name them are past, by batch.
    releases: Vec<Vec<u32>>,
    /// Sent packets of failed agents, lost at the change.
    orphans: Vec<u32>,
    /// The longest a link takes to deliver a head: the events naming a
    /// send packet on a link (its head's arrival) are due within it of its
    /// sending, at or before the change; one due at the same time as the
    /// release was scheduled before it, so goes first (ties run in order).
    horizon: Time,
}

impl<P: RingProtocol> Fabric<P> {
    /// Schedules a change of the network. The ringlets it activates stand
    /// idle until then.
    pub fn reconfigure(&mut self, r: Reconfiguration) {
        assert!(self.tracked, "a fabric that changes keeps transactions (Params::tracks_transactions)");
        assert!(r.failed_at <= r.at && r.at <= r.live_at, "failure, change, start in order");
        // (A packet down a send path when its interface retires would reach a dead output queue.)
        assert!(self.ifaces.iter().all(|n| n.send_delay == 0), "a fabric that changes has no send paths");
        for &ringlet in &r.activate {
            for &i in self.topo.ringlet_ifaces(ringlet) {
                self.ifaces[i as usize].live = false;
            }
        }
        if !self.analysed {
            // The model is of the network as it starts, without the ringlets to come.
            self.analysed = true;
            self.analytic = self.analytic(self.load_per_node);
        }
        // From now on, an accepted packet is the target's own copy, so that
        // the sender still has the one it may have to send again; and send
        // packets carry sequence numbers.
        self.copy_on_accept = true;
        let agents = self.topo.agents().len();
        if self.failed.is_empty() {
            self.failed = vec![false; agents];
            self.fold.known = vec![false; agents];
            self.fold.held = vec![VecDeque::new(); agents * self.p.classes.len()];
            self.fold.cut_at = vec![Time::MAX; self.topo.ifaces()];
            self.fold.horizon = self.ifaces.iter().map(|n| n.hop.max(n.strip_hop)).max().unwrap_or(0);
        }
        let k = self.reconfigurations.len() as u32;
        self.sched.at(r.failed_at, Event::Reconfigure { index: k << STEP_BITS | FAIL }.pack());
        self.sched.at(r.at, Event::Reconfigure { index: k << STEP_BITS | CHANGE }.pack());
        self.measure.fold_times(r.failed_at, r.at, r.live_at);
        self.reconfigurations.push(r);
    }

    /// Keeps the run interval by interval, `every` long, in the report's
    /// `per_interval` (throughput, latency, resent, duplicates and lost
    /// around a fold), unless the scenario keeps one already
    /// (`run.series_interval_ns`).
    pub fn keep_series(&mut self, every: Time) {
        self.measure.keep_series(every);
        self.average_windows();
    }

    /// A step of a reconfiguration is due (see `reconfigure`).
    pub(super) fn on_reconfigure(&mut self, index: u32) {
        let k = (index >> STEP_BITS) as usize;
        match index & ((1 << STEP_BITS) - 1) {
            FAIL => self.on_failure(k),
            CHANGE => self.on_change(k),
            _ => {
                for id in std::mem::take(&mut self.fold.releases[k]) {
                    self.slab.free(id);
                }
            }
        }
    }

    /// The failure of reconfiguration `k` happens now.
    fn on_failure(&mut self, k: usize) {
        let r = self.reconfigurations[k].clone();
        let now = self.sched.now();
        // The figures so far are "before".
        self.measure.reconfigured(now);
        for &i in &r.cut {
            // A packet passing the next interface never gets into its bypass
            // FIFO; one it would strip arrives dead there (`arrives_dead`),
            // which frees an echo.
            let n = &mut self.ifaces[i as usize];
            n.hop = CUT;
            let next = n.next as usize;
            self.fold.cut_at[next] = now;
            // Heads still on the link are lost: their bypass entries at the next interface go.
            self.bypass_seen(next);
            let slab = &self.slab;
            let on_link: Vec<u32> = self.ifaces[next].bypass.iter().filter(|&&(id, ready)| ready > now && slab.at(id).kind != PacketKind::Control).map(|&(id, _)| id).collect();
            if !on_link.is_empty() {
                let kept: Vec<_> = self.ifaces[next].bypass.iter().copied().filter(|e| !on_link.contains(&e.0)).collect();
                while self.ifaces[next].bypass.pop_front().is_some() {}
                for e in kept {
                    self.ifaces[next].bypass.push_back(e);
                }
                self.free_unless_send(&on_link);
            }
        }
        let mut lost = Vec::new();
        for &a in &r.failed {
            self.failed[a as usize] = true;
            for &i in &self.topo.agent(a).ifaces.clone() {
                let i = i as usize;
                if !self.ifaces[i].live {
                    continue;
                }
                self.ifaces[i].live = false;
                self.trace_change(now, i, false);
                self.clear_ring_side(i);
                self.clear_receive_buffers(i);
                for class in 0..self.p.classes.len() as u8 {
                    let (awaiting, to_send) = self.ifaces[i].drain_output(class);
                    // Its sent packets may still be on the ring: freed at the change.
                    self.fold.orphans.extend(awaiting);
                    lost.extend(to_send);
                }
            }
        }
        for id in lost {
            self.drop_own(id);
            self.slab.free(id);
        }
    }

    /// The change of reconfiguration `k` happens now: the failure is known.
    fn on_change(&mut self, k: usize) {
        let r = self.reconfigurations[k].clone();
        let now = self.sched.now();
        for &a in &r.failed {
            self.fold.known[a as usize] = true;
        }
        let mut retired = Vec::new();
        for &ringlet in &r.retire {
            retired.extend(self.topo.ringlet_ifaces(ringlet).iter().map(|&i| i as usize));
        }
        for &i in &retired {
            if self.ifaces[i].live {
                self.ifaces[i].live = false;
                self.trace_change(now, i, false);
            }
        }
        for &ringlet in &r.activate {
            for i in self.topo.ringlet_ifaces(ringlet).to_vec() {
                let i = i as usize;
                self.ifaces[i].live = true;
                // Its links start once it is reinitialised; its send buffers fill meanwhile.
                self.ifaces[i].out_free_at = r.live_at;
                self.decide_at(i, r.live_at);
                self.trace_change(now, i, true);
            }
        }
        self.lose_transactions_of_failed(now);
        // Busied requests held back in their streams stay there and go again
        // on the folded ring, in its first phase; those of lost transactions go.
        for s in 0..self.streams.len() {
            for id in std::mem::take(&mut self.streams[s].held) {
                let pk = *self.slab.at(id);
                if self.lost_tags.contains(&pk.tag) || self.has_failed(pk.src) || self.has_failed(pk.dst) {
                    // (No event names it: its busy echo is in.)
                    self.slab.free(id);
                    continue;
                }
                let p = self.slab.at_mut(id);
                p.phase = Phase::Fresh;
                p.eff = p.priority;
                self.streams[s].held.push_back(id);
            }
        }
        // What the retired interfaces held on the ring is gone; what they had to send moves.
        let mut moving: Vec<(u32, bool)> = std::mem::take(&mut self.fold.orphans).into_iter().map(|id| (id, true)).collect();
        for &i in &retired {
            self.clear_ring_side(i);
            for class in 0..self.p.classes.len() as u8 {
                // Sent packets first: they go again ahead of those not yet sent.
                let (awaiting, to_send) = self.ifaces[i].drain_output(class);
                moving.extend(awaiting.into_iter().map(|id| (id, true)));
                moving.extend(to_send.into_iter().map(|id| (id, false)));
            }
        }
        let mut freed = Vec::new();
        let mut touched = Vec::new();
        for (id, sent) in moving {
            let pk = *self.slab.at(id);
            // Its transaction is lost if its requester or target failed (as
            // `lose_transactions_of_failed` judges). Not by its slot: a
            // packet awaiting the echo of an acceptance that completed its
            // transaction names a slot another may hold now; it goes again
            // and its target tells it for a duplicate.
            if self.has_failed(pk.src) || self.has_failed(pk.dst) {
                self.drop_own(id);
                // A pending event may still name it (its head on the way to a retired interface).
                freed.push(id);
                continue;
            }
            let p = self.slab.at_mut(id);
            p.phase = Phase::Fresh;
            p.eff = p.priority;
            if sent {
                self.reconfiguration_counts.resent += 1;
                self.measure.series_resent(now);
            }
            let held = &self.fold.held[self.held_slot(pk.src, pk.class)];
            if !held.is_empty() || !self.place_moved(id, &mut touched) {
                self.reconfiguration_counts.held += 1;
                let slot = self.held_slot(pk.src, pk.class);
                self.fold.held[slot].push_back(id);
                // In no send buffer, it takes none of its stream's window
                // until it enters one (`enter_held`). Counted, it held the
                // window the stream's busied requests wait for while they
                // keep the send buffer slots it waits for: none went again,
                // no echo freed a slot, the stream never sent again.
                self.count_in_window(id, false);
            }
        }
        self.release_later(freed);
        // The agents' client sides go on over the live interfaces.
        for a in 0..self.topo.agents().len() {
            if !self.has_failed(a as u16) {
                self.fill_requests(a);
                if !self.dma.is_empty() {
                    self.dma_fill(a);
                }
            }
        }
        touched.sort_unstable();
        touched.dedup();
        for o in touched {
            self.try_output(o);
        }
    }

    /// Interface `i` stops carrying traffic: what its bypass FIFO held (and
    /// what it generated to put there) is lost.
    fn clear_ring_side(&mut self, i: usize) {
        self.bypass_seen(i);
        let n = &mut self.ifaces[i];
        let on_ring: Vec<u32> = n.bypass.iter().map(|&(id, _)| id).chain(n.generated.iter().copied()).collect();
        while n.bypass.pop_front().is_some() {}
        n.generated.clear();
        n.inserted.clear();
        n.recovering = false;
        self.free_unless_send(&on_ring);
    }

    /// Failed interface `i`'s receive buffers go with it: the packets they
    /// held (the targets' own copies: their senders keep theirs) are freed;
    /// its servers' events are ignored from now on.
    fn clear_receive_buffers(&mut self, i: usize) {
        for class in 0..self.p.classes.len() {
            let q = self.ifaces[i].input_mut(class);
            let mut held: Vec<u32> = q.arriving.take().map(|(id, _)| id).into_iter().chain(q.in_service.take()).collect();
            while let Some(id) = q.waiting.pop() {
                held.push(id);
            }
            q.occupied = 0;
            q.stalled = false;
            for id in held {
                self.slab.free(id);
            }
        }
    }

    /// Frees the echoes and control packets among `ids`, lost on the ring
    /// (each was in one place, with no event naming it). Send packets there
    /// are their senders' copies, kept in their output queues.
    fn free_unless_send(&mut self, ids: &[u32]) {
        for &id in ids {
            if !self.slab.at(id).is_send() {
                self.slab.free(id);
            }
        }
    }

    /// Own packet `id` will never be sent again: a request no longer counts
    /// against its stream's window (its echo will never come).
    fn drop_own(&mut self, id: u32) {
        self.count_in_window(id, false);
    }

    /// Own packet `id`, if a request, counts again (`into`) or no longer
    /// against its stream's window: a stream's outstanding requests are
    /// those in a send buffer and not yet accepted. (A fabric that changes
    /// keeps transactions: its every request is a stream's.)
    fn count_in_window(&mut self, id: u32, into: bool) {
        let pk = self.slab.at(id);
        if pk.kind == PacketKind::Request {
            let st = &mut self.streams[pk.echo_of as usize].state;
            if into {
                st.outstanding += 1;
            } else {
                st.outstanding -= 1;
            }
        }
    }

    /// Frees `ids` once every event that may name them is past.
    fn release_later(&mut self, ids: Vec<u32>) {
        if ids.is_empty() {
            return;
        }
        let batch = self.fold.releases.len() as u32;
        self.fold.releases.push(ids);
        self.sched.after(self.fold.horizon, Event::Reconfigure { index: batch << STEP_BITS | RELEASE }.pack());
    }

    fn held_slot(&self, agent: u16, class: u8) -> usize {
        agent as usize * self.p.classes.len() + class as usize
    }

    /// Puts moved packet `id` into the send buffer of a live interface of
    /// its agent, if the one its ring choice picks has room; returns whether it did.
    fn place_moved(&mut self, id: u32, touched: &mut Vec<usize>) -> bool {
        let pk = *self.slab.at(id);
        let (o, to) = self.route_packet(pk.src, pk.dst, pk.class);
        if !self.ifaces[o].live || !self.ifaces[o].output(pk.class).has_room() {
            return false;
        }
        let p = self.slab.at_mut(id);
        p.from = o as u16;
        p.to = to;
        self.ifaces[o].push_own(pk.class, pk.priority, id);
        touched.push(o);
        true
    }

    /// Room may have freed in agent `a`'s send buffers of `class`: moved
    /// packets waiting for it go first, in order; a request that enters
    /// counts against its stream's window again. (Only an accepting echo,
    /// `sender_copy_done`, or a busied request held back in its stream,
    /// `moved_may_enter`, frees room, and each calls this before the agent
    /// fills its send buffers again.)
    fn enter_held(&mut self, a: u16, class: u8) {
        let slot = self.held_slot(a, class);
        let mut touched = Vec::new();
        while let Some(&id) = self.fold.held[slot].front() {
            if !self.place_moved(id, &mut touched) {
                break;
            }
            self.fold.held[slot].pop_front();
            self.count_in_window(id, true);
        }
        for o in touched {
            self.try_output(o);
        }
    }


    /// Whether an event for interface `i` is stale: it was retired (or, for
    /// a service, its agent failed) by a reconfiguration. Such an event's
    /// echo is freed; a send packet it carried is its sender's copy, moved
    /// at the change.
    #[inline(always)]
    pub(super) fn stale(&self, i: usize) -> bool {
        !self.reconfigurations.is_empty() && !self.ifaces[i].live
    }

    /// Whether a packet arriving at interface `i` now, its head `tail`
    /// earlier, is lost on the way: `i` is retired or failed, or its input
    /// link was cut before the head was through.
    #[inline(always)]
    pub(super) fn arrives_dead(&self, i: usize, tail: Time) -> bool {
        !self.reconfigurations.is_empty() && (!self.ifaces[i].live || self.fold.cut_at[i] < self.sched.now() - tail)
    }

    /// A packet `id` lost on its way into a retired, failed or cut-off
    /// interface: an echo or control packet is freed; a send packet is its
    /// sender's copy (still awaiting its echo, or freed by a later step).
    pub(super) fn lost_on_arrival(&mut self, id: u32) {
        debug_assert!(self.slab.is_live(id), "an event names packet slot {id}, freed before it came");
        if !self.slab.at(id).is_send() {
            self.slab.free(id);
        }
    }

    /// Own packet `id` of the fabric that changes is sent: it carries its flow's floor.
    #[cold]
    pub(super) fn sent_numbered(&mut self, id: u32) {
        let pk = self.slab.at(id);
        self.seqs.sent(id, (pk.src, pk.dst, pk.class));
    }

    /// Sender's packet `id` of the fabric that changes enters a send buffer: its sequence number.
    pub(super) fn number(&mut self, id: u32) {
        let pk = self.slab.at(id);
        if pk.is_send() {
            let flow = (pk.src, pk.dst, pk.class);
            self.seqs.number(id, flow);
        }
    }

    /// An accepted packet `id` of the fabric that changes (its target told
    /// it from a duplicate at its header, `is_duplicate`): returns the id the
    /// input queue holds, the target's own copy.
    pub(super) fn accepted_copy(&mut self, id: u32) -> u32 {
        let pk = *self.slab.at(id);
        self.seqs.accept(id, (pk.src, pk.dst, pk.class));
        self.slab.alloc_copy(pk)
    }

    /// Whether sender's packet `id`, arriving at its target, is a duplicate
    /// (echoed as accepted and dropped, counted).
    pub(super) fn is_duplicate(&mut self, id: u32) -> bool {
        let pk = self.slab.at(id);
        let flow = (pk.src, pk.dst, pk.class);
        if !self.seqs.is_duplicate(id, flow) {
            return false;
        }
        self.seqs.dropped(id, flow);
        self.reconfiguration_counts.duplicates_suppressed += 1;
        self.measure.series_duplicate(self.sched.now());
        true
    }

    /// The sender's copy `id` is done with (its accepting echo is back):
    /// its slot in the send buffer frees, for moved packets waiting first.
    pub(super) fn sender_copy_done(&mut self, id: u32) {
        let pk = *self.slab.at(id);
        debug_assert!(pk.kind != PacketKind::Echo);
        self.seqs.acknowledged(id, (pk.src, pk.dst, pk.class));
        self.slab.free(id);
        // (Only a fabric that changes copies on acceptance: its fold state is there.)
        self.moved_may_enter(pk.src, pk.class);
    }

    /// A slot of agent `a`'s send buffers of `class` freed in a fabric that
    /// changes: moved packets waiting for room enter first.
    pub(super) fn moved_may_enter(&mut self, a: u16, class: u8) {
        if !self.fold.held[self.held_slot(a, class)].is_empty() {
            self.enter_held(a, class);
        }
    }

    /// Keeps a trace record of interface `i` stopping or starting.
    fn trace_change(&mut self, now: Time, i: usize, live: bool) {
        if let Some(t) = self.trace.as_mut() {
            t.keep_change(now, i as u16, self.topo.agent_of(i as u16), crate::trace::TraceKind::Reconfigured { live });
        }
    }

    /// Send buffer `class` of interface `i`: packets waiting to be sent, and
    /// sent ones awaiting their echo (for tests of the change).
    pub fn send_buffer(&self, i: u16, class: u8) -> (usize, usize) {
        let q = self.ifaces[i as usize].output(class);
        (q.to_send.len(), q.awaiting.len())
    }

    /// Moved packets of agent `a`'s `class` waiting for room in its send buffers.
    pub fn held_packets(&self, a: u16, class: u8) -> usize {
        self.fold.held.get(self.held_slot(a, class)).map_or(0, |h| h.len())
    }
}

