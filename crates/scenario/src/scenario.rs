//! The typed, validated scenario every model receives.

use crate::error::ScenarioError;
use crate::parse::{Val, Values};
use crate::schema::{Default, Kind, Schema, IMPLEMENTED_KINDS};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use sha2::{Digest, Sha256};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NetworkKind {
    SciRing,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BandwidthAllocation {
    GoBits,
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueAllocation {
    Ab,
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transaction {
    Read64,
    Write64,
    Move64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    Poisson,
    Deterministic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Destinations {
    Uniform,
    Hotspot,
    Local,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Network {
    pub kind: NetworkKind,
    pub nodes: u32,
    /// A protocol the schema registers (`Schema::protocols`).
    pub protocol: &'static str,
    pub link_delay_ns: f64,
    pub node_delay_cycles: u32,
    pub cycle_ns: f64,
    pub idle_symbols_between_packets: u32,
    /// 0 = derived by the model from its packet sizes.
    pub bypass_fifo_symbols: u32,
    pub bandwidth_allocation: BandwidthAllocation,
    pub queue_allocation: QueueAllocation,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Node {
    pub input_queue_packets: u32,
    pub requestor_input_queue_packets: u32,
    pub responder_input_queue_packets: u32,
    pub output_queue_packets: u32,
    pub iqst_ns: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Traffic {
    pub transaction: Transaction,
    pub arrivals: Arrivals,
    pub load_mbps_per_node: f64,
    pub priorities: u32,
    pub destinations: Destinations,
    pub hotspot_node: u32,
    pub hotspot_fraction: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Run {
    pub seed: u64,
    pub warmup_ns: f64,
    pub measure_transactions: u64,
    pub ci_rel_halfwidth: Option<f64>,
    pub max_sim_time_ns: f64,
    pub max_backlog_transactions: u64,
    pub batches: u32,
}

/// The keys of one protocol's own section, every default filled.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub name: &'static str,
    /// In the schema's order; `None` for an absent key without a default.
    values: Vec<(&'static str, Option<Val>)>,
}

impl Section {
    fn get(&self, key: &str) -> Option<&Val> {
        match self.values.iter().find(|(k, _)| *k == key) {
            Some((_, v)) => v.as_ref(),
            None => panic!("[{}] has no key {key:?} in the schema", self.name),
        }
    }

    fn wrong(&self, key: &str, want: &str) -> ! {
        panic!("{}.{key} is not {want} in the schema", self.name)
    }

    /// An integer key's value (a derived key absent from the file: 0).
    pub fn int(&self, key: &str) -> i64 {
        match self.get(key) {
            Some(Val::Int(i)) => *i,
            _ => self.wrong(key, "an integer with a value"),
        }
    }

    /// A number key's value (a derived key absent from the file: 0).
    pub fn float(&self, key: &str) -> f64 {
        match self.get(key) {
            Some(Val::Float(f)) => *f,
            _ => self.wrong(key, "a number with a value"),
        }
    }

    /// A number key without a default: `None` when absent.
    pub fn opt_float(&self, key: &str) -> Option<f64> {
        match self.get(key) {
            Some(Val::Float(f)) => Some(*f),
            None => None,
            _ => self.wrong(key, "a number"),
        }
    }

    /// A choice key's value.
    pub fn str(&self, key: &str) -> &str {
        match self.get(key) {
            Some(Val::Str(s)) => s,
            _ => self.wrong(key, "a choice"),
        }
    }

    pub fn bool(&self, key: &str) -> bool {
        match self.get(key) {
            Some(Val::Bool(b)) => *b,
            _ => self.wrong(key, "true or false"),
        }
    }
}

impl Serialize for Section {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut m = ser.serialize_map(Some(self.values.len()))?;
        for (k, v) in &self.values {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// Every protocol's section, in the schema's order. They serialise as
/// sections of the scenario beside the core ones.
#[derive(Clone, Debug, PartialEq)]
pub struct ProtocolSections(Vec<Section>);

impl Serialize for ProtocolSections {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut m = ser.serialize_map(Some(self.0.len()))?;
        for s in &self.0 {
            m.serialize_entry(s.name, s)?;
        }
        m.end()
    }
}

/// One validated simulation point, every default filled in.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scenario {
    pub network: Network,
    pub node: Node,
    pub traffic: Traffic,
    pub run: Run,
    /// Each registered protocol's own section, whichever protocol runs.
    #[serde(flatten)]
    pub protocols: ProtocolSections,
}

struct Get<'a>(&'a Schema, &'a Values);

impl Get<'_> {
    fn raw(&self, section: &'static str, key: &'static str) -> Option<Val> {
        if let Some(v) = self.1.get(&(section, key)) {
            return Some(v.clone());
        }
        let p = self.0.find(section, key).expect("key in schema");
        default_of(p)
    }
    fn int(&self, s: &'static str, k: &'static str) -> Option<i64> {
        match self.raw(s, k) {
            Some(Val::Int(i)) => Some(i),
            _ => None,
        }
    }
    fn float(&self, s: &'static str, k: &'static str) -> Option<f64> {
        match self.raw(s, k) {
            Some(Val::Float(f)) => Some(f),
            Some(Val::Int(i)) => Some(i as f64),
            _ => None,
        }
    }
    fn string(&self, s: &'static str, k: &'static str) -> String {
        match self.raw(s, k) {
            Some(Val::Str(v)) => v,
            _ => unreachable!("choice keys always have a default"),
        }
    }
}

fn default_of(p: &crate::schema::Param) -> Option<Val> {
    match p.default {
        Default::Int(i) => Some(Val::Int(i)),
        Default::Float(f) => Some(Val::Float(f)),
        Default::Str(s) => Some(Val::Str(s.to_string())),
        Default::Bool(b) => Some(Val::Bool(b)),
        Default::None | Default::Derived(_) => None,
    }
}

/// A protocol section's keys: as written, else their defaults; a derived
/// key absent reads as 0 (its model's "derive").
fn protocol_section(schema: &Schema, name: &'static str, values: &Values) -> Section {
    let keys = schema.params().iter().filter(|p| p.section == name);
    let values = keys
        .map(|p| {
            let v = values.get(&(p.section, p.key)).cloned().or_else(|| default_of(p));
            let v = match (v, p.default, p.kind) {
                (None, Default::Derived(_), Kind::Int { .. }) => Some(Val::Int(0)),
                (None, Default::Derived(_), Kind::Float { .. }) => Some(Val::Float(0.0)),
                (v, _, _) => v,
            };
            (p.key, v)
        })
        .collect();
    Section { name, values }
}

impl Scenario {
    pub(crate) fn from_values(schema: &Schema, values: &Values) -> Result<Scenario, ScenarioError> {
        debug_assert!(values.keys().all(|(s, k)| schema.find(s, k).is_some()));
        let g = Get(schema, values);
        let kind = g.string("network", "kind");
        if !IMPLEMENTED_KINDS.contains(&kind.as_str()) {
            return Err(ScenarioError::new(format!(
                "network.kind: \"{kind}\" is not implemented in this build (available: {})",
                IMPLEMENTED_KINDS.join(", ")
            )));
        }
        let protocol = g.string("network", "protocol");
        let protocol = schema.protocol(&protocol).expect("network.protocol was checked against the schema").name;
        let nodes = g.int("network", "nodes").unwrap() as u32;
        let hotspot_node = g.int("traffic", "hotspot_node").unwrap() as u32;
        if hotspot_node >= nodes {
            return Err(ScenarioError::new(format!(
                "traffic.hotspot_node: expected a node index in 0..{} (network.nodes = {nodes}), got {hotspot_node}",
                nodes - 1
            )));
        }
        let input_q = g.int("node", "input_queue_packets").unwrap() as u32;
        let network = Network {
            kind: NetworkKind::SciRing,
            nodes,
            protocol,
            link_delay_ns: g.float("network", "link_delay_ns").unwrap(),
            node_delay_cycles: g.int("network", "node_delay_cycles").unwrap() as u32,
            cycle_ns: g.float("network", "cycle_ns").unwrap(),
            idle_symbols_between_packets: g.int("network", "idle_symbols_between_packets").unwrap() as u32,
            bypass_fifo_symbols: g.int("network", "bypass_fifo_symbols").unwrap_or(0) as u32,
            bandwidth_allocation: match g.string("network", "bandwidth_allocation").as_str() {
                "go-bits" => BandwidthAllocation::GoBits,
                _ => BandwidthAllocation::None,
            },
            queue_allocation: match g.string("network", "queue_allocation").as_str() {
                "ab" => QueueAllocation::Ab,
                _ => QueueAllocation::None,
            },
        };
        let node = Node {
            input_queue_packets: input_q,
            requestor_input_queue_packets: g.int("node", "requestor_input_queue_packets").map(|v| v as u32).unwrap_or(input_q),
            responder_input_queue_packets: g.int("node", "responder_input_queue_packets").map(|v| v as u32).unwrap_or(input_q),
            output_queue_packets: g.int("node", "output_queue_packets").unwrap() as u32,
            iqst_ns: g.float("node", "iqst_ns").unwrap(),
        };
        let traffic = Traffic {
            transaction: match g.string("traffic", "transaction").as_str() {
                "read64" => Transaction::Read64,
                "write64" => Transaction::Write64,
                _ => Transaction::Move64,
            },
            arrivals: match g.string("traffic", "arrivals").as_str() {
                "poisson" => Arrivals::Poisson,
                _ => Arrivals::Deterministic,
            },
            load_mbps_per_node: g.float("traffic", "load_mbps_per_node").unwrap(),
            priorities: g.int("traffic", "priorities").unwrap() as u32,
            destinations: match g.string("traffic", "destinations").as_str() {
                "uniform" => Destinations::Uniform,
                "hotspot" => Destinations::Hotspot,
                _ => Destinations::Local,
            },
            hotspot_node,
            hotspot_fraction: g.float("traffic", "hotspot_fraction").unwrap(),
        };
        let run = Run {
            seed: g.int("run", "seed").unwrap() as u64,
            warmup_ns: g.float("run", "warmup_ns").unwrap(),
            measure_transactions: g.int("run", "measure_transactions").unwrap() as u64,
            ci_rel_halfwidth: g.float("run", "ci_rel_halfwidth"),
            max_sim_time_ns: g.float("run", "max_sim_time_ns").unwrap(),
            max_backlog_transactions: g.int("run", "max_backlog_transactions").unwrap() as u64,
            batches: g.int("run", "batches").unwrap() as u32,
        };
        if run.warmup_ns >= run.max_sim_time_ns {
            // The run would end before measuring anything.
            return Err(ScenarioError::new(format!(
                "run.warmup_ns: expected less than run.max_sim_time_ns ({}), got {}",
                run.max_sim_time_ns, run.warmup_ns
            )));
        }
        if !run.batches.is_multiple_of(2) {
            return Err(ScenarioError::new(format!("run.batches: expected an even integer, got {}", run.batches)));
        }
        let sections = schema.protocols().iter().filter(|p| !p.params.is_empty());
        let protocols = ProtocolSections(sections.map(|p| protocol_section(schema, p.name, values)).collect());
        let scenario = Scenario { network, node, traffic, run, protocols };
        for p in schema.protocols() {
            (p.validate)(&scenario).map_err(ScenarioError::new)?;
        }
        Ok(scenario)
    }

    /// Protocol `name`'s own section. Panics if the schema has no such
    /// section: a protocol reads only its own.
    pub fn section(&self, name: &str) -> &Section {
        match self.protocols.0.iter().find(|s| s.name == name) {
            Some(s) => s,
            None => panic!("the scenario's schema has no section [{name}]"),
        }
    }

    /// The scenario with every default filled, as canonical JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("scenario serialises")
    }

    /// The scenario as a TOML file that reproduces it exactly.
    pub fn to_toml(&self) -> String {
        let mut v = serde_json::to_value(self).expect("scenario serialises");
        // `None` options become JSON null, which TOML cannot hold: drop them.
        if let Some(sections) = v.as_object_mut() {
            for s in sections.values_mut() {
                if let Some(m) = s.as_object_mut() {
                    m.retain(|_, x| !x.is_null());
                }
            }
        }
        toml::to_string(&v).expect("scenario as TOML")
    }

    /// A short, stable hash identifying the scenario (all defaults filled):
    /// the first 16 hex digits of the SHA-256 of its canonical JSON.
    pub fn hash(&self) -> String {
        let digest = Sha256::digest(self.to_json().as_bytes());
        digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
    }
}

#[cfg(test)]
mod tests {
    fn load(text: &str, o: &[(String, String)]) -> Result<super::Scenario, crate::ScenarioError> {
        crate::load_str(&crate::schema::test_schema(), text, o)
    }

    #[test]
    fn toml_round_trip_keeps_hash() {
        let s = load("[traffic]\nload_mbps_per_node = 75\n[run]\nci_rel_halfwidth = 0.05", &[]).unwrap();
        let again = load(&s.to_toml(), &[]).unwrap();
        assert_eq!(s, again);
        assert_eq!(s.hash(), again.hash());
        let other = load("[traffic]\nload_mbps_per_node = 76", &[]).unwrap();
        assert_ne!(s.hash(), other.hash());
    }

    #[test]
    fn writing_a_default_explicitly_does_not_change_the_hash() {
        let a = load("", &[]).unwrap();
        let b = load("[network]\nnodes = 8", &[]).unwrap();
        assert_eq!(a.hash(), b.hash());
    }
}
