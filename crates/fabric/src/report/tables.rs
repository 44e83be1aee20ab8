//! The report's tables, each declared once with [`table!`](super): the
//! struct a run fills and serialises, and its columns with units and meanings.

use super::{Column, Columns};
use serde::Serialize;

table! {
    /// Figures for one priority level.
    pub struct PriorityReport {
        /// Priority level (0 is the lowest).
        priority: u32 [""],
        /// Effective throughput of this priority: data bytes delivered / measured time.
        throughput_mbps: f64 ["MB/s"],
        /// Data load offered at this priority over all nodes.
        offered_mbps: f64 ["MB/s"],
        /// Transactions of this priority completed in the measurement window.
        transactions: u64 [""],
        /// One-way packet latencies (requests and responses) measured.
        packets: u64 [""],
        /// Mean one-way latency (application queue to serviced).
        latency_ns_mean: f64 ["ns"],
        /// Median one-way latency.
        latency_ns_p50: f64 ["ns"],
        /// 99th percentile of one-way latency.
        latency_ns_p99: f64 ["ns"],
        /// 99.9th percentile of one-way latency.
        latency_ns_p999: f64 ["ns"],
        /// Longest one-way latency.
        latency_ns_max: f64 ["ns"],
        /// The largest 99th percentile of one node's own packets of this priority (the node whose tail is worst; NaN when the nodes' figures per priority are not kept: over 4 096 node x priority pairs). A starved node's few packets can make it small: read it with `starved_nodes`.
        node_latency_ns_p99_max: f64 ["ns"],
        /// That node (-1 when none).
        node_latency_ns_p99_max_node: i64 [""],
    }
}

table! {
    /// Figures for one node (agent), of the transactions it requested: its
    /// share of the bandwidth, and what its requests and their responses waited.
    pub struct NodeReport {
        /// Agent number (on an SCI ring, the node number).
        node: u32 [""],
        /// Data load it offers over all priorities (0 for agents that only pass packets on).
        offered_mbps: f64 ["MB/s"],
        /// Effective throughput of its transactions: their data bytes delivered / measured time.
        throughput_mbps: f64 ["MB/s"],
        /// Its transactions completed in the measurement window.
        transactions: u64 [""],
        /// One-way latencies of its transactions' packets (requests and responses) measured.
        packets: u64 [""],
        /// Mean one-way latency of its transactions' packets.
        latency_ns_mean: f64 ["ns"],
        /// 99th percentile of that latency (2 significant digits).
        latency_ns_p99: f64 ["ns"],
        /// Its transactions' packets busied and sent again.
        retries: u64 [""],
        /// Data of its transactions lost because its application queue was full.
        loss_mbps: f64 ["MB/s"],
        /// The share of its offered load it carried: throughput / offered (empty where it offers none, or it failed mid-run).
        carried_share: f64 [""],
        /// Its transactions generated and neither completed nor lost when the run stopped (waiting or in flight).
        backlog: u64 [""],
        /// Age, when the run stopped, of the oldest of its transactions still waiting in its application queue (0: none waits).
        oldest_waiting_ns: f64 ["ns"],
        /// The longest stretch of the measurement window in which it had transactions outstanding (generated, neither completed nor lost) and completed none; over the summary's `stall_window_ns`, the node is stalled (`stalled_nodes`).
        longest_stall_ns: f64 ["ns"],
        /// The same stretch judged by data: none of its transactions delivered any (a response time-out's copy aside) nor completed. A block moves packet by packet long before its last packet completes it: where this stays short while `longest_stall_ns` is long, the node's transactions advance, only each takes long.
        longest_stall_by_data_ns: f64 ["ns"],
    }
}

table! {
    /// Utilisation of one link: the one leaving `from_node`'s ring
    /// interface `link` (toward `to_node`'s).
    pub struct LinkReport {
        /// Link number: the ring interface it leaves.
        link: u32 [""],
        /// The node (agent) whose interface the link leaves.
        from_node: u32 [""],
        /// The node (agent) whose interface the link leads to.
        to_node: u32 [""],
        /// Fraction of the measurement window the link carried packet symbols.
        utilization: f64 [""],
        /// Same, counting only send packets (requests, responses) and not echoes.
        send_utilization: f64 [""],
        /// The ringlet the link belongs to.
        ringlet: u32 [""],
        /// The most symbols the bypass FIFO in front of the link held at once (whole run; packet symbols, not idles).
        bypass_max_symbols: u64 [""],
        /// Times the node sending onto the link was held by go bits an upstream node withheld (IEEE 1596 bandwidth allocation; whole run).
        go_bit_holds: u64 [""],
    }
}

table! {
    /// Utilisation of one ringlet's links.
    pub struct RingletReport {
        /// Ringlet number.
        ringlet: u32 [""],
        /// Ring interfaces (and links) on it.
        interfaces: u32 [""],
        /// Mean utilisation of its links.
        utilization_mean: f64 [""],
        /// Utilisation of its busiest link.
        utilization_max: f64 [""],
        /// Mean utilisation of its links by send packets (not echoes).
        send_utilization_mean: f64 [""],
    }
}

table! {
    /// One agent's bus (a switch's B-Link).
    pub struct SwitchReport {
        /// The agent (switch) number.
        switch: u32 [""],
        /// Its ports: ring interfaces.
        ports: u32 [""],
        /// Fraction of the measurement window the bus carried a transfer.
        bus_utilization: f64 [""],
        /// Packets across the bus in the measurement window.
        crossings: u64 [""],
        /// Data payload across the bus.
        bus_mbps: f64 ["MB/s"],
    }
}

table! {
    /// One port of a switch: a ring interface of an agent with a bus.
    pub struct PortReport {
        /// The agent (switch) number.
        switch: u32 [""],
        /// The port's number on its switch (0 for the first).
        port: u32 [""],
        /// The ring interface (and the link leaving it).
        link: u32 [""],
        /// The ringlet it sits on.
        ringlet: u32 [""],
        /// Data payload of the packets it stripped and passed to the bus.
        to_bus_mbps: f64 ["MB/s"],
        /// Data payload of the packets it took from the bus to send on.
        from_bus_mbps: f64 ["MB/s"],
        /// Fraction of the window its output link carried send packets (its own and those it passed on through its bypass FIFO).
        send_utilization: f64 [""],
    }
}

table! {
    /// Figures for one traffic class (requests, responses; GigaRing's
    /// virtual channels), each with its own queues.
    pub struct ClassReport {
        /// Class number.
        class: u32 [""],
        /// What the class carries.
        name: &'static str [""],
        /// One-way latencies of its packets measured.
        packets: u64 [""],
        /// Mean one-way latency of its packets.
        latency_ns_mean: f64 ["ns"],
        /// Its packets busied and sent again.
        retries: u64 [""],
    }
}

table! {
    /// One node's own transactions at one priority (with several priorities), so that a starved
    /// low priority is not hidden in the node's figures over all.
    pub struct NodePriorityReport {
        /// Agent number.
        node: u32 [""],
        priority: u32 [""],
        /// One-way latencies of its packets of this priority measured.
        packets: u64 [""],
        /// Their mean.
        latency_ns_mean: f64 ["ns"],
        /// Their 99th percentile (2 significant digits).
        latency_ns_p99: f64 ["ns"],
    }
}

table! {
    /// Priority inversions of one kind between two priorities (see docs/model-rt.md).
    pub struct InversionReport {
        /// `output`: a packet put on a link while an own packet of a higher priority waited; `input`: a packet accepted while one of a higher priority the queue had busied was not yet accepted.
        kind: &'static str [""],
        /// The priority that waited.
        higher: u32 [""],
        /// The priority that went first.
        lower: u32 [""],
        /// How often, in the measurement window.
        count: u64 [""],
        /// Mean time the higher-priority packet had waited by then (in its output queue, or since first busied).
        waited_ns_mean: f64 ["ns"],
    }
}

table! {
    /// One traffic class (a GigaRing virtual channel) of a fabric that keeps transactions.
    pub struct VcReport {
        /// Class number.
        class: u32 [""],
        /// What the class carries.
        name: &'static str [""],
        /// Data its packets delivered, over all nodes.
        throughput_mbps: f64 ["MB/s"],
    }
}

table! {
    /// Latencies of a fabric that keeps transactions (GigaRing), beside the summary.
    pub struct ClientFigures {
        /// Mean channel latency: from sending a packet that carries data until its accepting echo is back (seed 002 Figure 6).
        channel_latency_ns_mean: f64 ["ns"],
        /// 99th percentile of the channel latency.
        channel_latency_ns_p99: f64 ["ns"],
        /// Mean transaction latency: from a transaction's generation until its last packet is serviced (a block's completion).
        transaction_latency_ns_mean: f64 ["ns"],
        /// 99th percentile of the transaction latency.
        transaction_latency_ns_p99: f64 ["ns"],
        /// Times a stream's window of outstanding requests was halved on a busy echo (adaptive congestion control).
        window_decreases: u64 [""],
    }
}

table! {
    /// The measurement window split where the network failed (a GigaRing folding around a failure), and what the fold did.
    pub struct ReconfigurationReport {
        /// When the node or link failed.
        at_ns: f64 ["ns"],
        /// When the failure was detected and the rings folded: packets moved to the folded ring, sources told (at_ns + faults.detection_ns).
        folded_ns: f64 ["ns"],
        /// When the folded ring, reinitialised, started to carry packets.
        live_ns: f64 ["ns"],
        /// Data delivered from the end of the warm-up until the failure, per time.
        throughput_before_mbps: f64 ["MB/s"],
        /// Data delivered from the failure until the end of the run, per time (the outage included).
        throughput_after_mbps: f64 ["MB/s"],
        /// Mean transaction latency of the transactions completed before the failure.
        transaction_latency_before_ns: f64 ["ns"],
        /// Mean transaction latency of those completed after it.
        transaction_latency_after_ns: f64 ["ns"],
        /// Transactions completed after the failure (in the window).
        transactions_after: u64 [""],
        /// Packets sent again because they had not been echoed when the rings folded.
        resent: u64 [""],
        /// Copies a target had accepted already (its echo lost), known by their sequence numbers: echoed and dropped there.
        duplicates_suppressed: u64 [""],
        /// Packets moved to the folded ring that found its send buffer full and waited for room.
        held: u64 [""],
        /// Transactions lost because their requester or target failed: lost_at_fold + lost_after_fold.
        lost_transactions: u64 [""],
        /// Of those, the ones in flight or waiting when the rings folded (the failure cut them off).
        lost_at_fold: u64 [""],
        /// Of those, the ones generated for (or by) a failed node after the fold, lost at once.
        lost_after_fold: u64 [""],
    }
}

table! {
    /// One interval of the run (`run.series_interval_ns`, or a fold's default): what the network carried, from the end of the warm-up.
    pub struct IntervalReport {
        /// Start of the interval.
        start_ns: f64 ["ns"],
        /// Data delivered in the interval, per time.
        throughput_mbps: f64 ["MB/s"],
        /// Mean latency of the packets serviced in the interval, as the summary's `latency_ns_mean` (NaN if none).
        latency_ns_mean: f64 ["ns"],
        /// Transactions completed in the interval.
        transactions: u64 [""],
        /// Mean transaction latency of those where transactions are kept (GigaRing; NaN elsewhere or if none).
        transaction_latency_ns_mean: f64 ["ns"],
        /// Packets busied and sent again in the interval (retries).
        retransmissions: u64 [""],
        /// Mean congestion window of the traffic sources' streams over the interval, request packets (GigaRing with adaptive congestion control; NaN elsewhere).
        window_mean: f64 ["packets", "window"],
        /// Times a stream's window closed (halved) in the interval.
        window_decreases: u64 [""],
        /// Packets sent again at the fold (all in the fold's interval).
        resent: u64 [""],
        /// Duplicates echoed and dropped by their targets.
        duplicates_suppressed: u64 [""],
        /// Transactions lost with a failed node (counted when lost: at the fold, or when generated for it afterwards).
        lost: u64 [""],
    }
}

table! {
    /// Event counts that explain a result (measurement window only unless noted).
    pub struct Counters {
        /// Packets passing one ring interface (bypass) or being stripped by it: a hop each (whole run).
        packet_hops: u64 [""],
        /// Engine events handled over the whole run, warm-up included.
        events: u64 [""],
        /// Send packets (requests, responses) put on the ring, retries included (whole run).
        send_packets: u64 [""],
        /// Echoes sent (whole run).
        echoes: u64 [""],
        /// Busy echoes sent: a send packet found no room (whole run).
        busy_echoes: u64 ["", "busy echoes"],
        /// Busied packets sent again (whole run).
        retries: u64 [""],
        /// Output priority inversions in the measurement window (several priorities only; see per_inversion).
        output_inversions: u64 ["", "output inversions"],
        /// Input priority inversions in the measurement window (several priorities only; see per_inversion).
        input_inversions: u64 ["", "input inversions"],
        /// Busy echoes for a request whose input queue was full.
        busy_requests_full: u64 ["", "busy requests (queue full)"],
        /// Busy echoes for a request refused a free slot reserved for packets busied earlier.
        busy_requests_reserved: u64 ["", "busy requests (slot reserved)"],
        /// Busy echoes for a response whose input queue was full.
        busy_responses_full: u64 ["", "busy responses (queue full)"],
        /// Busy echoes for a response refused a free slot reserved for packets busied earlier.
        busy_responses_reserved: u64 ["", "busy responses (slot reserved)"],
        /// Requests sent again because their response had not come within the requester's response time-out (`node.response_timeout_ns`; whole run).
        request_timeouts: u64 ["", "request time-outs"],
        /// Responses serviced for a transaction an earlier response had answered (a time-out's duplicates), dropped (whole run).
        duplicate_responses: u64 ["", "duplicate responses"],
        /// Busy echoes that carried an A/B reservation (BUSY_A / BUSY_B).
        reservations: u64 ["", "A/B reservations"],
        /// Times a node was kept from starting a packet by go bits an upstream node withheld while repaying its debt.
        go_bit_holds: u64 ["", "go-bit holds"],
        /// Times a node was kept from starting a packet while it repaid its own transmission debt (others waiting).
        debt_holds: u64 ["", "debt holds"],
        /// Transmission debts repaid in full (idles converted while others waited), counted when the node next asks to send: a node's last debt of a run may be missing.
        debts_repaid: u64 ["", "debts repaid"],
        /// Transmission debts forgiven or ended early: nobody else was waiting (the idle-priority condition).
        debts_forgiven: u64 ["", "debts forgiven"],
        /// Times a node's own packet waited for bypass traffic (register-insertion rule).
        bypass_waits: u64 [""],
        /// PPQ: packets preempted from an input queue or a bypass queue (each becomes a busy echo).
        preemptions: u64 ["", "preemptions"],
        /// Protocol control packets put on the ring (DFC control symbols, TRAIN trains, PPQ inheritance messages).
        control_symbols: u64 ["", "control symbols"],
        /// TRAIN: tickets deleted by a full destination or truncated at the size budget.
        tickets_deleted: u64 ["", "tickets deleted"],
        /// Times a node held a packet because of another node's announced state (DFC STOP-THRU/STOP-TO, TRAIN waiting for its grant).
        flow_holds: u64 ["", "flow-control holds"],
        /// PPQ: priority inheritance messages sent.
        inheritances: u64 ["", "inheritances"],
        /// TRAIN: input-queue slots a destination reserved for an approved ticket (whole run).
        slots_reserved: u64 ["", "slots reserved"],
        /// TRAIN: reserved slots released, by the packet's arrival or its ticket's deletion (whole run).
        slots_released: u64 [""],
        /// TRAIN: mean time a released reservation was held.
        slot_held_ns_mean: f64 ["ns"],
        /// TRAIN: longest time a released reservation was held.
        slot_held_ns_max: f64 ["ns"],
        /// Packets a node generated itself (control packets, echoes sent on service or eviction) that waited for room in its bypass FIFO.
        generated_waits: u64 ["", "generated packets that waited for room"],
        /// TRAIN: tickets truncated from a passing train (the lowest first) because the node adding its own had no room in its bypass FIFO for a longer train; counted in `tickets_deleted` too.
        tickets_without_room: u64 ["", "tickets without room"],
        /// The most symbols any bypass FIFO held at once (whole run; packet symbols, not idles); never more than `network.bypass_fifo_symbols`.
        bypass_max_symbols: u64 [""],
    }
}

table! {
    /// Every generated transaction is completed, in flight, or still queued.
    pub struct Conservation {
        /// Transactions generated over the whole run, warm-up included.
        generated: u64 [""],
        /// Transactions completed over the whole run.
        completed: u64 [""],
        /// Waiting in an application queue (never sent).
        queued: u64 [""],
        /// Sent but not completed: in output queues, on the ring, in input queues or in service.
        in_flight: u64 [""],
        /// Lost: generated while the source's application queue, and the output queue it would go to, were full (never sent).
        lost: u64 [""],
        /// Send packets delivered to their destination a second time (a copy sent again after a change of the network that its target had accepted already, and did not tell from new): always 0 in a sound model.
        delivered_twice: u64 [""],
    }
}

table! {
    /// The scalar figures of one run.
    pub struct Summary {
        /// Effective throughput: data bytes delivered to all nodes / measured time.
        throughput_mbps: f64 ["MB/s"],
        /// Half-width of the throughput's 95% confidence interval (batch means).
        throughput_mbps_ci95: f64 ["MB/s"],
        /// Offered data load over all nodes and priorities.
        offered_mbps: f64 ["MB/s"],
        /// Data of transactions lost because their source's application queue was full.
        loss_mbps: f64 ["MB/s"],
        /// The run carried under 90% of the load it was offered (after a failure, of the live nodes' load less what the failure lost of it): the network is past its saturation, and the run measures its peak, not the offered load's figures (false for a run that completed nothing in its window).
        saturated: bool [""],
        /// Mean one-way latency of requests and responses (seed 003 Figure 7).
        latency_ns_mean: f64 ["ns"],
        /// Half-width of the mean latency's 95% confidence interval (batch means).
        latency_ns_mean_ci95: f64 ["ns"],
        /// Median one-way latency.
        latency_ns_p50: f64 ["ns"],
        /// 99th percentile of one-way latency.
        latency_ns_p99: f64 ["ns"],
        /// 99.9th percentile of one-way latency.
        latency_ns_p999: f64 ["ns"],
        /// Longest one-way latency.
        latency_ns_max: f64 ["ns"],
        /// Transactions completed in the measurement window.
        transactions: u64 [""],
        /// Busy-retried send packets in the measurement window.
        retries: u64 [""],
        /// Jain's fairness index over the sending nodes' carried shares (throughput / offered): 1 when all carry the same share of their load, 1/n when one carries it all.
        fairness_index: f64 [""],
        /// The smallest carried share of a sending node.
        min_carried_share: f64 [""],
        /// The node with the smallest carried share (-1 when no node offers load).
        min_carried_share_node: i64 [""],
        /// Output priority inversions per thousand packets measured (several priorities only; see per_inversion).
        output_inversions_per_kpacket: f64 [""],
        /// Input priority inversions per thousand packets measured (several priorities only).
        input_inversions_per_kpacket: f64 [""],
        /// Simulated time at the end of the run, warm-up included.
        sim_time_ns: f64 ["ns"],
        /// Length of the measurement window.
        measure_time_ns: f64 ["ns"],
        /// Batch-means batches closed in the measurement window.
        batches: usize [""],
        /// Why the run stopped: transactions, precision, time_cap, backlog, trace_end (a traced run's window), interrupted, or trace_done (a trace-driven run's trace played out).
        stopped_by: &'static str [""],
        /// A node that, with transactions outstanding, completes none for longer than this (a tenth of the measurement window) is stalled (`stalled_nodes`; each node's `longest_stall_ns`).
        stall_window_ns: f64 ["ns"],
        /// The analytic model's throughput (docs/analytic.md): the offered data, capped where the busiest resource saturates.
        model_throughput_mbps: f64 ["MB/s"],
        /// The analytic model's mean one-way packet latency: unloaded latency plus M/G/1 waits (NaN at or beyond saturation).
        model_latency_ns_mean: f64 ["ns"],
        /// The load per node (`traffic.load_mbps_per_node`, in its units) at which the model's busiest resource is always busy.
        model_saturation_load_mbps_per_node: f64 ["MB/s"],
        /// The model's busiest resource at this load ("link out of node 3", "bus of switch 0", ...).
        model_bottleneck: String [""],
        /// That resource's utilisation at this load in the model (1 or more: saturated).
        model_utilization: f64 [""],
    }
}

table! {
    /// A trace-driven run's trace (`traffic.source = "trace"`) beside its
    /// windows: what the file holds, what was issued when, and why the two
    /// may part.
    pub struct TraceReport {
        /// The trace file (absolute path).
        file: String [""],
        /// SHA-256 of its content (part of the scenario hash).
        sha256: String [""],
        /// Rows in the file: one transaction each.
        rows: u64 [""],
        /// Time of its first row.
        first_ns: f64 ["ns"],
        /// Time of its last row.
        last_ns: f64 ["ns"],
        /// Rows of the file due before the warm-up ends.
        rows_due_in_warmup: u64 [""],
        /// Rows issued before the run stopped.
        rows_issued: u64 [""],
        /// Of them, issued in the warm-up (their transactions are measured only if they complete after it).
        rows_issued_in_warmup: u64 [""],
        /// Of them, issued in the measurement window (the offered load counts these).
        rows_issued_measured: u64 [""],
        /// The warm-up's length (run.warmup_ns).
        warmup_ns: f64 ["ns"],
        /// The measurement window: from the warm-up's end...
        measure_from_ns: f64 ["ns"],
        /// ...to the run's end.
        measure_to_ns: f64 ["ns"],
        /// Where trace and run part: the trace ends before the warm-up does, or the run stopped before the trace was done.
        warnings: Vec<String> [""],
    }
}

table! {
    /// What the network is built of: the counts a cost comparison weighs
    /// (seed 001's "cost-efficient" compares switch ports), without the
    /// ringlets a reconfiguration builds beside the network (a GigaRing's
    /// folded ring), which reuse its hardware.
    pub struct HardwareReport {
        /// Agents that source and sink traffic: processors and memories, GigaRing nodes.
        endpoints: u32 [""],
        /// Agents that pass packets between their ring interfaces over a bus (SCI switches).
        switches: u32 [""],
        /// Ring interfaces of switches.
        ports: u32 [""],
        /// The buses switches pass packets across (a switch's B-Link).
        blinks: u32 [""],
        /// Ring interfaces in all, each driving one link (a bidirectional SCI link is two).
        links: u32 [""],
        /// Ringlets (rings).
        ringlets: u32 [""],
        /// Throughput per switch port: the cost-efficiency seed 001 argues (absent without switches).
        throughput_mbps_per_port: f64 ["MB/s"],
    }
}
