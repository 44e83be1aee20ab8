//! Preemptive Priority Queue (seed 003 section 2.2): node-oriented priority.
//!
//! Each node decides from its own state alone:
//! - the host input queue (HIQ, here the application and output queues),
//!   the link input queue (LIQ, the input queues) and the bypass queue (BQ)
//!   are priority queues;
//! - **LIQ preemption** (input inversion): a send packet that finds the input
//!   queue full evicts the lowest-priority waiting packet of lower priority,
//!   which is busied back to its source; otherwise it is busied itself;
//! - because of that, the accepting **echo is sent only on service**: the
//!   source keeps the packet (EWQ) until then;
//! - **BQ preemption** (output inversion): the fabric's prioritized bypass
//!   (`BypassOrder::Priority`) sends the highest-priority packet of the BQ
//!   first and turns buffered lower-priority send packets into busy echoes
//!   when they hold back an own packet of higher priority;
//! - within a priority level the base SCI go-bit flow control applies;
//! - **starvation** of a packet stuck in a BQ: *aging* raises its priority
//!   by one level per `ppq.aging_ns` waited there; *inheritance*: a source
//!   whose output queue (EWQ) is full while a higher-priority transaction
//!   waits sends an event message round the ring, and every node holding the
//!   lowest-priority outstanding packet in its BQ or LIQ raises it
//!   (`Effects::raises`).
//! - **limited busy-retries** (beyond the seed): `ppq.retry_holdoff_ns`
//!   delays each retry so that a full queue is not hammered.

use super::bandwidth::Bandwidth;
use super::Registered;
use ringlet_engine::time::ns_to_time;
use ringlet_fabric::interface::Iface;
use ringlet_fabric::packet::{Packet, Phase, Slab};
use ringlet_fabric::params::Params;
use ringlet_fabric::protocol::{Admission, BypassOrder, EchoAt, Effects, Payloads, Permit, ProtoCounters, QueueView, RingProtocol, RingletView, Rules};
use ringlet_engine::Time;
use ringlet_scenario::schema::{Default, Kind, Param};
use ringlet_scenario::Scenario;

/// The keys of `[ppq]`.
const PARAMS: &[Param] = &[
    Param { section: "ppq", key: "starvation", kind: Kind::Choice(&["aging", "inheritance"]), default: Default::Str("aging"),
        doc: "How a low-priority packet stuck in a bypass queue is freed: priority inheritance from its source, or priority aging while it waits." },
    Param { section: "ppq", key: "aging_ns", kind: Kind::Float { min: 1.0, max: 1e12 }, default: Default::Float(1000.0),
        doc: "Aging: a packet waiting in a bypass queue gains one priority level per this much waiting, ns." },
    Param { section: "ppq", key: "ewq_packets", kind: Kind::Int { min: 0, max: 1_000_000 }, default: Default::Int(0),
        doc: "Echo Waiting Queue slots beyond the output queue: sent packets a node keeps until their (service-time) echo. 0 (the seed's reading) = the EWQ is the output queue's own slots, as in base SCI, where a sent packet keeps its slot until its echo." },
    Param { section: "ppq", key: "retry_holdoff_ns", kind: Kind::Float { min: 0.0, max: 1e9 }, default: Default::Float(0.0),
        doc: "Limited busy-retries (beyond the seed): a busied packet waits this long before it is sent again, ns. 0 = the seed's PPQ (immediate retry)." },
];

/// How a low-priority packet stuck in a bypass queue is freed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Starvation {
    Inheritance,
    Aging,
}

/// PPQ's settings, read from `[ppq]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub starvation: Starvation,
    pub aging_ns: f64,
    pub ewq_packets: u32,
    pub retry_holdoff_ns: f64,
    /// The network's bandwidth allocation (PPQ runs it within priority levels).
    pub bandwidth_allocation: super::bandwidth::Allocation,
}

impl Settings {
    pub fn of(s: &Scenario) -> Settings {
        let k = s.section(Ppq::NAME);
        Settings {
            starvation: if k.str("starvation") == "aging" { Starvation::Aging } else { Starvation::Inheritance },
            aging_ns: k.float("aging_ns"),
            ewq_packets: k.int("ewq_packets") as u32,
            retry_holdoff_ns: k.float("retry_holdoff_ns"),
            bandwidth_allocation: crate::keys::Settings::of(s).bandwidth_allocation,
        }
    }
}

pub struct Ppq {
    view: RingletView,
    bandwidth: Bandwidth,
    /// Aging step, ps (`None` with inheritance).
    aging: Option<Time>,
    holdoff: Time,
    ewq: u32,
    /// Highest priority level in use (aging and inheritance stop there).
    top: u16,
    /// Inheritance messages in flight, by tag: (packet, raised priority).
    messages: Payloads<(u32, u16)>,
    message_len: u16,
    /// Per source: inheritance already asked for (packet, priority).
    asked: Vec<Vec<(u32, u16)>>,
    counters: ProtoCounters,
}

impl Ppq {
    pub fn new(view: &RingletView, p: &Params, s: &Settings, priorities: u32) -> Self {
        Ppq {
            view: view.clone(),
            bandwidth: Bandwidth::new(view, p, s.bandwidth_allocation, true),
            aging: (s.starvation == Starvation::Aging).then(|| ns_to_time(s.aging_ns).max(1)),
            holdoff: ns_to_time(s.retry_holdoff_ns),
            ewq: s.ewq_packets,
            top: (priorities - 1) as u16,
            messages: Payloads::new(),
            // An event message: target, command, source, the packet, the new priority, CRC.
            message_len: p.echo_len + 2,
            asked: vec![Vec::new(); view.len()],
            counters: ProtoCounters::default(),
        }
    }
}

impl Registered for Ppq {
    const NAME: &'static str = "ppq";
    const DOC: &'static str = "Preemptive Priority Queue (seed 003 section 2.2): node-oriented priority with preemption in the input and bypass queues.";
    const PARAMS: &'static [Param] = PARAMS;

    fn build(view: &RingletView, p: &Params, s: &Scenario) -> Result<Self, String> {
        Ok(Ppq::new(view, p, &Settings::of(s), s.traffic.priorities))
    }
}

impl RingProtocol for Ppq {
    /// Priority queues with a preemptive bypass queue, echoes only on
    /// service (the LIQ preempts), and a host queue that never holds the
    /// responder: a response joins it in priority order, so a low-priority
    /// response cannot block the service of high-priority requests.
    const RULES: Rules = Rules { priority_queues: true, bypass: BypassOrder::Priority, echo: EchoAt::Service, server_waits_for_room: false, host_preempts: true, echo_waiting: true, firm_holds: true, ..Rules::IEEE };

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
        // Inheritance can raise a waiting packet's priority in place.
        true
    }

    fn admit(&mut self, _node: usize, _now: Time, _class: usize, _id: u32, pk: &Packet, q: QueueView) -> Admission {
        if q.free() > 0 {
            Admission::Accept
        } else if q.lowest_waiting().is_some_and(|low| low < pk.eff) {
            Admission::Evict
        } else {
            Admission::Busy(Phase::Fresh)
        }
    }

    fn bypass_priority(&self, pk: &Packet, waited: Time) -> u32 {
        match self.aging {
            // (Most packets leave the bypass FIFO long before one step: no division then.)
            Some(step) => (pk.eff as u64 + if waited < step { 0 } else { waited / step }).min(self.top as u64) as u32,
            None => pk.eff as u32,
        }
    }

    fn echo_wait_slots(&self) -> u32 {
        self.ewq
    }

    fn retry_holdoff(&self) -> Time {
        self.holdoff
    }

    fn on_output_full(&mut self, node: usize, _now: Time, class: u8, waiting: u16, n: &Iface, slab: &mut Slab, fx: &mut Effects) {
        if self.aging.is_some() {
            return;
        }
        // The lowest-priority packet whose EWQ slot the waiting transaction needs.
        let awaiting = &n.output(class).awaiting;
        let asked = &mut self.asked[node];
        asked.retain(|(id, _)| awaiting.contains(id));
        // One slot is needed: one packet inherits at a time.
        if asked.iter().any(|&(_, p)| p >= waiting) {
            return;
        }
        let raised = |id: u32| asked.iter().find(|(x, _)| *x == id).map_or(slab.get(id).eff, |&(_, p)| p);
        let Some(&victim) = awaiting.iter().min_by_key(|&&id| raised(id)) else { return };
        if raised(victim) >= waiting {
            return;
        }
        // Every node on the way raises it when the message passes.
        asked.retain(|(id, _)| *id != victim);
        asked.push((victim, waiting));
        let tag = self.messages.put((victim, waiting));
        self.counters.inheritances += 1;
        self.counters.control_symbols += 1;
        fx.controls.push((node as u16, self.message_len, tag, 0));
    }

    fn on_control(&mut self, node: usize, _now: Time, pk: &mut Packet, _n: &Iface, _slab: &Slab, fx: &mut Effects) -> bool {
        let (victim, prio) = self.messages.get(pk.tag);
        if node == self.view.pos(pk.from) {
            self.messages.release(pk.tag);
            return false;
        }
        fx.raises.push((node as u16, victim, prio));
        true
    }

    fn counters(&self) -> ProtoCounters {
        let b = self.bandwidth.counters();
        ProtoCounters { go_bit_holds: b.go_bit_holds, debt_holds: b.debt_holds, debts_repaid: b.debts_repaid, debts_forgiven: b.debts_forgiven, ..self.counters }
    }

    fn go_bit_holds_at(&self, at: usize) -> u64 {
        self.bandwidth.go_holds_at[at]
    }
}
