//! Where an agent's packets go: the interface it sends from and the one
//! that strips the packet there, by the routes or, where the ring choice
//! picks per packet, by the ways each live interface offers.

use super::Fabric;
use crate::protocol::RingProtocol;
use crate::topology::NO_IFACE;

impl<P: RingProtocol> Fabric<P> {
    /// The interface agent `a` sends a packet for `dst` on.
    #[inline(always)]
    pub(super) fn out_iface(&self, a: u16, dst: u16) -> usize {
        match self.apps[a as usize].iface {
            NO_IFACE => self.topo.out_iface(a, dst) as usize,
            i => i as usize,
        }
    }

    /// Where agent `a` puts a packet for `dst` on a ringlet: the interface
    /// it sends from, and the one on that ringlet that strips it.
    #[inline(always)]
    pub(super) fn route_to(&self, a: u16, dst: u16) -> (usize, u16) {
        match self.apps[a as usize].iface {
            NO_IFACE => self.route_on(a, dst),
            o => (o as usize, self.topo.strip_from(o, self.ifaces[o as usize].ringlet, dst)),
        }
    }

    /// `route_to` for an agent with several interfaces (a bridge or
    /// switch passing a packet on): one look-up in the topology's tables,
    /// touching neither the agent's application (a switch has none to
    /// speak of) nor the state of the interface it sends from (in a large
    /// network, cache misses both).
    #[inline(always)]
    pub(super) fn route_on(&self, a: u16, dst: u16) -> (usize, u16) {
        let leg = self.topo.leg(a, dst);
        (leg.out as usize, leg.strip)
    }

    /// Hops from interface `i` to `to`, downstream on their ringlet.
    #[inline(always)]
    pub(super) fn hops(&self, i: u16, to: u16) -> u16 {
        let len = self.topo.ringlet_ifaces(self.ifaces[i as usize].ringlet).len() as u16;
        (self.topo.position(to) + len - self.topo.position(i)) % len
    }

    /// Where the ring choice picks per packet, hands `way` each way agent
    /// `a` may send a packet for `dst` by: each live interface that reaches
    /// it, with the interface that strips the packet and the hops to it;
    /// returns `false` where the routes decide (`RingChoice::Routes`, or an
    /// agent of one interface). (The simulation's choice and the analytic
    /// model's ways both go through it; a plain loop, which inlines where an
    /// iterator did not.)
    #[inline(always)]
    pub(crate) fn choice_ways(&self, a: u16, dst: u16, mut way: impl FnMut(u16, u16, usize)) -> bool {
        if self.p.client.ring_choice == crate::params::RingChoice::Routes || self.apps[a as usize].iface != NO_IFACE {
            return false;
        }
        for &i in &self.topo.agent(a).ifaces {
            let n = &self.ifaces[i as usize];
            if !n.live {
                continue;
            }
            let to = self.topo.strip_from(i, n.ringlet, dst);
            if to != NO_IFACE {
                way(i, to, self.hops(i, to) as usize);
            }
        }
        true
    }

    /// Where agent `a` puts a packet of `class` for `dst`: as `route_to`,
    /// or with [`RingChoice::Balance`] on the interface whose output queue
    /// of that class holds the fewest packets, to send or awaiting their echo (ties to fewer hops, then
    /// to fewer packets in its output queues of every class, then the lower
    /// ringlet), with `Nearest` on the one of fewest hops (ties as `Balance`).
    ///
    /// [`RingChoice::Balance`]: crate::params::RingChoice::Balance
    #[inline(always)]
    pub(super) fn route_packet(&self, a: u16, dst: u16, class: u8) -> (usize, u16) {
        let balance = self.p.client.ring_choice == crate::params::RingChoice::Balance;
        // (Its load of the class, hops, load of every class, ringlet): the
        // smallest wins; `Nearest` swaps the first two.
        type Key = (usize, usize, usize, u16);
        let mut best: Option<(Key, usize, u16)> = None;
        // (Where the routes decide it names no way, and `best` stays `None`.)
        self.choice_ways(a, dst, |i, to, hops| {
            let n = &self.ifaces[i as usize];
            // Its send buffer's occupancy: packets to send and sent ones awaiting their echo.
            let load = n.output(class).held();
            // Ties to the one whose send buffers of every class hold fewer (a
            // handshake's messages would otherwise all take the lower ringlet).
            let all: usize = (0..self.p.classes.len() as u8).map(|c| n.output(c).held()).sum();
            let key = if balance { (load, hops, all, n.ringlet) } else { (hops, load, all, n.ringlet) };
            if best.is_none_or(|(k, _, _)| key < k) {
                best = Some((key, i as usize, to));
            }
        });
        best.map_or_else(|| self.route_to(a, dst), |(_, i, to)| (i, to))
    }

    /// The kind of transaction send packet `pk` belongs to.
    #[inline(always)]
    pub(super) fn kind_of(&self, pk: &crate::packet::Packet) -> usize {
        if self.tracked { self.txns.get(pk.tag).kind as usize } else { 0 }
    }
}
