//! A ringlet as its protocol instance sees it.

use super::{IfaceId, RingletId, Topology};
use ringlet_engine::Time;

/// A ringlet as its protocol instance sees it: positions 0..len in ring
/// order, distances and travel times between them. Protocols keep their
/// state by position and never compute ring distance themselves.
#[derive(Clone, Debug)]
pub struct RingletView {
    pub id: RingletId,
    /// Its first interface: positions are interface ids less this.
    first: IfaceId,
    ifaces: Vec<IfaceId>,
    hops: Vec<Time>,
    /// Time from position 0's output to each position's.
    cum: Vec<Time>,
    /// Time once round.
    round: Time,
}

impl RingletView {
    pub fn len(&self) -> usize {
        self.ifaces.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ifaces.is_empty()
    }

    /// The interface at `pos`.
    #[inline]
    pub fn iface(&self, pos: usize) -> IfaceId {
        self.ifaces[pos]
    }

    /// The position of interface `i`, which must be on this ringlet.
    #[inline(always)]
    pub fn pos(&self, i: IfaceId) -> usize {
        // (A ringlet's interfaces are numbered consecutively: no table to
        // look up for every packet a protocol looks at.)
        let pos = i.wrapping_sub(self.first) as usize;
        debug_assert!(self.ifaces.get(pos) == Some(&i), "interface {i} is not on ringlet {}", self.id);
        pos
    }

    #[inline]
    pub fn downstream(&self, pos: usize) -> usize {
        if pos + 1 == self.ifaces.len() {
            0
        } else {
            pos + 1
        }
    }

    /// Links from `from` downstream to `to` (0 if equal).
    #[inline]
    pub fn distance(&self, from: usize, to: usize) -> usize {
        (to + self.ifaces.len() - from) % self.ifaces.len()
    }

    /// Time symbols take from `from`'s output downstream to `to`'s.
    #[inline]
    pub fn travel(&self, from: usize, to: usize) -> Time {
        if to >= from {
            self.cum[to] - self.cum[from]
        } else {
            self.round - (self.cum[from] - self.cum[to])
        }
    }

    /// Time symbols take from position 0's output to `pos`'s: `travel(i,
    /// j)` is `offset(j) - offset(i)`, plus `round()` where `j < i`.
    #[inline]
    pub fn offset(&self, pos: usize) -> Time {
        self.cum[pos]
    }

    /// The longest travel between two positions (to the one just upstream).
    pub fn longest_travel(&self) -> Time {
        self.round - self.hops.iter().copied().min().unwrap_or(0)
    }

    /// Time once round the ringlet.
    pub fn round(&self) -> Time {
        self.round
    }

    /// The hop leaving `pos`.
    pub fn hop(&self, pos: usize) -> Time {
        self.hops[pos]
    }
}

impl Topology {
    /// What a protocol instance of ringlet `r` sees of it.
    pub fn view(&self, r: RingletId) -> RingletView {
        let ifaces = self.ringlets[r as usize].clone();
        let mut cum = Vec::with_capacity(ifaces.len() + 1);
        let mut t = 0;
        for &i in &ifaces {
            cum.push(t);
            t += self.hop[i as usize];
        }
        let hops: Vec<Time> = ifaces.iter().map(|&i| self.hop[i as usize]).collect();
        RingletView { id: r, first: ifaces[0], ifaces, hops, cum, round: t }
    }
}
