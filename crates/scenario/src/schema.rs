//! Every scenario key: its type, range, default and meaning.
//!
//! The core table [`CORE`] holds the keys every network family reads; a
//! model adds its protocols, each with its own `[section]` of keys
//! ([`ProtocolSchema`]), and [`Schema::new`] joins them into the contract one
//! build accepts. That one table validates files, fills defaults and
//! generates the reference `docs/scenario.md` (`ringlet params --markdown`).

use crate::scenario::Scenario;

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
    /// The name of a protocol the schema registers (`network.protocol`).
    Protocol,
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
    /// Derived from other keys; the text says how. In a protocol's section
    /// an absent derived key reads as 0, which its model takes as "derive".
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

/// What a protocol adds to the contract: its name (the value of
/// `network.protocol`), a line on what it is, and the keys of its own
/// section `[name]`.
#[derive(Clone, Copy)]
pub struct ProtocolSchema {
    pub name: &'static str,
    pub doc: &'static str,
    /// The keys of section `[name]` (empty: the protocol has no section).
    pub params: &'static [Param],
    /// Checks across the keys of its section and the core ones, when a
    /// scenario is loaded; every protocol's section is checked, whichever
    /// protocol the scenario runs, as key ranges are.
    pub validate: fn(&Scenario) -> Result<(), String>,
}

/// The sections every scenario has, in the order they are written.
pub const CORE_SECTIONS: &[&str] = &["network", "node", "traffic", "run"];

/// Network families recognised by the contract, and those this build can run.
pub const NETWORK_KINDS: &[&str] = &["sci-ring", "gigaring", "sci-switch", "banyan"];
pub const IMPLEMENTED_KINDS: &[&str] = &["sci-ring"];

const INF: f64 = f64::INFINITY;

/// The keys every scenario has.
pub const CORE: &[Param] = &[
    // [network]
    Param { section: "network", key: "kind", kind: Kind::Choice(NETWORK_KINDS), default: Default::Str("sci-ring"),
        doc: "Network family. This build runs `sci-ring`." },
    Param { section: "network", key: "nodes", kind: Kind::Int { min: 2, max: 4096 }, default: Default::Int(8),
        doc: "Number of nodes on the ring (seed 003 Table 1: 8)." },
    Param { section: "network", key: "protocol", kind: Kind::Protocol, default: Default::Str("sci"),
        doc: "Ring protocol (see Protocols below); a protocol's own keys are in its section." },
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
    Param { section: "run", key: "max_backlog_transactions", kind: Kind::Int { min: 1, max: 1_000_000_000_000 }, default: Default::Int(10_000_000),
        doc: "Safety cap on transactions generated but not completed (mostly waiting in application queues): a load far above what the network carries stops the run here (`stopped_by = \"backlog\"`) instead of filling memory. About 16 bytes each." },
    Param { section: "run", key: "batches", kind: Kind::Int { min: 4, max: 1024 }, default: Default::Int(32),
        doc: "Batch-means batches the measurement is divided into (95% CIs use them)." },
];

/// The contract of one build: the core keys plus its protocols' sections.
pub struct Schema {
    params: Vec<Param>,
    sections: Vec<&'static str>,
    protocols: Vec<ProtocolSchema>,
}

impl Schema {
    /// The core keys plus `protocols`, in the order given (the first is
    /// listed first in the reference). Panics on a protocol whose keys are
    /// not in its own section, a name given twice, or no protocol by the
    /// name `network.protocol` defaults to: registration errors.
    pub fn new(protocols: &[ProtocolSchema]) -> Schema {
        let mut params = CORE.to_vec();
        let mut sections = CORE_SECTIONS.to_vec();
        for (i, p) in protocols.iter().enumerate() {
            assert!(!protocols[..i].iter().any(|q| q.name == p.name), "protocol {:?} registered twice", p.name);
            assert!(!sections.contains(&p.name), "protocol {:?} would take a core section's name", p.name);
            for k in p.params {
                assert_eq!(k.section, p.name, "protocol {:?}: key {}.{} outside its section", p.name, k.section, k.key);
            }
            if !p.params.is_empty() {
                sections.push(p.name);
                params.extend_from_slice(p.params);
            }
        }
        let default = CORE.iter().find(|p| p.section == "network" && p.key == "protocol").map(|p| p.default);
        if let Some(Default::Str(name)) = default {
            assert!(protocols.iter().any(|p| p.name == name), "no protocol registered as {name:?}, network.protocol's default");
        }
        Schema { params, sections, protocols: protocols.to_vec() }
    }

    /// Every key, core first, then each protocol's section.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// Section names, in the order they are written.
    pub fn sections(&self) -> &[&'static str] {
        &self.sections
    }

    pub fn protocols(&self) -> &[ProtocolSchema] {
        &self.protocols
    }

    /// The protocol called `name`.
    pub fn protocol(&self, name: &str) -> Option<&ProtocolSchema> {
        self.protocols.iter().find(|p| p.name == name)
    }

    /// Looks a key up by section and name.
    pub fn find(&self, section: &str, key: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.section == section && p.key == key)
    }

    /// The scenario reference as Markdown: the core sections, the
    /// protocols, then each protocol's section.
    pub fn markdown(&self) -> String {
        let mut out = String::from(
            "# Scenario reference\n\nGenerated by `ringlet params --markdown` from the core keys (`crates/scenario/src/schema.rs`) and each protocol's own (`crates/sci-ring/src/protocol/`); do not edit by hand.\n",
        );
        for section in CORE_SECTIONS {
            out.push_str(&format!("\n## [{section}]\n\n"));
            self.key_table(section, &mut out);
        }
        out.push_str("\n## Protocols\n\n| `network.protocol` | what it is | own keys |\n|---|---|---|\n");
        for p in &self.protocols {
            let section = if p.params.is_empty() { "(none)".to_string() } else { format!("[{}]", p.name) };
            out.push_str(&format!("| `{}` | {} | {} |\n", p.name, p.doc, section));
        }
        for p in self.protocols.iter().filter(|p| !p.params.is_empty()) {
            out.push_str(&format!("\n## [{}]\n\nRead when `network.protocol = \"{}\"`.\n\n", p.name, p.name));
            self.key_table(p.name, &mut out);
        }
        out
    }

    fn key_table(&self, section: &str, out: &mut String) {
        out.push_str("| key | accepts | default | meaning |\n|---|---|---|---|\n");
        for p in self.params.iter().filter(|p| p.section == section) {
            let accepts = match p.kind {
                Kind::Int { min, max } => format!("integer {min}..{max}"),
                Kind::Float { min, max } if max.is_infinite() => format!("number >= {min}"),
                Kind::Float { min, max } => format!("number {min}..{max}"),
                Kind::Bool => "`true` \\| `false`".to_string(),
                Kind::Choice(c) => c.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(" \\| "),
                Kind::Protocol => self.protocols.iter().map(|p| format!("`{}`", p.name)).collect::<Vec<_>>().join(" \\| "),
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
}

/// A schema with two protocols for this crate's tests: `plain`, and `toy`
/// with a section of its own and a cross-key check.
#[cfg(test)]
pub(crate) fn test_schema() -> Schema {
    const TOY: &[Param] = &[
        Param { section: "toy", key: "level", kind: Kind::Int { min: 0, max: 10 }, default: Default::Int(3), doc: "A level." },
        Param { section: "toy", key: "rate_ns", kind: Kind::Float { min: 0.0, max: 1e6 }, default: Default::Derived("from the ring"), doc: "A rate; 0 = derived." },
        Param { section: "toy", key: "mode", kind: Kind::Choice(&["a", "b"]), default: Default::Str("a"), doc: "A mode." },
        Param { section: "toy", key: "on", kind: Kind::Bool, default: Default::Bool(false), doc: "A switch." },
    ];
    fn level_below_nodes(s: &Scenario) -> Result<(), String> {
        let level = s.section("toy").int("level");
        if level >= s.network.nodes as i64 {
            return Err(format!("toy.level: expected less than network.nodes ({}), got {level}", s.network.nodes));
        }
        Ok(())
    }
    Schema::new(&[
        ProtocolSchema { name: "sci", doc: "base", params: &[], validate: |_| Ok(()) },
        ProtocolSchema { name: "toy", doc: "a toy", params: TOY, validate: level_below_nodes },
    ])
}
