//! The typed, validated scenario every model receives.

use crate::error::ScenarioError;
use crate::parse::{Val, Values};
use crate::schema::{self, Default, IMPLEMENTED_KINDS, IMPLEMENTED_PROTOCOLS, SCHEMA};
use serde::Serialize;
use sha2::{Digest, Sha256};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NetworkKind {
    SciRing,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    Sci,
    Ppq,
    Train,
    Dfc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Starvation {
    Inheritance,
    Aging,
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
    pub protocol: Protocol,
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
    pub batches: u32,
}

/// PPQ settings (seed 003 section 2.2).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ppq {
    pub starvation: Starvation,
    pub aging_ns: f64,
    pub ewq_packets: u32,
    pub retry_holdoff_ns: f64,
}

/// TRAIN settings (seed 003 section 2.3).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Train {
    pub ticketmaster: u32,
    pub locomotive_symbols: u32,
    pub ticket_symbols: u32,
    /// 0 = derived by the model.
    pub budget_symbols: u32,
    /// 0 = derived by the model.
    pub revolution_ns: f64,
    pub arbitrate_above: f64,
    pub immediate_below: f64,
    pub max_tickets_per_node: u32,
    pub gearshift: bool,
}

/// DFC settings (seed 003 section 3).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Dfc {
    pub control_symbols: u32,
    pub stop_thru_after_packets: u32,
    /// 0 = derived (the input queue size).
    pub stop_to_high: u32,
    pub stop_to_low: u32,
}

/// One validated simulation point, every default filled in.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scenario {
    pub network: Network,
    pub node: Node,
    pub traffic: Traffic,
    pub run: Run,
    pub ppq: Ppq,
    pub train: Train,
    pub dfc: Dfc,
}

struct Get<'a>(&'a Values);

impl Get<'_> {
    fn raw(&self, section: &'static str, key: &'static str) -> Option<Val> {
        if let Some(v) = self.0.get(&(section, key)) {
            return Some(v.clone());
        }
        let p = schema::find(section, key).expect("key in schema");
        match p.default {
            Default::Int(i) => Some(Val::Int(i)),
            Default::Float(f) => Some(Val::Float(f)),
            Default::Str(s) => Some(Val::Str(s.to_string())),
            Default::Bool(b) => Some(Val::Bool(b)),
            Default::None | Default::Derived(_) => None,
        }
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
    fn boolean(&self, s: &'static str, k: &'static str) -> bool {
        matches!(self.raw(s, k), Some(Val::Bool(true)))
    }
    fn string(&self, s: &'static str, k: &'static str) -> String {
        match self.raw(s, k) {
            Some(Val::Str(v)) => v,
            _ => unreachable!("choice keys always have a default"),
        }
    }
}

impl Scenario {
    pub(crate) fn from_values(values: &Values) -> Result<Scenario, ScenarioError> {
        debug_assert!(values.keys().all(|(s, k)| SCHEMA.iter().any(|p| p.section == *s && p.key == *k)));
        let g = Get(values);
        let kind = g.string("network", "kind");
        if !IMPLEMENTED_KINDS.contains(&kind.as_str()) {
            return Err(ScenarioError::new(format!(
                "network.kind: \"{kind}\" is not implemented in this build (available: {})",
                IMPLEMENTED_KINDS.join(", ")
            )));
        }
        let protocol = g.string("network", "protocol");
        if !IMPLEMENTED_PROTOCOLS.contains(&protocol.as_str()) {
            return Err(ScenarioError::new(format!(
                "network.protocol: \"{protocol}\" is not implemented in this build (available: {})",
                IMPLEMENTED_PROTOCOLS.join(", ")
            )));
        }
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
            protocol: match protocol.as_str() {
                "ppq" => Protocol::Ppq,
                "train" => Protocol::Train,
                "dfc" => Protocol::Dfc,
                _ => Protocol::Sci,
            },
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
        let ppq = Ppq {
            starvation: match g.string("ppq", "starvation").as_str() {
                "aging" => Starvation::Aging,
                _ => Starvation::Inheritance,
            },
            aging_ns: g.float("ppq", "aging_ns").unwrap(),
            ewq_packets: g.int("ppq", "ewq_packets").unwrap() as u32,
            retry_holdoff_ns: g.float("ppq", "retry_holdoff_ns").unwrap(),
        };
        let train = Train {
            ticketmaster: g.int("train", "ticketmaster").unwrap() as u32,
            locomotive_symbols: g.int("train", "locomotive_symbols").unwrap() as u32,
            ticket_symbols: g.int("train", "ticket_symbols").unwrap() as u32,
            budget_symbols: g.int("train", "budget_symbols").unwrap_or(0) as u32,
            revolution_ns: g.float("train", "revolution_ns").unwrap_or(0.0),
            arbitrate_above: g.float("train", "arbitrate_above").unwrap(),
            immediate_below: g.float("train", "immediate_below").unwrap(),
            max_tickets_per_node: g.int("train", "max_tickets_per_node").unwrap() as u32,
            gearshift: g.boolean("train", "gearshift"),
        };
        if train.ticketmaster >= nodes {
            return Err(ScenarioError::new(format!(
                "train.ticketmaster: expected a node index in 0..{} (network.nodes = {nodes}), got {}",
                nodes - 1,
                train.ticketmaster
            )));
        }
        if train.immediate_below > train.arbitrate_above {
            return Err(ScenarioError::new(format!(
                "train.immediate_below: expected at most train.arbitrate_above ({}), got {}",
                train.arbitrate_above, train.immediate_below
            )));
        }
        let dfc = Dfc {
            control_symbols: g.int("dfc", "control_symbols").unwrap() as u32,
            stop_thru_after_packets: g.int("dfc", "stop_thru_after_packets").unwrap() as u32,
            stop_to_high: g.int("dfc", "stop_to_high").unwrap_or(0) as u32,
            stop_to_low: g.int("dfc", "stop_to_low").unwrap() as u32,
        };
        Ok(Scenario { network, node, traffic, run, ppq, train, dfc })
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

    #[test]
    fn toml_round_trip_keeps_hash() {
        let s = crate::load_str("[traffic]\nload_mbps_per_node = 75\n[run]\nci_rel_halfwidth = 0.05", &[]).unwrap();
        let again = crate::load_str(&s.to_toml(), &[]).unwrap();
        assert_eq!(s, again);
        assert_eq!(s.hash(), again.hash());
        let other = crate::load_str("[traffic]\nload_mbps_per_node = 76", &[]).unwrap();
        assert_ne!(s.hash(), other.hash());
    }

    #[test]
    fn writing_a_default_explicitly_does_not_change_the_hash() {
        let a = crate::load_str("", &[]).unwrap();
        let b = crate::load_str("[network]\nnodes = 8", &[]).unwrap();
        assert_eq!(a.hash(), b.hash());
    }
}
