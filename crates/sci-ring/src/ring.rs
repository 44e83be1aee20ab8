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
use crate::node::{AppEntry, InputSide, Node, Nodes, NO_DECISION};
use crate::packet::{Packet, PacketKind, Slab};
use crate::params::{Params, DATA_BYTES};
use crate::protocol::{Admission, Effects, Permit, QueueView, RingProtocol};
use crate::report::{Conservation, Counters, Report};
use crate::traffic::Traffic;
use ringlet_engine::time::ns_to_ps;
use ringlet_engine::{Scheduler, Time};
use ringlet_scenario::Scenario;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A traffic source generates a transaction.
    Arrival { source: u32 },
    /// A send or control packet's head reaches the node it is addressed to
    /// (after link and node delay). Packets that only pass a node need no
    /// event: they are put straight into its bypass FIFO with their arrival
    /// time. Nor does an echo's head: nothing happens until its tail is in.
    HeadArrive { node: u16, pkt: u32 },
    /// A node decides what its output link sends next (the link has become
    /// free, or a passing packet arrives at an idle link).
    OutputFree { node: u16 },
    /// An echo is completely received by the node it answers (scheduled
    /// when the echo leaves the node before it).
    EchoIn { node: u16, pkt: u32 },
    /// An input queue's server finishes one packet (IQST elapsed).
    ServiceDone { node: u16, side: u8 },
    /// A transaction injected by hand (tests) enters a node's application queue.
    Inject { src: u16, dst: u16, priority: u16 },
    /// A busied packet's retry hold-off is over: it rejoins its output queue.
    Requeue { node: u16, pkt: u32 },
    /// A protocol's delayed control packet leaves its node.
    EmitControl { node: u16, len: u16, tag: u32 },
}

impl Event {
    /// The event as one integer, the form the scheduler keeps: kind in bits
    /// 0-2, node in bits 3-15 (rings have at most 4096 nodes), a 16-bit
    /// field in bits 16-31 and a 32-bit one in bits 32-63. Built in a
    /// register: an enum is written to memory field by field and read back
    /// whole, which defeats the processor's store-to-load forwarding on
    /// every event scheduled (7% of `perf`'s samples fell on one such store;
    /// packing saved 3% of the run time).
    #[inline(always)]
    fn pack(self) -> u64 {
        let (kind, node, a, b): (u64, u16, u16, u32) = match self {
            Event::Arrival { source } => (0, 0, 0, source),
            Event::HeadArrive { node, pkt } => (1, node, 0, pkt),
            Event::OutputFree { node } => (Self::OUTPUT_FREE, node, 0, 0),
            Event::EchoIn { node, pkt } => (3, node, 0, pkt),
            Event::ServiceDone { node, side } => (4, node, side as u16, 0),
            Event::Inject { src, dst, priority } => (5, src, dst, priority as u32),
            Event::Requeue { node, pkt } => (6, node, 0, pkt),
            Event::EmitControl { node, len, tag } => (7, node, len, tag),
        };
        debug_assert!(node <= Self::NODE_MASK, "node id {node} does not fit the packed event");
        kind | (node as u64) << Self::NODE_SHIFT | (a as u64) << 16 | (b as u64) << 32
    }

    /// Packed kind of an `OutputFree` (as `pack` numbers the kinds).
    const OUTPUT_FREE: u64 = 2;
    const KIND_MASK: u64 = 7;
    const NODE_SHIFT: u32 = 3;
    const NODE_MASK: u16 = 0x1fff;

    /// The node field of a packed event.
    #[inline(always)]
    fn packed_node(x: u64) -> u16 {
        (x >> Self::NODE_SHIFT) as u16 & Self::NODE_MASK
    }

    /// The node of a packed `OutputFree`, or `None` for any other event.
    #[inline(always)]
    fn output_free_node(x: u64) -> Option<u16> {
        (x & Self::KIND_MASK == Self::OUTPUT_FREE).then_some(Self::packed_node(x))
    }

    #[inline(always)]
    fn unpack(x: u64) -> Event {
        let node = Self::packed_node(x);
        let a = (x >> 16) as u16;
        let b = (x >> 32) as u32;
        match x & Self::KIND_MASK {
            0 => Event::Arrival { source: b },
            1 => Event::HeadArrive { node, pkt: b },
            Self::OUTPUT_FREE => Event::OutputFree { node },
            3 => Event::EchoIn { node, pkt: b },
            4 => Event::ServiceDone { node, side: a as u8 },
            5 => Event::Inject { src: node, dst: a, priority: b as u16 },
            6 => Event::Requeue { node, pkt: b },
            _ => Event::EmitControl { node, len: a, tag: b },
        }
    }
}

/// What a hand-built test ring records (off in normal runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceKind {
    /// Head of a packet leaves `node`'s output; `own` if the node is its source.
    Transmit { own: bool },
    Accepted,
    Busied,
    /// Tail of an accepted send packet in the input queue. Written when the
    /// packet is accepted, with the tail's time, so it can precede records
    /// of earlier times.
    Received,
    /// Echo fully back at the source.
    EchoBack { busy: bool },
    Serviced,
    /// A waiting packet evicted from an input queue, or a bypass packet
    /// turned into a busy echo (PPQ).
    Preempted,
    /// A control packet reaches a node (DFC symbols, TRAIN train, PPQ message).
    Control,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    pub time: Time,
    pub node: u16,
    pub what: TraceKind,
    pub kind: PacketKind,
    pub src: u16,
    pub dst: u16,
    pub priority: u16,
    /// The packet's slab slot (reused once the packet is gone).
    pub pkt: u32,
    /// Length in symbols.
    pub len: u16,
    /// When the packet entered its queue (send packets: the latency start).
    pub born: Time,
    /// Times the packet was busied before this record.
    pub retries: u16,
}

/// Which records a traced run keeps: those in `[from, to]`, at most `max_records`.
#[derive(Clone, Copy, Debug)]
pub struct TraceWindow {
    pub from: Time,
    pub to: Time,
    pub max_records: usize,
}

impl TraceWindow {
    /// Everything (hand-built test rings).
    pub const ALL: TraceWindow = TraceWindow { from: 0, to: Time::MAX, max_records: usize::MAX };
}

/// How far a run has got (for progress reports on long runs).
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub sim_time_ns: f64,
    /// Transactions completed in the measurement window, and the target.
    pub transactions: u64,
    pub target_transactions: u64,
    /// 0..1: the larger of transactions/target and time/time cap.
    pub fraction: f64,
}

pub struct Ring<P: RingProtocol> {
    pub p: Params,
    pub(crate) nodes: Nodes,
    pub slab: Slab,
    /// Events packed by [`Event::pack`].
    pub sched: Scheduler<u64>,
    pub proto: P,
    traffic: Option<Traffic>,
    pub measure: Measure,
    fx: Effects,
    /// Scratch list of a node's own packets in send order (no allocation per decision).
    cands: Vec<u32>,
    pub counters: Counters,
    pub generated: u64,
    pub completed: u64,
    /// Per-priority offered load per node, MB/s (for the report).
    offered_per_prio: f64,
    cap: Time,
    /// Most transactions generated and not completed before the run stops.
    backlog_cap: u64,
    stop: Option<Stop>,
    /// Responseless transactions (move64) complete when the request is serviced.
    has_response: bool,
    pub trace: Option<Vec<TraceRecord>>,
    trace_window: TraceWindow,
    /// Records were dropped because the trace reached `max_records`.
    pub trace_truncated: bool,
}

impl<P: RingProtocol> Ring<P> {
    pub fn new(s: &Scenario, p: Params, proto: P) -> Self {
        Ring::build(s, p, proto, true)
    }

    /// A ring with its traffic sources (`with_traffic`) or without.
    fn build(s: &Scenario, p: Params, proto: P, with_traffic: bool) -> Self {
        let levels = if P::PRIORITY_QUEUES { s.traffic.priorities as usize } else { 1 };
        let ewq = proto.echo_wait_slots();
        let nodes = Nodes::new((0..p.nodes).map(|_| Node::new(p.output_queue, p.responder_queue, p.requestor_queue, levels, ewq)).collect());
        let mut traffic = with_traffic.then(|| Traffic::new(s));
        let sources = traffic.as_ref().map_or(0, |t| t.sources.len());
        let mut sched = Scheduler::with_capacity(4 * p.nodes + sources + 64);
        if let Some(traffic) = traffic.as_mut() {
            for i in 0..sources {
                let gap = traffic.first_gap(i);
                sched.at(gap, Event::Arrival { source: i as u32 }.pack());
            }
        }
        let mut ring = Ring {
            has_response: p.response_len > 0,
            nodes,
            slab: Slab::with_capacity(64 * p.nodes),
            sched,
            proto,
            traffic,
            measure: Measure::new(s),
            fx: Effects::default(),
            cands: Vec::with_capacity(2 * p.output_queue as usize),
            counters: Counters::default(),
            generated: 0,
            completed: 0,
            offered_per_prio: s.traffic.load_mbps_per_node,
            cap: ns_to_ps(s.run.max_sim_time_ns),
            backlog_cap: s.run.max_backlog_transactions,
            stop: None,
            trace: None,
            trace_window: TraceWindow::ALL,
            trace_truncated: false,
            p,
        };
        ring.proto.on_start(&mut ring.fx);
        ring.flush_effects();
        ring
    }

    /// A ring with no traffic sources, for hand-built cases: packets are
    /// injected with [`Ring::inject`] and every step is traced.
    pub fn hand_built(s: &Scenario, p: Params, proto: P) -> Self {
        let mut r = Ring::build(s, p, proto, false);
        r.enable_trace(TraceWindow::ALL);
        r
    }

    /// Records what happens in `window` (see [`TraceRecord`]).
    pub fn enable_trace(&mut self, window: TraceWindow) {
        self.trace = Some(Vec::new());
        self.trace_window = window;
    }

    /// Runs like [`Ring::run`], but calls `progress` about every
    /// `every` of wall time; the run ends early if it returns `false`
    /// (the caller was interrupted). Checking the clock only every few
    /// thousand events keeps the cost out of measurement.
    pub fn run_observed(mut self, every: std::time::Duration, progress: &mut dyn FnMut(Progress) -> bool) -> (Report, bool) {
        const CHUNK: u64 = 1 << 14;
        let mut last = std::time::Instant::now();
        let until = self.cap;
        loop {
            if !self.run_events(until, CHUNK) {
                break;
            }
            if last.elapsed() >= every {
                last = std::time::Instant::now();
                if !progress(self.progress()) {
                    self.stop = Some(Stop::Interrupted);
                    return (self.report(), false);
                }
            }
        }
        self.run_until(until); // nothing is left to handle: records why the run stopped, as `run` does
        progress(self.progress());
        (self.report(), true)
    }

    /// Runs a traced scenario up to the trace window's end (or the run's
    /// own stop, or until the trace is full); returns the report then.
    pub fn run_traced(mut self, window: TraceWindow) -> (Report, Vec<TraceRecord>, bool) {
        self.enable_trace(window);
        let until = window.to.min(self.cap);
        while self.run_events(until, 1 << 12) && !self.trace_truncated {}
        if self.stop.is_none() {
            self.stop = Some(if until >= self.cap && !self.trace_truncated { Stop::TimeCap } else { Stop::TraceEnd });
        }
        let report = self.report();
        (report, self.trace.take().unwrap_or_default(), self.trace_truncated)
    }

    /// Handles at most `budget` events up to time `until`; returns whether
    /// more remain (the budget ran out first).
    fn run_events(&mut self, until: Time, budget: u64) -> bool {
        for _ in 0..budget {
            if self.stop.is_some() {
                return false;
            }
            let Some(ev) = self.sched.pop_until(until) else { return false };
            self.handle(ev);
        }
        true
    }

    /// How far the run has got.
    pub fn progress(&self) -> Progress {
        let now = self.sched.now();
        let target = self.measure.target_transactions();
        let by_txns = if target > 0 { self.measure.txns as f64 / target as f64 } else { 0.0 };
        let by_time = if self.cap > 0 { now as f64 / self.cap as f64 } else { 0.0 };
        let fraction = if self.stop.is_some() { 1.0 } else { by_txns.max(by_time).min(1.0) };
        Progress { sim_time_ns: now as f64 / 1000.0, transactions: self.measure.txns, target_transactions: target, fraction }
    }

    /// Puts a transaction from `src` to `dst` into `src`'s application queue at time `at`.
    pub fn inject(&mut self, src: u16, dst: u16, priority: u16, at: Time) {
        self.sched.at(at, Event::Inject { src, dst, priority }.pack());
    }

    /// Runs until the measurement stops it or the time cap; returns the report.
    pub fn run(mut self) -> Report {
        self.run_until(self.cap);
        self.report()
    }

    /// Handles events up to and including time `until` (or until a stop).
    pub fn run_until(&mut self, until: Time) {
        self.run_events(until, u64::MAX);
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
        let pc = self.proto.counters();
        r.counters = Counters {
            events: self.sched.executed(),
            go_bit_holds: pc.go_bit_holds,
            reservations: pc.reservations,
            preemptions: self.counters.preemptions + pc.preemptions,
            control_symbols: pc.control_symbols,
            tickets_deleted: pc.tickets_deleted,
            flow_holds: pc.flow_holds,
            inheritances: pc.inheritances,
            ..self.counters.clone()
        };
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
        self.record_at(self.sched.now(), node, what, pkt);
    }

    /// Records something that happens at `time` (now, or for `Received`
    /// the coming instant a packet's tail is in: no event marks it).
    #[inline]
    fn record_at(&mut self, time: Time, node: usize, what: TraceKind, pkt: u32) {
        if let Some(t) = self.trace.as_mut() {
            let w = self.trace_window;
            if time < w.from || time > w.to {
                return;
            }
            if t.len() >= w.max_records {
                self.trace_truncated = true;
                return;
            }
            let pk = self.slab.at(pkt);
            t.push(TraceRecord {
                time,
                node: node as u16,
                what,
                kind: pk.kind,
                src: pk.src,
                dst: pk.dst,
                priority: pk.priority,
                pkt,
                len: pk.len,
                born: pk.born,
                retries: pk.retries,
            });
        }
    }

    /// Handles one packed event.
    ///
    /// Inlined into the event loop together with the per-transaction
    /// handlers it reaches (`fill_requests`, `echo`, `settle_arrival`,
    /// `start_service`, `finish_request`, `serviced`, DFC's `may_send` and
    /// `on_input_change`, ...; all `#[inline(always)]`). LLVM's own
    /// heuristics kept them as calls; inlined, the reference workload needs
    /// 5% fewer instructions and runs about 5% faster, close to what
    /// profile-guided optimisation gives (docs/performance.md, session 16).
    #[inline(always)]
    fn handle(&mut self, packed: u64) {
        // Two events in three are output decisions: tested first, on the
        // packed kind (one well-predicted test, where unpacking first would
        // send every event through a jump table), and the decision inlined
        // here (other callers call it).
        if let Some(node) = Event::output_free_node(packed) {
            let now = self.sched.now();
            let n = &mut self.nodes[node as usize];
            if n.decision_at == now {
                n.decision_at = NO_DECISION;
            }
            if n.out_free_at <= now {
                self.decide_output_inline(node as usize);
            }
            return;
        }
        match Event::unpack(packed) {
            Event::Arrival { source } => self.on_arrival(source as usize),
            Event::HeadArrive { node, pkt } => self.on_head(node as usize, pkt),
            Event::OutputFree { .. } => unreachable!("handled above"),
            Event::EchoIn { node, pkt } => self.on_echo(node as usize, pkt),
            Event::ServiceDone { node, side } => self.on_service_done(node as usize, side as usize),
            Event::Inject { src, dst, priority } => {
                let now = self.sched.now();
                self.nodes[src as usize].app.push(priority, AppEntry { born: now, dst, priority });
                self.generated += 1;
                self.fill_requests(src as usize);
                self.try_output(src as usize);
            }
            Event::EmitControl { node, len, tag } => self.emit_control(node as usize, len, tag),
            Event::Requeue { node, pkt } => {
                let pk = *self.slab.at(pkt);
                let n = &mut self.nodes[node as usize];
                let q = if pk.kind == PacketKind::Response { &mut n.responses } else { &mut n.requests };
                q.echoed(pkt);
                q.to_send.push_front(pk.eff, pkt);
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
        self.sched.after(gap, Event::Arrival { source: source as u32 }.pack());
        self.nodes[node as usize].app.push(priority, AppEntry { born: now, dst, priority });
        self.generated += 1;
        if self.generated - self.completed > self.backlog_cap {
            self.stop = Some(Stop::Backlog);
        }
        self.fill_requests(node as usize);
        self.try_output(node as usize);
    }

    /// Moves transactions from the application queue into the request output queue while it has room.
    #[inline(always)]
    fn fill_requests(&mut self, node: usize) {
        let len = self.p.request_len;
        let n = &mut self.nodes[node];
        while n.requests.has_room() {
            let Some(e) = n.app.pop() else { return };
            let id = self.slab.alloc(Packet::send(PacketKind::Request, node as u16, e.dst, e.priority, len, e.born));
            n.requests.to_send.push(e.priority, id);
        }
        if let Some(waiting) = n.app.peek_level() {
            let now = self.sched.now();
            self.proto.on_output_full(node, now, waiting, &self.nodes[node], &mut self.slab, &mut self.fx);
            self.flush_effects();
        }
    }

    /// The output decision: forward buffered bypass traffic, or start an own
    /// packet; nothing while the link is busy or a decision is due now.
    #[inline(always)]
    fn try_output(&mut self, node: usize) {
        let now = self.sched.now();
        let n = &self.nodes[node];
        if n.out_free_at > now || n.decision_at == now {
            return;
        }
        self.decide_output(node);
    }

    #[inline(never)]
    fn decide_output(&mut self, node: usize) {
        self.decide_output_inline(node);
    }

    #[inline(always)]
    fn decide_output_inline(&mut self, node: usize) {
        let now = self.sched.now();
        let n = &self.nodes[node];
        if P::PRIORITY_BYPASS {
            return self.try_output_prioritized(node);
        }
        // Register-insertion rule: a packet that arrived before this instant is
        // in the bypass FIFO and must drain first (the usual case at
        // saturation, so tested first); one arriving right now can still be
        // buffered while the node inserts its own packet.
        if let Some(&(id, ready)) = n.bypass.front() {
            if ready < now {
                let has_own = n.has_own();
                self.nodes[node].bypass.pop_front();
                if has_own {
                    self.own_blocked(node);
                }
                return self.transmit(node, id, false);
            }
        }
        if n.has_own() && self.start_own(node) {
            return;
        }
        match self.nodes[node].bypass.front() {
            Some(&(id, ready)) if ready <= now => {
                self.nodes[node].bypass.pop_front();
                self.transmit(node, id, false);
            }
            // A passing packet is on its way: decide again when it arrives.
            Some(&(_, ready)) => self.decide_at(node, ready),
            None => {}
        }
    }

    /// The node's own packet is held back by bypass traffic: tell the protocol
    /// (inlined into the forwarding decision: most calls end at the quiet check).
    #[inline(always)]
    fn own_blocked(&mut self, node: usize) {
        self.counters.bypass_waits += 1;
        let n = &self.nodes[node];
        if n.blocked_quiet == Some(n.own_changes()) {
            return; // the protocol said another call would change nothing
        }
        self.tell_blocked(node);
    }

    /// `own_blocked` when the protocol has to be told.
    #[inline(never)]
    fn tell_blocked(&mut self, node: usize) {
        let n = &self.nodes[node];
        let changes = n.own_changes();
        let first = n.first_own().expect("has own packet");
        let waiting = self.slab.at(first).eff;
        let again = self.proto.on_blocked(node, self.sched.now(), waiting, &mut self.fx);
        self.nodes[node].blocked_quiet = (!again).then_some(changes);
        self.flush_effects();
    }

    /// Offers the node's own packets to the protocol in send order; starts
    /// the first one it lets go. Returns whether one was started.
    #[inline(always)]
    fn start_own(&mut self, node: usize) -> bool {
        // Every own packet was skipped last time and nothing the answers
        // depend on has changed: they would all be skipped again.
        let epoch = self.proto.permit_epoch(node);
        let n = &self.nodes[node];
        if let (Some(e), Some((was, changes, skips))) = (epoch, n.all_skipped) {
            if e == was && changes == n.own_changes() {
                self.proto.skipped_again(node, skips as u64);
                return false;
            }
        }
        self.offer_own(node, epoch)
    }

    /// `start_own` when the protocol has to be asked.
    #[inline(never)]
    fn offer_own(&mut self, node: usize, epoch: Option<u64>) -> bool {
        let now = self.sched.now();
        let n = &self.nodes[node];
        let first = n.first_own().expect("has own packet");
        let mut pick = None;
        match self.proto.may_send(node, now, first, self.slab.at(first)) {
            Permit::Go => pick = Some(first),
            Permit::Hold { wake_at } => {
                if let Some(w) = wake_at {
                    self.decide_at(node, w);
                }
            }
            Permit::Skip => {
                // The protocol may let a later packet go: offer the rest in order.
                let slab = &self.slab;
                let mut cands = std::mem::take(&mut self.cands);
                match self.proto.only_candidates(node) {
                    Some(list) => {
                        cands.clear();
                        cands.push(first);
                        cands.extend(list.iter().copied().filter(|&id| id != first));
                    }
                    None => self.nodes[node].own_in_order(&mut cands, |id| slab.at(id).eff),
                }
                let mut skips = 1;
                let mut held = false;
                for &id in cands.iter().skip(1) {
                    match self.proto.may_send(node, now, id, self.slab.at(id)) {
                        Permit::Go => {
                            pick = Some(id);
                            break;
                        }
                        Permit::Skip => skips += 1,
                        Permit::Hold { wake_at } => {
                            if let Some(w) = wake_at {
                                self.decide_at(node, w);
                            }
                            held = true;
                            break;
                        }
                    }
                }
                self.cands = cands;
                if let (Some(e), None, false) = (epoch, pick, held) {
                    let n = &mut self.nodes[node];
                    n.all_skipped = Some((e, n.own_changes(), skips));
                }
            }
        }
        let Some(id) = pick else { return false };
        let pk = *self.slab.at(id);
        self.nodes[node].take_own(id, pk.kind == PacketKind::Response);
        let next_own = self.nodes[node].first_own().map(|next| self.slab.at(next).eff);
        self.proto.on_sent(node, now, id, &pk, next_own, &mut self.fx);
        self.flush_effects();
        self.counters.send_packets += 1;
        self.transmit(node, id, true);
        true
    }

    /// PPQ's output decision: the bypass queue is prioritized (echoes and
    /// control symbols first, then by priority, oldest first), and an own
    /// packet that bypass traffic holds back preempts the lower-priority send
    /// packets buffered there, which become busy echoes to their sources.
    fn try_output_prioritized(&mut self, node: usize) {
        let now = self.sched.now();
        let buffered = self.nodes[node].bypass.front().is_some_and(|&(_, ready)| ready < now);
        let has_own = self.nodes[node].has_own();
        if has_own && !buffered && self.start_own(node) {
            return;
        }
        if has_own && buffered {
            self.preempt_for_own(node);
        }
        // Best arrived entry: highest rank, oldest first.
        let mut best: Option<(usize, u32)> = None;
        let mut next_arrival = None;
        for (k, &(id, ready)) in self.nodes[node].bypass.iter().enumerate() {
            if ready > now {
                next_arrival = Some(ready);
                break;
            }
            let rank = self.bypass_rank(id, ready, now);
            if best.is_none_or(|(_, r)| rank > r) {
                best = Some((k, rank));
            }
        }
        match best {
            Some((k, _)) => {
                let (id, _) = self.nodes[node].bypass.remove(k).expect("entry");
                if has_own && buffered {
                    self.own_blocked(node);
                }
                self.transmit(node, id, false);
            }
            None => {
                if let Some(at) = next_arrival {
                    self.decide_at(node, at);
                }
            }
        }
    }

    /// PPQ makes room in its bypass FIFO for a held own packet: while the
    /// buffered symbols and the own packet's would overflow the FIFO, the
    /// lowest-priority buffered send packet below the own packet's priority
    /// is turned into a busy echo in place (youngest first among equals).
    fn preempt_for_own(&mut self, node: usize) {
        let now = self.sched.now();
        let first = self.nodes[node].first_own().expect("own");
        let own = *self.slab.at(first);
        let need = self.p.slot(own.len) / self.p.cycle;
        loop {
            let mut used = 0;
            let mut victim: Option<(usize, u32)> = None;
            for (k, &(id, ready)) in self.nodes[node].bypass.iter().enumerate() {
                if ready >= now {
                    break;
                }
                let pk = self.slab.at(id);
                used += self.p.slot(pk.len) / self.p.cycle;
                if pk.is_send() {
                    let rank = self.proto.bypass_priority(pk, now - ready);
                    if rank < own.eff as u32 && victim.is_none_or(|(_, r)| rank <= r) {
                        victim = Some((k, rank));
                    }
                }
            }
            if used + need <= self.p.bypass_fifo_symbols as Time {
                return;
            }
            let Some((k, _)) = victim else { return };
            let (id, ready) = self.nodes[node].bypass[k];
            let echo = self.busy_echo(node, id, crate::packet::Phase::Fresh);
            self.nodes[node].bypass[k] = (echo, ready);
            self.counters.preemptions += 1;
            self.record(node, TraceKind::Preempted, id);
        }
    }

    /// Rank of a bypass entry in PPQ's prioritized bypass queue.
    #[inline]
    fn bypass_rank(&self, id: u32, ready: Time, now: Time) -> u32 {
        let pk = self.slab.at(id);
        if pk.is_send() {
            self.proto.bypass_priority(pk, now - ready)
        } else {
            u32::MAX
        }
    }

    /// The node `node`'s output link leads to (no division: this is per hop).
    #[inline]
    fn downstream(&self, node: usize) -> usize {
        if node + 1 == self.p.nodes {
            0
        } else {
            node + 1
        }
    }

    /// Makes sure `node` takes an output decision no later than `at`, or
    /// than the moment its link frees if that is later.
    #[inline(always)]
    fn decide_at(&mut self, node: usize, at: Time) {
        let now = self.sched.now();
        // Not while the link is busy: that decision could send nothing.
        let at = at.max(self.nodes[node].out_free_at);
        if self.nodes[node].decide_by(at, now) {
            self.sched.at(at, Event::OutputFree { node: node as u16 }.pack());
        }
    }

    /// Carries out what the protocol asked for in its last call.
    #[inline(always)]
    fn flush_effects(&mut self) {
        if !self.fx.is_empty() {
            self.carry_out_effects();
        }
    }

    #[inline(never)]
    fn carry_out_effects(&mut self) {
        // Held nodes the protocol released decide again then (merged with
        // any output decision already due by that time).
        while let Some((j, at)) = self.fx.wakes.pop() {
            self.decide_at(j as usize, at);
        }
        while let Some((j, pkt, prio)) = self.fx.raises.pop() {
            self.raise(j as usize, pkt, prio);
        }
        let controls = std::mem::take(&mut self.fx.controls);
        for &(j, len, tag, at) in &controls {
            if at <= self.sched.now() {
                self.emit_control(j as usize, len, tag);
            } else {
                self.sched.at(at, Event::EmitControl { node: j, len, tag }.pack());
            }
        }
        self.fx.controls = controls;
        self.fx.controls.clear();
    }

    /// Node `node` puts a control packet on the ring: it leads the node's
    /// output like an echo (ahead of bypass packets that arrive later).
    fn emit_control(&mut self, node: usize, len: u16, tag: u32) {
        let now = self.sched.now();
        let next = self.downstream(node) as u16;
        let mut c = Packet::send(PacketKind::Control, node as u16, next, 0, len, now);
        c.ctl = tag;
        let id = self.slab.alloc(c);
        self.insert_in_stream(node, id);
        self.decide_at(node, now);
    }

    /// Puts `id` into `node`'s bypass queue at the current position in the
    /// stream: behind what has arrived, ahead of what is still arriving.
    fn insert_in_stream(&mut self, node: usize, id: u32) {
        let now = self.sched.now();
        let bypass = &mut self.nodes[node].bypass;
        if bypass.back().is_none_or(|&(_, ready)| ready <= now) {
            // Usually nothing is on its way in: the end of the queue.
            bypass.push_back((id, now));
            return;
        }
        let at = bypass.iter().rposition(|&(_, ready)| ready <= now).map_or(0, |k| k + 1);
        bypass.insert(at, (id, now));
    }

    /// PPQ inheritance reaches `node`: raise `pkt` if it waits here.
    fn raise(&mut self, node: usize, pkt: u32, prio: u16) {
        // A packet whose tail is in waits (one still coming in does not yet).
        self.settle_arrival(node, self.slab.at(pkt).side());
        let n = &mut self.nodes[node];
        let in_bypass = n.bypass.iter().any(|&(id, _)| id == pkt);
        let pk = self.slab.at_mut(pkt);
        if !pk.is_send() || pk.eff >= prio {
            return;
        }
        if in_bypass {
            pk.eff = prio;
            return;
        }
        let side = pk.side();
        if n.inputs[side].waiting.remove_first(|&id| id == pkt).is_some() {
            pk.eff = prio;
            n.inputs[side].waiting.push(prio, pkt);
        }
    }

    /// A busy echo from `node` for send packet `id` (its source retries in `phase`).
    fn busy_echo(&mut self, node: usize, id: u32, phase: crate::packet::Phase) -> u32 {
        let pk = *self.slab.at(id);
        self.counters.busy_echoes += 1;
        self.echo(node, id, &pk, Some(phase))
    }

    /// An accepting echo from `node` for send packet `pk` (id `id`).
    fn accept_echo(&mut self, node: usize, id: u32, pk: &Packet) -> u32 {
        self.echo(node, id, pk, None)
    }

    /// An echo from `node` answering send packet `pk` (id `id`): busy with
    /// the retry phase, or accepting.
    #[inline(always)]
    fn echo(&mut self, node: usize, id: u32, pk: &Packet, busy: Option<crate::packet::Phase>) -> u32 {
        let mut echo = Packet::send(PacketKind::Echo, node as u16, pk.src, pk.priority, self.p.echo_len, self.sched.now());
        echo.echo_of = id;
        echo.echoed_kind = pk.kind;
        if let Some(phase) = busy {
            echo.busy = true;
            echo.echo_phase = phase;
        }
        self.counters.echoes += 1;
        self.slab.alloc(echo)
    }

    fn queue_view(&self, node: usize, side: usize) -> QueueView {
        let q = &self.nodes[node].inputs[side];
        let lowest_waiting = if P::PRIORITY_BYPASS { q.waiting.lowest_level() } else { None };
        QueueView { capacity: q.capacity, occupied: q.occupied, lowest_waiting }
    }

    /// Puts packet `id` on `node`'s output link now (inlined into both
    /// callers: it runs once per hop).
    #[inline(always)]
    fn transmit(&mut self, node: usize, id: u32, own: bool) {
        let now = self.sched.now();
        let pk = self.slab.at(id);
        let (len, dst, send, kind) = (pk.len, pk.dst, pk.is_send(), pk.kind);
        // Control symbols ride in the symbol stream without separator idles.
        let slot = if kind == PacketKind::Control { len as Time * self.p.cycle } else { self.p.slot(len) };
        let n = &mut self.nodes[node];
        n.out_free_at = now + slot;
        n.decision_at = now + slot;
        self.sched.at(now + slot, Event::OutputFree { node: node as u16 }.pack());
        let next = self.downstream(node);
        let ready = now + self.p.hop;
        if dst as usize == next {
            if kind == PacketKind::Echo {
                // Stripped at its source: its symbols become idles, and the
                // source acts on the full echo, so nothing happens at its head.
                self.counters.packet_hops += 1;
                self.sched.at(ready + len as Time * self.p.cycle, Event::EchoIn { node: next as u16, pkt: id }.pack());
            } else {
                self.sched.at(ready, Event::HeadArrive { node: next as u16, pkt: id }.pack());
            }
        } else {
            // Passing through `next`: into its bypass FIFO (this link delivers
            // in time order, so the entry goes last), decided on by then.
            self.counters.packet_hops += 1;
            let m = &mut self.nodes[next];
            m.bypass.push_back((id, ready));
            let at = ready.max(m.out_free_at);
            if m.decide_by(at, now) {
                self.sched.at(at, Event::OutputFree { node: next as u16 }.pack());
            }
        }
        self.measure.link_used(node, now, len as Time * self.p.cycle, send);
        self.record(node, TraceKind::Transmit { own }, id);
    }

    fn on_head(&mut self, node: usize, id: u32) {
        let now = self.sched.now();
        self.counters.packet_hops += 1;
        let pk = *self.slab.at(id);
        debug_assert_eq!(pk.dst as usize, node, "only addressees get a HeadArrive");
        match pk.kind {
            PacketKind::Echo => unreachable!("an echo goes straight to its EchoIn (see `transmit`)"),
            PacketKind::Control => {
                self.record(node, TraceKind::Control, id);
                let mut c = pk;
                let keep = self.proto.on_control(node, now, &mut c, &self.nodes[node], &self.slab, &mut self.fx);
                if keep {
                    c.dst = self.downstream(node) as u16;
                    *self.slab.at_mut(id) = c;
                    self.insert_in_stream(node, id);
                } else {
                    self.slab.free(id);
                }
                self.flush_effects();
            }
            PacketKind::Request | PacketKind::Response => self.on_send_packet(node, id, pk),
        }
        self.try_output(node);
    }

    /// A send packet for this node: decide on its header; answer with an
    /// echo in its place (or, for PPQ, only once it is serviced).
    fn on_send_packet(&mut self, node: usize, id: u32, pk: Packet) {
        let now = self.sched.now();
        let side = pk.side();
        // The packet before this one on the link is in by now.
        self.settle_arrival(node, side);
        let view = self.queue_view(node, side);
        let echo = match self.proto.admit(node, side, id, &pk, view) {
            Admission::Accept => self.accept(node, side, id, &pk),
            Admission::Preempt => {
                let q = &mut self.nodes[node].inputs[side];
                let victim = q.waiting.pop_lowest_below(pk.eff).expect("protocol preempts only a lower-priority waiting packet");
                q.occupied -= 1;
                self.counters.preemptions += 1;
                self.record(node, TraceKind::Preempted, victim);
                let e = self.busy_echo(node, victim, crate::packet::Phase::Fresh);
                self.insert_in_stream(node, e);
                self.accept(node, side, id, &pk)
            }
            Admission::Busy(phase) => {
                self.record(node, TraceKind::Busied, id);
                Some(self.busy_echo(node, id, phase))
            }
        };
        // The echo takes the stripped packet's place: ahead of packets that arrive after it.
        if let Some(e) = echo {
            self.insert_in_stream(node, e);
        }
        let view = self.queue_view(node, side);
        self.proto.on_input_change(node, side, view, now, &mut self.fx);
        self.flush_effects();
    }

    /// Takes `id` into input queue `side`; returns the echo to send now, if any.
    ///
    /// The packet is fully in at its tail. Nothing else can arrive on the
    /// link before then, so no event marks that instant: an idle server
    /// takes the packet now and starts at the tail; otherwise the packet is
    /// `arriving` and joins the waiting packets whenever the queue is next
    /// looked at after its tail (`settle_arrival`).
    fn accept(&mut self, node: usize, side: usize, id: u32, pk: &Packet) -> Option<u32> {
        let tail = self.sched.now() + pk.len as Time * self.p.cycle;
        self.record(node, TraceKind::Accepted, id);
        self.record_at(tail, node, TraceKind::Received, id);
        let q = &mut self.nodes[node].inputs[side];
        q.occupied += 1;
        debug_assert!(q.arriving.is_none(), "the packet before is settled first");
        if q.in_service.is_none() {
            // (An idle server has nothing waiting or arriving.)
            q.in_service = Some(id);
            self.sched.at(tail + self.p.iqst, Event::ServiceDone { node: node as u16, side: side as u8 }.pack());
        } else {
            q.arriving = Some((id, tail));
        }
        if P::ECHO_ON_SERVICE {
            None
        } else {
            Some(self.accept_echo(node, id, pk))
        }
    }

    /// The packet arriving into input queue `side` joins the waiting ones if its tail is in.
    #[inline(always)]
    fn settle_arrival(&mut self, node: usize, side: usize) {
        let now = self.sched.now();
        let q = &mut self.nodes[node].inputs[side];
        if let Some((id, tail)) = q.arriving {
            if tail <= now {
                q.arriving = None;
                q.waiting.push(self.slab.at(id).eff, id);
            }
        }
    }

    /// An idle server takes the first waiting packet, or else the one still
    /// arriving (starting when its tail is in). Its callers, the two
    /// `finish_*`, have settled the arriving packet already.
    #[inline(always)]
    fn start_service(&mut self, node: usize, side: usize) {
        let q = &mut self.nodes[node].inputs[side];
        if q.in_service.is_some() {
            return;
        }
        let (id, start) = match q.waiting.pop() {
            Some(id) => (id, self.sched.now()),
            None => match q.arriving.take() {
                Some(arriving) => arriving,
                None => return,
            },
        };
        q.in_service = Some(id);
        self.sched.at(start + self.p.iqst, Event::ServiceDone { node: node as u16, side: side as u8 }.pack());
    }

    fn on_service_done(&mut self, node: usize, side: usize) {
        if side == InputSide::Responder as usize {
            if self.has_response && P::RESPONDER_STALLS && !self.nodes[node].responses.has_room() {
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
    #[inline(always)]
    fn finish_request(&mut self, node: usize) {
        let now = self.sched.now();
        self.settle_arrival(node, InputSide::Responder as usize);
        let q = &mut self.nodes[node].inputs[InputSide::Responder as usize];
        let id = q.in_service.take().expect("request in service");
        q.stalled = false;
        q.occupied -= 1;
        let req = *self.slab.at(id);
        self.record(node, TraceKind::Serviced, id);
        self.serviced(node, InputSide::Responder as usize, id, &req);
        self.measure.packet_serviced(now, req.born, req.priority);
        if !self.p.data_in_response {
            self.measure.data_delivered(now, DATA_BYTES, req.priority);
        }
        if self.has_response {
            let resp = Packet::send(PacketKind::Response, node as u16, req.src, req.priority, self.p.response_len, now);
            let r = self.slab.alloc(resp);
            self.nodes[node].responses.to_send.push(req.priority, r);
        } else {
            self.complete(req.priority);
        }
        self.start_service(node, InputSide::Responder as usize);
        self.try_output(node);
    }

    /// The requestor finishes a response: the transaction is complete.
    fn finish_response(&mut self, node: usize) {
        let now = self.sched.now();
        self.settle_arrival(node, InputSide::Requestor as usize);
        let q = &mut self.nodes[node].inputs[InputSide::Requestor as usize];
        let id = q.in_service.take().expect("response in service");
        q.occupied -= 1;
        let resp = *self.slab.at(id);
        self.record(node, TraceKind::Serviced, id);
        self.serviced(node, InputSide::Requestor as usize, id, &resp);
        self.measure.packet_serviced(now, resp.born, resp.priority);
        if self.p.data_in_response {
            self.measure.data_delivered(now, DATA_BYTES, resp.priority);
        }
        self.complete(resp.priority);
        self.start_service(node, InputSide::Requestor as usize);
    }

    /// Send packet `id` has left input queue `side` serviced: the slot is
    /// free, and under PPQ its accepting echo goes out now.
    #[inline(always)]
    fn serviced(&mut self, node: usize, side: usize, id: u32, pk: &Packet) {
        if P::ECHO_ON_SERVICE {
            let e = self.accept_echo(node, id, pk);
            self.insert_in_stream(node, e);
            self.decide_at(node, self.sched.now());
        }
        self.slab.free(id);
        let view = self.queue_view(node, side);
        self.proto.on_input_change(node, side, view, self.sched.now(), &mut self.fx);
        self.flush_effects();
    }

    fn complete(&mut self, priority: u16) {
        self.completed += 1;
        let now = self.sched.now();
        if let Some(stop) = self.measure.transaction_completed(now, priority) {
            self.stop = Some(stop);
        }
    }

    fn on_echo(&mut self, node: usize, e: u32) {
        let echo = *self.slab.at(e);
        self.record(node, TraceKind::EchoBack { busy: echo.busy }, e);
        self.slab.free(e);
        let is_request = echo.echoed_kind == PacketKind::Request;
        if echo.busy {
            // The target kept nothing: the source's copy is sent again, first in its priority.
            let pk = self.slab.at_mut(echo.echo_of);
            pk.phase = echo.echo_phase;
            pk.retries = pk.retries.saturating_add(1);
            let eff = pk.eff;
            self.counters.retries += 1;
            if self.measure.in_window(self.sched.now()) {
                self.measure.retries += 1;
            }
            let holdoff = self.proto.retry_holdoff();
            if holdoff > 0 {
                // Still counted in its output queue until it rejoins it.
                self.sched.after(holdoff, Event::Requeue { node: node as u16, pkt: echo.echo_of }.pack());
                return;
            }
            let n = &mut self.nodes[node];
            let q = if is_request { &mut n.requests } else { &mut n.responses };
            q.echoed(echo.echo_of);
            q.to_send.push_front(eff, echo.echo_of);
        } else {
            let n = &mut self.nodes[node];
            let q = if is_request { &mut n.requests } else { &mut n.responses };
            q.echoed(echo.echo_of);
            if is_request {
                self.fill_requests(node);
            } else if self.nodes[node].inputs[InputSide::Responder as usize].stalled {
                self.finish_request(node);
            }
        }
        self.try_output(node);
    }
}

#[cfg(test)]
mod tests {
    use super::Event;

    /// Every kind of event survives packing with each field at its extremes
    /// (node ids up to 4095, the largest ring a scenario allows).
    #[test]
    fn packed_events_unpack_to_themselves() {
        let mut events = Vec::new();
        for (node, wide, narrow) in [(0u16, 0u32, 0u16), (4095, u32::MAX, u16::MAX), (1234, 0x8000_0001, 0x8001)] {
            events.extend([
                Event::Arrival { source: wide },
                Event::HeadArrive { node, pkt: wide },
                Event::OutputFree { node },
                Event::EchoIn { node, pkt: wide },
                Event::ServiceDone { node, side: narrow as u8 & 1 },
                Event::Inject { src: node, dst: narrow, priority: narrow },
                Event::Requeue { node, pkt: wide },
                Event::EmitControl { node, len: narrow, tag: wide },
            ]);
        }
        for e in events {
            let packed = e.pack();
            assert_eq!(Event::unpack(packed), e, "{packed:#x}");
            let is_output_free = matches!(e, Event::OutputFree { .. });
            assert_eq!(Event::output_free_node(packed).is_some(), is_output_free, "{e:?}");
        }
    }
}
