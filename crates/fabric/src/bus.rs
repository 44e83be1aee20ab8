//! A bus shared by an agent's ring interfaces (Dolphin's B-Link inside an
//! SCI switch, seed 001 section III): who waits for it, who holds it, and
//! whose turn comes next.
//!
//! The timing is the agent's [`BusSpec`]; the mechanism that moves packets
//! across is `mechanism::crossing`.

use crate::topology::{BusSpec, IfaceId};

/// One agent's bus.
#[derive(Clone, Debug)]
pub struct Bus {
    pub spec: BusSpec,
    /// Interfaces whose serviced packet (of the class given) waits for the
    /// bus, in the order they asked.
    waiting: Vec<(IfaceId, u8)>,
    /// The transfer under way: the interface and class it comes from, and
    /// the interface it goes to.
    pub transfer: Option<(IfaceId, u8, IfaceId)>,
    /// The interface granted last: the round robin starts after it.
    last: IfaceId,
}

impl Bus {
    pub fn new(spec: BusSpec) -> Bus {
        Bus { spec, waiting: Vec::new(), transfer: None, last: IfaceId::MAX }
    }

    /// Interface `i`'s packet of `class` asks for the bus.
    pub fn ask(&mut self, i: IfaceId, class: u8) {
        debug_assert!(!self.waiting.contains(&(i, class)), "interface {i} asks twice");
        self.waiting.push((i, class));
    }

    /// Whether anyone waits for the bus.
    pub fn has_waiting(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// Grants the bus round robin: to the first waiting interface after the
    /// last one granted, in interface order, that `ready` lets go (its
    /// packet's output queue has room); `None` if none may go. The grant is
    /// no longer waiting.
    pub fn grant(&mut self, ready: impl Fn(IfaceId, u8) -> bool) -> Option<(IfaceId, u8)> {
        let after = self.last.wrapping_add(1);
        let turn = |&(i, c): &(IfaceId, u8)| (i.wrapping_sub(after), c);
        let k = (0..self.waiting.len()).filter(|&k| ready(self.waiting[k].0, self.waiting[k].1)).min_by_key(|&k| turn(&self.waiting[k]))?;
        let (i, c) = self.waiting.remove(k);
        self.last = i;
        Some((i, c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bus() -> Bus {
        Bus::new(BusSpec { beat: 40_000, symbols_per_beat: 4, overhead_beats: 0, exit: 82_000 })
    }

    /// Round robin: each waiting port in turn after the last granted,
    /// whatever order they asked in; a port whose packet may not go is
    /// passed over without losing its place.
    #[test]
    fn grants_go_round_robin_and_skip_ports_not_ready() {
        let mut b = bus();
        for i in [7, 3, 5] {
            b.ask(i, 0);
        }
        assert_eq!(b.grant(|_, _| true), Some((3, 0)));
        b.ask(3, 0);
        assert_eq!(b.grant(|_, _| true), Some((5, 0)));
        assert_eq!(b.grant(|i, _| i != 7), Some((3, 0)), "7 is not ready: 3 goes, its turn having come round");
        assert_eq!(b.grant(|i, _| i != 7), None);
        assert!(b.has_waiting());
        assert_eq!(b.grant(|_, _| true), Some((7, 0)));
        assert!(!b.has_waiting());
    }

    /// A transfer holds the bus for the packet's beats plus the framing.
    #[test]
    fn a_transfer_takes_the_packets_beats() {
        let mut spec = bus().spec;
        assert_eq!(spec.transfer(40), 10 * 40_000);
        assert_eq!(spec.transfer(41), 11 * 40_000);
        spec.overhead_beats = 2;
        assert_eq!(spec.transfer(8), 4 * 40_000);
    }
}
