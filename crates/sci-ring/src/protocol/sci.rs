//! Base SCI (IEEE 1596): the bandwidth allocation protocol (transmission
//! recovery, go bits, idle priority: `bandwidth/`) and the queue
//! allocation protocol (NOTRY / DOTRY / RETRY_A/B phases:
//! `queue_allocation.rs`) over FIFO queues.

use super::bandwidth::{Allocation, Bandwidth};
use super::queue_allocation::QueueAllocation;
use super::Registered;
use crate::keys::Settings;
use ringlet_engine::Time;
use ringlet_fabric::packet::Packet;
use ringlet_fabric::params::Params;
use ringlet_fabric::protocol::{Admission, Effects, Permit, ProtoCounters, QueueView, RingProtocol, RingletView, Rules};
use ringlet_scenario::Scenario;

/// Base SCI: bandwidth allocation plus queue allocation, FIFO queues.
/// (Each ringlet's starting on a cache line: the bandwidth allocation's
/// first line is what every decision reads.)
#[repr(C, align(64))]
pub struct BaseSci {
    pub bandwidth: Bandwidth,
    pub queues: QueueAllocation,
}

impl BaseSci {
    pub fn new(view: &RingletView, p: &Params, bandwidth: impl Into<Allocation>, queues: bool) -> Self {
        BaseSci {
            bandwidth: Bandwidth::new(view, p, bandwidth, false),
            queues: QueueAllocation::new(view.len(), queues),
        }
    }

    /// (phase served, reservations outstanding per phase) of one input queue, for diagnostics.
    pub fn ab_state(&self, node: usize, side: usize) -> (u8, [u32; 2]) {
        self.queues.state(node, side)
    }
}

impl Registered for BaseSci {
    const NAME: &'static str = "sci";
    const DOC: &'static str = "Base SCI (IEEE 1596, seed 003 section 2.1): bandwidth allocation (transmission recovery and its debt, go bits, idle priority) and queue allocation (NOTRY/DOTRY, A/B reservations) over FIFO queues, switched by `network.bandwidth_allocation` and `network.queue_allocation`.";

    fn build(view: &RingletView, p: &Params, s: &Scenario) -> Result<Self, String> {
        let k = Settings::of(s);
        Ok(BaseSci::new(view, p, k.bandwidth_allocation, k.queue_allocation))
    }
}

impl RingProtocol for BaseSci {
    /// IEEE 1596's, with the bandwidth allocation's holds firm (`Bandwidth::may_start`).
    const RULES: Rules = Rules { firm_holds: true, ..Rules::IEEE };

    fn may_send(&mut self, node: usize, now: Time, _id: u32, pk: &Packet, fx: &mut Effects) -> Permit {
        self.bandwidth.may_start(node, now, pk.eff, fx)
    }

    fn held_again(&mut self, node: usize) {
        self.bandwidth.count_hold(node);
    }

    fn on_sent(&mut self, node: usize, now: Time, _id: u32, pk: &Packet, next: Option<u16>, fx: &mut Effects) {
        self.bandwidth.on_sent_packet(node, now, pk, next, fx);
    }

    fn on_recovered(&mut self, node: usize, now: Time, _fx: &mut Effects) {
        self.bandwidth.on_recovered(node, now);
    }

    #[inline]
    fn on_pass(&mut self, node: usize, now: Time, symbols: u16) {
        self.bandwidth.on_pass(node, now, symbols as u32);
    }

    fn on_blocked(&mut self, node: usize, now: Time, waiting: u16, fx: &mut Effects) -> bool {
        self.bandwidth.on_blocked(node, now, waiting, fx);
        // Its idles now carry this priority; only sending or another
        // waiting packet changes that.
        false
    }

    #[inline(always)]
    fn prefetch(&self, node: usize) {
        self.bandwidth.prefetch(node);
        self.queues.prefetch(node);
    }

    fn admit(&mut self, node: usize, _now: Time, class: usize, _id: u32, pk: &Packet, q: QueueView) -> Admission {
        self.queues.admit(node, class, pk.phase, q.free())
    }

    fn counters(&self) -> ProtoCounters {
        ProtoCounters { reservations: self.queues.reservations, ..self.bandwidth.counters() }
    }

    fn go_bit_holds_at(&self, at: usize) -> u64 {
        self.bandwidth.go_holds_at[at]
    }
}
