//! Every scenario key: its type, range, default and meaning.
//!
//! The core table [`CORE`] holds the keys every network family reads. Each
//! family registers its own ([`FamilySchema`]): keys in the core sections
//! (an SCI ring's `network.protocol`, `node.iqst_ns`) or in sections of its
//! own, and its protocols, each with a `[section]` of keys
//! ([`ProtocolSchema`]). [`Schema::new`] joins them into the contract one
//! build accepts; a scenario is checked against the core keys plus those of
//! the family its `network.kind` names. That one table validates files,
//! fills defaults and generates the reference `docs/scenario.md`
//! (`ringlet params --markdown`).

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
    /// The name of one of the scenario's family's protocols (`network.protocol`).
    Protocol,
    /// The name of a registered network family (`network.kind`).
    Family,
    /// Any string; the text says what it holds (a file path, a digest).
    Text(&'static str),
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
    /// Derived from other keys; the text says how. An absent derived key
    /// that accepts 0 reads as 0, which its model takes as "derive".
    Derived(&'static str),
    /// The value of another key of the same section.
    SameAs(&'static str),
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
    /// Checks across the keys of its section and the others, when a
    /// scenario is loaded; every protocol of the family is checked,
    /// whichever one the scenario runs, as key ranges are.
    pub validate: fn(&Scenario) -> Result<(), String>,
}

/// What a network family adds to the contract: its value of
/// `network.kind`, a line on what it is, its keys and its protocols.
#[derive(Clone, Copy)]
pub struct FamilySchema {
    pub kind: &'static str,
    pub doc: &'static str,
    /// Its keys, in the core sections or in sections of its own.
    pub params: &'static [Param],
    /// The protocols `network.protocol` may name (none: the family has no such key).
    pub protocols: &'static [ProtocolSchema],
    /// Checks across its keys and the core ones, when a scenario of this family is loaded.
    pub validate: fn(&Scenario) -> Result<(), String>,
}

/// The sections every scenario has, in the order they are written.
pub const CORE_SECTIONS: &[&str] = &["network", "node", "traffic", "run"];

const INF: f64 = f64::INFINITY;

/// The keys every scenario has, whatever its family.
pub const CORE: &[Param] = &[
    // [network]
    Param { section: "network", key: "kind", kind: Kind::Family, default: Default::Str("sci-ring"),
        doc: "Network family (see Network families below); a family's own keys are listed with it." },
    Param { section: "network", key: "nodes", kind: Kind::Int { min: 2, max: 4096 }, default: Default::Int(8),
        doc: "Number of end nodes: the agents that source and sink traffic (seed 003 Table 1: 8). On a switch or Banyan network, the processors, with as many memories." },
    // [traffic]
    Param { section: "traffic", key: "arrivals", kind: Kind::Choice(&["poisson", "deterministic"]), default: Default::Str("poisson"),
        doc: "Transaction arrival process per node and priority." },
    Param { section: "traffic", key: "load_mbps_per_node", kind: Kind::Float { min: 0.0, max: INF }, default: Default::Float(50.0),
        doc: "Offered data payload per node, per priority level, MB/s (1 MB = 10^6 bytes)." },
    Param { section: "traffic", key: "priorities", kind: Kind::Int { min: 1, max: 256 }, default: Default::Int(1),
        doc: "Number of priority levels in use; each offers `load_mbps_per_node`." },
    Param { section: "traffic", key: "destinations", kind: Kind::Choice(&["uniform", "hotspot", "local", "permutation"]), default: Default::Str("uniform"),
        doc: "Destination pattern: uniform over the other nodes, hot-spot, local (a node's own memory where the family has one, such as a switch study's processor; else the next node downstream), or permutation (each node sends to one destination, fixed for the run, drawn from the seed)." },
    Param { section: "traffic", key: "hotspot_node", kind: Kind::Int { min: 0, max: 4095 }, default: Default::Int(0),
        doc: "The hot-spot node (destinations = \"hotspot\"); where only some nodes receive (a switch study's memories), numbered among those." },
    Param { section: "traffic", key: "hotspot_fraction", kind: Kind::Float { min: 0.0, max: 1.0 }, default: Default::Float(0.5),
        doc: "Fraction of each other node's transactions sent to the hot-spot; the rest is uniform over the remaining nodes." },
    Param { section: "traffic", key: "source", kind: Kind::Choice(&["generator", "trace"]), default: Default::Str("generator"),
        doc: "Where transactions come from: `generator`, the built-in sources (`arrivals`, `load_mbps_per_node`, `destinations`, ...), or `trace`, the rows of the file `traffic.trace`, each one transaction issued at its time (docs/traces.md); `priorities` still sets the priority levels." },
    Param { section: "traffic", key: "trace", kind: Kind::Text("a file path"), default: Default::None,
        doc: "With `source = \"trace\"`: a CSV (`.csv`) or Parquet (`.parquet`) file of transactions, columns `time_ns`, `src`, `dst`, and `transaction` or `bytes`, optionally `priority` and `vc` (docs/traces.md). A relative path is taken from the scenario file's folder (in `--set` and in text without a file, from the current directory); results are keyed by the file's content." },
    Param { section: "traffic", key: "trace_sha256", kind: Kind::Text("64 hex digits"), default: Default::Derived("the trace file's SHA-256, read when the scenario is loaded"),
        doc: "The SHA-256 of the trace file's content, part of the scenario hash: a changed file gives new results. Written (as a stored result's scenario has it), the file must still have it." },
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
    Param { section: "run", key: "series_interval_ns", kind: Kind::Float { min: 1.0, max: 1e15 }, default: Default::None,
        doc: "Keep the run interval by interval, this long from the warm-up's end: the report's `per_interval` table (throughput, latencies, retransmissions, congestion windows, and a fold's packets sent again and lost). Unset: no series, except a GigaRing run with a fault (2000 ns)." },
    Param { section: "run", key: "batches", kind: Kind::Int { min: 4, max: 1024 }, default: Default::Int(32),
        doc: "Batch-means batches the measurement is divided into (95% CIs use them)." },
];

/// `network.kind`, the key that says which family's keys a scenario has.
pub fn kind_key() -> &'static Param {
    CORE.iter().find(|p| p.section == "network" && p.key == "kind").expect("a core key")
}

/// The contract of one build: the core keys plus its families'.
pub struct Schema {
    families: Vec<FamilySchema>,
}

impl Schema {
    /// The core keys plus `families`, in the order given (the first is
    /// listed first in the reference). Panics on a registration error: a
    /// family or protocol named twice, a protocol key outside the
    /// protocol's section, a family key that is also a core key, a section
    /// named like a protocol, no family by the name `network.kind`
    /// defaults to, or a family with a `network.protocol` key whose default
    /// names none of its protocols.
    pub fn new(families: &[FamilySchema]) -> Schema {
        for (i, f) in families.iter().enumerate() {
            assert!(!families[..i].iter().any(|g| g.kind == f.kind), "network family {:?} registered twice", f.kind);
            for (j, p) in f.protocols.iter().enumerate() {
                assert!(!f.protocols[..j].iter().any(|q| q.name == p.name), "{}: protocol {:?} registered twice", f.kind, p.name);
                assert!(!CORE_SECTIONS.contains(&p.name), "{}: protocol {:?} would take a core section's name", f.kind, p.name);
                for k in p.params {
                    assert_eq!(k.section, p.name, "{}: protocol {:?}: key {}.{} outside its section", f.kind, p.name, k.section, k.key);
                }
            }
            for k in f.params {
                assert!(!CORE.iter().any(|c| c.section == k.section && c.key == k.key), "{}: key {}.{} is a core key", f.kind, k.section, k.key);
                assert!(f.protocols.iter().all(|p| p.name != k.section), "{}: key {}.{} in a protocol's section", f.kind, k.section, k.key);
                if let Default::SameAs(other) = k.default {
                    assert!(f.params.iter().any(|o| o.section == k.section && o.key == other), "{}: {}.{} is the same as no key {other:?}", f.kind, k.section, k.key);
                }
                if let (Kind::Protocol, Default::Str(name)) = (k.kind, k.default) {
                    assert!(f.protocols.iter().any(|p| p.name == name), "{}: no protocol registered as {name:?}, network.protocol's default", f.kind);
                }
            }
        }
        let schema = Schema { families: families.to_vec() };
        let default = schema.default_kind();
        assert!(schema.family(default).is_some(), "no network family registered as {default:?}, network.kind's default");
        schema
    }

    pub fn families(&self) -> &[FamilySchema] {
        &self.families
    }

    /// The family called `kind`.
    pub fn family(&self, kind: &str) -> Option<&FamilySchema> {
        self.families.iter().find(|f| f.kind == kind)
    }

    /// The family a scenario that does not name one runs.
    pub fn default_kind(&self) -> &'static str {
        match kind_key().default {
            Default::Str(kind) => kind,
            _ => unreachable!("network.kind defaults to a name"),
        }
    }

    /// Every key a scenario of `family` accepts: the core keys, the
    /// family's own, then each of its protocols' sections.
    pub fn params(&self, family: &FamilySchema) -> Vec<Param> {
        let mut keys = CORE.to_vec();
        keys.extend_from_slice(family.params);
        for p in family.protocols {
            keys.extend_from_slice(p.params);
        }
        keys
    }

    /// The sections a scenario of `family` may have, in the order they are written.
    pub fn sections(&self, family: &FamilySchema) -> Vec<&'static str> {
        let mut sections = CORE_SECTIONS.to_vec();
        for k in family.params.iter().chain(family.protocols.iter().flat_map(|p| p.params)) {
            if !sections.contains(&k.section) {
                sections.push(k.section);
            }
        }
        sections
    }

    /// Key `section.key` of a scenario of `family`.
    pub fn find(&self, family: &FamilySchema, section: &str, key: &str) -> Option<Param> {
        let found = |ps: &[Param]| ps.iter().find(|p| p.section == section && p.key == key).copied();
        found(CORE).or_else(|| found(family.params)).or_else(|| family.protocols.iter().find_map(|p| found(p.params)))
    }

    /// The other families that have key `section.key` (to say whose it is).
    pub fn owners(&self, section: &str, key: &str) -> Vec<&'static str> {
        let has = |f: &FamilySchema| self.find(f, section, key).is_some();
        self.families.iter().filter(|f| has(f)).map(|f| f.kind).collect()
    }

    /// The scenario reference as Markdown: the core sections, the
    /// families, then each family's keys, protocols and their sections.
    pub fn markdown(&self) -> String {
        let mut out = String::from(
            "# Scenario reference\n\nGenerated by `ringlet params --markdown` from the core keys (`crates/scenario/src/schema.rs`), each network family's and each protocol's own; do not edit by hand.\n",
        );
        for section in CORE_SECTIONS.iter().filter(|s| CORE.iter().any(|p| p.section == **s)) {
            out.push_str(&format!("\n## [{section}]\n\nEvery scenario has these keys, whatever its network family.\n\n"));
            key_table(CORE.iter().filter(|p| p.section == *section), &self.families[0], &self.families, &mut out);
        }
        out.push_str("\n## Network families\n\n| `network.kind` | what it is |\n|---|---|\n");
        for f in &self.families {
            out.push_str(&format!("| `{}` | {} |\n", f.kind, f.doc));
        }
        for f in &self.families {
            out.push_str(&format!("\n## network.kind = \"{}\"\n\nRead when `network.kind = \"{}\"`, besides the core keys.\n", f.kind, f.kind));
            for section in self.sections(f) {
                let keys: Vec<&Param> = f.params.iter().filter(|p| p.section == section).collect();
                if !keys.is_empty() {
                    out.push_str(&format!("\n### [{section}]\n\n"));
                    key_table(keys.into_iter(), f, &self.families, &mut out);
                }
            }
            if !f.protocols.is_empty() {
                out.push_str("\n### Protocols\n\n| `network.protocol` | what it is | own keys |\n|---|---|---|\n");
                for p in f.protocols {
                    let section = if p.params.is_empty() { "(none)".to_string() } else { format!("[{}]", p.name) };
                    out.push_str(&format!("| `{}` | {} | {} |\n", p.name, p.doc, section));
                }
            }
            for p in f.protocols.iter().filter(|p| !p.params.is_empty()) {
                out.push_str(&format!("\n### [{}]\n\nRead when `network.protocol = \"{}\"`.\n\n", p.name, p.name));
                key_table(p.params.iter(), f, &self.families, &mut out);
            }
        }
        out
    }
}

/// A Markdown table of `keys` (`family` names what `network.protocol` accepts).
fn key_table<'a>(keys: impl Iterator<Item = &'a Param>, family: &FamilySchema, families: &[FamilySchema], out: &mut String) {
    let names = |it: &mut dyn Iterator<Item = &'static str>| it.map(|s| format!("`{s}`")).collect::<Vec<_>>().join(" \\| ");
    out.push_str("| key | accepts | default | meaning |\n|---|---|---|---|\n");
    for p in keys {
        let accepts = match p.kind {
            Kind::Int { min, max } => format!("integer {min}..{max}"),
            Kind::Float { min, max } if max.is_infinite() => format!("number >= {min}"),
            Kind::Float { min, max } => format!("number {min}..{max}"),
            Kind::Bool => "`true` \\| `false`".to_string(),
            Kind::Choice(c) => names(&mut c.iter().copied()),
            Kind::Protocol => names(&mut family.protocols.iter().map(|p| p.name)),
            Kind::Family => names(&mut families.iter().map(|f| f.kind)),
            Kind::Text(what) => what.to_string(),
        };
        let default = match p.default {
            Default::Int(v) => v.to_string(),
            Default::Float(v) => v.to_string(),
            Default::Str(s) => format!("`\"{s}\"`"),
            Default::Bool(b) => format!("`{b}`"),
            Default::None => "(off)".to_string(),
            Default::Derived(d) => format!("= {d}"),
            Default::SameAs(k) => format!("= `{k}`"),
        };
        out.push_str(&format!("| `{}` | {} | {} | {} |\n", p.key, accepts, default, p.doc));
    }
}

/// A schema for this crate's tests: the family `ring`, with a key of its
/// own in `[network]` and two protocols, `plain`, and `toy` with a section
/// of its own and a cross-key check; and the family `mesh`, with a section
/// of its own.
#[cfg(test)]
pub(crate) fn test_schema() -> Schema {
    const TOY: &[Param] = &[
        Param { section: "toy", key: "level", kind: Kind::Int { min: 0, max: 10 }, default: Default::Int(3), doc: "A level." },
        Param { section: "toy", key: "rate_ns", kind: Kind::Float { min: 0.0, max: 1e6 }, default: Default::Derived("from the ring"), doc: "A rate; 0 = derived." },
        Param { section: "toy", key: "mode", kind: Kind::Choice(&["a", "b"]), default: Default::Str("a"), doc: "A mode." },
        Param { section: "toy", key: "on", kind: Kind::Bool, default: Default::Bool(false), doc: "A switch." },
    ];
    const RING: &[Param] = &[
        Param { section: "network", key: "protocol", kind: Kind::Protocol, default: Default::Str("sci"), doc: "The protocol." },
        Param { section: "node", key: "queue", kind: Kind::Int { min: 1, max: 100 }, default: Default::Int(5), doc: "A queue." },
        Param { section: "node", key: "other_queue", kind: Kind::Int { min: 1, max: 100 }, default: Default::SameAs("queue"), doc: "Another queue." },
        Param { section: "node", key: "spare", kind: Kind::Int { min: 1, max: 100 }, default: Default::Derived("by the model"), doc: "A spare." },
    ];
    const MESH: &[Param] = &[Param { section: "mesh", key: "width", kind: Kind::Int { min: 1, max: 64 }, default: Default::Int(4), doc: "Width." }];
    const PROTOCOLS: &[ProtocolSchema] = &[
        ProtocolSchema { name: "sci", doc: "base", params: &[], validate: |_| Ok(()) },
        ProtocolSchema { name: "toy", doc: "a toy", params: TOY, validate: level_below_nodes },
    ];
    fn level_below_nodes(s: &Scenario) -> Result<(), String> {
        let level = s.section("toy").int("level");
        if level >= s.network.nodes as i64 {
            return Err(format!("toy.level: expected less than network.nodes ({}), got {level}", s.network.nodes));
        }
        Ok(())
    }
    Schema::new(&[
        FamilySchema { kind: "sci-ring", doc: "a ring", params: RING, protocols: PROTOCOLS, validate: |_| Ok(()) },
        FamilySchema { kind: "mesh", doc: "a mesh", params: MESH, protocols: &[], validate: |_| Ok(()) },
    ])
}
