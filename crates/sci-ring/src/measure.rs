//! Measurement as in seed 003 Figure 7: effective throughput (data bytes
//! delivered / measured time) and one-way latency (application queue to
//! serviced), warm-up discarded, batch-means confidence intervals and HDR
//! percentiles per priority.

use crate::report::{LinkReport, PriorityReport, Report, Summary};
use ringlet_engine::stats::{BatchMeans, LatencyHistogram};
use ringlet_engine::time::{ns_to_ps, ps_to_ns};
use ringlet_engine::Time;
use ringlet_scenario::Scenario;

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Transactions,
    Precision,
    TimeCap,
    /// More transactions outstanding than `run.max_backlog_transactions`.
    Backlog,
    /// A traced run reached the end of its window, or its trace was full.
    TraceEnd,
    /// The caller's progress function asked to stop.
    Interrupted,
}

impl Stop {
    pub fn name(self) -> &'static str {
        match self {
            Stop::Transactions => "transactions",
            Stop::Precision => "precision",
            Stop::TimeCap => "time_cap",
            Stop::Backlog => "backlog",
            Stop::TraceEnd => "trace_end",
            Stop::Interrupted => "interrupted",
        }
    }
}

/// Batches needed before a precision stop is trusted.
const MIN_BATCHES_FOR_PRECISION: usize = 10;

pub struct Measure {
    pub warmup_end: Time,
    target_txns: u64,
    ci_target: Option<f64>,
    batch_txns: u64,
    // Window totals.
    pub txns: u64,
    bytes: u64,
    txns_prio: Vec<u64>,
    bytes_prio: Vec<u64>,
    pub retries: u64,
    /// Sum of every latency recorded, in recording order (the overall
    /// histogram is merged from the per-priority ones at the report).
    lat_sum: f64,
    hist_prio: Vec<LatencyHistogram>,
    link_busy: Vec<Time>,
    link_send_busy: Vec<Time>,
    /// Per link: when its last transmission ends (`<< 1`, with bit 0 set
    /// for a send packet), to clip the part beyond the measurement window.
    link_last: Vec<Time>,
    // Current batch.
    batch_start: Time,
    batch_bytes: u64,
    batch_lat_sum: f64,
    batch_lat_n: u64,
    batch_count: u64,
    throughput: BatchMeans,
    latency: BatchMeans,
}

impl Measure {
    pub fn new(s: &Scenario) -> Measure {
        let prios = s.traffic.priorities as usize;
        let batches = s.run.batches as u64;
        Measure {
            warmup_end: ns_to_ps(s.run.warmup_ns),
            target_txns: s.run.measure_transactions,
            ci_target: s.run.ci_rel_halfwidth,
            batch_txns: s.run.measure_transactions.div_ceil(batches).max(1),
            txns: 0,
            bytes: 0,
            txns_prio: vec![0; prios],
            bytes_prio: vec![0; prios],
            retries: 0,
            lat_sum: 0.0,
            hist_prio: (0..prios).map(|_| LatencyHistogram::new()).collect(),
            link_busy: vec![0; s.network.nodes as usize],
            link_send_busy: vec![0; s.network.nodes as usize],
            link_last: vec![0; s.network.nodes as usize],
            batch_start: ns_to_ps(s.run.warmup_ns),
            batch_bytes: 0,
            batch_lat_sum: 0.0,
            batch_lat_n: 0,
            batch_count: 0,
            throughput: BatchMeans::new(2 * batches as usize),
            latency: BatchMeans::new(2 * batches as usize),
        }
    }

    /// Transactions the run measures before it stops (the cap when a precision target is set).
    pub fn target_transactions(&self) -> u64 {
        self.target_txns
    }

    #[inline]
    pub fn in_window(&self, now: Time) -> bool {
        now >= self.warmup_end
    }

    /// A request or response removed from its input queue and serviced.
    #[inline(always)]
    pub fn packet_serviced(&mut self, now: Time, born: Time, priority: u16) {
        if now < self.warmup_end {
            return;
        }
        let lat = now - born;
        self.lat_sum += lat as f64;
        self.hist_prio[priority as usize].record(lat);
        self.batch_lat_sum += lat as f64;
        self.batch_lat_n += 1;
    }

    /// Data payload delivered to its destination.
    #[inline]
    pub fn data_delivered(&mut self, now: Time, bytes: u32, priority: u16) {
        if now < self.warmup_end {
            return;
        }
        self.bytes += bytes as u64;
        self.bytes_prio[priority as usize] += bytes as u64;
        self.batch_bytes += bytes as u64;
    }

    /// A transaction completed; returns a reason to stop, if any.
    #[inline]
    pub fn transaction_completed(&mut self, now: Time, priority: u16) -> Option<Stop> {
        if now < self.warmup_end {
            return None;
        }
        self.txns += 1;
        self.txns_prio[priority as usize] += 1;
        self.batch_count += 1;
        if self.batch_count == self.batch_txns {
            self.close_batch(now);
            if let Some(target) = self.ci_target {
                let t = self.throughput.estimate();
                let l = self.latency.estimate();
                if t.batches >= MIN_BATCHES_FOR_PRECISION
                    && t.relative_halfwidth() <= target
                    && l.relative_halfwidth() <= target
                {
                    return Some(Stop::Precision);
                }
            }
        }
        if self.txns >= self.target_txns {
            Some(Stop::Transactions)
        } else {
            None
        }
    }

    fn close_batch(&mut self, now: Time) {
        self.throughput.push(self.batch_bytes as f64, (now - self.batch_start) as f64);
        if self.batch_lat_n > 0 {
            self.latency.push(self.batch_lat_sum, self.batch_lat_n as f64);
        }
        self.batch_start = now;
        self.batch_bytes = 0;
        self.batch_lat_sum = 0.0;
        self.batch_lat_n = 0;
        self.batch_count = 0;
    }

    /// A packet occupies the link leaving `node` from `start` for `dur`.
    /// Only the part inside the measurement window counts: one that starts
    /// in the warm-up counts from its end, and the report clips the last
    /// one of each link at the window's end.
    #[inline]
    pub(crate) fn link_used(&mut self, node: usize, start: Time, dur: Time, send: bool) {
        if start < self.warmup_end {
            return self.link_used_in_warmup(node, start, dur, send);
        }
        self.add_link_use(node, start + dur, dur, send);
    }

    #[cold]
    fn link_used_in_warmup(&mut self, node: usize, start: Time, dur: Time, send: bool) {
        self.add_link_use(node, start + dur, (start + dur).saturating_sub(self.warmup_end), send);
    }

    /// Adds `counted` of busy time to the link leaving `node`, whose
    /// transmission ends at `end`.
    #[inline(always)]
    fn add_link_use(&mut self, node: usize, end: Time, counted: Time, send: bool) {
        // Sends and echoes alternate unpredictably: add, don't branch.
        // Once per hop: unchecked, as the ring's node numbers are (see
        // `Nodes`); the lists have one entry per node.
        debug_assert!(node < self.link_busy.len() && node < self.link_send_busy.len() && node < self.link_last.len());
        // SAFETY: `node` is a node of this ring, below the lengths.
        unsafe {
            *self.link_busy.get_unchecked_mut(node) += counted;
            *self.link_send_busy.get_unchecked_mut(node) += counted * send as Time;
            *self.link_last.get_unchecked_mut(node) = end << 1 | send as Time;
        }
    }

    /// Busy and send-busy time of link `i` inside the window ending at `end`.
    fn link_busy_until(&self, i: usize, end: Time) -> (Time, Time) {
        let (last_end, send) = (self.link_last[i] >> 1, self.link_last[i] & 1 == 1);
        // Links never carry two packets at once: only the last can run past `end`.
        let over = last_end.saturating_sub(end.max(self.warmup_end)).min(self.link_busy[i]);
        let send_over = if send { over.min(self.link_send_busy[i]) } else { 0 };
        (self.link_busy[i] - over, self.link_send_busy[i] - send_over)
    }

    pub fn report(&self, end: Time, stop: Stop, offered_per_prio: f64, nodes: usize) -> Report {
        let window = end.saturating_sub(self.warmup_end);
        let window_s = window as f64 * 1e-12;
        let mbps = |bytes: u64| if window > 0 { bytes as f64 / window_s / 1e6 } else { f64::NAN };
        // Batch ratios are bytes per ps: x 1e12 / 1e6 gives MB/s.
        let thr = self.throughput.estimate();
        let lat = self.latency.estimate();
        let per_priority = (0..self.hist_prio.len())
            .map(|p| {
                let h = &self.hist_prio[p];
                PriorityReport {
                    priority: p as u32,
                    throughput_mbps: mbps(self.bytes_prio[p]),
                    offered_mbps: offered_per_prio * nodes as f64,
                    transactions: self.txns_prio[p],
                    packets: h.count(),
                    latency_ns_mean: ps_to_ns_f(h.mean_ps()),
                    latency_ns_p50: ps_to_ns_f(h.percentile_ps(50.0)),
                    latency_ns_p99: ps_to_ns_f(h.percentile_ps(99.0)),
                    latency_ns_p999: ps_to_ns_f(h.percentile_ps(99.9)),
                    latency_ns_max: ps_to_ns_f(h.max_ps()),
                }
            })
            .collect();
        let per_link = (0..nodes)
            .map(|i| {
                let (busy, send_busy) = self.link_busy_until(i, end);
                LinkReport {
                    link: i as u32,
                    from_node: i as u32,
                    to_node: ((i + 1) % nodes) as u32,
                    utilization: if window > 0 { busy as f64 / window as f64 } else { f64::NAN },
                    send_utilization: if window > 0 { send_busy as f64 / window as f64 } else { f64::NAN },
                }
            })
            .collect();
        let all = LatencyHistogram::merged(&self.hist_prio, self.lat_sum);
        Report {
            summary: Summary {
            throughput_mbps: mbps(self.bytes),
            throughput_mbps_ci95: thr.ci95 * 1e6,
            offered_mbps: offered_per_prio * nodes as f64 * self.hist_prio.len() as f64,
            latency_ns_mean: ps_to_ns_f(all.mean_ps()),
            latency_ns_mean_ci95: ps_to_ns_f(lat.ci95),
            latency_ns_p50: ps_to_ns_f(all.percentile_ps(50.0)),
            latency_ns_p99: ps_to_ns_f(all.percentile_ps(99.0)),
            latency_ns_p999: ps_to_ns_f(all.percentile_ps(99.9)),
            latency_ns_max: ps_to_ns_f(all.max_ps()),
            transactions: self.txns,
            retries: self.retries,
            sim_time_ns: ps_to_ns(end),
            measure_time_ns: ps_to_ns(window),
            batches: thr.batches,
            stopped_by: stop.name(),
            },
            per_priority,
            per_link,
            ..Report::default()
        }
    }
}

fn ps_to_ns_f(ps: f64) -> f64 {
    ps / 1e3
}
