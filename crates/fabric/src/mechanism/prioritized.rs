//! The priority-ordered bypass ([`BypassOrder::Priority`], PPQ's): echoes
//! and control symbols first, then send packets by priority, oldest first;
//! and an own packet that bypass traffic holds back turns the
//! lower-priority send packets buffered there into busy echoes to their
//! sources, as far as it needs the room.
//!
//! [`BypassOrder::Priority`]: crate::protocol::BypassOrder::Priority

use super::Fabric;
use crate::packet::Phase;
use crate::protocol::RingProtocol;
use crate::trace::TraceKind;
use ringlet_engine::Time;

impl<P: RingProtocol> Fabric<P> {
    /// The output decision with a prioritized bypass FIFO.
    pub(super) fn decide_prioritized(&mut self, i: usize) {
        let now = self.sched.now();
        let buffered = self.ifaces[i].bypass.front().is_some_and(|&(_, ready)| ready < now);
        if P::RULES.recovery && !buffered && self.ifaces[i].recovering {
            self.recovered(i);
        }
        let has_own = self.ifaces[i].has_own();
        if has_own && !buffered && self.ifaces[i].inserted.is_empty() && self.start_own(i) {
            return;
        }
        if has_own && buffered {
            self.preempt_for_own(i);
        }
        // Best arrived entry: highest rank, oldest first.
        let mut best: Option<(usize, u32)> = None;
        let mut next_arrival = None;
        for (k, &(id, ready)) in self.ifaces[i].bypass.iter().enumerate() {
            if ready > now {
                next_arrival = Some(ready);
                break;
            }
            let rank = self.bypass_rank(i, id, ready, now);
            if best.is_none_or(|(_, r)| rank > r) {
                best = Some((k, rank));
            }
        }
        match best {
            Some((k, _)) => {
                let (id, ready) = self.ifaces[i].bypass[k];
                self.bypass_leaves(i, id, ready);
                self.ifaces[i].bypass.remove(k);
                if has_own && buffered {
                    self.own_blocked_behind(i, id);
                }
                self.transmit(i, id, false);
            }
            None => {
                if let Some(at) = next_arrival {
                    self.decide_at(i, at);
                }
            }
        }
    }

    /// Makes room in the bypass FIFO for a held own packet: while the
    /// buffered symbols and the own packet's would overflow the FIFO, the
    /// lowest-priority buffered send packet below the own packet's priority
    /// is turned into a busy echo in place (youngest first among equals).
    fn preempt_for_own(&mut self, i: usize) {
        let now = self.sched.now();
        let r = self.ifaces[i].ringlet as usize;
        let first = self.ifaces[i].first_own().expect("own");
        let own = *self.slab.at(first);
        let need = self.p.slot_symbols(own.len);
        loop {
            let mut used = 0;
            let mut victim: Option<(usize, u32)> = None;
            for (k, &(id, ready)) in self.ifaces[i].bypass.iter().enumerate() {
                if ready >= now {
                    break;
                }
                let pk = self.slab.at(id);
                used += self.p.slot_symbols(pk.len);
                if pk.is_send() {
                    let rank = self.protos[r].bypass_priority(pk, now - ready);
                    if rank < own.eff as u32 && victim.is_none_or(|(_, r)| rank <= r) {
                        victim = Some((k, rank));
                    }
                }
            }
            if used + need <= self.p.bypass_fifo_symbols as Time {
                return;
            }
            let Some((k, _)) = victim else { return };
            let (id, ready) = self.ifaces[i].bypass[k];
            self.bypass_seen(i);
            let echo = self.busy_echo(i, id, Phase::Fresh);
            self.ifaces[i].bypass[k] = (echo, ready);
            self.counters.preemptions += 1;
            self.record(i, TraceKind::Preempted, id);
        }
    }

    /// Rank of a bypass entry: send packets by their bypass priority, the rest above all.
    #[inline]
    fn bypass_rank(&self, i: usize, id: u32, ready: Time, now: Time) -> u32 {
        let pk = self.slab.at(id);
        if pk.is_send() {
            self.protos[self.ifaces[i].ringlet as usize].bypass_priority(pk, now - ready)
        } else {
            u32::MAX
        }
    }
}
