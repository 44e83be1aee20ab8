//! One scenario run and judged: it runs to its end without a panic (debug
//! builds check every packet is delivered at most once, and much else, as
//! they go), conservation is exact, no packet is delivered twice, every
//! source makes progress where the protocol promises it, and the run's
//! memory and time per event stay within their bounds.

use super::draw::{Overrides, BACKLOG};
use ringlet_fabric::Report;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a promise broken is, and how it shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Which check failed: `panic`, `error`, `conservation`, `delivered_twice`, `stalled`, `memory`, `time`.
    pub check: &'static str,
    pub detail: String,
}

/// How a drawn scenario fared.
#[derive(Debug)]
pub enum Verdict {
    /// Refused when loaded or checked (the draw made a combination the contract rules out).
    Refused(String),
    Passed(Measured),
    Failed(Problem),
}

/// What a passed run used, for the campaign's summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct Measured {
    pub events: u64,
    /// Peak heap bytes over the memory bound's allowance (at most 1).
    pub memory_share: f64,
    /// Wall time per event of the run (its set-up aside), µs, where judged
    /// (at least `TIME_JUDGED_EVENTS`; 0 otherwise).
    pub us_per_event: f64,
    /// Whether the progress check applied (the protocol promises it there).
    pub progress_judged: bool,
    /// Whether the run's throughput was held to its offered load (`carries`:
    /// below a saturation the model covers, enough transactions).
    pub carrying_judged: bool,
}

/// Heap a run may use: a base, and so much per ring interface, per agent
/// (its latency histogram, which grows to the latencies it records: about
/// 30 KB at 100 ms), per packet alive at once, per transaction waiting, per
/// priority level (its finer histogram) and per agent and priority where
/// those are kept (`memory_bound`).
pub const MEMORY_BASE: u64 = 16 << 20;
pub const MEMORY_PER_IFACE: u64 = 16 << 10;
pub const MEMORY_PER_AGENT: u64 = 64 << 10;
pub const MEMORY_PER_PACKET: u64 = 1 << 10;
pub const MEMORY_PER_WAITING: u64 = 256;
pub const MEMORY_PER_PRIORITY: u64 = 1 << 20;
pub const MEMORY_PER_AGENT_PRIORITY: u64 = 48 << 10;

/// The memory bound of a run of `ifaces` interfaces, `agents` agents and
/// `priorities` levels that had `packets` packets alive at most, with its
/// backlog capped. (Not the queues' sizes: a queue takes memory for the
/// packets it holds, not for the room the scenario gives it.)
pub fn memory_bound(ifaces: u64, agents: u64, packets: u64, priorities: u64) -> u64 {
    let pairs = (agents * priorities).min(ringlet_fabric::measure::MAX_NODE_PRIORITIES as u64);
    MEMORY_BASE + MEMORY_PER_IFACE * ifaces + MEMORY_PER_AGENT * agents + MEMORY_PER_PACKET * packets + MEMORY_PER_WAITING * BACKLOG + MEMORY_PER_PRIORITY * priorities + MEMORY_PER_AGENT_PRIORITY * pairs
}

/// Most wall time per event a run may take (its set-up aside), µs, judged
/// on runs of at least `TIME_JUDGED_EVENTS`: a hundred times a run's usual
/// cost in a test build, so that only work that grows with the network per
/// event (a scan of every interface, say) trips it, not a slow machine.
pub const MAX_US_PER_EVENT: f64 = 100.0;
pub const TIME_JUDGED_EVENTS: u64 = 50_000;

/// Below this utilisation of its busiest resource (the analytic model's),
/// every protocol must let every source complete transactions.
pub const PROGRESS_BELOW_UTILIZATION: f64 = 0.35;

/// Whether the run is loaded past `PROGRESS_BELOW_UTILIZATION` of the
/// model's saturation, or the model cannot say (its utilisation NaN).
fn loaded(o: &Overrides, r: &Report) -> bool {
    let u = utilization(o, r);
    u.is_nan() || u >= PROGRESS_BELOW_UTILIZATION
}

/// The model's utilisation of the run's busiest resource, with the load of
/// a response time-out's copies, which it does not count (`with_copies`).
fn utilization(o: &Overrides, r: &Report) -> f64 {
    r.model_utilization * with_copies(o, r)
}

/// Runs `o` and judges it.
pub fn judge(o: &Overrides) -> Verdict {
    let s = match crate::load_str("", o).and_then(|s| crate::check(&s).map(|_| s)) {
        Ok(s) => s,
        Err(e) => return Verdict::Refused(e.message),
    };
    let base = super::memory::start();
    let ran = quietly(|| crate::run(&s));
    let memory = super::memory::peak_since(base);
    let r = match ran {
        Err(panic) => return Verdict::Failed(Problem { check: "panic", detail: panic }),
        Ok(Err(e)) => return Verdict::Failed(Problem { check: "error", detail: e.message }),
        Ok(Ok(r)) => r,
    };
    let run_s = r.wall_time_s - r.setup_time_s;
    match invariants(o, &r.report, memory, run_s) {
        Ok(m) => Verdict::Passed(m),
        Err(p) => Verdict::Failed(p),
    }
}

/// The checks on a finished run's report.
fn invariants(o: &Overrides, r: &Report, memory: u64, run_s: f64) -> Result<Measured, Problem> {
    let c = &r.conservation;
    if c.generated != c.completed + c.queued + c.in_flight + c.lost {
        return Err(Problem { check: "conservation", detail: format!("{c:?}") });
    }
    if c.delivered_twice > 0 {
        return Err(Problem { check: "delivered_twice", detail: format!("{} packets", c.delivered_twice) });
    }
    let progress_judged = promises_progress(o, r);
    let probes = Probes { o, unloaded: std::cell::OnceCell::new() };
    if progress_judged && !r.stalled_nodes.is_empty() {
        stalls(&probes, r)?;
    }
    if loaded(o, r) && holds_without_collapse(o) {
        collapse(&probes, r)?;
    }
    let carrying_judged = judges_carrying(o, r);
    if carrying_judged {
        carries(&probes, r)?;
    }
    let (ifaces, agents, priorities) = (r.per_link.len() as u64, r.per_node.len() as u64, r.per_priority.len() as u64);
    let bound = memory_bound(ifaces, agents, r.packets_peak, priorities);
    // (A program without the counting allocator measures 0.)
    if memory > bound {
        return Err(Problem { check: "memory", detail: format!("{memory} bytes at peak, over {bound} ({ifaces} interfaces, {agents} agents, {} packets at once)", r.packets_peak) });
    }
    let events = r.counters.events;
    let us_per_event = if events >= TIME_JUDGED_EVENTS { run_s * 1e6 / events as f64 } else { 0.0 };
    if us_per_event > MAX_US_PER_EVENT {
        return Err(Problem { check: "time", detail: format!("{us_per_event:.1} µs per event over {events} events") });
    }
    Ok(Measured { events, memory_share: memory as f64 / bound as f64, us_per_event, progress_judged, carrying_judged })
}

/// Judges the nodes the report names stalled against the scenario's own
/// time scales, which a brief run may not span: a node is stalled for the
/// campaign only if it completed nothing for longer than the report's
/// stall window, twenty of its fair transaction gaps (the longer of a
/// transaction's data over its offered load and the time the network took
/// for an equal share of the transactions it completed: a large block on a
/// busy channel comes seldom, and past saturation the mix completed may be
/// of larger transactions than the mix offered) and ten
/// unloaded transaction latencies (measured by a probe at a hundredth of
/// the load: long links and slow memories make one transaction long),
/// plus a fault's detection and restart; beyond saturation, where queues
/// make every wait longer and the promise is progress, not pace, also half
/// the measurement window, and the stretch is judged by data
/// (`longest_stall_by_data_ns`): a node whose transactions deliver data
/// goes on, however long each takes to complete (`campaign 1000 91 wide`
/// gigaring #780: 66 nodes at five times the model's saturation, a node
/// whose write channel held a 1,024-word block's 32 packets ahead of its
/// later transactions completed nothing for 1.58 ms while the block's data
/// went every 50 µs, its longest stretch without data 95 µs, at 86% of
/// the median node's share of the links). Where the run is too short to
/// tell (under twice that limit), the node is not judged. (A network that
/// carries next to nothing at all is the collapse check's.)
fn stalls(probes: &Probes, r: &Report) -> Result<(), Problem> {
    let Some((bytes, latency)) = probes.unloaded().map(|p| (p.bytes, p.latency)) else { return Ok(()) };
    let overloaded = loaded(probes.o, r);
    let allowance = r.reconfiguration.as_ref().map_or(0.0, |f| f.live_ns - f.at_ns);
    let senders = r.per_node.iter().filter(|n| n.offered_mbps > 0.0).count().max(1) as f64;
    // (Counted in transactions, not bytes over the unloaded mix's: an
    // overloaded GigaRing of mixed clients completes its small blocks
    // least, 79 bytes a transaction against the unloaded 25.)
    let share_gap = if r.transactions > 0 { r.measure_time_ns * senders / r.transactions as f64 } else { f64::INFINITY };
    let mut stalled = Vec::new();
    for n in r.per_node.iter().filter(|n| r.stalled_nodes.contains(&n.node)) {
        let offered_gap = if n.offered_mbps > 0.0 { bytes / n.offered_mbps * 1e3 } else { f64::INFINITY };
        let gap = offered_gap.max(share_gap);
        let pace = if overloaded { 0.5 * r.measure_time_ns } else { 0.0 };
        let limit = r.stall_window_ns.max(20.0 * gap).max(10.0 * latency).max(pace) + allowance;
        if overloaded && n.longest_stall_by_data_ns > limit {
            stalled.push(format!("node {} delivered no data for {:.0} ns, over {limit:.0} (completed nothing for {:.0}; {} completed, backlog {})", n.node, n.longest_stall_by_data_ns, n.longest_stall_ns, n.transactions, n.backlog));
        } else if !overloaded && 2.0 * limit <= r.measure_time_ns && n.longest_stall_ns > limit {
            stalled.push(format!("node {} completed nothing for {:.0} ns, over {limit:.0} ({} completed, backlog {})", n.node, n.longest_stall_ns, n.transactions, n.backlog));
        }
    }
    if stalled.is_empty() {
        return Ok(());
    }
    Err(Problem { check: "stalled", detail: format!("at model utilisation {:.2}: {}", r.model_utilization, stalled.join("; ")) })
}

/// Completed transactions under which a run's throughput is not judged
/// against its offered load (`carries` allows for the spread of a few
/// hundred arrivals).
pub const CARRIES_JUDGED_TRANSACTIONS: u64 = 100;

/// Below `PROGRESS_BELOW_UTILIZATION` of the model's saturation a network
/// takes what it is offered: the run is not `saturated` (it carried at
/// least 90% of its load, less what a failure lost), or what it carried
/// and what its sources lost by their loss rule (a full output buffer
/// with nothing queued: the switch study's, which an SCI switch's
/// one-packet buffers apply below saturation, as an Erlang loss) make up
/// 90%, less four standard deviations of a count of its N transactions
/// completed (4 / sqrt(N) of it: Poisson arrivals alone spread so much).
/// Judged where the model covers the protocol (`model_covers`), on runs
/// of at least `CARRIES_JUDGED_TRANSACTIONS` transactions and ten
/// unloaded transaction latencies (shorter, the window still holds the
/// first transactions' waits).
fn carries(probes: &Probes, r: &Report) -> Result<(), Problem> {
    let spread = 4.0 / (r.transactions.max(1) as f64).sqrt();
    let taken = r.throughput_mbps + r.loss_mbps >= (0.9f64).min(1.0 - spread) * r.offered_mbps;
    if !r.saturated || taken {
        return Ok(());
    }
    let Some(unloaded) = probes.unloaded() else { return Ok(()) };
    if 10.0 * unloaded.latency > r.measure_time_ns {
        return Ok(());
    }
    Err(Problem { check: "carries", detail: format!("{:.1} MB/s carried and {:.1} lost of {:.1} offered at model utilisation {:.2}", r.throughput_mbps, r.loss_mbps, r.offered_mbps, r.model_utilization) })
}

/// Whether the run is judged for carrying its load (`carries`): below
/// `PROGRESS_BELOW_UTILIZATION` of a saturation the model covers, with at
/// least `CARRIES_JUDGED_TRANSACTIONS` completed, and not a trace, whose
/// load is its own. Not yet a GigaRing channel: the model
/// leaves out its DMA engines and its streams' windows of transfers
/// (docs/analytic.md), and a stream of one transfer at a time carries one
/// per transaction latency (`campaign 3000 94 small` #2774: two nodes of
/// 2-word ReadBlks with `gigaring.transfers_per_stream = 1` carry 25.7 of
/// 33.7 MB/s at the model's 0.20; 33.2 with the default 4).
fn judges_carrying(o: &Overrides, r: &Report) -> bool {
    !loaded(o, r) && r.transactions >= CARRIES_JUDGED_TRANSACTIONS && model_covers(o) && setting(o, "traffic.source").is_none() && setting(o, "network.kind") != Some("\"gigaring\"")
}

/// Whether the analytic model's saturation is the network's own: not for
/// the real-time protocols, whose holds and trains it leaves out (a TRAIN
/// ring of 24 nodes carries 227 of 320 MB/s at its utilisation 0.30; a
/// two-node PPQ ring with one-packet requestor queues 283), nor where a
/// response time-out's copies add load it does not count (`timed_out`).
fn model_covers(o: &Overrides) -> bool {
    matches!(setting(o, "network.protocol"), None | Some("\"sci\"")) && !timed_out(o)
}

/// Below this share of what it carried at half the load, a network past
/// saturation has collapsed (its protocol's retries or holds eat what it
/// carries as the load grows).
pub const COLLAPSE_BELOW: f64 = 0.5;

/// Whether the protocol promises to carry about its capacity past
/// saturation: base SCI on a ring with IEEE 1596's bandwidth and queue
/// allocation, GigaRing with its congestion control ("regulates data
/// transfers to minimize retransmission traffic", seed 002) and its
/// bandwidth sharing (without it, a node owed a reserved place in a
/// receive buffer may never find its bypass buffer empty, and every other
/// packet is refused meanwhile: docs/model-gigaring.md). Not the
/// real-time protocols: DFC may stop at saturation by design
/// (docs/model-rt.md), PPQ and TRAIN trade what the lower priorities
/// carry. Not the ablations of the allocation (`go-bits`, `debts` alone:
/// each is half of the standard's remedy), nor a GigaRing with nothing
/// bounded (`unbounded_transfers`: its congestion control never engages),
/// nor one whose congestion control waits for nothing below its window's
/// floor (`gigaring.backoff_round_trips = 1`, half of the control law):
/// each stream then sends a busied request again as its busy echo comes
/// back, and enough streams keep a slave's incoming links full of set-ups
/// its DMA engine refuses (`campaign 1000 92 wide` #573: 35 masters of
/// one-word ReadBlks with 256 framing symbols carry 0.48 MB/s over 20 ms
/// at 0.92 of the model's saturation, 77% of what they send retries,
/// against 2.1 past saturation with the default 16).
/// Not yet a switch or a Banyan:
/// on a ring through switch ports the standard's allocation holds every
/// sender as it would a bus's, and past saturation throughput falls to a
/// second stable state (docs/validation/sci-switch.md); how far it may
/// fall is an open finding (docs/invariants.md). Not a trace: its load is
/// its own. Not a requester with a response time-out
/// (`node.response_timeout_ns`): one shorter than a loaded read's
/// response time asks every read again, and each copy costs its
/// responder a service: the premature retransmission's collapse.
fn holds_without_collapse(o: &Overrides) -> bool {
    let set = |key: &str| setting(o, key);
    let off = |key: &str, value: &str| set(key) == Some(value);
    matches!(set("network.kind"), Some("\"sci-ring\"") | Some("\"gigaring\""))
        && matches!(set("network.protocol"), None | Some("\"sci\""))
        && set("traffic.source").is_none()
        && full_allocation(o)
        && !off("gigaring.congestion_control", "false")
        && !off("gigaring.bandwidth_sharing", "false")
        && !unbounded_transfers(o)
        && !off("gigaring.backoff_round_trips", "1")
        && !timed_out(o)
}

/// Whether a GigaRing's slaves' DMA queues and masters' streams are both
/// unbounded (`gigaring.dma_queue_transfers` and
/// `gigaring.transfers_per_stream` 0): nothing is ever busied, so neither
/// the queue reservation nor the congestion control engages. Past
/// saturation every transfer is taken in, its ready joins the DMA engine's
/// queue, first come first, with the data and status of those taken
/// before, and the engine's work is spread over ever more transfers: 8
/// nodes of one-word blocks carry 13.6 MB/s at 1.3 times the model's
/// saturation and 0.1 at 5 times (30-37 with either bound).
fn unbounded_transfers(o: &Overrides) -> bool {
    setting(o, "gigaring.dma_queue_transfers") == Some("0") && setting(o, "gigaring.transfers_per_stream") == Some("0")
}

/// Whether IEEE 1596's bandwidth and queue allocation both run (neither
/// is switched off nor one of the bandwidth allocation's rules alone):
/// what shares a ringlet among its senders and lets a busied packet in.
fn full_allocation(o: &Overrides) -> bool {
    setting(o, "network.queue_allocation") != Some("\"none\"") && matches!(setting(o, "network.bandwidth_allocation"), None | Some("\"ieee\""))
}

/// The value `o` sets `key` to, as written (strings quoted), if it sets it.
fn setting<'a>(o: &'a Overrides, key: &str) -> Option<&'a str> {
    o.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// Whether requesters ask a read again after a response time-out: the
/// analytic model counts no copies, so its saturation does not hold.
fn timed_out(o: &Overrides) -> bool {
    o.iter().any(|(k, v)| k == "node.response_timeout_ns" && v.parse::<f64>().is_ok_and(|t| t > 0.0))
}

/// The load a response time-out's copies add to what the analytic model
/// counts (none of them), as a factor: each copy is a request and, once
/// serviced, a response, as the transaction it copies, so the copies per
/// transaction completed over the run. A run that kept up with its
/// offered load says nothing of them, as a copy's response answers
/// nothing: `campaign 1000 91 wide` #241, a DFC ring at model utilisation
/// 0.30 with a 200 ns time-out and requesters' 217 ns services, carried
/// 99.6% of its load with 1.6 copies per transaction completed, its links
/// 79-85% busy over the run (the model's 0.30 so made 0.79), and one
/// node's requests waited 90 µs behind its own responses.
fn with_copies(o: &Overrides, r: &Report) -> f64 {
    if !timed_out(o) || r.conservation.completed == 0 {
        return 1.0;
    }
    1.0 + r.counters.request_timeouts as f64 / r.conservation.completed as f64
}

/// A run past saturation carries at least `COLLAPSE_BELOW` of what the
/// same network carries at half the load (over the same time), where the
/// run spans at least ten unloaded transaction latencies (a run shorter
/// than that is still filling its queues: a 20 µs memory on a 75 µs run
/// completes a handful of transactions at any load).
fn collapse(probes: &Probes, r: &Report) -> Result<(), Problem> {
    let Some(unloaded) = probes.unloaded() else { return Ok(()) };
    if 10.0 * unloaded.latency > r.measure_time_ns {
        return Ok(());
    }
    let Some(half) = probe(probes.o, 0.5) else { return Ok(()) };
    if r.throughput_mbps >= COLLAPSE_BELOW * half.throughput_mbps {
        return Ok(());
    }
    Err(Problem { check: "collapse", detail: format!("{:.1} MB/s at model utilisation {:.2}, against {:.1} at half the load ({} retries against {})", r.throughput_mbps, r.model_utilization, half.throughput_mbps, r.retries, half.retries) })
}

/// What a probe run of the scenario at a fraction of its load found.
struct Probe {
    /// The data a transaction carries, bytes.
    bytes: f64,
    /// The longest latency of a transaction (a GigaRing's transaction
    /// latency; elsewhere a packet's, twice for a request and its response), ns.
    latency: f64,
    throughput_mbps: f64,
    retries: u64,
}

/// A scenario's probe runs for the checks that read them: the one at a
/// hundredth of the load (a transaction's data, its unloaded latency) runs
/// once, however many checks read it.
struct Probes<'a> {
    o: &'a Overrides,
    unloaded: std::cell::OnceCell<Option<Probe>>,
}

impl Probes<'_> {
    fn unloaded(&self) -> Option<&Probe> {
        self.unloaded.get_or_init(|| probe(self.o, 0.01)).as_ref()
    }
}

/// The scenario at `fraction` of its load (or its trace as it is); `None`
/// if the probe completes nothing.
fn probe(o: &Overrides, fraction: f64) -> Option<Probe> {
    let mut light = o.clone();
    for (k, v) in light.iter_mut() {
        if k == "traffic.load_mbps_per_node" {
            *v = format!("{:?}", v.parse::<f64>().ok()? * fraction);
        }
    }
    let s = crate::load_str("", &light).ok()?;
    let p = quietly(|| crate::run(&s)).ok()?.ok()?.report;
    if p.transactions == 0 {
        return None;
    }
    let bytes = p.throughput_mbps * p.measure_time_ns * 1e-3 / p.transactions as f64;
    let latency = match p.client.as_ref() {
        Some(c) if c.transaction_latency_ns_p99.is_finite() => c.transaction_latency_ns_p99,
        _ => 2.0 * p.latency_ns_max,
    };
    Some(Probe { bytes, latency, throughput_mbps: p.throughput_mbps, retries: p.retries })
}

/// Whether the scenario's protocol promises every source progress: below
/// saturation every one must (where the analytic model leaves a protocol's
/// holds out, TRAIN's, DFC's and PPQ's, its saturation may be far off: only
/// if the run carried most of what it was offered), where IEEE 1596's
/// bandwidth and queue allocation run whole: their sharing of a ringlet
/// among its senders is what keeps passing traffic and retries from
/// starving a node (a switch of 2-node ringlets at a hot spot without the
/// bandwidth allocation, the model's utilisation 0.30, 12 622 retries,
/// left two nodes with nothing for 1.5 ms of 2; a 4-node ring without it,
/// one-packet requestor input queues, 97% of its load carried, two nodes
/// with nothing for 25 µs; neither with it); beyond it, GigaRing's queue
/// reservation with its bandwidth allocation ("forward progress is
/// therefore assured", seed 002), with its congestion control where
/// blocks go to bounded DMA engines. IEEE 1596's A/B queue allocation
/// promises that a packet sent is accepted in the end, not that a node's
/// requests leave before its own responses, so an overloaded SCI network
/// is not judged (its report still names a stalled node); nor are the
/// real-time protocols, whose purpose in overload is to let the higher
/// priorities go first; nor a GigaRing whose slaves' DMA queues and
/// masters' streams are both unbounded
/// (`gigaring.dma_queue_transfers` and `gigaring.transfers_per_stream` 0):
/// nothing is ever busied there, so neither the reservation nor the
/// congestion control engages, and past saturation the slaves' queues,
/// and every transaction's wait, grow without bound (three nodes at 1.2
/// times the model's saturation: each completes nothing for 1.5 to 3 ms of
/// 5; either bound alone, none for more than 5 µs). A response time-out's
/// copies are not in the model either (`timed_out`): their load is added
/// as the run counted them (`with_copies`).
fn promises_progress(o: &Overrides, r: &Report) -> bool {
    let set = |key: &str| setting(o, key);
    let kept_up = r.throughput_mbps >= 0.95 * r.offered_mbps;
    let utilization = utilization(o, r);
    if utilization.is_finite() && utilization < PROGRESS_BELOW_UTILIZATION && full_allocation(o) && (model_covers(o) || kept_up) {
        return true;
    }
    // The reservation is of receive buffer places; a full DMA engine busies
    // a set-up without one, and the congestion control is what then bounds
    // the retries (with it off, two nodes of mixed traffic carried 161 of
    // 1 500 MB/s with 10 514 retries, each node with nothing for 0.43 ms of
    // 0.5; 1 306 with it).
    let dma_busies = set("gigaring.dma_queue_transfers") != Some("0") && set("traffic.transaction") != Some("\"message\"");
    let retries_bounded = set("gigaring.congestion_control") != Some("false") || !dma_busies;
    // The `per-request` sharing law, kept for comparison, leaves the nodes
    // next to a busy receiver nothing (docs/model-gigaring.md; `campaign
    // 3000 94 small` #58: of four masters of one-word messages, nodes 1
    // and 2 completed nothing in 2 ms, nodes 0 and 3 about 9 400 each; all
    // four 713 in 200 µs under `equal-share`).
    let shared_equally = set("gigaring.sharing_law") != Some("\"per-request\"");
    set("network.kind") == Some("\"gigaring\"") && set("gigaring.queue_reservation") != Some("false") && set("gigaring.bandwidth_sharing") != Some("false") && shared_equally && !unbounded_transfers(o) && retries_bounded
}

thread_local! {
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static PANIC: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Runs `f`, a panic caught and returned as its message and place, not printed.
pub(crate) fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(|q| q.get()) {
                let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
                let message = info.payload().downcast_ref::<String>().cloned().or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
                PANIC.with(|p| *p.borrow_mut() = format!("{message}{place}"));
            } else {
                default(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let out = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    out.map_err(|_| PANIC.with(|p| p.borrow().clone()))
}

#[cfg(test)]
mod tests;
