//! What one SCI ring run reports (the JSON contract of `ringlet run --json`).

use serde::Serialize;

/// Figures for one priority level.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PriorityReport {
    pub priority: u32,
    /// Effective throughput of this priority, MB/s (10^6 bytes/s).
    pub throughput_mbps: f64,
    pub offered_mbps: f64,
    /// Transactions of this priority completed in the measurement window.
    pub transactions: u64,
    /// One-way packet latencies (requests and responses) measured.
    pub packets: u64,
    pub latency_ns_mean: f64,
    pub latency_ns_p50: f64,
    pub latency_ns_p99: f64,
    pub latency_ns_p999: f64,
    pub latency_ns_max: f64,
}

/// Utilisation of the link leaving `node` (toward `node + 1`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct LinkReport {
    pub link: u32,
    pub from_node: u32,
    pub to_node: u32,
    /// Fraction of the measurement window the link carried packet symbols.
    pub utilization: f64,
    /// Same, counting only send packets (requests, responses) and not echoes.
    pub send_utilization: f64,
}

/// Event counts that explain a result (measurement window only unless noted).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Counters {
    /// Packets passing one node (bypass) or being stripped by it: a hop each.
    pub packet_hops: u64,
    /// Engine events handled over the whole run, warm-up included.
    pub events: u64,
    pub send_packets: u64,
    pub echoes: u64,
    pub busy_echoes: u64,
    pub retries: u64,
    /// Busy echoes that carried an A/B reservation.
    pub reservations: u64,
    /// Times a node was kept from starting a packet by the go-bit protocol.
    pub go_bit_holds: u64,
    /// Times a node's own packet waited for bypass traffic (register-insertion rule).
    pub bypass_waits: u64,
    /// PPQ: packets preempted from an input queue or a bypass queue (each becomes a busy echo).
    pub preemptions: u64,
    /// Protocol control packets put on the ring (DFC control symbols, TRAIN trains, PPQ inheritance messages).
    pub control_symbols: u64,
    /// TRAIN: tickets deleted by a full destination or truncated at the size budget.
    pub tickets_deleted: u64,
    /// Times a node held a packet because of another node's announced state
    /// (DFC STOP-THRU/STOP-TO, TRAIN waiting for its grant).
    pub flow_holds: u64,
    /// PPQ: priority inheritance messages sent.
    pub inheritances: u64,
}

/// Every generated transaction is completed, in flight, or still queued.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Conservation {
    /// Whole run, warm-up included.
    pub generated: u64,
    pub completed: u64,
    /// Waiting in an application queue (never sent).
    pub queued: u64,
    /// Sent but not completed: in output queues, on the ring, in input queues or in service.
    pub in_flight: u64,
}

/// The result of one SCI ring run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// Effective throughput: data bytes delivered to all nodes / measured time, MB/s.
    pub throughput_mbps: f64,
    pub throughput_mbps_ci95: f64,
    /// Offered data load over all nodes and priorities, MB/s.
    pub offered_mbps: f64,
    /// Mean one-way latency of requests and responses, ns (seed Figure 7).
    pub latency_ns_mean: f64,
    pub latency_ns_mean_ci95: f64,
    pub latency_ns_p50: f64,
    pub latency_ns_p99: f64,
    pub latency_ns_p999: f64,
    pub latency_ns_max: f64,
    /// Transactions completed in the measurement window.
    pub transactions: u64,
    /// Busy-retried send packets in the measurement window.
    pub retries: u64,
    /// Simulated time at the end of the run, warm-up included, ns.
    pub sim_time_ns: f64,
    /// Length of the measurement window, ns.
    pub measure_time_ns: f64,
    pub batches: usize,
    /// Why the run stopped: "transactions", "precision" or "time_cap".
    pub stopped_by: &'static str,
    pub per_priority: Vec<PriorityReport>,
    pub per_link: Vec<LinkReport>,
    pub counters: Counters,
    pub conservation: Conservation,
}
