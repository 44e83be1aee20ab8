//! What a protocol instance asks for after one of its calls, carried out on
//! its ringlet: wake-ups, control packets, priority raises.

use super::Fabric;
use crate::event::Event;
use crate::packet::{Packet, PacketKind};
use crate::protocol::RingProtocol;

impl<P: RingProtocol> Fabric<P> {
    /// Carries out what ringlet `r`'s protocol asked for in its last call.
    #[inline(always)]
    pub(super) fn flush_effects(&mut self, r: usize) {
        if !self.fx.is_empty() {
            self.carry_out_effects(r);
        }
    }

    #[inline(never)]
    fn carry_out_effects(&mut self, r: usize) {
        // Held interfaces the protocol released decide again then (merged
        // with any output decision already due by that time).
        while let Some((at, time)) = self.fx.wakes.pop() {
            let i = self.topo.ringlet_iface(r as u16, at as usize) as usize;
            // (A wake ends a firm hold: what held the interface has changed.)
            self.ifaces[i].held_until = 0;
            self.decide_at(i, time);
        }
        while let Some((at, pkt, prio)) = self.fx.raises.pop() {
            let i = self.topo.ringlet_iface(r as u16, at as usize) as usize;
            self.raise(i, pkt, prio);
        }
        let controls = std::mem::take(&mut self.fx.controls);
        for &(at, len, tag, time) in &controls {
            let i = self.topo.ringlet_iface(r as u16, at as usize);
            if time <= self.sched.now() {
                self.emit_control(i as usize, len, tag);
            } else {
                // (Length and tag wait in a table: a train may be longer than an event's field.)
                let pending = self.pending_controls.put((len, tag));
                self.sched.at(time, Event::EmitControl { iface: i, pending }.pack());
            }
        }
        self.fx.controls = controls;
        self.fx.controls.clear();
    }

    /// Interface `i` puts a control packet on its ringlet: it leads the
    /// output like an echo (ahead of bypass packets that arrive later),
    /// once the bypass FIFO has room for it.
    pub(super) fn emit_control(&mut self, i: usize, len: u16, tag: u32) {
        let now = self.sched.now();
        let next = self.ifaces[i].next;
        let (from, to) = (self.ifaces[i].agent, self.ifaces[next as usize].agent);
        let mut c = Packet::new(PacketKind::Control, 0, from, to, 0, len, now).on(i as u16, next);
        c.tag = tag;
        let id = self.slab.alloc(c);
        self.insert_generated(i, id);
        self.decide_at(i, now);
    }

    /// A priority raise reaches interface `i`: raise `pkt` if it waits here.
    fn raise(&mut self, i: usize, pkt: u32, prio: u16) {
        if !self.slab.at(pkt).is_send() {
            return; // (the packet is gone; its slot holds an echo or a control packet now)
        }
        // A packet whose tail is in waits (one still coming in does not yet).
        self.settle_arrival(i, self.slab.at(pkt).class as usize);
        let n = &mut self.ifaces[i];
        let in_bypass = n.bypass.iter().any(|&(id, _)| id == pkt);
        let pk = self.slab.at_mut(pkt);
        if pk.eff >= prio {
            return;
        }
        if in_bypass {
            pk.eff = prio;
            return;
        }
        let class = pk.class as usize;
        if n.input_mut(class).waiting.remove_first(|&id| id == pkt).is_some() {
            pk.eff = prio;
            n.input_mut(class).waiting.push(prio, pkt);
        }
    }
}
