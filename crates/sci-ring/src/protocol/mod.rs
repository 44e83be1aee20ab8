//! Ring protocols behind one interface.
//!
//! The ring (`crate::ring`) owns the shared mechanism every protocol keeps:
//! symbols, the bypass FIFO and the register-insertion rule, echoes, input
//! queues and their service. A protocol decides the three things the seed's
//! protocols differ in: whether a node may start its own packet now, whether
//! an input queue admits an arriving send packet, and what blocking means.
//! Adding a protocol is one new file here plus one line in [`crate::simulate`].

pub mod sci;

use crate::packet::Phase;
use crate::params::Params;
use ringlet_engine::Time;

/// Answer to "may this node start its own packet now?".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Permit {
    Go,
    /// Not now; the ring retries at `wake_at` if given (otherwise the
    /// protocol schedules the wake-up itself through `wakes`).
    Hold { wake_at: Option<Time> },
}

/// Answer of an input queue to an arriving send packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    Accept,
    /// Busy echo; the source retries in the given phase.
    Busy(Phase),
}

/// What a ring protocol decides. `wakes` collects (node, time) pairs at
/// which held nodes should try to send again.
pub trait RingProtocol {
    /// Called when `node`'s output link is free, its bypass FIFO is empty and
    /// it has an own packet ready.
    fn may_start(&mut self, node: usize, now: Time, p: &Params) -> Permit;

    /// `node` has an own packet ready but bypass traffic holds its output
    /// (`blocked = true`), or it has just started sending (`false`).
    fn set_blocked(&mut self, node: usize, now: Time, blocked: bool, p: &Params, wakes: &mut Vec<(u16, Time)>);

    /// Whether input queue `side` of `node` admits a send packet in `phase`;
    /// `free` is the number of free slots.
    fn admit(&mut self, node: usize, side: usize, phase: Phase, free: u32) -> Admission;

    /// Protocol counters for the report: (go-bit holds, A/B reservations).
    fn counters(&self) -> (u64, u64);
}
