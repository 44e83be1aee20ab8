//! Sequence numbers for duplicate detection, as a node chip would keep
//! them, in a fabric that may change (`Fabric::reconfigure`): a packet
//! sent again after a change may be one its target already accepted (its
//! echo was lost with the ring).
//!
//! Every send packet an agent queues carries a 16-bit number, counted per
//! (source, target, traffic class). The target keeps, per (source, class),
//! the highest number it accepted and a 128-bit window of which of the 128
//! numbers below it it accepted. A packet whose number is marked is a
//! duplicate: echoed as accepted, then dropped. The window holds every
//! packet a source can have sent and not seen echoed toward one target on
//! one class (its send buffers fill and stop it: the family checks
//! `gigaring.send_buffer_packets` at most 64 with a fault), so a duplicate
//! is always within it; a number older than the window is a packet busied
//! for long while later ones of its flow went through, never accepted: new.
//!
//! The tables are kept only where the fabric may change; debug builds also
//! keep the per-packet truth and check the numbers give the same verdict.

use std::collections::HashMap;

/// Numbers a window covers below the highest accepted one.
pub const WINDOW: u16 = 128;

/// (source agent, target agent, class).
type Flow = (u16, u16, u8);

/// The numbers a target accepted from one source on one class.
#[derive(Clone, Copy, Debug, Default)]
struct Window {
    /// One past the highest number accepted.
    top: u16,
    /// Bit k: number `top - 1 - k` was accepted.
    bits: u128,
    /// Nothing accepted yet (any number is new).
    used: bool,
}

impl Window {
    /// Number `n` arrives: returns whether it is new (and marks it).
    fn accept(&mut self, n: u16) -> bool {
        let ahead = n.wrapping_sub(self.top) as i16;
        if !self.used || ahead >= 0 {
            let shift = if self.used { ahead as u32 + 1 } else { 128 };
            self.bits = if shift >= 128 { 0 } else { self.bits << shift };
            self.bits |= 1;
            self.top = n.wrapping_add(1);
            self.used = true;
            return true;
        }
        let k = self.top.wrapping_sub(n) - 1;
        if k >= WINDOW {
            return true; // older than the window: busied while later ones went, never accepted
        }
        let bit = 1u128 << k;
        let new = self.bits & bit == 0;
        self.bits |= bit;
        new
    }
}

/// The senders' counters, the targets' windows, and the number each
/// sender's packet carries (by packet id: the field of the packet, kept
/// beside the slab so that fabrics that never change pay nothing).
#[derive(Default)]
pub(super) struct Sequences {
    next: HashMap<Flow, u16>,
    seen: HashMap<Flow, Window>,
    of: Vec<u16>,
    /// Debug builds: by sender's packet id, accepted by its target already.
    #[cfg(debug_assertions)]
    truth: Vec<bool>,
}

impl Sequences {
    /// Sender's packet `id` of `flow` enters its send buffer: its number.
    pub fn number(&mut self, id: u32, flow: Flow) {
        let next = self.next.entry(flow).or_insert(0);
        let k = id as usize;
        if k >= self.of.len() {
            self.of.resize(k + 1, 0);
        }
        self.of[k] = *next;
        *next = next.wrapping_add(1);
        #[cfg(debug_assertions)]
        if let Some(t) = self.truth.get_mut(k) {
            *t = false;
        }
    }

    /// Sender's packet `id` of `flow` is accepted by its target: whether it
    /// is new there (false: a duplicate).
    pub fn accept(&mut self, id: u32, flow: Flow) -> bool {
        let n = self.of.get(id as usize).copied().unwrap_or(0);
        let new = self.seen.entry(flow).or_default().accept(n);
        #[cfg(debug_assertions)]
        {
            let k = id as usize;
            if k >= self.truth.len() {
                self.truth.resize(k + 1, false);
            }
            assert_eq!(new, !self.truth[k], "sequence number {n} of packet {id} {flow:?}: the window's verdict differs from the packet's history");
            self.truth[k] = true;
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::Window;

    /// In order, out of order, again, wrapping at 2^16, and older than the window.
    #[test]
    fn a_window_marks_what_it_accepted() {
        let mut w = Window::default();
        assert!(w.accept(0) && w.accept(2) && w.accept(1));
        assert!(!w.accept(1) && !w.accept(2) && !w.accept(0));
        assert!(w.accept(200));
        assert!(w.accept(3), "128 or more below the highest: a packet busied for long, new");
        assert!(w.accept(199) && !w.accept(199));
        let mut w = Window::default();
        assert!(w.accept(65534) && w.accept(65535) && w.accept(0) && w.accept(1));
        assert!(!w.accept(65535) && !w.accept(0));
    }
}
