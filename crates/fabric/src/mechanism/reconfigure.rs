//! A network that changes mid-run (a GigaRing folding its two rings into
//! one around a failed node or link; US patent 6,233,704).
//!
//! The family builds the network after the change beside the one before:
//! its ringlets wait, not live, until the change. At the change
//! ([`Reconfiguration`]):
//!
//! - the retired ringlets' interfaces stop: nothing they held on the ring
//!   (bypass FIFOs, packets on their links, echoes on the way) survives,
//!   and events still due at them are dropped when they come;
//! - the packets their output queues held go to the agents' live
//!   interfaces: those not yet sent, and those sent and awaiting an echo,
//!   which are sent again. A packet its target had already accepted goes
//!   again as a duplicate, which the target echoes and drops;
//! - what the failed agents held is lost, and so is every transaction
//!   they were the requester or target of: counted lost, never dropped
//!   silently. Their sources stop, and a transaction later generated for
//!   one of them is lost;
//! - receive buffers at the agents that survive are serviced as before
//!   (the client side does not fail with the ring).
//!
//! It takes a fabric that keeps transactions (`Params::tracks_transactions`).

use super::Fabric;
use crate::event::Event;
use crate::packet::{PacketKind, Phase};
use crate::protocol::RingProtocol;
use crate::topology::{AgentId, RingletId};
use ringlet_engine::Time;

/// A change of the network at a time: ringlets retired, ringlets brought
/// in (built beside the others, idle until then), agents failed.
#[derive(Clone, Debug)]
pub struct Reconfiguration {
    pub at: Time,
    pub retire: Vec<RingletId>,
    pub activate: Vec<RingletId>,
    pub failed: Vec<AgentId>,
}

/// What a reconfiguration did, for the report.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReconfigurationCounts {
    /// Packets sent again (not yet echoed when the ring went).
    pub resent: u64,
    /// Of those, copies their target had already accepted, echoed and dropped there.
    pub duplicates_suppressed: u64,
    /// Transactions lost with the failed agents.
    pub lost_transactions: u64,
}

impl<P: RingProtocol> Fabric<P> {
    /// Schedules a change of the network. The ringlets it activates stand
    /// idle until then.
    pub fn reconfigure(&mut self, r: Reconfiguration) {
        assert!(self.tracked, "a fabric that changes keeps transactions (Params::tracks_transactions)");
        for &ringlet in &r.activate {
            for &i in self.topo.ringlet_ifaces(ringlet) {
                self.ifaces[i as usize].live = false;
            }
        }
        // Until the change, an accepted packet is the target's own copy, so that
        // the sender still has the one it may have to send again.
        self.copy_on_accept = true;
        if self.failed.is_empty() {
            self.failed = vec![false; self.topo.agents().len()];
        }
        let index = self.reconfigurations.len() as u32;
        self.sched.at(r.at, Event::Reconfigure { index }.pack());
        self.reconfigurations.push(r);
    }

    /// The change `index` happens now.
    pub(super) fn on_reconfigure(&mut self, index: usize) {
        let r = self.reconfigurations[index].clone();
        let now = self.sched.now();
        for &a in &r.failed {
            self.failed[a as usize] = true;
        }
        let mut retired = Vec::new();
        for &ringlet in &r.retire {
            retired.extend(self.topo.ringlet_ifaces(ringlet).iter().map(|&i| i as usize));
        }
        for &i in &retired {
            self.ifaces[i].live = false;
        }
        for &ringlet in &r.activate {
            for &i in self.topo.ringlet_ifaces(ringlet) {
                self.ifaces[i as usize].live = true;
            }
        }
        if let Some(t) = self.trace.as_mut() {
            let activated = r.activate.iter().flat_map(|&ringlet| self.topo.ringlet_ifaces(ringlet).iter().map(|&i| (i, true)));
            for (i, live) in retired.iter().map(|&i| (i as u16, false)).chain(activated) {
                t.keep_change(now, i, self.topo.agent_of(i), crate::trace::TraceKind::Reconfigured { live });
            }
        }
        self.lose_transactions_of_failed(now);
        // What the retired interfaces held on the ring is gone; what they had to send moves.
        let mut moving = Vec::new();
        for &i in &retired {
            self.bypass_seen(i);
            let n = &mut self.ifaces[i];
            let on_ring: Vec<u32> = n.bypass.iter().map(|&(id, _)| id).chain(n.generated.iter().copied()).collect();
            while n.bypass.pop_front().is_some() {}
            n.generated.clear();
            n.inserted.clear();
            n.recovering = false;
            for id in on_ring {
                // Send packets there are senders' copies, moved below with their output queues.
                if !self.slab.at(id).is_send() {
                    self.slab.free(id);
                }
            }
            for class in 0..self.p.classes.len() as u8 {
                // Sent packets first: they go again ahead of those not yet sent.
                let (awaiting, to_send) = self.ifaces[i].drain_output(class);
                moving.extend(awaiting.into_iter().map(|id| (id, true)));
                moving.extend(to_send.into_iter().map(|id| (id, false)));
            }
        }
        let mut touched = Vec::new();
        for (id, sent) in moving {
            let pk = *self.slab.at(id);
            if self.lost_tags.contains(&pk.tag) || self.has_failed(pk.src) {
                if pk.kind == PacketKind::Request && (pk.echo_of as usize) < self.streams.len() {
                    // Its echo will never come: it no longer counts against the window.
                    self.streams[pk.echo_of as usize].state.outstanding -= 1;
                }
                self.slab.free(id);
                continue;
            }
            if sent {
                self.reconfiguration_counts.resent += 1;
                if self.accepted.get(id as usize).copied().unwrap_or(false) {
                    self.mark_duplicate(id);
                }
            }
            let (o, to) = self.route_packet(pk.src, pk.dst, pk.class);
            let p = self.slab.at_mut(id);
            p.from = o as u16;
            p.to = to;
            p.phase = Phase::Fresh;
            p.eff = p.priority;
            self.ifaces[o].push_own(pk.class, pk.priority, id);
            touched.push(o);
        }
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
        self.measure.reconfigured(now);
    }

    /// Every transaction the failed agents were requester or target of is
    /// lost: counted, its waiting entries and DMA jobs dropped, its slot kept
    /// (as lost) until the run ends so that its packets still somewhere are
    /// dropped when they are serviced.
    fn lose_transactions_of_failed(&mut self, now: Time) {
        for tag in self.txns.live_tags() {
            let t = self.txns.get(tag);
            if !self.lost_tags.contains(&tag) && (self.has_failed(t.src) || self.has_failed(t.dst)) {
                self.lost_tags.insert(tag);
                self.streams[t.stream as usize].state.in_flight -= 1;
                self.lose(now, t.src, self.p.shapes[t.kind as usize].data_bytes);
            }
        }
        for s in 0..self.streams.len() {
            let queue = std::mem::take(&mut self.streams[s].queue);
            for e in queue {
                let agent = self.stream_agent(s);
                if self.has_failed(agent) || self.has_failed(e.dst) {
                    self.apps[agent as usize].waiting -= 1;
                    // One issued in part is lost with its slot, above.
                    if e.tag == crate::packet::NO_TAG {
                        self.lose(now, agent, self.p.shapes[e.kind as usize].data_bytes);
                    }
                } else {
                    self.streams[s].queue.push_back(e);
                }
            }
        }
        for a in 0..self.dma.len() {
            let lost = &self.lost_tags;
            self.dma[a].retain(|j| !lost.contains(&j.tag));
        }
    }

    /// A transaction of `agent` carrying `bytes` is lost.
    pub(super) fn lose(&mut self, now: Time, agent: u16, bytes: u32) {
        self.lost += 1;
        self.ended_by[agent as usize] += 1;
        self.reconfiguration_counts.lost_transactions += 1;
        self.measure.lost(now, bytes, agent);
    }

    /// Whether agent `a` has failed (in a fabric that changed).
    #[inline(always)]
    pub(super) fn has_failed(&self, a: u16) -> bool {
        !self.failed.is_empty() && self.failed[a as usize]
    }

    /// The agent stream `s` belongs to.
    pub(super) fn stream_agent(&self, s: usize) -> u16 {
        match self.traffic.as_ref() {
            Some(t) if s < self.hand_streams as usize => t.sources[s].agent,
            _ => (s - self.hand_streams as usize) as u16,
        }
    }

    /// Send packet `id` goes again though its target already has it.
    fn mark_duplicate(&mut self, id: u32) {
        let k = id as usize;
        if k >= self.duplicate.len() {
            self.duplicate.resize(k + 1, false);
        }
        self.duplicate[k] = true;
    }

    /// Whether an event for interface `i` is stale: it was retired (or, for
    /// a service, its agent failed) by a reconfiguration. Such an event's
    /// echo is freed; a send packet it carried is its sender's copy, moved
    /// at the change.
    #[inline(always)]
    pub(super) fn stale(&self, i: usize) -> bool {
        !self.reconfigurations.is_empty() && !self.ifaces[i].live
    }

    /// An accepted packet `id` of the fabric that changes: the sender's copy
    /// is marked accepted; returns the id the input queue holds (a new
    /// copy), or `None` for a duplicate (echoed, then dropped).
    pub(super) fn accepted_copy(&mut self, id: u32) -> Option<u32> {
        let k = id as usize;
        if self.duplicate.get(k).copied().unwrap_or(false) {
            self.duplicate[k] = false;
            self.reconfiguration_counts.duplicates_suppressed += 1;
            return None;
        }
        if k >= self.accepted.len() {
            self.accepted.resize(k + 1, false);
        }
        self.accepted[k] = true;
        Some(self.slab.alloc(*self.slab.at(id)))
    }

    /// The sender's copy `id` is done with (its accepting echo is back).
    pub(super) fn sender_copy_done(&mut self, id: u32) {
        if let Some(a) = self.accepted.get_mut(id as usize) {
            *a = false;
        }
        if let Some(d) = self.duplicate.get_mut(id as usize) {
            *d = false;
        }
        debug_assert!(self.slab.at(id).kind != PacketKind::Echo);
        self.slab.free(id);
    }
}
