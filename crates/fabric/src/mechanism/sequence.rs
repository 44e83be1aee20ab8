//! Sequence numbers for duplicate detection, as a node chip would keep
//! them, in a fabric that may change (`Fabric::reconfigure`): a packet
//! sent again after a change may be one its target already accepted (its
//! echo was lost with the ring).
//!
//! Every send packet an agent queues carries a number, counted per
//! (source, target, traffic class), and, each time it is sent, its
//! sender's *floor* for that flow: the oldest number whose accepting echo
//! the sender has not had (cumulative, so it only grows). The target keeps,
//! per flow, the numbers it accepted at or above the highest floor it has
//! seen. A packet whose number is kept is a duplicate: it is told at its
//! header and echoed as accepted, then dropped, whatever room its input
//! queue has.
//!
//! Forgetting below a floor loses nothing, whatever order packets arrive
//! in: every number below it had its accepting echo, so is never sent
//! again. The numbers kept are those accepted since the flow's oldest
//! unacknowledged packet was queued: the packets of a flow that pass one
//! its target busies for long (or that waits in one send buffer while the
//! flow's others go by another ring). A fixed window of numbers below the
//! highest accepted would not do: after a fold, a packet accepted before
//! it may come again after more than any window's worth of its flow.
//!
use std::collections::{BTreeSet, HashMap};

/// (source agent, target agent, class).
type Flow = (u16, u16, u8);

/// A sender's side of one flow: the next number, and those whose
/// accepting echo it has not had.
#[derive(Clone, Debug, Default)]
struct Sender {
    next: u32,
    unacknowledged: BTreeSet<u32>,
}

/// A target's side of one flow: the numbers it accepted at or above the highest floor.
#[derive(Clone, Debug, Default)]
struct Target {
    accepted: BTreeSet<u32>,
}

impl Target {
    /// A packet arrives carrying `floor`: what lies below can never come again.
    fn forget_below(&mut self, floor: u32) {
        while self.accepted.first().is_some_and(|&n| n < floor) {
            self.accepted.pop_first();
        }
    }
}

/// The senders' and targets' tables, and the number and floor each
/// sender's packet carries (by packet id: fields of the packet, kept
/// beside the slab so that fabrics that never change pay nothing).
#[derive(Default)]
pub(super) struct Sequences {
    senders: HashMap<Flow, Sender>,
    targets: HashMap<Flow, Target>,
    of: Vec<u32>,
    floor: Vec<u32>,
    /// By sender's packet id: accepted by its target already.
    truth: Vec<bool>,
    /// Packets taken for new that their target had accepted before.
    delivered_twice: u64,
}

/// `v[k]`, the table grown to hold it.
fn slot<T: Default + Clone>(v: &mut Vec<T>, k: u32) -> &mut T {
    let k = k as usize;
    if k >= v.len() {
        v.resize(k + 1, T::default());
    }
    &mut v[k]
}

impl Sequences {
    /// Sender's packet `id` of `flow` enters its send buffer: its number.
    pub fn number(&mut self, id: u32, flow: Flow) {
        let s = self.senders.entry(flow).or_default();
        *slot(&mut self.of, id) = s.next;
        s.unacknowledged.insert(s.next);
        s.next += 1;
        *slot(&mut self.truth, id) = false;
    }

    /// Sender's packet `id` of `flow` is sent: it carries the flow's floor.
    pub fn sent(&mut self, id: u32, flow: Flow) {
        let s = &self.senders[&flow];
        *slot(&mut self.floor, id) = *s.unacknowledged.first().expect("the packet itself");
    }

    /// The accepting echo of sender's packet `id` of `flow` is back: its
    /// number will never be sent again.
    pub fn acknowledged(&mut self, id: u32, flow: Flow) {
        let n = self.of[id as usize];
        if let Some(s) = self.senders.get_mut(&flow) {
            s.unacknowledged.remove(&n);
        }
    }

    /// Whether sender's packet `id` of `flow`, arriving at its target, is
    /// one the target accepted already, as it tells by the number and the
    /// floor at the header.
    pub fn is_duplicate(&mut self, id: u32, flow: Flow) -> bool {
        let (n, floor) = (self.of[id as usize], self.floor[id as usize]);
        let t = self.targets.entry(flow).or_default();
        t.forget_below(floor);
        t.accepted.contains(&n)
    }

    /// Sender's packet `id` of `flow` is accepted by its target (not a
    /// duplicate: `is_duplicate` said so at its header).
    pub fn accept(&mut self, id: u32, flow: Flow) {
        let n = self.of[id as usize];
        self.targets.entry(flow).or_default().accepted.insert(n);
        let before = std::mem::replace(slot(&mut self.truth, id), true);
        self.delivered_twice += before as u64;
    }

    /// A packet dropped as a duplicate: its target had it (debug builds check).
    pub fn dropped(&self, id: u32, flow: Flow) {
        debug_assert!(self.truth.get(id as usize).copied().unwrap_or(false), "packet {id} of {flow:?} dropped as a duplicate, never accepted before");
    }

    /// Packets delivered a second time: their target did not tell them from new.
    pub fn delivered_twice(&self) -> u64 {
        self.delivered_twice
    }
}

#[cfg(test)]
mod tests {
    use super::Sequences;

    const F: (u16, u16, u8) = (0, 1, 2);

    /// A target keeps what it accepted until a floor passes it; however
    /// far the flow's numbers run ahead of an old packet, and whatever the
    /// order packets arrive in, it is told.
    #[test]
    fn a_target_tells_what_it_accepted_until_the_floor_passes_it() {
        let mut s = Sequences::default();
        // Packets 0 and 1 queued; 1 is sent first, with floor 0.
        s.number(0, F);
        s.number(1, F);
        s.sent(1, F);
        s.sent(0, F);
        assert!(!s.is_duplicate(0, F));
        s.accept(0, F);
        // Packet 0's echo is lost: it stays unacknowledged while 300 more go and are echoed.
        for id in 2..=300 {
            s.number(id, F);
            s.sent(id, F);
            assert!(!s.is_duplicate(id, F));
            s.accept(id, F);
            s.acknowledged(id, F);
        }
        // Packet 1 arrives late: its floor (0) forgets nothing.
        assert!(!s.is_duplicate(1, F));
        s.accept(1, F);
        s.acknowledged(1, F);
        s.sent(0, F);
        assert!(s.is_duplicate(0, F), "sent again, it is told");
        s.acknowledged(0, F);
        // All acknowledged: the next packet's floor is its own number, and what was kept is forgotten.
        s.number(301, F);
        s.sent(301, F);
        assert!(!s.is_duplicate(301, F));
        assert_eq!(s.targets[&F].accepted.len(), 0);
        assert_eq!(s.delivered_twice(), 0);
        // A packet accepted twice counts.
        s.accept(301, F);
        s.accept(301, F);
        assert_eq!(s.delivered_twice(), 1);
    }

    /// A busied packet holds the floor (it may go again), and going again
    /// it is new at its target.
    #[test]
    fn a_busied_packet_holds_the_floor_and_is_new_when_it_goes_again() {
        let mut s = Sequences::default();
        s.number(7, F);
        s.sent(7, F);
        assert!(!s.is_duplicate(7, F)); // busied there
        s.number(8, F);
        s.sent(8, F);
        assert_eq!(s.floor[8], 0, "packet 7 (number 0) is not acknowledged");
        assert!(!s.is_duplicate(8, F));
        s.accept(8, F);
        s.acknowledged(8, F);
        s.sent(7, F);
        assert!(!s.is_duplicate(7, F));
    }
}
