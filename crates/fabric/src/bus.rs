//! A bus shared by an agent's ring interfaces (Dolphin's B-Link inside an
//! SCI switch, seed 001 section III): who waits for it, who holds it, and
//! whose turn comes next.
//!
//! The timing is the agent's [`BusSpec`]; the mechanism that moves packets
//! across is `mechanism::crossing`.

use crate::topology::{BusSpec, IfaceId};
use ringlet_engine::Time;

/// One agent's bus.
#[derive(Clone, Debug)]
pub struct Bus {
    pub spec: BusSpec,
    /// Interfaces whose serviced packet (of the class given) waits for the
    /// bus, in the order they asked, each with the output queue (interface
    /// and class) its packet goes to.
    waiting: Vec<Request>,
    /// The transfer under way.
    pub transfer: Option<Request>,
    /// The interface granted last: the round robin starts after it.
    last: IfaceId,
    /// When the last transfer ended (a grant then was decided during it).
    pub freed_at: Option<Time>,
}

/// A packet waiting for the bus: from interface `from`'s input queue of
/// `class`, to interface `to`'s output queue of `to_class`, to be stripped
/// by interface `strip` on `to`'s ringlet (its route's next leg, kept so
/// that passing it on after the transfer needs no second look-up).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub from: IfaceId,
    pub class: u8,
    pub to: IfaceId,
    pub to_class: u8,
    pub strip: IfaceId,
}

impl Bus {
    pub fn new(spec: BusSpec) -> Bus {
        Bus { spec, waiting: Vec::new(), transfer: None, last: IfaceId::MAX, freed_at: None }
    }

    /// A packet asks for the bus.
    pub fn ask(&mut self, r: Request) {
        debug_assert!(!self.waiting.iter().any(|w| (w.from, w.class) == (r.from, r.class)), "interface {} asks twice", r.from);
        self.waiting.push(r);
    }

    /// Whether anyone waits for the bus.
    pub fn has_waiting(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// Grants the bus round robin: to the first waiting interface after the
    /// last one granted, in interface order, whose request `ready` lets go
    /// (its output queue has room); `None` if none may go. The grant is no
    /// longer waiting.
    pub fn grant(&mut self, ready: impl Fn(&Request) -> bool) -> Option<Request> {
        let after = self.last.wrapping_add(1);
        let turn = |r: &Request| (r.from.wrapping_sub(after), r.class);
        let k = (0..self.waiting.len()).filter(|&k| ready(&self.waiting[k])).min_by_key(|&k| turn(&self.waiting[k]))?;
        let r = self.waiting.remove(k);
        self.last = r.from;
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bus() -> Bus {
        Bus::new(BusSpec { name: "bus", beat: 40_000, symbols_per_beat: 4, frame_beats: 0, entry: 0, arbitration: 0, exit: 82_000 })
    }

    fn from(i: IfaceId) -> Request {
        Request { from: i, class: 0, to: 100 + i, to_class: 0, strip: 200 + i }
    }

    /// Round robin: each waiting port in turn after the last granted,
    /// whatever order they asked in; a port whose packet may not go is
    /// passed over without losing its place.
    #[test]
    fn grants_go_round_robin_and_skip_ports_not_ready() {
        let mut b = bus();
        for i in [7, 3, 5] {
            b.ask(from(i));
        }
        assert_eq!(b.grant(|_| true), Some(from(3)));
        b.ask(from(3));
        assert_eq!(b.grant(|_| true), Some(from(5)));
        assert_eq!(b.grant(|r| r.from != 7), Some(from(3)), "7 is not ready: 3 goes, its turn having come round");
        assert_eq!(b.grant(|r| r.from != 7), None);
        assert!(b.has_waiting());
        assert_eq!(b.grant(|_| true), Some(from(7)));
        assert!(!b.has_waiting());
    }

    /// A transfer holds the bus for the packet's beats plus the framing,
    /// after the FIFO-to-bus time where that holds the bus.
    #[test]
    fn a_transfer_takes_the_packets_beats() {
        let mut spec = bus().spec;
        assert_eq!(spec.transfer(40), 10 * 40_000);
        assert_eq!(spec.transfer(41), 11 * 40_000);
        spec.frame_beats = 2;
        assert_eq!(spec.transfer(8), 4 * 40_000);
        spec.entry = 106_000;
        assert_eq!(spec.transfer(8), 106_000 + 4 * 40_000);
    }
}
