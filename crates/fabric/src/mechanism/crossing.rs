//! Packets crossing an agent's bus (a switch's B-Link) from the input queue
//! of the interface that stripped them to the output queue of the one that
//! sends them on (seed 001 section III; `docs/model-switch.md`).
//!
//! A packet serviced at a switch port (its service time is the port's
//! FIFO-to-bus delay, where that is a pipeline) asks for the bus. The bus grants round robin among
//! the ports that ask, and only to a packet whose output queue has room: a
//! full output buffer holds the packet in its input buffer (back-pressure),
//! which then busies what arrives behind it. The grant holds an output
//! slot; the transfer holds the bus for the packet's frame (after the
//! FIFO-to-bus time, where that holds the bus: `BusSpec::entry`); when it ends
//! the input slot is free and the port services its next packet, and the
//! packet reaches the output queue after the bus-to-FIFO delay
//! (`send_path::on_queued`). A grant made while the bus was idle waits for
//! the arbitration; one made as a transfer ends does not.

use super::Fabric;
use crate::bus::Request;
use crate::event::Event;
use crate::packet::{Packet, PacketKind};
use crate::protocol::RingProtocol;
use crate::topology::Leg;
use crate::trace::TraceKind;

impl<P: RingProtocol> Fabric<P> {
    /// Whether interface `i`'s agent passes packets between its interfaces
    /// over a bus.
    #[inline(always)]
    pub(super) fn has_bus(&self, i: usize) -> bool {
        self.ifaces[i].on_bus
    }

    /// Packet `id` starts its service at interface `i`'s input queue of
    /// `class`: where the agent passes packets on across its bus, one for
    /// another agent has its next leg looked up now, as a switch port
    /// decodes the header of a packet coming in, not when it asks for the
    /// bus. (In a large network the look-up is a cache miss, which the
    /// packet's arrival then overlaps rather than the request waiting on it.)
    #[inline(always)]
    pub(super) fn decode(&mut self, i: usize, class: usize, id: u32) {
        let n = &self.ifaces[i];
        let dst = self.slab.at(id).dst;
        if n.on_bus && dst != n.agent {
            let leg = self.topo.leg(n.agent, dst);
            self.ifaces[i].input_mut(class).leg = leg;
            if self.prefetching && leg.out != crate::topology::NO_IFACE {
                // (Its bus request asks for room there once serviced.)
                self.prefetch_output(leg.out as usize, self.slab.at(id).class);
            }
        }
    }

    /// The packet serviced at interface `i`'s input queue of `class` is for
    /// another agent: it waits for the bus.
    pub(super) fn ask_bus(&mut self, i: usize, class: usize) {
        let q = self.ifaces[i].input_mut(class);
        q.stalled = true;
        let (id, leg) = (q.in_service.expect("a packet in service"), q.leg);
        let agent = self.ifaces[i].agent as usize;
        let pk = self.slab.at(id);
        debug_assert_eq!(leg, self.topo.leg(agent as u16, pk.dst), "decoded as its service started");
        let request = Request { from: i as u16, class: class as u8, to: leg.out, to_class: pk.class, strip: leg.strip };
        self.buses[agent].as_mut().expect("a bus").ask(request);
        self.arbitrate(agent);
    }

    /// If agent `a`'s bus is free, grants it to the next port whose packet
    /// may go, and starts the transfer: at once if the bus has just freed
    /// (the grant was decided during the last transfer), else after the
    /// arbitration, the bus reserved meanwhile.
    pub(super) fn arbitrate(&mut self, a: usize) {
        let Some(bus) = self.buses[a].as_ref() else { return };
        if bus.transfer.is_some() || !bus.has_waiting() {
            return;
        }
        let mut bus = self.buses[a].take().expect("a bus");
        if let Some(r) = bus.grant(|r| self.ifaces[r.to as usize].output(r.to_class).has_room()) {
            let id = self.ifaces[r.from as usize].input(r.class as usize).in_service.expect("a packet in service");
            self.ifaces[r.to as usize].hold_incoming(r.to_class);
            if self.prefetching {
                // (The transfer's end settles the port's input queue.)
                self.prefetch_input(r.from as usize, r.class as usize);
            }
            bus.transfer = Some(r);
            let now = self.sched.now();
            let arbitration = if bus.freed_at == Some(now) { 0 } else { bus.spec.arbitration };
            let took = arbitration + bus.spec.transfer(self.slab.at(id).len);
            self.measure.bus_used(a, now, took);
            self.record_at(now + arbitration, r.from as usize, TraceKind::BusGranted, id);
            self.sched.at(now + took, Event::BusFree { agent: a as u16 }.pack());
        }
        self.buses[a] = Some(bus);
    }

    /// Agent `a`'s bus ends its transfer: the port it came from is done with
    /// the packet, which goes on to its output queue; the bus is granted again.
    pub(super) fn on_bus_free(&mut self, a: usize) {
        let now = self.sched.now();
        let bus = self.buses[a].as_mut().expect("a bus");
        let r = bus.transfer.take().expect("a transfer under way");
        bus.freed_at = Some(now);
        let leg = Leg { out: r.to, strip: r.strip };
        self.finish_on(r.from as usize, r.class as usize, Some(leg));
        self.arbitrate(a);
    }

    /// `pk`, serviced at interface `i` and across the bus, is on its way to
    /// output interface `o`: there after the bus-to-FIFO delay.
    pub(super) fn cross(&mut self, i: usize, o: usize, pk: Packet) {
        let a = self.ifaces[i].agent as usize;
        let exit = self.buses[a].as_ref().expect("a bus").spec.exit;
        let id = self.slab.alloc_copy(pk);
        let now = self.sched.now();
        let data = self.data_carried(&pk);
        self.measure.crossed(now, a, i, o, data);
        self.prefetch_queued(o);
        self.sched.at(now + exit, Event::Queued { iface: o as u16, pkt: id }.pack());
    }

    /// An output queue of interface `i` has room again: a bus transfer
    /// waiting for it may go.
    #[inline(always)]
    pub(super) fn output_room(&mut self, i: usize) {
        if self.has_bus(i) {
            self.arbitrate(self.ifaces[i].agent as usize);
        }
    }

    /// Data payload bytes packet `pk` carries (of a transaction's several
    /// responses, the first's share).
    fn data_carried(&self, pk: &Packet) -> u32 {
        let (shape, response) = (self.p.shape(), pk.kind == PacketKind::Response);
        match (shape.carries_data(response), response) {
            (false, _) => 0,
            (true, true) => shape.data_share(0, shape.responses),
            (true, false) => shape.data_bytes,
        }
    }
}
