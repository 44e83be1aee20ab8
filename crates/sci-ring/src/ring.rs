//! The register-insertion ring: the shared mechanism under every protocol.
//!
//! Packets are unbroken runs of symbols, so the ring is simulated at packet
//! granularity with exact symbol timing: a packet whose head leaves node
//! `i` at `t` has its head ready to leave node `i + 1` at `t + hop`
//! (`hop` = link delay + node bypass delay) and occupies each link for its
//! length plus the separating idles. A packet that finds the output link
//! busy waits in the bypass FIFO and leaves back to back after it, which is
//! exactly what the FIFO does symbol by symbol: it fills while the node sends
//! and drains only through idles beyond the mandatory separators.
//!
//! Timing conventions (pinned by the tests in `tests/ring_timing.rs`):
//! - a send packet of `L` symbols sent at `t` over `k` hops is fully in the
//!   target's input queue at `t + k * hop + L * cycle`;
//! - the target replaces it with an echo at the same place in the stream, so
//!   the echo's head leaves the target at `t + k * hop` (if the link is free);
//! - an own packet may start only when the output link is free and the
//!   bypass FIFO holds no packet that arrived before this instant.

use crate::measure::{Measure, Stop};
use crate::node::{AppEntry, InputSide, Node, NO_DECISION};
use crate::packet::{Packet, PacketKind, Phase, Slab};
use crate::params::{Params, DATA_BYTES};
use crate::protocol::{Admission, Permit, RingProtocol};
use crate::report::{Conservation, Counters, Report};
use crate::traffic::Traffic;
use ringlet_engine::time::ns_to_ps;
use ringlet_engine::{Scheduler, Time};
use ringlet_scenario::Scenario;

#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A traffic source generates a transaction.
    Arrival { source: u32 },
    /// A packet's head reaches the node it is addressed to (after link and
    /// node delay). Packets that only pass a node need no event: they are
    /// put straight into its bypass FIFO with their arrival time.
    HeadArrive { node: u16, pkt: u32 },
    /// A node decides what its output link sends next (the link has become
    /// free, or a passing packet arrives at an idle link).
    OutputFree { node: u16 },
    /// An accepted send packet is completely in the target's input queue.
    TailIn { node: u16, pkt: u32 },
    /// An echo is completely received by the node it answers.
    EchoIn { node: u16, pkt: u32 },
    /// An input queue's server finishes one packet (IQST elapsed).
    ServiceDone { node: u16, side: u8 },
    /// Transactions injected by hand (tests) enter a node's queues.
    Wake { node: u16 },
}

/// What a hand-built test ring records (off in normal runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceKind {
    /// Head of a packet leaves `node`'s output; `own` if the node is its source.
    Transmit { own: bool },
    Accepted,
    Busied,
    /// Tail of an accepted send packet in the input queue.
    Received,
    /// Echo fully back at the source.
    EchoBack { busy: bool },
    Serviced,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    pub time: Time,
    pub node: u16,
    pub what: TraceKind,
    pub kind: PacketKind,
    pub src: u16,
    pub dst: u16,
}

pub struct Ring<P: RingProtocol> {
    pub p: Params,
    pub nodes: Vec<Node>,
    pub slab: Slab,
    pub sched: Scheduler<Event>,
    pub proto: P,
    traffic: Option<Traffic>,
    pub measure: Measure,
    wakes: Vec<(u16, Time)>,
    pub counters: Counters,
    pub generated: u64,
    pub completed: u64,
    /// Per-priority offered load per node, MB/s (for the report).
    offered_per_prio: f64,
    cap: Time,
    stop: Option<Stop>,
    /// Responseless transactions (move64) complete when the request is serviced.
    has_response: bool,
    pub trace: Option<Vec<TraceRecord>>,
}

impl<P: RingProtocol> Ring<P> {
    pub fn new(s: &Scenario, p: Params, proto: P) -> Self {
        let nodes = (0..p.nodes).map(|_| Node::new(p.output_queue, p.responder_queue, p.requestor_queue)).collect();
        let mut traffic = Traffic::new(s);
        let mut sched = Scheduler::with_capacity(4 * p.nodes + traffic.sources.len() + 64);
        for i in 0..traffic.sources.len() {
            let gap = traffic.first_gap(i);
            sched.at(gap, Event::Arrival { source: i as u32 });
        }
        Ring {
            has_response: p.response_len > 0,
            nodes,
            slab: Slab::with_capacity(64 * p.nodes),
            sched,
            proto,
            traffic: Some(traffic),
            measure: Measure::new(s),
            wakes: Vec::with_capacity(p.nodes),
            counters: Counters::default(),
            generated: 0,
            completed: 0,
            offered_per_prio: s.traffic.load_mbps_per_node,
            cap: ns_to_ps(s.run.max_sim_time_ns),
            stop: None,
            trace: None,
            p,
        }
    }

    /// A ring with no traffic sources, for hand-built cases: packets are
    /// injected with [`Ring::inject`] and every step is traced.
    pub fn hand_built(s: &Scenario, p: Params, proto: P) -> Self {
        let mut r = Ring::new(s, p, proto);
        r.traffic = None;
        r.sched = Scheduler::with_capacity(64);
        r.trace = Some(Vec::new());
        r
    }

    /// Puts a transaction from `src` to `dst` into `src`'s application queue at time `at`.
    pub fn inject(&mut self, src: u16, dst: u16, priority: u16, at: Time) {
        let node = &mut self.nodes[src as usize];
        node.app.push_back(AppEntry { born: at, dst, priority });
        self.generated += 1;
        // Arrival handling is the same as for a source; use a Wake to run it at `at`.
        self.sched.at(at, Event::Wake { node: src });
    }

    /// Runs until the measurement stops it or the time cap; returns the report.
    pub fn run(mut self) -> Report {
        self.run_until(self.cap);
        self.report()
    }

    /// Handles events up to and including time `until` (or until a stop).
    pub fn run_until(&mut self, until: Time) {
        while let Some(t) = self.sched.peek_time() {
            if t > until || self.stop.is_some() {
                break;
            }
            let ev = self.sched.pop().expect("peeked");
            self.handle(ev);
        }
        if self.stop.is_none() && until >= self.cap {
            self.stop = Some(Stop::TimeCap);
        }
    }

    fn end_time(&self) -> Time {
        match self.stop {
            Some(Stop::TimeCap) | None => self.cap.max(self.sched.now()),
            _ => self.sched.now(),
        }
    }

    pub fn report(&self) -> Report {
        let end = self.end_time();
        let mut r = self.measure.report(end, self.stop.unwrap_or(Stop::TimeCap), self.offered_per_prio, self.p.nodes);
        let (holds, reservations) = self.proto.counters();
        r.counters = Counters { events: self.sched.executed(), go_bit_holds: holds, reservations, ..self.counters.clone() };
        let queued: u64 = self.nodes.iter().map(|n| n.app.len() as u64).sum();
        r.conservation = Conservation {
            generated: self.generated,
            completed: self.completed,
            queued,
            in_flight: self.slab.live_send(),
        };
        r
    }

    #[inline]
    fn record(&mut self, node: usize, what: TraceKind, pkt: u32) {
        if let Some(t) = self.trace.as_mut() {
            let pk = self.slab.get(pkt);
            t.push(TraceRecord { time: self.sched.now(), node: node as u16, what, kind: pk.kind, src: pk.src, dst: pk.dst });
        }
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::Arrival { source } => self.on_arrival(source as usize),
            Event::HeadArrive { node, pkt } => self.on_head(node as usize, pkt),
            Event::OutputFree { node } => {
                let n = &mut self.nodes[node as usize];
                if n.decision_at == self.sched.now() {
                    n.decision_at = NO_DECISION;
                }
                self.try_output(node as usize);
            }
            Event::TailIn { node, pkt } => self.on_tail(node as usize, pkt),
            Event::EchoIn { node, pkt } => self.on_echo(node as usize, pkt),
            Event::ServiceDone { node, side } => self.on_service_done(node as usize, side as usize),
            Event::Wake { node } => {
                self.fill_requests(node as usize);
                self.try_output(node as usize);
            }
        }
    }

    fn on_arrival(&mut self, source: usize) {
        let now = self.sched.now();
        let traffic = self.traffic.as_mut().expect("sources exist");
        let (node, priority) = (traffic.sources[source].node, traffic.sources[source].priority);
        let dst = traffic.destination(source);
        let gap = traffic.next_gap(source);
        self.sched.after(gap, Event::Arrival { source: source as u32 });
        self.nodes[node as usize].app.push_back(AppEntry { born: now, dst, priority });
        self.generated += 1;
        self.fill_requests(node as usize);
        self.try_output(node as usize);
    }

    /// Moves transactions from the application queue into the request output queue while it has room.
    fn fill_requests(&mut self, node: usize) {
        let len = self.p.request_len;
        let n = &mut self.nodes[node];
        while n.requests.has_room() {
            let Some(e) = n.app.pop_front() else { break };
            let id = self.slab.alloc(Packet::send(PacketKind::Request, node as u16, e.dst, e.priority, len, e.born));
            n.requests.to_send.push_back(id);
        }
    }

    /// The output decision: forward buffered bypass traffic, or start an own packet.
    fn try_output(&mut self, node: usize) {
        let now = self.sched.now();
        let n = &self.nodes[node];
        if n.out_free_at > now || n.decision_at == now {
            return;
        }
        // Register-insertion rule: a packet that arrived before this instant is
        // in the bypass FIFO and must drain first; one arriving right now can
        // still be buffered while the node inserts its own packet.
        let buffered = n.bypass.front().is_some_and(|&(_, ready)| ready < now);
        let has_own = n.has_own();
        if has_own && !buffered {
            match self.proto.may_start(node, now, &self.p) {
                Permit::Go => {
                    let id = self.nodes[node].take_own().expect("has own packet");
                    self.proto.set_blocked(node, now, false, &self.p, &mut self.wakes);
                    self.schedule_wakes();
                    self.counters.send_packets += 1;
                    self.transmit(node, id, true);
                    return;
                }
                Permit::Hold { wake_at } => {
                    if let Some(w) = wake_at {
                        self.decide_at(node, w);
                    }
                }
            }
        }
        match self.nodes[node].bypass.front() {
            Some(&(id, ready)) if ready <= now => {
                self.nodes[node].bypass.pop_front();
                if has_own && buffered {
                    self.counters.bypass_waits += 1;
                    self.proto.set_blocked(node, now, true, &self.p, &mut self.wakes);
                    self.schedule_wakes();
                }
                self.transmit(node, id, false);
            }
            // A passing packet is on its way: decide again when it arrives.
            Some(&(_, ready)) => self.decide_at(node, ready),
            None => {}
        }
    }

    /// Makes sure `node` takes an output decision no later than `at`.
    #[inline]
    fn decide_at(&mut self, node: usize, at: Time) {
        let n = &mut self.nodes[node];
        let now = self.sched.now();
        if n.decision_at == NO_DECISION || n.decision_at > at || n.decision_at < now {
            n.decision_at = at;
            self.sched.at(at, Event::OutputFree { node: node as u16 });
        }
    }

    /// Held nodes the protocol released: each decides again then (merged
    /// with any output decision already due by that time).
    fn schedule_wakes(&mut self) {
        while let Some((j, at)) = self.wakes.pop() {
            self.decide_at(j as usize, at);
        }
    }

    /// Puts packet `id` on `node`'s output link now.
    fn transmit(&mut self, node: usize, id: u32, own: bool) {
        let now = self.sched.now();
        let pk = *self.slab.get(id);
        let slot = self.p.slot(pk.len);
        let n = &mut self.nodes[node];
        n.out_free_at = now + slot;
        n.decision_at = now + slot;
        self.sched.at(now + slot, Event::OutputFree { node: node as u16 });
        let next = (node + 1) % self.p.nodes;
        let ready = now + self.p.hop;
        if pk.dst as usize == next {
            self.sched.at(ready, Event::HeadArrive { node: next as u16, pkt: id });
        } else {
            // Passing through `next`: into its bypass FIFO (this link delivers
            // in time order, so the entry goes last), decided on by then.
            self.counters.packet_hops += 1;
            let out_free = self.nodes[next].out_free_at;
            self.nodes[next].bypass.push_back((id, ready));
            self.decide_at(next, ready.max(out_free));
        }
        self.measure.link_used(node, now, pk.len as Time * self.p.cycle, pk.is_send());
        self.record(node, TraceKind::Transmit { own }, id);
    }

    fn on_head(&mut self, node: usize, id: u32) {
        let now = self.sched.now();
        self.counters.packet_hops += 1;
        let pk = *self.slab.get(id);
        debug_assert_eq!(pk.dst as usize, node, "only addressees get a HeadArrive");
        let tail = now + pk.len as Time * self.p.cycle;
        if pk.kind == PacketKind::Echo {
            // Stripped: its symbols become idles; the source acts on the full echo.
            self.sched.at(tail, Event::EchoIn { node: node as u16, pkt: id });
            return;
        } else {
            // A send packet for this node: decide on its header, answer with an echo in its place.
            let side = if pk.kind == PacketKind::Request { InputSide::Responder } else { InputSide::Requestor } as usize;
            let q = &self.nodes[node].inputs[side];
            let free = q.capacity - q.occupied;
            let admission = self.proto.admit(node, side, pk.phase, free);
            let mut echo = Packet::send(PacketKind::Echo, node as u16, pk.src, pk.priority, self.p.echo_len, now);
            echo.echo_of = id;
            echo.echoed_kind = pk.kind;
            match admission {
                Admission::Accept => {
                    self.nodes[node].inputs[side].occupied += 1;
                    self.sched.at(tail, Event::TailIn { node: node as u16, pkt: id });
                    self.record(node, TraceKind::Accepted, id);
                }
                Admission::Busy(phase) => {
                    echo.busy = true;
                    echo.echo_phase = phase;
                    self.counters.busy_echoes += 1;
                    self.record(node, TraceKind::Busied, id);
                }
            }
            self.counters.echoes += 1;
            let e = self.slab.alloc(echo);
            // The echo takes the stripped packet's place: ahead of packets
            // that arrive after it.
            let bypass = &mut self.nodes[node].bypass;
            let at = bypass.iter().rposition(|&(_, ready)| ready <= now).map_or(0, |k| k + 1);
            bypass.insert(at, (e, now));
        }
        self.try_output(node);
    }

    fn on_tail(&mut self, node: usize, id: u32) {
        self.record(node, TraceKind::Received, id);
        let side = if self.slab.get(id).kind == PacketKind::Request { 0 } else { 1 };
        self.nodes[node].inputs[side].waiting.push_back(id);
        self.start_service(node, side);
    }

    fn start_service(&mut self, node: usize, side: usize) {
        let q = &mut self.nodes[node].inputs[side];
        if q.in_service.is_some() {
            return;
        }
        if let Some(id) = q.waiting.pop_front() {
            q.in_service = Some(id);
            self.sched.after(self.p.iqst, Event::ServiceDone { node: node as u16, side: side as u8 });
        }
    }

    fn on_service_done(&mut self, node: usize, side: usize) {
        if side == InputSide::Responder as usize {
            if self.has_response && !self.nodes[node].responses.has_room() {
                // The response has nowhere to go: the server holds the request.
                self.nodes[node].inputs[side].stalled = true;
                return;
            }
            self.finish_request(node);
        } else {
            self.finish_response(node);
        }
    }

    /// The responder finishes a request: the response enters the response output queue.
    fn finish_request(&mut self, node: usize) {
        let now = self.sched.now();
        let q = &mut self.nodes[node].inputs[InputSide::Responder as usize];
        let id = q.in_service.take().expect("request in service");
        q.stalled = false;
        q.occupied -= 1;
        let req = *self.slab.get(id);
        self.record(node, TraceKind::Serviced, id);
        self.slab.free(id);
        self.measure.packet_serviced(now, req.born, req.priority);
        if !self.p.data_in_response {
            self.measure.data_delivered(now, DATA_BYTES, req.priority);
        }
        if self.has_response {
            let resp = Packet::send(PacketKind::Response, node as u16, req.src, req.priority, self.p.response_len, now);
            let r = self.slab.alloc(resp);
            self.nodes[node].responses.to_send.push_back(r);
        } else {
            self.complete(req.priority);
        }
        self.start_service(node, InputSide::Responder as usize);
        self.try_output(node);
    }

    /// The requestor finishes a response: the transaction is complete.
    fn finish_response(&mut self, node: usize) {
        let now = self.sched.now();
        let q = &mut self.nodes[node].inputs[InputSide::Requestor as usize];
        let id = q.in_service.take().expect("response in service");
        q.occupied -= 1;
        let resp = *self.slab.get(id);
        self.record(node, TraceKind::Serviced, id);
        self.slab.free(id);
        self.measure.packet_serviced(now, resp.born, resp.priority);
        if self.p.data_in_response {
            self.measure.data_delivered(now, DATA_BYTES, resp.priority);
        }
        self.complete(resp.priority);
        self.start_service(node, InputSide::Requestor as usize);
    }

    fn complete(&mut self, priority: u16) {
        self.completed += 1;
        let now = self.sched.now();
        if let Some(stop) = self.measure.transaction_completed(now, priority) {
            self.stop = Some(stop);
        }
    }

    fn on_echo(&mut self, node: usize, e: u32) {
        let echo = *self.slab.get(e);
        self.record(node, TraceKind::EchoBack { busy: echo.busy }, e);
        self.slab.free(e);
        let is_request = echo.echoed_kind == PacketKind::Request;
        let n = &mut self.nodes[node];
        let q = if is_request { &mut n.requests } else { &mut n.responses };
        q.awaiting_echo -= 1;
        if echo.busy {
            // The target kept nothing: the source's copy is sent again, first in line.
            q.to_send.push_front(echo.echo_of);
            let pk = self.slab.get_mut(echo.echo_of);
            pk.phase = echo.echo_phase;
            pk.retries = pk.retries.saturating_add(1);
            self.counters.retries += 1;
            if self.measure.in_window(self.sched.now()) {
                self.measure.retries += 1;
            }
        } else if is_request {
            self.fill_requests(node);
        } else if self.nodes[node].inputs[InputSide::Responder as usize].stalled {
            self.finish_request(node);
        }
        debug_assert!(matches!(echo.echo_phase, Phase::Fresh | Phase::Retry(_)));
        self.try_output(node);
    }
}
