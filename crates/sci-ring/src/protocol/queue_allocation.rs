//! IEEE 1596 queue allocation: the phases a busied send packet goes
//! through, and the A/B reservations that keep a retried packet from
//! starving behind fresh traffic.
//!
//! - A packet is first sent as **NOTRY**. An input queue admits it if it
//!   has a slot beyond those reserved; otherwise it answers **BUSY_D**,
//!   reserving nothing, and the source retries the packet as **DOTRY**.
//! - A **DOTRY** packet is admitted on the same terms. Busied again, it gets
//!   a reservation: the queue answers **BUSY_A** or **BUSY_B** and the
//!   source retries it as **RETRY_A** / **RETRY_B**.
//! - The queue serves one reservation phase at a time. A retry of the phase
//!   served is admitted whenever a slot is free; one of the other phase only
//!   into a slot the served phase does not need. When the served phase has
//!   no reservation left, service moves to the other one; packets reserved
//!   meanwhile join the phase served next.
//!
//! The standard keeps a reservation flag per phase; the flags stand for the
//! packets a queue has answered BUSY_A or BUSY_B and not yet admitted, which
//! are counted here, so that a slot is held for exactly those packets.
//! (docs/model-sci.md; docs/assumptions.md.)

use ringlet_fabric::packet::Phase;
use ringlet_fabric::params::MAX_CLASSES;
use ringlet_fabric::protocol::Admission;

/// The queue allocation of a ringlet's input queues.
pub struct QueueAllocation {
    enabled: bool,
    /// Per node and input queue (one node's side by side: a decision reads
    /// both fields, and in a large network each line is a cache miss).
    queues: Vec<[Reservations; MAX_CLASSES]>,
    /// BUSY_A / BUSY_B echoes sent (reservations made).
    pub reservations: u64,
}

/// One input queue's: the phase served, and reservations outstanding per phase.
#[derive(Clone, Copy, Default)]
struct Reservations {
    serve: u8,
    pending: [u32; 2],
}

impl QueueAllocation {
    pub fn new(nodes: usize, enabled: bool) -> Self {
        QueueAllocation { enabled, queues: vec![[Reservations::default(); MAX_CLASSES]; nodes], reservations: 0 }
    }

    /// Starts fetching `node`'s input queues' reservations (a hint).
    #[inline(always)]
    pub fn prefetch(&self, node: usize) {
        ringlet_engine::hint::prefetch(self.queues.as_ptr().wrapping_add(node));
    }

    /// Whether input queue `side` of `node`, with `free` slots, admits a packet in `phase`.
    pub fn admit(&mut self, node: usize, side: usize, phase: Phase, free: u32) -> Admission {
        if !self.enabled {
            return Admission::if_room(free);
        }
        let queue = &mut self.queues[node][side];
        let (serve, pending) = (queue.serve as usize, &mut queue.pending);
        let owed = pending[0] + pending[1];
        // Why a packet that is not admitted is busied.
        let busy = |p: Phase| if free == 0 { Admission::Busy(p) } else { Admission::Reserved(p) };
        match phase {
            Phase::Fresh | Phase::DoTry if free > owed => Admission::Accept,
            Phase::Fresh => busy(Phase::DoTry),
            Phase::DoTry => {
                // Newly reserved packets join the phase served next.
                let tag = if pending[serve] > 0 { 1 - serve } else { serve };
                pending[tag] += 1;
                self.reservations += 1;
                busy(Phase::Retry(tag as u8))
            }
            Phase::Retry(q) => {
                let q = q as usize;
                let admitted = if q == serve { free > 0 } else { free > pending[serve] };
                if !admitted {
                    return busy(Phase::Retry(q as u8));
                }
                // (Only a packet this queue busied into phase q retries in it here: the fabric
                // sends a retry back to the interface that busied it.)
                pending[q] = pending[q].checked_sub(1).expect("a retry admitted where it holds a reservation");
                if pending[serve] == 0 && pending[1 - serve] > 0 {
                    queue.serve = (1 - serve) as u8;
                }
                Admission::Accept
            }
        }
    }

    /// (phase served, reservations outstanding per phase) of one input queue.
    pub fn state(&self, node: usize, side: usize) -> (u8, [u32; 2]) {
        let q = self.queues[node][side];
        (q.serve, q.pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Admission::{Accept, Busy, Reserved};
    use Phase::{DoTry, Fresh, Retry};

    #[test]
    fn a_first_rejection_reserves_nothing_a_dotry_rejection_reserves() {
        let mut q = QueueAllocation::new(4, true);
        // Full: BUSY_D, nothing reserved; fresh packets still get a slot that frees.
        assert_eq!(q.admit(1, 0, Fresh, 0), Busy(DoTry));
        assert_eq!(q.state(1, 0), (0, [0, 0]));
        assert_eq!(q.admit(1, 0, Fresh, 1), Accept);
        // The DOTRY packet finds the queue full again: BUSY_A, a reservation.
        assert_eq!(q.admit(1, 0, DoTry, 0), Busy(Retry(0)));
        assert_eq!((q.state(1, 0), q.reservations), ((0, [1, 0]), 1));
        // A slot frees: it is the RETRY_A packet's, a fresh or DOTRY packet is refused.
        assert_eq!(q.admit(1, 0, Fresh, 1), Reserved(DoTry));
        assert_eq!(q.admit(1, 0, DoTry, 1), Reserved(Retry(1)));
        assert_eq!(q.admit(1, 0, Retry(0), 1), Accept);
        // Phase A done: service moves to B, and the slot is phase B's, not a fresh packet's.
        assert_eq!(q.state(1, 0), (1, [0, 1]));
        assert_eq!(q.admit(1, 0, Fresh, 1), Reserved(DoTry));
        assert_eq!(q.admit(1, 0, Retry(1), 1), Accept);
        assert_eq!(q.state(1, 0), (1, [0, 0]));
        assert_eq!(q.admit(1, 0, Fresh, 1), Accept);
        assert_eq!(q.reservations, 2);
    }

    #[test]
    fn the_other_phase_gets_only_slots_the_served_phase_does_not_need() {
        let mut q = QueueAllocation::new(4, true);
        assert_eq!(q.admit(2, 1, DoTry, 0), Busy(Retry(0)));
        assert_eq!(q.admit(2, 1, DoTry, 0), Busy(Retry(1)));
        assert_eq!(q.admit(2, 1, DoTry, 0), Busy(Retry(1)));
        assert_eq!(q.state(2, 1), (0, [1, 2]));
        // One slot, owed to phase A: the phase-B packet is refused; with two it gets one.
        assert_eq!(q.admit(2, 1, Retry(1), 1), Reserved(Retry(1)));
        assert_eq!(q.admit(2, 1, Retry(1), 2), Accept);
        assert_eq!(q.state(2, 1), (0, [1, 1]));
        // A full queue busies a retry with its reservation kept.
        assert_eq!(q.admit(2, 1, Retry(0), 0), Busy(Retry(0)));
        assert_eq!(q.admit(2, 1, Retry(0), 1), Accept);
        // Phase A done: B is served; a new reservation joins A, served next.
        assert_eq!(q.state(2, 1), (1, [0, 1]));
        assert_eq!(q.admit(2, 1, DoTry, 0), Busy(Retry(0)));
        assert_eq!(q.state(2, 1), (1, [1, 1]));
    }

    #[test]
    fn a_fresh_packet_gets_only_a_slot_no_phase_is_owed() {
        let mut q = QueueAllocation::new(4, true);
        // One reservation in each phase: two free slots are both owed, the
        // one of the phase not served included.
        assert_eq!(q.admit(3, 0, DoTry, 0), Busy(Retry(0)));
        assert_eq!(q.admit(3, 0, DoTry, 0), Busy(Retry(1)));
        assert_eq!(q.admit(3, 0, Fresh, 2), Reserved(DoTry));
        assert_eq!(q.admit(3, 0, Fresh, 3), Accept);
        // A refused DOTRY packet joins phase B (A is served): three slots owed.
        assert_eq!(q.admit(3, 0, DoTry, 2), Reserved(Retry(1)));
        assert_eq!(q.state(3, 0), (0, [1, 2]));
        assert_eq!(q.admit(3, 0, Fresh, 3), Reserved(DoTry));
    }

    #[test]
    fn without_queue_allocation_a_busied_packet_retries_as_notry() {
        let mut q = QueueAllocation::new(4, false);
        assert_eq!(q.admit(0, 0, Fresh, 0), Busy(Fresh));
        assert_eq!(q.admit(0, 0, Fresh, 1), Accept);
        assert_eq!(q.reservations, 0);
    }
}
