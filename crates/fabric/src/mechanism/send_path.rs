//! Packets an agent puts into its own output queues: there at once, or,
//! where the agent has a send path (an LC-II's B-Link to output FIFO,
//! `PortSpec::send_delay`), holding their slot from now and there when
//! they have come down it. Packets across the agent's bus arrive the same
//! way (`crossing`).

use super::Fabric;
use crate::event::Event;
use crate::protocol::RingProtocol;
use crate::trace::TraceKind;

impl<P: RingProtocol> Fabric<P> {
    /// Own packet `id` of `class` for interface `o`'s output queue, which
    /// has room for it: queued now, or, down a send path, its slot held
    /// until it is there. The caller lets `o` decide.
    #[inline(always)]
    pub(super) fn queue_own(&mut self, o: usize, class: u8, priority: u16, id: u32) {
        // (At an interface a change retired it would never go, nor its echo come.)
        debug_assert!(self.ifaces[o].live, "own packet {id} queued at interface {o}, which is not live: {:?} at {}, src failed {} dst failed {} known {}", self.slab.at(id), self.sched.now(), self.has_failed(self.slab.at(id).src), self.has_failed(self.slab.at(id).dst), self.knows_failed(self.slab.at(id).dst));
        if self.copy_on_accept {
            self.number(id);
        }
        let delay = self.ifaces[o].send_delay;
        if delay == 0 {
            return self.ifaces[o].push_own(class, priority, id);
        }
        self.ifaces[o].hold_incoming(class);
        self.sched.after(delay, Event::Queued { iface: o as u16, pkt: id }.pack());
    }

    /// Packet `id`, across the agent's bus or down its send path, reaches
    /// interface `i`'s output queue.
    pub(super) fn on_queued(&mut self, i: usize, id: u32) {
        let pk = self.slab.at_mut(id);
        pk.queued_at = self.sched.now();
        let (class, priority) = (pk.class, pk.priority);
        self.ifaces[i].incoming_arrived(class, priority, id);
        let what = if self.has_bus(i) { TraceKind::BusDelivered } else { TraceKind::Queued };
        self.record(i, what, id);
        self.try_output(i);
    }
}
