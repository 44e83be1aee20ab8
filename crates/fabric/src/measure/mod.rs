//! Measurement as in seed 003 Figure 7: effective throughput (data bytes
//! delivered / measured time) and one-way latency (application queue to
//! serviced), warm-up discarded, batch-means confidence intervals and HDR
//! percentiles; kept by structure: per priority, per agent (the requester
//! a transaction belongs to), per traffic class, per link and per ringlet.

use crate::dense::Dense;
use crate::params::Params;
use crate::report::{NodePriorityReport, ClientFigures, ReconfigurationReport, VcReport, ClassReport, LinkReport, NodeReport, PriorityReport, Report, RingletReport, Summary};
use crate::series::{Bin, Series};
use crate::topology::Topology;
use ringlet_engine::run::Stop;
use ringlet_engine::stats::{BatchMeans, CoarseHistogram, LatencyHistogram};
use ringlet_engine::time::{ns_to_time, time_to_ns, time_to_ps, time_to_s};
use ringlet_engine::Time;
use ringlet_scenario::Scenario;

mod fairness;
mod usage;

use fairness::Fairness;
pub(crate) use fairness::refresh_fairness;
pub use fairness::{SERVED_ABOVE, STARVED_BELOW};
use usage::Usage;

/// Most agent x priority pairs whose latencies are kept apart (`per_node_priority`);
/// beyond, the table is left out (its histograms would take too much memory).
pub const MAX_NODE_PRIORITIES: usize = 4096;

/// Batches needed before a precision stop is trusted.
const MIN_BATCHES_FOR_PRECISION: usize = 10;

/// What one agent's transactions got in the measurement window.
struct PerAgent {
    bytes: u64,
    txns: u64,
    retries: u64,
    lost_bytes: u64,
    latency: CoarseHistogram,
}

/// What one traffic class's packets got in the measurement window (no
/// percentiles: a third histogram per packet would cost 1-2% of a run).
struct PerClass {
    retries: u64,
    packets: u64,
    /// ps.
    latency_sum: f64,
}

/// What a fabric that keeps transactions (GigaRing) measures beyond the
/// rest: channel and transaction latencies, data per class.
struct ClientMeasure {
    channel: CoarseHistogram,
    transaction: CoarseHistogram,
    class_bytes: Vec<u64>,
    /// The network failed then: data delivered and transaction latencies
    /// (sum, ps, and count) in the window up to that instant.
    changed: Option<(Time, u64, f64, u64)>,
    /// When a failure is due, is detected (the fold), and the folded ring starts.
    fold: Option<(Time, Time, Time)>,
    transaction_sum_ps: f64,
}

pub struct Measure {
    pub warmup_end: Time,
    client: Option<ClientMeasure>,
    /// The run interval by interval, if kept (`Measure::keep_series`).
    series: Option<Series>,
    target_txns: u64,
    ci_target: Option<f64>,
    batch_txns: u64,
    // Window totals.
    pub txns: u64,
    bytes: u64,
    lost_bytes: u64,
    txns_prio: Vec<u64>,
    bytes_prio: Vec<u64>,
    pub retries: u64,
    /// Sum of every latency recorded, ps, in recording order (the overall
    /// histogram is merged from the per-priority ones at the report).
    lat_sum: f64,
    hist_prio: Vec<LatencyHistogram>,
    /// Indexed by the fabric's agent and class numbers (see `crate::dense`).
    agents: Dense<PerAgent>,
    /// With several priorities (and at most `MAX_NODE_PRIORITIES` agent x
    /// priority pairs): each agent's latencies per priority, by `agent * priorities + priority`.
    agent_prio: Vec<CoarseHistogram>,
    classes: Dense<PerClass>,
    /// Links' and buses' busy times and what crossed the buses.
    usage: Usage,
    // Current batch.
    batch_start: Time,
    batch_bytes: u64,
    /// ps.
    batch_lat_sum: f64,
    batch_lat_n: u64,
    batch_count: u64,
    throughput: BatchMeans,
    latency: BatchMeans,
}

impl Measure {
    pub fn new(s: &Scenario, topo: &Topology, p: &Params) -> Measure {
        let prios = s.traffic.priorities as usize;
        let batches = s.run.batches as u64;
        let client = (p.tracks_transactions() || p.client.channel_latency)
            .then(|| ClientMeasure { channel: CoarseHistogram::coarse(), transaction: CoarseHistogram::coarse(), class_bytes: vec![0; p.classes.len()], changed: None, fold: None, transaction_sum_ps: 0.0 });
        Measure {
            warmup_end: ns_to_time(s.run.warmup_ns),
            client,
            series: s.run.series_interval_ns.map(|every| Series::new(ns_to_time(every), ns_to_time(s.run.warmup_ns))),
            target_txns: s.run.measure_transactions,
            ci_target: s.run.ci_rel_halfwidth,
            batch_txns: s.run.measure_transactions.div_ceil(batches).max(1),
            txns: 0,
            bytes: 0,
            lost_bytes: 0,
            txns_prio: vec![0; prios],
            bytes_prio: vec![0; prios],
            retries: 0,
            lat_sum: 0.0,
            hist_prio: (0..prios).map(|_| LatencyHistogram::new()).collect(),
            agent_prio: if prios > 1 && topo.agents().len() * prios <= MAX_NODE_PRIORITIES {
                (0..topo.agents().len() * prios).map(|_| CoarseHistogram::coarse()).collect()
            } else {
                Vec::new()
            },
            agents: Dense::new(topo.agents().iter().map(|_| PerAgent { bytes: 0, txns: 0, retries: 0, lost_bytes: 0, latency: CoarseHistogram::coarse() }).collect()),
            classes: Dense::new(p.classes.names.iter().map(|_| PerClass { retries: 0, packets: 0, latency_sum: 0.0 }).collect()),
            usage: Usage::new(topo, ns_to_time(s.run.warmup_ns)),
            batch_start: ns_to_time(s.run.warmup_ns),
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

    /// A request or response of agent `requester`'s transaction removed
    /// from its input queue of `class` and serviced at its destination.
    #[inline(always)]
    pub fn packet_serviced(&mut self, now: Time, born: Time, priority: u16, requester: u16, class: u8) {
        if now < self.warmup_end {
            return;
        }
        let lat = now - born;
        // Sums in ps, as the histograms' (and as when time was in ps).
        let lat_ps = time_to_ps(lat);
        self.lat_sum += lat_ps;
        self.hist_prio[priority as usize].record(lat);
        self.agents[requester as usize].latency.record(lat);
        if !self.agent_prio.is_empty() {
            let prios = self.hist_prio.len();
            self.agent_prio[requester as usize * prios + priority as usize].record(lat);
        }
        let c = &mut self.classes[class as usize];
        c.packets += 1;
        c.latency_sum += lat_ps;
        self.batch_lat_sum += lat_ps;
        self.batch_lat_n += 1;
        if self.series.is_some() {
            self.series_packet(now, lat_ps);
        }
    }

    /// Data payload of agent `requester`'s transaction delivered to its destination.
    #[inline]
    pub fn data_delivered(&mut self, now: Time, bytes: u32, priority: u16, requester: u16) {
        if now < self.warmup_end {
            return;
        }
        self.bytes += bytes as u64;
        self.bytes_prio[priority as usize] += bytes as u64;
        self.agents[requester as usize].bytes += bytes as u64;
        self.batch_bytes += bytes as u64;
        if self.series.is_some() {
            self.series_data(now, bytes);
        }
    }

    /// A packet that carries data, sent `lat` ago, has its accepting echo back (seed 002's channel latency).
    pub fn channel(&mut self, now: Time, lat: Time) {
        if now < self.warmup_end {
            return;
        }
        if let Some(c) = self.client.as_mut() {
            c.channel.record(lat);
        }
    }

    /// A transaction generated `lat` ago completed (where transactions are kept).
    pub fn transaction_latency(&mut self, now: Time, lat: Time) {
        if now < self.warmup_end {
            return;
        }
        if let Some(c) = self.client.as_mut() {
            c.transaction.record(lat);
            c.transaction_sum_ps += time_to_ps(lat);
        }
        if let Some(b) = self.series.as_mut().and_then(|s| s.bin(now)) {
            b.txn_latencies += 1;
            b.txn_latency_sum += time_to_ps(lat);
        }
    }

    /// Keeps the run interval by interval, `every` long, unless the
    /// scenario already asks for a series (`run.series_interval_ns`).
    pub fn keep_series(&mut self, every: Time) {
        if self.series.is_none() {
            self.series = Some(Series::new(every, self.warmup_end));
        }
    }

    /// With a series: averages `streams` windows, `sum` their sum at the start.
    pub fn average_windows(&mut self, streams: u32, sum: u64) {
        if let Some(s) = self.series.as_mut() {
            s.average_windows(streams, sum);
        }
    }

    /// An averaged stream's window went from `old` to `new`.
    pub fn window_changed(&mut self, now: Time, old: u16, new: u16) {
        if let Some(s) = self.series.as_mut() {
            s.window_changed(now, old, new);
        }
    }

    // Out of line: a run without a series pays one test per event.
    #[cold]
    #[inline(never)]
    fn series_packet(&mut self, now: Time, lat_ps: f64) {
        if let Some(b) = self.series_bin(now) {
            b.packets += 1;
            b.latency_sum += lat_ps;
        }
    }

    #[cold]
    #[inline(never)]
    fn series_data(&mut self, now: Time, bytes: u32) {
        if let Some(b) = self.series_bin(now) {
            b.bytes += bytes as u64;
        }
    }

    #[cold]
    #[inline(never)]
    fn series_transaction(&mut self, now: Time) {
        if let Some(b) = self.series_bin(now) {
            b.txns += 1;
        }
    }

    /// The interval of `now` in the series, if one is kept and `now` is measured.
    fn series_bin(&mut self, now: Time) -> Option<&mut Bin> {
        self.series.as_mut().and_then(|s| s.bin(now))
    }

    /// A packet was sent again after the fold.
    pub fn series_resent(&mut self, now: Time) {
        if let Some(b) = self.series_bin(now) {
            b.resent += 1;
        }
    }

    /// A duplicate was echoed and dropped by its target.
    pub fn series_duplicate(&mut self, now: Time) {
        if let Some(b) = self.series_bin(now) {
            b.duplicates += 1;
        }
    }

    /// A transaction was lost with a failed node.
    pub fn series_lost(&mut self, now: Time) {
        if let Some(b) = self.series_bin(now) {
            b.lost += 1;
        }
    }

    /// A failure is due at `failed`, detected at `folded`, the folded ring live at `live`.
    pub fn fold_times(&mut self, failed: Time, folded: Time, live: Time) {
        if let Some(c) = self.client.as_mut() {
            c.fold = Some((failed, folded, live));
        }
    }

    /// The network failed now (`Fabric::reconfigure`): the figures so far are "before".
    pub fn reconfigured(&mut self, now: Time) {
        let bytes = self.bytes;
        if let Some(c) = self.client.as_mut() {
            c.changed = Some((now, bytes, c.transaction_sum_ps, c.transaction.count()));
        }
    }

    /// A packet of `class` delivered `bytes` of data (where transactions are kept).
    pub fn class_data(&mut self, now: Time, class: u8, bytes: u32) {
        if now < self.warmup_end {
            return;
        }
        if let Some(c) = self.client.as_mut() {
            c.class_bytes[class as usize] += bytes as u64;
        }
    }

    /// A packet of `requester`'s transaction, of `class`, was busied and goes again.
    #[inline]
    pub fn retried(&mut self, now: Time, requester: u16, class: u8) {
        if now < self.warmup_end {
            return;
        }
        self.retries += 1;
        self.agents[requester as usize].retries += 1;
        self.classes[class as usize].retries += 1;
        if let Some(b) = self.series_bin(now) {
            b.retries += 1;
        }
    }

    /// A transaction of `agent` carrying `bytes` of data was lost: its application queue was full.
    pub fn lost(&mut self, now: Time, bytes: u32, agent: u16) {
        if now < self.warmup_end {
            return;
        }
        self.lost_bytes += bytes as u64;
        self.agents[agent as usize].lost_bytes += bytes as u64;
    }

    /// A transaction of `requester` completed; returns a reason to stop, if any.
    #[inline]
    pub fn transaction_completed(&mut self, now: Time, priority: u16, requester: u16) -> Option<Stop> {
        if now < self.warmup_end {
            return None;
        }
        self.txns += 1;
        self.txns_prio[priority as usize] += 1;
        if self.series.is_some() {
            self.series_transaction(now);
        }
        self.agents[requester as usize].txns += 1;
        self.batch_count += 1;
        if self.batch_count == self.batch_txns {
            self.close_batch(now);
            if let Some(target) = self.ci_target {
                let t = self.throughput.estimate();
                let l = self.latency.estimate();
                if t.batches >= MIN_BATCHES_FOR_PRECISION && t.relative_halfwidth() <= target && l.relative_halfwidth() <= target {
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
        self.throughput.push(self.batch_bytes as f64, time_to_ps(now - self.batch_start));
        if self.batch_lat_n > 0 {
            self.latency.push(self.batch_lat_sum, self.batch_lat_n as f64);
        }
        self.batch_start = now;
        self.batch_bytes = 0;
        self.batch_lat_sum = 0.0;
        self.batch_lat_n = 0;
        self.batch_count = 0;
    }

    /// A packet occupies the link leaving interface `i` from `start` for `dur`.
    #[inline(always)]
    pub(crate) fn link_used(&mut self, i: usize, start: Time, dur: Time, send: bool) {
        self.usage.link_used(i, start, dur, send);
    }

    /// Agent `a`'s bus carries a transfer from `start` for `dur`.
    pub(crate) fn bus_used(&mut self, a: usize, start: Time, dur: Time) {
        self.usage.bus_used(a, start, dur);
    }

    /// A packet with `data` payload bytes crossed agent `a`'s bus from interface `from` to `to`.
    pub(crate) fn crossed(&mut self, now: Time, a: usize, from: usize, to: usize, data: u32) {
        self.usage.crossed(now, a, from, to, data);
    }

    pub fn report(&self, end: Time, stop: Stop, offered_per_prio: f64, topo: &Topology, class_names: &[&'static str]) -> Report {
        let window = end.saturating_sub(self.warmup_end);
        let window_s = time_to_s(window);
        let mbps = |bytes: u64| if window > 0 { bytes as f64 / window_s / 1e6 } else { f64::NAN };
        let share = |busy: Time| if window > 0 { time_to_ps(busy) / time_to_ps(window) } else { f64::NAN };
        // The endpoints that offer load.
        let endpoints = topo.endpoints().iter().filter(|&&a| topo.agent(a).role.sends()).count();
        let prios = self.hist_prio.len();
        // Batch ratios are bytes per ps: x 1e12 / 1e6 gives MB/s.
        let thr = self.throughput.estimate();
        let lat = self.latency.estimate();
        let mut per_priority = (0..prios)
            .map(|p| {
                let h = &self.hist_prio[p];
                PriorityReport {
                    priority: p as u32,
                    throughput_mbps: mbps(self.bytes_prio[p]),
                    offered_mbps: offered_per_prio * endpoints as f64,
                    transactions: self.txns_prio[p],
                    packets: h.count(),
                    latency_ns_mean: ps_to_ns_f(h.mean_ps()),
                    latency_ns_p50: ps_to_ns_f(h.percentile_ps(50.0)),
                    latency_ns_p99: ps_to_ns_f(h.percentile_ps(99.0)),
                    latency_ns_p999: ps_to_ns_f(h.percentile_ps(99.9)),
                    latency_ns_max: ps_to_ns_f(h.max_ps()),
                    node_latency_ns_p99_max: f64::NAN,
                    node_latency_ns_p99_max_node: -1,
                }
            })
            .collect::<Vec<_>>();
        let per_node: Vec<NodeReport> = self
            .agents
            .iter()
            .enumerate()
            .map(|(a, m)| NodeReport {
                node: a as u32,
                offered_mbps: if topo.agent(a as u16).endpoint && topo.agent(a as u16).role.sends() { offered_per_prio * prios as f64 } else { 0.0 },
                throughput_mbps: mbps(m.bytes),
                transactions: m.txns,
                packets: m.latency.count(),
                latency_ns_mean: ps_to_ns_f(m.latency.mean_ps()),
                latency_ns_p99: ps_to_ns_f(m.latency.percentile_ps(99.0)),
                retries: m.retries,
                loss_mbps: mbps(m.lost_bytes),
                carried_share: f64::NAN,
                backlog: 0,
                oldest_waiting_ns: 0.0,
                longest_stall_ns: 0.0,
                longest_stall_by_data_ns: 0.0,
            })
            .map(|mut n: NodeReport| {
                if n.offered_mbps > 0.0 {
                    n.carried_share = n.throughput_mbps / n.offered_mbps;
                }
                n
            })
            .collect();
        let links = self.usage.links_until(topo, end);
        let per_link = links
            .iter()
            .enumerate()
            .map(|(i, &(busy, send_busy))| {
                let i = i as u16;
                LinkReport {
                    link: i as u32,
                    from_node: topo.agent_of(i) as u32,
                    to_node: topo.agent_of(topo.next(i)) as u32,
                    utilization: share(busy),
                    send_utilization: share(send_busy),
                    ringlet: topo.ringlet_of(i) as u32,
                    bypass_max_symbols: 0,
                    go_bit_holds: 0,
                }
            })
            .collect();
        let per_ringlet = (0..topo.ringlets() as u16)
            .map(|r| {
                let ifaces = topo.ringlet_ifaces(r);
                let util: Vec<f64> = ifaces.iter().map(|&i| share(links[i as usize].0)).collect();
                let send: f64 = ifaces.iter().map(|&i| share(links[i as usize].1)).sum();
                RingletReport {
                    ringlet: r as u32,
                    interfaces: ifaces.len() as u32,
                    utilization_mean: util.iter().sum::<f64>() / util.len() as f64,
                    utilization_max: util.iter().copied().fold(f64::NAN, f64::max),
                    send_utilization_mean: send / ifaces.len() as f64,
                }
            })
            .collect();
        let per_class = self
            .classes
            .iter()
            .enumerate()
            .map(|(c, m)| ClassReport {
                class: c as u32,
                name: class_names[c],
                packets: m.packets,
                latency_ns_mean: if m.packets > 0 { ps_to_ns_f(m.latency_sum / m.packets as f64) } else { f64::NAN },
                retries: m.retries,
            })
            .collect();
        let fair = Fairness::of(&per_node);
        let all = LatencyHistogram::merged(&self.hist_prio, self.lat_sum);
        let (per_switch, per_port) = self.usage.switches(topo, end, window, &links);
        let per_node_priority: Vec<NodePriorityReport> = self
            .agent_prio
            .iter()
            .enumerate()
            .filter(|(_, h)| h.count() > 0)
            .map(|(k, h)| NodePriorityReport {
                node: (k / prios) as u32,
                priority: (k % prios) as u32,
                packets: h.count(),
                latency_ns_mean: ps_to_ns_f(h.mean_ps()),
                latency_ns_p99: ps_to_ns_f(h.percentile_ps(99.0)),
            })
            .collect();
        // Each priority's worst node tail: from the nodes' own figures with
        // one priority, from the node x priority ones with several.
        let tails: Vec<(u32, u32, f64)> = if prios == 1 {
            per_node.iter().filter(|n| n.packets > 0).map(|n| (n.node, 0, n.latency_ns_p99)).collect()
        } else {
            per_node_priority.iter().map(|n| (n.node, n.priority, n.latency_ns_p99)).collect()
        };
        for (node, priority, p99) in tails {
            let level = &mut per_priority[priority as usize];
            if level.node_latency_ns_p99_max_node < 0 || p99 > level.node_latency_ns_p99_max {
                level.node_latency_ns_p99_max = p99;
                level.node_latency_ns_p99_max_node = node as i64;
            }
        }
        Report {
            summary: Summary {
                throughput_mbps: mbps(self.bytes),
                throughput_mbps_ci95: thr.ci95 * 1e6,
                offered_mbps: offered_per_prio * endpoints as f64 * prios as f64,
                loss_mbps: mbps(self.lost_bytes),
                // Judged by the fabric, which knows what a failure lost.
                saturated: false,
                latency_ns_mean: ps_to_ns_f(all.mean_ps()),
                latency_ns_mean_ci95: ps_to_ns_f(lat.ci95),
                latency_ns_p50: ps_to_ns_f(all.percentile_ps(50.0)),
                latency_ns_p99: ps_to_ns_f(all.percentile_ps(99.0)),
                latency_ns_p999: ps_to_ns_f(all.percentile_ps(99.9)),
                latency_ns_max: ps_to_ns_f(all.max_ps()),
                transactions: self.txns,
                retries: self.retries,
                fairness_index: fair.index,
                min_carried_share: fair.min_share,
                min_carried_share_node: fair.min_node,
                output_inversions_per_kpacket: 0.0,
                input_inversions_per_kpacket: 0.0,
                sim_time_ns: time_to_ns(end),
                measure_time_ns: time_to_ns(window),
                batches: thr.batches,
                stopped_by: stop.name(),
                stall_window_ns: time_to_ns(window) * crate::stalls::STALL_FRACTION,
                // The fabric's analytic estimate, filled in by the fabric.
                model_throughput_mbps: f64::NAN,
                model_latency_ns_mean: f64::NAN,
                model_saturation_load_mbps_per_node: f64::NAN,
                model_bottleneck: String::new(),
                model_utilization: f64::NAN,
            },
            starved_nodes: fair.starved,
            per_priority,
            per_node,
            per_link,
            per_ringlet,
            per_class,
            per_switch,
            per_port,
            client: self.client.as_ref().map(|c| ClientFigures {
                channel_latency_ns_mean: ps_to_ns_f(c.channel.mean_ps()),
                channel_latency_ns_p99: ps_to_ns_f(c.channel.percentile_ps(99.0)),
                transaction_latency_ns_mean: ps_to_ns_f(c.transaction.mean_ps()),
                transaction_latency_ns_p99: ps_to_ns_f(c.transaction.percentile_ps(99.0)),
                window_decreases: 0,
            }),
            reconfiguration: self.client.as_ref().and_then(|c| c.changed).map(|(at, bytes, sum, n)| {
                let before = at.saturating_sub(self.warmup_end);
                let after = end.saturating_sub(at.max(self.warmup_end));
                let rate = |b: u64, t: Time| if t > 0 { b as f64 / time_to_s(t) / 1e6 } else { f64::NAN };
                let client = self.client.as_ref().expect("client figures");
                let (sum_after, n_after) = (client.transaction_sum_ps - sum, client.transaction.count() - n);
                let (_, folded, live) = client.fold.unwrap_or((at, at, at));
                ReconfigurationReport {
                    at_ns: time_to_ns(at),
                    folded_ns: time_to_ns(folded),
                    live_ns: time_to_ns(live),
                    throughput_before_mbps: rate(bytes, before),
                    throughput_after_mbps: rate(self.bytes - bytes, after),
                    transaction_latency_before_ns: if n > 0 { ps_to_ns_f(sum / n as f64) } else { f64::NAN },
                    transaction_latency_after_ns: if n_after > 0 { ps_to_ns_f(sum_after / n_after as f64) } else { f64::NAN },
                    transactions_after: n_after,
                    ..ReconfigurationReport::default()
                }
            }),
            per_node_priority,
            per_interval: self.series.as_ref().map(|s| s.report(end)).unwrap_or_default(),
            per_vc: self
                .client
                .as_ref()
                .map(|c| c.class_bytes.iter().enumerate().map(|(k, &b)| VcReport { class: k as u32, name: class_names[k], throughput_mbps: mbps(b) }).collect())
                .unwrap_or_default(),
            ..Report::default()
        }
    }
}

/// Picoseconds (the unit of the latency histograms and sums) to ns.
fn ps_to_ns_f(ps: f64) -> f64 {
    ps / 1e3
}
