//! Every scenario key: its type, range, default and meaning.
//!
//! This table is the single source of truth for validation and for the
//! generated reference `docs/scenario.md` (`ringlet params --markdown`).

/// What values a key accepts.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// An integer in `[min, max]`.
    Int { min: i64, max: i64 },
    /// A number (integer or float) in `[min, max]`; `max` may be infinite.
    Float { min: f64, max: f64 },
    /// One of a fixed set of strings.
    Choice(&'static [&'static str]),
    /// `true` or `false`.
    Bool,
}

/// A default value, or none (the key is optional and absent means "off").
#[derive(Clone, Copy, Debug)]
pub enum Default {
    Int(i64),
    Float(f64),
    Str(&'static str),
    Bool(bool),
    /// No default: absent means the feature is off.
    None,
    /// Derived from other keys; the text says how.
    Derived(&'static str),
}

#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub section: &'static str,
    pub key: &'static str,
    pub kind: Kind,
    pub default: Default,
    pub doc: &'static str,
}

pub const SECTIONS: &[&str] = &["network", "node", "traffic", "run", "ppq", "train", "dfc"];

/// Network families recognised by the contract, and those this build can run.
pub const NETWORK_KINDS: &[&str] = &["sci-ring", "gigaring", "sci-switch", "banyan"];
pub const IMPLEMENTED_KINDS: &[&str] = &["sci-ring"];
/// Ring protocols recognised by the contract, and those this build can run.
pub const PROTOCOLS: &[&str] = &["sci", "ppq", "train", "dfc"];
pub const IMPLEMENTED_PROTOCOLS: &[&str] = &["sci", "ppq", "train", "dfc"];

const INF: f64 = f64::INFINITY;

pub const SCHEMA: &[Param] = &[
    // [network]
    Param { section: "network", key: "kind", kind: Kind::Choice(NETWORK_KINDS), default: Default::Str("sci-ring"),
        doc: "Network family. This build runs `sci-ring`." },
    Param { section: "network", key: "nodes", kind: Kind::Int { min: 2, max: 4096 }, default: Default::Int(8),
        doc: "Number of nodes on the ring (seed 003 Table 1: 8)." },
    Param { section: "network", key: "protocol", kind: Kind::Choice(PROTOCOLS), default: Default::Str("sci"),
        doc: "Ring protocol: base SCI (`sci`) or a real-time extension (seed 003): `ppq`, `train`, `dfc`. Their own keys are in [ppq], [train], [dfc]." },
    Param { section: "network", key: "link_delay_ns", kind: Kind::Float { min: 0.0, max: 1e6 }, default: Default::Float(0.0),
        doc: "Propagation delay of every link, ns (Table 1: ideal, 0)." },
    Param { section: "network", key: "node_delay_cycles", kind: Kind::Int { min: 1, max: 1000 }, default: Default::Int(1),
        doc: "Bypass latency of a node, in symbol cycles (Table 1: 1)." },
    Param { section: "network", key: "cycle_ns", kind: Kind::Float { min: 0.001, max: 1e3 }, default: Default::Float(2.0),
        doc: "Symbol time, ns: one 16-bit symbol per cycle (1 GB/s links: 2 ns)." },
    Param { section: "network", key: "idle_symbols_between_packets", kind: Kind::Int { min: 0, max: 64 }, default: Default::Int(1),
        doc: "Idle symbols that follow every packet on a link (IEEE 1596: at least one; carries the go bits)." },
    Param { section: "network", key: "bypass_fifo_symbols", kind: Kind::Int { min: 0, max: 1_000_000 }, default: Default::Derived("longest send packet + separator idles"),
        doc: "Bypass FIFO capacity in symbols; must hold the longest send packet and its idles. 0 = derived." },
    Param { section: "network", key: "bandwidth_allocation", kind: Kind::Choice(&["go-bits", "none"]), default: Default::Str("go-bits"),
        doc: "Base SCI bandwidth allocation (go-bit fairness). `none` leaves only the register-insertion rule." },
    Param { section: "network", key: "queue_allocation", kind: Kind::Choice(&["ab", "none"]), default: Default::Str("ab"),
        doc: "Base SCI queue allocation: `ab` reserves input-queue space for busied packets in A/B phases; `none` retries without reservation." },
    // [node]
    Param { section: "node", key: "input_queue_packets", kind: Kind::Int { min: 1, max: 1_000_000 }, default: Default::Int(5),
        doc: "Requestor and responder input queue size, packets (Table 1: 5)." },
    Param { section: "node", key: "requestor_input_queue_packets", kind: Kind::Int { min: 1, max: 1_000_000 }, default: Default::Derived("input_queue_packets"),
        doc: "Requestor input queue (responses arrive here), packets." },
    Param { section: "node", key: "responder_input_queue_packets", kind: Kind::Int { min: 1, max: 1_000_000 }, default: Default::Derived("input_queue_packets"),
        doc: "Responder input queue (requests arrive here), packets." },
    Param { section: "node", key: "output_queue_packets", kind: Kind::Int { min: 1, max: 1_000_000 }, default: Default::Int(5),
        doc: "Request and response output queue size, packets, counting sent packets that await their echo." },
    Param { section: "node", key: "iqst_ns", kind: Kind::Float { min: 0.0, max: 1e9 }, default: Default::Float(100.0),
        doc: "Input queue service time: time to remove and service one packet from an input queue, ns." },
    // [traffic]
    Param { section: "traffic", key: "transaction", kind: Kind::Choice(&["read64", "write64", "move64"]), default: Default::Str("read64"),
        doc: "Transaction type (Table 1: read64)." },
    Param { section: "traffic", key: "arrivals", kind: Kind::Choice(&["poisson", "deterministic"]), default: Default::Str("poisson"),
        doc: "Transaction arrival process per node and priority." },
    Param { section: "traffic", key: "load_mbps_per_node", kind: Kind::Float { min: 0.0, max: INF }, default: Default::Float(50.0),
        doc: "Offered data payload per node, per priority level, MB/s (1 MB = 10^6 bytes)." },
    Param { section: "traffic", key: "priorities", kind: Kind::Int { min: 1, max: 256 }, default: Default::Int(1),
        doc: "Number of priority levels in use; each offers `load_mbps_per_node`." },
    Param { section: "traffic", key: "destinations", kind: Kind::Choice(&["uniform", "hotspot", "local"]), default: Default::Str("uniform"),
        doc: "Destination pattern: uniform over the other nodes, hot-spot, or local (downstream neighbour)." },
    Param { section: "traffic", key: "hotspot_node", kind: Kind::Int { min: 0, max: 4095 }, default: Default::Int(0),
        doc: "The hot-spot node (destinations = \"hotspot\")." },
    Param { section: "traffic", key: "hotspot_fraction", kind: Kind::Float { min: 0.0, max: 1.0 }, default: Default::Float(0.5),
        doc: "Fraction of each other node's transactions sent to the hot-spot; the rest is uniform over the remaining nodes." },
    // [run]
    Param { section: "run", key: "seed", kind: Kind::Int { min: 0, max: i64::MAX }, default: Default::Int(1),
        doc: "Seed of all random streams; same scenario and seed give bit-identical results." },
    Param { section: "run", key: "warmup_ns", kind: Kind::Float { min: 0.0, max: 1e15 }, default: Default::Float(10000.0),
        doc: "Simulated time discarded before measuring, ns." },
    Param { section: "run", key: "measure_transactions", kind: Kind::Int { min: 1, max: 1_000_000_000_000 }, default: Default::Int(200_000),
        doc: "Stop after this many transactions complete in the measurement window (the cap when `ci_rel_halfwidth` is set)." },
    Param { section: "run", key: "ci_rel_halfwidth", kind: Kind::Float { min: 1e-6, max: 1.0 }, default: Default::None,
        doc: "Stop early once the 95% CI half-widths of throughput and mean latency are within this fraction of their means." },
    Param { section: "run", key: "max_sim_time_ns", kind: Kind::Float { min: 1.0, max: 1e15 }, default: Default::Float(1e8),
        doc: "Safety cap on simulated time, ns (a run with no traffic stops here)." },
    Param { section: "run", key: "batches", kind: Kind::Int { min: 4, max: 1024 }, default: Default::Int(32),
        doc: "Batch-means batches the measurement is divided into (95% CIs use them)." },
    // [ppq] Preemptive Priority Queue (seed 003 section 2.2)
    Param { section: "ppq", key: "starvation", kind: Kind::Choice(&["aging", "inheritance"]), default: Default::Str("aging"),
        doc: "How a low-priority packet stuck in a bypass queue is freed: priority inheritance from its source, or priority aging while it waits." },
    Param { section: "ppq", key: "aging_ns", kind: Kind::Float { min: 1.0, max: 1e12 }, default: Default::Float(1000.0),
        doc: "Aging: a packet waiting in a bypass queue gains one priority level per this much waiting, ns." },
    Param { section: "ppq", key: "ewq_packets", kind: Kind::Int { min: 0, max: 1_000_000 }, default: Default::Int(5),
        doc: "Echo Waiting Queue: sent packets a node keeps until their (service-time) echo, beyond its output queue. 0 = they keep their output queue slot as in base SCI." },
    Param { section: "ppq", key: "retry_holdoff_ns", kind: Kind::Float { min: 0.0, max: 1e9 }, default: Default::Float(0.0),
        doc: "Limited busy-retries (beyond the seed): a busied packet waits this long before it is sent again, ns. 0 = the seed's PPQ (immediate retry)." },
    // [train] TRAIN (seed 003 section 2.3)
    Param { section: "train", key: "ticketmaster", kind: Kind::Int { min: 0, max: 4095 }, default: Default::Int(0),
        doc: "The TicketMaster node, which creates the LocalMotive and switches modes." },
    Param { section: "train", key: "locomotive_symbols", kind: Kind::Int { min: 1, max: 1024 }, default: Default::Int(8),
        doc: "Length of the LocalMotive, symbols (a 16-byte header, like a request)." },
    Param { section: "train", key: "ticket_symbols", kind: Kind::Int { min: 1, max: 1024 }, default: Default::Int(4),
        doc: "Length of one ticket, symbols (priority, size, target, source: 8 bytes)." },
    Param { section: "train", key: "budget_symbols", kind: Kind::Int { min: 0, max: 1_000_000 }, default: Default::Derived("2 x the symbols one link carries while the LocalMotive circles an idle ring"),
        doc: "Bandwidth the TicketMaster offers per train: the size limit of granted tickets, and the immediate-mode tally, in send-packet symbols. 0 = derived." },
    Param { section: "train", key: "revolution_ns", kind: Kind::Float { min: 0.0, max: 1e9 }, default: Default::Derived("nodes x (hop + LocalMotive length): a LocalMotive received whole at every node of an idle ring"),
        doc: "Shortest time between two launches of the train by the TicketMaster, ns; keeps a train longer than the ring from occupying every link. 0 = derived." },
    Param { section: "train", key: "arbitrate_above", kind: Kind::Float { min: 0.0, max: 1.0 }, default: Default::Float(0.75),
        doc: "Mode switch: when nodes claim more than this fraction of the budget in one immediate-mode revolution, the TicketMaster switches to arbitrated send mode." },
    Param { section: "train", key: "immediate_below", kind: Kind::Float { min: 0.0, max: 1.0 }, default: Default::Float(0.25),
        doc: "Mode switch: when a request train returns filled below this fraction of the budget, the TicketMaster switches back to immediate send mode." },
    Param { section: "train", key: "max_tickets_per_node", kind: Kind::Int { min: 1, max: 256 }, default: Default::Int(2),
        doc: "Tickets one node may put on one request train (its highest-priority waiting packets)." },
    Param { section: "train", key: "gearshift", kind: Kind::Bool, default: Default::Bool(false),
        doc: "Gearshift (beyond the seed): below the arbitration threshold nodes send as in base SCI, without waiting for the LocalMotive, and only report what they sent on it." },
    // [dfc] Directed Flow Control (seed 003 section 3)
    Param { section: "dfc", key: "control_symbols", kind: Kind::Int { min: 1, max: 64 }, default: Default::Int(2),
        doc: "Length of a control symbol in 16-bit ring symbols (seed: 32 bits)." },
    Param { section: "dfc", key: "stop_thru_after_packets", kind: Kind::Int { min: 1, max: 1000 }, default: Default::Int(1),
        doc: "A node is congested (sends STOP-THRU) once its own packet has waited behind this many bypass packets in a row: the packet-level reading of \"insufficient free space in the bypass queue\"." },
    Param { section: "dfc", key: "stop_to_high", kind: Kind::Int { min: 0, max: 1_000_000 }, default: Default::Derived("the input queue size (full)"),
        doc: "STOP-TO high-water mark: input queue occupancy, packets, at which a node enters arbitration mode. 0 = derived." },
    Param { section: "dfc", key: "stop_to_low", kind: Kind::Int { min: 0, max: 1_000_000 }, default: Default::Int(2),
        doc: "STOP-TO low-water mark: occupancy, packets, at which a blocked node releases all senders." },
];

/// Looks a key up by section and name.
pub fn find(section: &str, key: &str) -> Option<&'static Param> {
    SCHEMA.iter().find(|p| p.section == section && p.key == key)
}

/// The scenario reference as Markdown, generated from [`SCHEMA`].
pub fn markdown() -> String {
    let mut out = String::from(
        "# Scenario reference\n\nGenerated from `crates/scenario/src/schema.rs` by `ringlet params --markdown`; do not edit by hand.\n",
    );
    for section in SECTIONS {
        out.push_str(&format!("\n## [{section}]\n\n| key | accepts | default | meaning |\n|---|---|---|---|\n"));
        for p in SCHEMA.iter().filter(|p| p.section == *section) {
            let accepts = match p.kind {
                Kind::Int { min, max } => format!("integer {min}..{max}"),
                Kind::Float { min, max } if max.is_infinite() => format!("number >= {min}"),
                Kind::Float { min, max } => format!("number {min}..{max}"),
                Kind::Bool => "`true` \\| `false`".to_string(),
                Kind::Choice(c) => c.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(" \\| "),
            };
            let default = match p.default {
                Default::Int(v) => v.to_string(),
                Default::Float(v) => v.to_string(),
                Default::Str(s) => format!("`\"{s}\"`"),
                Default::Bool(b) => format!("`{b}`"),
                Default::None => "(off)".to_string(),
                Default::Derived(d) => format!("= {d}"),
            };
            out.push_str(&format!("| `{}` | {} | {} | {} |\n", p.key, accepts, default, p.doc));
        }
    }
    out
}
