//! What an event will read, fetched as soon as it is known, where that is
//! well before the event: in a network of thousands of interfaces an
//! event's interface, its queues and the routing table's entry are mostly
//! out of cache, and the wait for each was a large part of a bidirectional
//! Banyan's events (the route look-up the largest single one). A packet's
//! hop, its service and its bus transfer overlap those waits. Only hints:
//! no result depends on them.

use super::Fabric;
use crate::interface::Iface;
use crate::protocol::RingProtocol;
use ringlet_engine::hint::prefetch;

/// Interfaces from which a network fetches ahead: an interface takes
/// 1.2 KB before its queues' buffers, so from a thousand on they overflow
/// a core's 1 MB second-level cache; below, every line is there already
/// and the hints would only cost instructions (1.5% of the 8-node DFC
/// ring's).
pub(super) const FROM_IFACES: usize = 1024;

impl<P: RingProtocol> Fabric<P> {
    /// Whether this fabric fetches ahead (by default, from `FROM_IFACES`
    /// interfaces on). No result depends on it; tests set it both ways to
    /// show that.
    pub fn fetch_ahead(mut self, on: bool) -> Self {
        self.prefetching = on;
        self
    }

    /// Packet `id` heads for interface `s`, which strips it: fetches `s`,
    /// its input queue, its ringlet protocol's state for it, and, where
    /// `s`'s agent passes packets on, the leg it will look up for the packet.
    #[inline(always)]
    pub(super) fn prefetch_arrival(&self, s: usize, id: u32) {
        if self.prefetching {
            self.prefetch_arrival_now(s, id);
        }
    }

    /// (Out of line: the hot paths of small networks stay as compact as without hints.)
    #[inline(never)]
    fn prefetch_arrival_now(&self, s: usize, id: u32) {
        let (class, dst) = (self.slab.at(id).class, self.slab.at(id).dst);
        self.prefetch_iface(s);
        self.prefetch_input(s, class as usize);
        // (`s` is on the sender's ringlet, whose protocol the sender has just asked.)
        self.prefetch_protocol(s);
        let a = self.topo.agent_of(s as u16);
        if a != dst {
            self.topo.prefetch_leg(a, dst);
        }
    }

    /// A packet crossing the bus will be queued at interface `o`, which will
    /// decide on it: fetches `o` and its ringlet protocol's state for it.
    #[inline(always)]
    pub(super) fn prefetch_queued(&self, o: usize) {
        if self.prefetching {
            self.prefetch_queued_now(o);
        }
    }

    /// (Out of line, as `prefetch_arrival_now`.)
    #[inline(never)]
    fn prefetch_queued_now(&self, o: usize) {
        self.prefetch_iface(o);
        self.prefetch_protocol(o);
    }

    /// Echo `id` heads for interface `s`, which sent the packet it
    /// answers: fetches `s` and that packet's output queue, whose slot the
    /// echo frees.
    #[inline(always)]
    pub(super) fn prefetch_echo(&self, s: usize, id: u32) {
        if self.prefetching {
            self.prefetch_echo_now(s, id);
        }
    }

    /// (Out of line, as `prefetch_arrival_now`.)
    #[inline(never)]
    fn prefetch_echo_now(&self, s: usize, id: u32) {
        self.prefetch_iface(s);
        self.prefetch_output(s, self.slab.at(id).echoed_class);
    }

    // The hints themselves, given where `prefetching` holds (their callers check).

    /// Interface `i`'s first two lines: its link, bypass FIFO, place and hops.
    #[inline(always)]
    fn prefetch_iface(&self, i: usize) {
        let n: *const Iface = self.ifaces.address(i);
        prefetch(n);
        prefetch((n as *const u8).wrapping_add(64));
    }

    /// What interface `i`'s ringlet protocol reads to admit or send for it.
    #[inline(always)]
    fn prefetch_protocol(&self, i: usize) {
        self.protos[self.topo.ringlet_of(i as u16) as usize].prefetch(self.topo.position(i as u16) as usize);
    }

    /// What interface `i`'s input queue of `class` is read for as a packet
    /// arrives, is serviced or leaves across the bus.
    #[inline(always)]
    pub(super) fn prefetch_input(&self, i: usize, class: usize) {
        let q = self.ifaces[i].input(class);
        prefetch(q);
        prefetch(&q.arriving);
    }

    /// What a bus grant reads of interface `o`'s output queue of `class`
    /// (its room) and what queuing a packet there writes.
    #[inline(always)]
    pub(super) fn prefetch_output(&self, o: usize, class: u8) {
        let q = self.ifaces[o].output(class);
        prefetch(q);
        prefetch(&q.incoming);
    }
}
