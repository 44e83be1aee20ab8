//! The register-insertion mechanism every SCI-family network shares, run
//! over a topology: one [`Fabric`] of ring interfaces, their links and
//! ringlets, the agents' client sides, and a protocol instance per ringlet.
//!
//! Packets are unbroken runs of symbols, so the fabric is simulated at
//! packet granularity with exact symbol timing: a packet whose head leaves
//! interface `i` at `t` has its head ready to leave the next interface at
//! `t + hop` (link delay + bypass delay) and occupies each link for its
//! length plus the separating idles. A packet that finds the output link
//! busy waits in the bypass FIFO and leaves back to back after it, which is
//! exactly what the FIFO does symbol by symbol: it fills while the interface
//! sends and drains only through idles beyond the mandatory separators.
//!
//! Timing conventions (pinned by the tests in `ringlet-sci`'s `ring_timing.rs`):
//! - a send packet of `L` symbols sent at `t` over `k` hops is fully in the
//!   stripping interface's input queue at `t + k * hop + L * cycle`;
//! - that interface replaces it with an echo at the same place in the
//!   stream, so the echo's head leaves it at `t + k * hop` (if the link is free);
//! - an own packet may start only when the output link is free and the
//!   bypass FIFO holds no packet that arrived before this instant.
//!
//! The work is split by job: `output` (what a link sends next, and
//! sending it), `prioritized` (the priority-ordered bypass variant),
//! `receive` (a packet reaching the interface that strips it: admission and
//! echoes), `service` (input queues and what service produces), `crossing`
//! (packets across an agent's bus), `send_path` (an agent's own packets
//! into its output queues), `echo` (an echo back at its sender),
//! `source` (transactions into the client side), `route` (where an
//! agent's packets go), `reconfigure` and `fold_losses` (a network that
//! changes mid-run, and what a failure loses), `trace_rows` (a trace file's rows as
//! transactions), `effects` (what protocols ask for), `reporting` (the
//! run's report from the measurement and the fabric).

mod crossing;
mod dma;
mod echo;
mod effects;
mod fold_losses;
mod inversions;
mod output;
mod prefetch;
mod prioritized;
mod receive;
mod reporting;
mod response_timeout;
mod reconfigure;
mod route;
mod send_path;
mod sequence;
mod service;
mod source;
mod streams;
mod trace_rows;

use crate::analytic::{Analytic, Plan};
use crate::bus::Bus;
use crate::client::{Application, DmaJob, Stream, Txn};
use crate::dense::Dense;
use crate::event::Event;
use crate::interface::{Iface, NO_DECISION};
use crate::measure::Measure;
use crate::packet::Slab;
use crate::params::Params;
use crate::protocol::{Effects, Payloads, RingProtocol};
use crate::queue::PriorityFifo;
use crate::report::{Counters, Report};
use crate::topology::{Topology, NO_IFACE};
use crate::trace::{Recorder, TraceKind, TraceRecord};
use crate::traffic::Traffic;
use ringlet_engine::run::{Model, Progress, Stop, TraceWindow};
use ringlet_engine::time::{ns_to_time, time_to_ns, time_to_ps};
use ringlet_engine::{Scheduler, Time};
use ringlet_scenario::Scenario;

pub use reconfigure::{Reconfiguration, ReconfigurationCounts};

pub struct Fabric<P: RingProtocol> {
    pub p: Params,
    pub(crate) topo: Topology,
    pub(crate) ifaces: Dense<Iface>,
    /// Each agent's application queue.
    apps: Dense<Application>,
    /// Each agent's bus, if any agent has one (else empty).
    buses: Dense<Option<Bus>>,
    pub slab: Slab,
    /// Events packed by `Event::pack`.
    sched: Scheduler<u64>,
    /// One protocol instance per ringlet.
    pub(crate) protos: Dense<P>,
    pub(crate) traffic: Option<Traffic>,
    /// With `traffic.source = "trace"`: the trace replayed (no `traffic` then).
    replay: Option<Box<trace_rows::Replay>>,
    /// Every row of the trace is issued: the run stops once none of its
    /// transactions is left (tested where one ends).
    trace_drained: bool,
    /// Transactions in flight with a slot (their packets' tag): all where
    /// `tracked`, else those of several responses.
    txns: Payloads<Txn>,
    /// Every transaction has a slot, and agents keep streams (`Params::tracks_transactions`).
    tracked: bool,
    /// Where `tracked`: the streams, numbered as `stream_map` says.
    streams: Vec<Stream>,
    stream_map: streams::StreamMap,
    /// Per agent with a DMA responder: the responses it still has to put out.
    dma: Vec<std::collections::VecDeque<DmaJob>>,
    /// Per agent with a DMA responder: transfers its engine holds (`ClientRules::dma_queue`).
    dma_held: Vec<u32>,
    /// Changes of the network to come or past (`reconfigure`), the agents
    /// failed (empty if none can), and what the changes did.
    reconfigurations: Vec<Reconfiguration>,
    failed: Vec<bool>,
    reconfiguration_counts: ReconfigurationCounts,
    /// An accepted packet is a copy in the target's input queue, the sender
    /// keeping its own until the echo, and send packets carry sequence
    /// numbers (in a fabric that may change).
    copy_on_accept: bool,
    /// Some interface is a chip of a cascade (`Member::cascade`): a send
    /// packet's first sending may pass on along it (`output::cascade_target`).
    cascades: bool,
    /// The network is large enough that an event's state is mostly out of
    /// cache: what events will read is fetched ahead (`prefetch.rs`).
    prefetching: bool,
    seqs: sequence::Sequences,
    /// Debug builds: the identity of every send packet delivered at its
    /// destination, to tell one delivered twice (`Packet::serial`).
    #[cfg(debug_assertions)]
    delivered_serials: std::collections::HashSet<u64>,
    /// What the changes keep: cut links, held packets, slots to free later.
    fold: reconfigure::FoldState,
    /// Slots of transactions lost with a failed agent (kept so that their
    /// packets still in input queues are dropped).
    lost_tags: std::collections::HashSet<u32>,
    /// With a response time-out: transactions answered whose slot is still
    /// kept for copies of their request (or a time-out) still under way.
    answered_held: u64,
    /// Priority inversions counted (with several priorities only).
    inversions: Option<inversions::Inversions>,
    /// Per agent whose input queues share one server: when it is free
    /// (empty if none shares).
    port_free: Vec<Time>,
    /// With the channel latency measured: when each live packet was last
    /// sent (an echo: when the packet it answers was), by packet id.
    sent_at: Vec<Time>,
    /// Delayed control packets' length and tag, until their `EmitControl`.
    pending_controls: Payloads<(u16, u32)>,
    measure: Measure,
    fx: Effects,
    /// Scratch list of an interface's own packets in send order (no allocation per decision).
    cands: Vec<u32>,
    counters: Counters,
    generated: u64,
    completed: u64,
    /// Per agent: its transactions generated, and those completed or lost
    /// (over the whole run: its backlog is the difference).
    generated_by: Vec<u64>,
    ended_by: Vec<u64>,
    /// Each agent's stretches with work outstanding and no completion.
    stalls: crate::stalls::Stalls,
    /// Transactions lost: generated while their source's application queue (and output queue) was full.
    lost: u64,
    /// Per-priority offered load per endpoint, MB/s (for the report).
    offered_per_prio: f64,
    /// `traffic.load_mbps_per_node`, and the analytic estimate of the
    /// fabric as it starts: taken for the report (it reads no queue), or,
    /// in a fabric that changes, when the changes are scheduled, before the
    /// run (`analysed` once taken).
    load_per_node: f64,
    analytic: Option<Analytic>,
    analysed: bool,
    cap: Time,
    /// Most transactions generated and not completed before the run stops.
    backlog_cap: u64,
    stop: Option<Stop>,
    trace: Option<Recorder>,
    /// Events handled, by packed kind (`Event::KIND_NAMES`), output
    /// decisions apart: what a run costs, for `ringlet bench`. (A slot for
    /// every value of the kind's 4 bits, not only the 14 named: the count
    /// on the hot path needs no bounds check.)
    events_by_kind: [u64; 16],
}

impl<P: RingProtocol> Fabric<P> {
    /// A fabric of `topology` running scenario `s`, with one protocol
    /// instance per ringlet (in ringlet order), and its traffic sources.
    pub fn new(s: &Scenario, topology: Topology, p: Params, protocols: Vec<P>) -> Self {
        Fabric::build(s, topology, p, protocols, true)
    }

    /// A fabric with no traffic sources, for hand-built cases: transactions
    /// are injected with [`Fabric::inject`] and every step is traced.
    pub fn hand_built(s: &Scenario, topology: Topology, p: Params, protocols: Vec<P>) -> Self {
        let mut f = Fabric::build(s, topology, p, protocols, false);
        f.enable_trace(TraceWindow::ALL);
        f
    }

    fn build(s: &Scenario, topo: Topology, p: Params, protos: Vec<P>, with_traffic: bool) -> Self {
        assert_eq!(protos.len(), topo.ringlets(), "one protocol instance per ringlet");
        let levels = if P::RULES.priority_queues { s.traffic.priorities as usize } else { 1 };
        assert!(P::RULES.echo_waiting || protos.iter().all(|r| r.echo_wait_slots() == 0), "echo-waiting slots need `Rules::echo_waiting`");
        let ifaces = (0..topo.ifaces() as u16)
            .map(|i| Iface::new(&topo, i, &p, levels, protos[topo.ringlet_of(i) as usize].echo_wait_slots()))
            .collect();
        let apps = topo
            .agents()
            .iter()
            .map(|a| Application {
                queue: PriorityFifo::new(levels),
                capacity: a.app_capacity,
                iface: if a.ifaces.len() == 1 { a.ifaces[0] } else { NO_IFACE },
                waiting: 0,
                turn: 0,
                in_flight: 0,
                timed_out: Default::default(),
            })
            .collect();
        let buses = if topo.agents().iter().any(|a| a.bus.is_some()) { topo.agents().iter().map(|a| a.bus.map(Bus::new)).collect() } else { Vec::new() };
        let replayed = with_traffic && s.traffic.source == ringlet_scenario::Source::Trace;
        let mut traffic = (with_traffic && !replayed).then(|| Traffic::new(s, &topo, &p));
        let replay = replayed.then(|| {
            let (path, sha) = (s.traffic.trace.clone().expect("a trace with source = trace"), s.traffic.trace_sha256.clone().expect("its digest"));
            Box::new(trace_rows::Replay::new(path, sha, s.traffic.priorities, topo.agents().len()))
        });
        let sources = traffic.as_ref().map_or(0, |t| t.sources.len());
        let mut sched = Scheduler::with_bucket(4 * topo.ifaces() + sources + 64, bucket_shift(topo.ifaces()));
        if let Some(traffic) = traffic.as_mut() {
            for i in 0..sources {
                let gap = traffic.first_gap(i);
                sched.at(gap, Event::Arrival { source: i as u32 }.pack());
            }
        }
        let tracked = p.tracks_transactions();
        let agents = topo.agents().len();
        let (mut streams, mut stream_map) = (Vec::new(), streams::StreamMap::default());
        if tracked {
            let sources = traffic.as_ref().map_or(&[][..], |t| &t.sources[..]);
            stream_map = streams::StreamMap::new(sources, agents, P::RULES.priority_queues);
            streams = (0..stream_map.len()).map(|_| Stream::default()).collect();
            let open = match p.client.window {
                crate::params::WindowPolicy::Adaptive { max, .. } => max,
                crate::params::WindowPolicy::Unlimited => u16::MAX,
            };
            for s in streams.iter_mut() {
                s.state.window = open;
            }
        }
        let dma = if p.client.responder == crate::params::Responder::Dma { (0..agents).map(|_| Default::default()).collect() } else { Vec::new() };
        let mut f = Fabric {
            ifaces: Dense::new(ifaces),
            apps: Dense::new(apps),
            buses: Dense::new(buses),
            slab: Slab::with_capacity(64 * topo.ifaces()),
            sched,
            protos: Dense::new(protos),
            traffic,
            replay,
            trace_drained: false,
            txns: Payloads::new(),
            tracked,
            streams,
            stream_map,
            dma_held: vec![0; dma.len()],
            dma,
            sent_at: Vec::new(),
            reconfigurations: Vec::new(),
            failed: Vec::new(),
            reconfiguration_counts: ReconfigurationCounts::default(),
            copy_on_accept: false,
            cascades: topo.has_cascades(),
            prefetching: topo.ifaces() >= prefetch::FROM_IFACES,
            seqs: Default::default(),
            #[cfg(debug_assertions)]
            delivered_serials: Default::default(),
            fold: Default::default(),
            lost_tags: Default::default(),
            answered_held: 0,
            inversions: (s.traffic.priorities > 1).then(|| inversions::Inversions::new(s.traffic.priorities as usize, topo.ifaces())),
            port_free: if topo.agents().iter().any(|a| a.ports.shared_server) { vec![0; agents] } else { Vec::new() },
            pending_controls: Payloads::new(),
            measure: Measure::new(s, &topo, &p),
            fx: Effects::default(),
            cands: Vec::with_capacity((2 * p.output_queue as usize).min(256)),
            counters: Counters::default(),
            generated: 0,
            completed: 0,
            generated_by: vec![0; agents],
            ended_by: vec![0; agents],
            stalls: crate::stalls::Stalls::new(agents, ns_to_time(s.run.warmup_ns)),
            lost: 0,
            offered_per_prio: p.offered_data_mbps(s.traffic.load_mbps_per_node),
            load_per_node: s.traffic.load_mbps_per_node,
            analytic: None,
            analysed: false,
            cap: ns_to_time(s.run.max_sim_time_ns),
            backlog_cap: s.run.max_backlog_transactions,
            stop: None,
            trace: None,
            events_by_kind: [0; 16],
            topo,
            p,
        };
        f.average_windows();
        for r in 0..f.protos.len() {
            f.protos[r].on_start(&mut f.fx);
            f.flush_effects(r);
        }
        f
    }

    /// Where windows adapt, the series (if kept) averages the traffic
    /// sources' streams' windows (the hand-injected streams' stay open
    /// unless used, and would dilute the mean).
    fn average_windows(&mut self) {
        if matches!(self.p.client.window, crate::params::WindowPolicy::Adaptive { .. }) {
            let sources = &self.streams[..self.stream_map.sourced as usize];
            self.measure.average_windows(sources.len() as u32, sources.iter().map(|s| s.state.window as u64).sum());
        }
    }

    /// Takes the analytic estimate of the fabric now, going over the
    /// traffic as `plan` says: the report gives it (a model-only run's).
    pub fn analyse(&mut self, plan: Plan) {
        self.analytic = self.analytic_by(self.load_per_node, plan);
        self.analysed = true;
    }

    /// Records what happens in `window` (see [`TraceRecord`]).
    pub fn enable_trace(&mut self, window: TraceWindow) {
        self.trace = Some(Recorder::new(window));
    }

    /// What the trace has recorded so far (empty if the run is not traced).
    pub fn records(&self) -> &[TraceRecord] {
        self.trace.as_ref().map_or(&[], |t| &t.records)
    }

    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    /// Packet slots in use, of every kind: none once a run has drained
    /// (a packet lost with a ring is freed with it).
    pub fn packets_live(&self) -> usize {
        self.slab.live()
    }

    /// The protocol instance of ringlet `r`.
    pub fn protocol(&self, r: usize) -> &P {
        &self.protos[r]
    }

    /// Runs up to the trace window's end (or the run's own stop, or until
    /// the trace is full); returns the report and the trace then.
    pub fn run_traced(mut self, window: TraceWindow) -> (Report, Recorder) {
        self.enable_trace(window);
        let until = window.to.min(self.cap);
        while self.run_events(until, 1 << 12) && !self.trace.as_ref().is_some_and(|t| t.truncated) {}
        let truncated = self.trace.as_ref().is_some_and(|t| t.truncated);
        if self.stop.is_none() {
            self.stop = Some(if until >= self.cap && !truncated { Stop::TimeCap } else { Stop::TraceEnd });
        }
        let report = self.report();
        (report, self.trace.take().expect("traced"))
    }

    /// Runs like [`Fabric::run`], reporting progress (see `ringlet_engine::run::run_observed`).
    pub fn run_observed(mut self, every: std::time::Duration, progress: &mut dyn FnMut(Progress) -> bool) -> (Report, bool) {
        let until = self.cap;
        let finished = ringlet_engine::run::run_observed(&mut self, until, every, progress);
        (self.report(), finished)
    }

    /// Puts a transaction from agent `src` to agent `dst` into `src`'s application queue at time `at`.
    pub fn inject(&mut self, src: u16, dst: u16, priority: u16, at: Time) {
        self.inject_kind(src, dst, priority, 0, at);
    }

    /// `inject`, a transaction of `kind` (an index into `Params::shapes`).
    pub fn inject_kind(&mut self, src: u16, dst: u16, priority: u16, kind: u8, at: Time) {
        self.sched.at(at, Event::Inject { src, dst, priority, kind }.pack());
    }

    /// Runs until the measurement stops it or the time cap; returns the report.
    pub fn run(mut self) -> Report {
        self.run_until(self.cap);
        self.report()
    }

    /// Keeps a trace record of what happens now at interface `i` to packet `pkt`.
    #[inline(always)]
    fn record(&mut self, i: usize, what: TraceKind, pkt: u32) {
        self.record_at(self.sched.now(), i, what, pkt);
    }

    /// Records something that happens at `time` (now, or a coming instant
    /// no event marks: for `Received` a packet's tail in, for `BusGranted`
    /// the grant after the arbitration).
    #[inline(always)]
    fn record_at(&mut self, time: Time, i: usize, what: TraceKind, pkt: u32) {
        if self.trace.is_some() {
            self.keep_record(time, i, what, pkt);
        }
    }

    /// `record` in a traced run (kept out of the way of untraced ones, which
    /// pass a record point several times per hop).
    #[cold]
    #[inline(never)]
    fn keep_record(&mut self, time: Time, i: usize, what: TraceKind, pkt: u32) {
        if let Some(t) = self.trace.as_mut() {
            t.keep(time, i as u16, what, pkt, self.slab.at(pkt));
        }
    }

    /// Handles one packed event.
    ///
    /// Inlined into the event loop together with the per-transaction
    /// handlers it reaches (`fill_requests`, `echo`, `settle_arrival`,
    /// `start_service`, `finish`, `serviced`, DFC's `may_send` and
    /// `on_input_change`, ...; all `#[inline(always)]`). LLVM's own
    /// heuristics kept them as calls; inlined, the reference workload needs
    /// 5% fewer instructions and runs about 5% faster, close to what
    /// profile-guided optimisation gives.
    #[inline(always)]
    fn handle(&mut self, packed: u64) {
        // Two events in three are output decisions: tested first, on the
        // packed kind (one well-predicted test, where unpacking first would
        // send every event through a jump table), and the decision inlined
        // here (other callers call it).
        if let Some(i) = Event::output_free_iface(packed) {
            let now = self.sched.now();
            let n = &mut self.ifaces[i as usize];
            if n.decision_at == now {
                n.decision_at = NO_DECISION;
            }
            if n.out_free_at <= now {
                self.decide_output_inline(i as usize);
            }
            return;
        }
        // (Output decisions are the rest: counted apart, they would cost
        // the hot path an increment.)
        self.events_by_kind[Event::kind(packed)] += 1;
        match Event::unpack(packed) {
            Event::Arrival { source } => self.on_arrival(source as usize),
            // Into a retired or failed interface, or over a cut link: lost on the way.
            Event::HeadArrive { iface, pkt } if self.arrives_dead(iface as usize, 0) => self.lost_on_arrival(pkt),
            Event::HeadArrive { iface, pkt } => self.on_head(iface as usize, pkt),
            Event::OutputFree { .. } => unreachable!("handled above"),
            Event::EchoIn { iface, pkt } if self.arrives_dead(iface as usize, self.p.echo_len as Time * self.p.cycle) => self.lost_on_arrival(pkt),
            Event::EchoIn { iface, pkt } => self.on_echo(iface as usize, pkt),
            Event::ServiceDone { iface, .. } if self.has_failed(self.ifaces[iface as usize].agent) => {}
            Event::ServiceDone { iface, class } => self.on_service_done(iface as usize, class as usize),
            Event::Inject { src, dst, priority, kind } => self.on_inject(src, dst, priority, kind),
            Event::EmitControl { iface, pending } => {
                let (len, tag) = self.pending_controls.get(pending);
                self.pending_controls.release(pending);
                if !self.stale(iface as usize) {
                    self.emit_control(iface as usize, len, tag)
                }
            }
            Event::Requeue { iface, .. } if self.stale(iface as usize) => {}
            Event::Requeue { iface, pkt } => self.requeue(iface as usize, pkt),
            Event::Reconfigure { index } => self.on_reconfigure(index),
            Event::TraceRow => self.on_trace_row(),
            Event::BusFree { agent } => self.on_bus_free(agent as usize),
            Event::Queued { iface, pkt } => self.on_queued(iface as usize, pkt),
            Event::StreamWake { stream } => self.stream_wake(stream),
            Event::ResponseTimeout { txn } => self.on_response_timeout(txn),
        }
    }

    /// Agent `a` generated a transaction.
    #[inline(always)]
    fn note_generated(&mut self, a: u16) {
        let a = a as usize;
        self.stalls.generated(a, self.sched.now(), self.generated_by[a] - self.ended_by[a]);
        self.generated += 1;
        self.generated_by[a] += 1;
    }

    /// A transaction of agent `a` ended: completed, or lost (progress only
    /// if completed; a loss ends a stretch only when nothing is left).
    #[inline(always)]
    fn note_ended(&mut self, a: u16, completed: bool) {
        let a = a as usize;
        self.ended_by[a] += 1;
        if completed || self.generated_by[a] == self.ended_by[a] {
            self.stalls.ended(a, self.sched.now());
        }
    }

    /// Whether the run has stopped (why, if so).
    pub fn stopped(&self) -> Option<Stop> {
        self.stop
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

    /// Handles events up to and including time `until` (or until a stop).
    pub fn run_until(&mut self, until: Time) {
        self.run_events(until, u64::MAX);
        if self.stop.is_none() && until >= self.cap {
            self.stop = Some(Stop::TimeCap);
        }
    }
}

/// The width of the event list's buckets (2^shift ticks) for a fabric of
/// `ifaces` ring interfaces. Events come about as often as there are
/// interfaces, and a bucket's list should stay short (an event that is not
/// the latest of its bucket is sorted in by walking the list): the
/// engine's width, 1.37 ns, up to 512 interfaces, halved for each doubling
/// beyond, down to 0.17 ns (a wheel then spans 350 ns, more than a
/// switch's B-Link transfer; later events wait in the far heap). Pop order,
/// and so every result, does not depend on it.
fn bucket_shift(ifaces: usize) -> u32 {
    let doublings = (ifaces.max(1).div_ceil(512)).next_power_of_two().trailing_zeros();
    ringlet_engine::scheduler::BUCKET_SHIFT - doublings.min(3)
}

impl<P: RingProtocol> Model for Fabric<P> {
    fn run_events(&mut self, until: Time, budget: u64) -> bool {
        Fabric::run_events(self, until, budget)
    }

    fn run_until(&mut self, until: Time) {
        Fabric::run_until(self, until)
    }

    fn progress(&self) -> Progress {
        let now = self.sched.now();
        let target = self.measure.target_transactions();
        let by_txns = if target > 0 { self.measure.txns as f64 / target as f64 } else { 0.0 };
        let by_time = if self.cap > 0 { time_to_ps(now) / time_to_ps(self.cap) } else { 0.0 };
        let by_time = by_time.max(self.trace_progress());
        let fraction = if self.stop.is_some() { 1.0 } else { by_txns.max(by_time).min(1.0) };
        Progress { sim_time_ns: time_to_ns(now), transactions: self.measure.txns, target_transactions: target, fraction }
    }

    fn interrupt(&mut self) {
        self.stop = Some(Stop::Interrupted);
    }
}

#[cfg(test)]
mod tests {
    use super::bucket_shift;
    use ringlet_engine::scheduler::BUCKET_SHIFT;

    /// The engine's width up to 512 interfaces, one step finer for each
    /// doubling beyond, at most three steps.
    #[test]
    fn buckets_narrow_with_thousands_of_interfaces() {
        let widths: Vec<u32> = [0, 1, 8, 512, 513, 1024, 1025, 2048, 4096, 4097, 1 << 16].map(bucket_shift).to_vec();
        let b = BUCKET_SHIFT;
        assert_eq!(widths, vec![b, b, b, b, b - 1, b - 1, b - 2, b - 2, b - 3, b - 3, b - 3]);
    }
}
