//! The typed, validated scenario every model receives: the core keys as
//! fields, and its family's keys (and its protocols' sections) by section.

use crate::error::ScenarioError;
use crate::parse::{Val, Values};
use crate::schema::{Default, FamilySchema, Kind, Param, Schema, CORE};
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

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
    Permutation,
}

/// Where a run's transactions come from (`traffic.source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The built-in sources: `arrivals`, `load_mbps_per_node`, `destinations`.
    Generator,
    /// The rows of a trace file (`traffic.trace`).
    Trace,
}

impl Source {
    fn is_generator(&self) -> bool {
        *self == Source::Generator
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Network {
    /// A network family the schema registers.
    pub kind: &'static str,
    pub nodes: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Traffic {
    pub arrivals: Arrivals,
    pub load_mbps_per_node: f64,
    pub priorities: u32,
    pub destinations: Destinations,
    pub hotspot_node: u32,
    pub hotspot_fraction: f64,
    /// Left out of the scenario's JSON and TOML (and so of its hash) with
    /// the built-in generator, as are the trace keys: scenarios that use no
    /// trace are as they were.
    #[serde(skip_serializing_if = "Source::is_generator")]
    pub source: Source,
    /// Its trace file, an absolute path (read with `source = "trace"` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// With a trace: the SHA-256 of its content, 64 hex digits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_sha256: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Run {
    pub seed: u64,
    pub warmup_ns: f64,
    pub measure_transactions: u64,
    pub ci_rel_halfwidth: Option<f64>,
    pub series_interval_ns: Option<f64>,
    pub max_sim_time_ns: f64,
    pub max_backlog_transactions: u64,
    pub batches: u32,
}

/// The keys of one section a family or protocol owns, every default filled.
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

    /// An integer key without a default value: `None` when absent.
    pub fn opt_int(&self, key: &str) -> Option<i64> {
        match self.get(key) {
            Some(Val::Int(i)) => Some(*i),
            None => None,
            _ => self.wrong(key, "an integer"),
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

    /// A choice key's value (or a protocol's name).
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

/// One validated simulation point, every default filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub network: Network,
    pub traffic: Traffic,
    pub run: Run,
    /// The keys of its family, by section (those in the core sections
    /// first), then each of the family's protocols' sections, whichever
    /// protocol runs.
    sections: Vec<Section>,
}

struct Get<'a>(&'a Values);

impl Get<'_> {
    /// A core key's value, as written or its default.
    fn raw(&self, section: &'static str, key: &'static str) -> Option<Val> {
        if let Some(v) = self.0.get(&(section, key)) {
            return Some(v.clone());
        }
        let p = CORE.iter().find(|p| p.section == section && p.key == key).expect("a core key");
        default_of(p)
    }
    fn int(&self, s: &'static str, k: &'static str) -> i64 {
        match self.raw(s, k) {
            Some(Val::Int(i)) => i,
            _ => unreachable!("{s}.{k} is an integer with a default"),
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

/// `traffic` with its trace file: the path made absolute, and where it
/// reads the file, the file's digest, checked against a written one. A
/// trace named with the built-in generator is kept (a sweep may switch
/// `traffic.source` over one scenario) but not read.
fn with_trace(mut traffic: Traffic, values: &Values) -> Result<Traffic, String> {
    let text = |key| match values.get(&("traffic", key)) {
        Some(Val::Str(s)) => Some(s.clone()),
        _ => None,
    };
    if traffic.source == Source::Generator {
        traffic.trace = text("trace").map(|p| crate::trace_file::absolute(&p)).transpose()?;
        return Ok(traffic);
    }
    let Some(path) = text("trace") else {
        return Err("traffic.trace: expected a CSV or Parquet file with traffic.source = \"trace\", got none".to_string());
    };
    let path = crate::trace_file::absolute(&path)?;
    let digest = crate::trace_file::sha256(&path)?;
    if let Some(written) = text("trace_sha256") {
        if !written.eq_ignore_ascii_case(&digest) {
            return Err(format!("traffic.trace_sha256: the trace file {path} has changed: its SHA-256 is {digest}, the scenario gives {written}"));
        }
    }
    traffic.trace = Some(path);
    traffic.trace_sha256 = Some(digest);
    Ok(traffic)
}

fn default_of(p: &Param) -> Option<Val> {
    match p.default {
        Default::Int(i) => Some(Val::Int(i)),
        Default::Float(f) => Some(Val::Float(f)),
        Default::Str(s) => Some(Val::Str(s.to_string())),
        Default::Bool(b) => Some(Val::Bool(b)),
        Default::None | Default::Derived(_) | Default::SameAs(_) => None,
    }
}

/// A family or protocol section's keys: as written, else their defaults (a
/// key the same as another, that one's value); an absent derived key that
/// accepts 0 reads as 0 (its model's "derive").
fn section(name: &'static str, keys: &[Param], values: &Values) -> Section {
    let written_or_default = |p: &Param| values.get(&(p.section, p.key)).cloned().or_else(|| default_of(p));
    let values = keys
        .iter()
        .filter(|p| p.section == name)
        .map(|p| {
            let v = match p.default {
                Default::SameAs(other) => values.get(&(p.section, p.key)).cloned().or_else(|| {
                    keys.iter().find(|o| o.section == p.section && o.key == other).and_then(written_or_default)
                }),
                _ => written_or_default(p),
            };
            let v = match (v, p.default, p.kind) {
                (None, Default::Derived(_), Kind::Int { min: 0, .. }) => Some(Val::Int(0)),
                (None, Default::Derived(_), Kind::Float { min: 0.0, .. }) => Some(Val::Float(0.0)),
                (v, _, _) => v,
            };
            (p.key, v)
        })
        .collect();
    Section { name, values }
}

impl Scenario {
    pub(crate) fn from_values(schema: &Schema, family: &FamilySchema, values: &Values) -> Result<Scenario, ScenarioError> {
        let g = Get(values);
        let nodes = g.int("network", "nodes") as u32;
        let hotspot_node = g.int("traffic", "hotspot_node") as u32;
        if hotspot_node >= nodes {
            return Err(ScenarioError::new(format!(
                "traffic.hotspot_node: expected a node index in 0..{} (network.nodes = {nodes}), got {hotspot_node}",
                nodes - 1
            )));
        }
        let traffic = Traffic {
            arrivals: match g.string("traffic", "arrivals").as_str() {
                "poisson" => Arrivals::Poisson,
                _ => Arrivals::Deterministic,
            },
            load_mbps_per_node: g.float("traffic", "load_mbps_per_node").expect("a default"),
            priorities: g.int("traffic", "priorities") as u32,
            destinations: match g.string("traffic", "destinations").as_str() {
                "uniform" => Destinations::Uniform,
                "hotspot" => Destinations::Hotspot,
                "local" => Destinations::Local,
                _ => Destinations::Permutation,
            },
            hotspot_node,
            hotspot_fraction: g.float("traffic", "hotspot_fraction").expect("a default"),
            source: match g.string("traffic", "source").as_str() {
                "trace" => Source::Trace,
                _ => Source::Generator,
            },
            trace: None,
            trace_sha256: None,
        };
        let traffic = with_trace(traffic, values).map_err(ScenarioError::new)?;
        let run = Run {
            seed: g.int("run", "seed") as u64,
            warmup_ns: g.float("run", "warmup_ns").expect("a default"),
            measure_transactions: g.int("run", "measure_transactions") as u64,
            ci_rel_halfwidth: g.float("run", "ci_rel_halfwidth"),
            series_interval_ns: g.float("run", "series_interval_ns"),
            max_sim_time_ns: g.float("run", "max_sim_time_ns").expect("a default"),
            max_backlog_transactions: g.int("run", "max_backlog_transactions") as u64,
            batches: g.int("run", "batches") as u32,
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
        let mut sections: Vec<Section> = Vec::new();
        for name in schema.sections(family) {
            if family.params.iter().any(|p| p.section == name) {
                sections.push(section(name, family.params, values));
            }
        }
        for p in family.protocols.iter().filter(|p| !p.params.is_empty()) {
            sections.push(section(p.name, p.params, values));
        }
        let scenario = Scenario { network: Network { kind: family.kind, nodes }, traffic, run, sections };
        (family.validate)(&scenario).map_err(ScenarioError::new)?;
        for p in family.protocols {
            (p.validate)(&scenario).map_err(ScenarioError::new)?;
        }
        Ok(scenario)
    }

    /// The keys the scenario's family (or one of its protocols) has in
    /// section `name`. Panics if it has none there: a model reads only its
    /// family's keys.
    pub fn section(&self, name: &str) -> &Section {
        match self.sections.iter().find(|s| s.name == name) {
            Some(s) => s,
            None => panic!("network.kind = {:?} has no keys in section [{name}]", self.network.kind),
        }
    }

    /// The scenario as one JSON value: a map per section, the core keys
    /// beside the family's, absent optional keys as null.
    fn to_value(&self) -> Value {
        let as_map = |v: Value| match v {
            Value::Object(m) => m,
            _ => unreachable!("a struct serialises as a map"),
        };
        let mut root = Map::new();
        root.insert("network".into(), Value::Object(as_map(serde_json::to_value(&self.network).expect("serialises"))));
        root.insert("traffic".into(), Value::Object(as_map(serde_json::to_value(&self.traffic).expect("serialises"))));
        root.insert("run".into(), Value::Object(as_map(serde_json::to_value(&self.run).expect("serialises"))));
        for s in &self.sections {
            let m = root.entry(s.name).or_insert_with(|| Value::Object(Map::new()));
            let Value::Object(m) = m else { unreachable!("sections are maps") };
            for (k, v) in &s.values {
                m.insert(k.to_string(), serde_json::to_value(v).expect("serialises"));
            }
        }
        Value::Object(root)
    }

    /// The scenario with every default filled, as canonical JSON (keys sorted).
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }

    /// The scenario as a TOML file that reproduces it exactly.
    pub fn to_toml(&self) -> String {
        let mut v = self.to_value();
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
        let s = load("[traffic]\nload_mbps_per_node = 75\n[run]\nci_rel_halfwidth = 0.05\n[node]\nqueue = 7", &[]).unwrap();
        let again = load(&s.to_toml(), &[]).unwrap();
        assert_eq!(s, again);
        assert_eq!(s.hash(), again.hash());
        let other = load("[traffic]\nload_mbps_per_node = 76", &[]).unwrap();
        assert_ne!(s.hash(), other.hash());
        let mesh = load("[network]\nkind = \"mesh\"\n[mesh]\nwidth = 8", &[]).unwrap();
        assert_eq!(load(&mesh.to_toml(), &[]).unwrap(), mesh);
    }

    #[test]
    fn writing_a_default_explicitly_does_not_change_the_hash() {
        let a = load("", &[]).unwrap();
        let b = load("[network]\nnodes = 8\nkind = \"sci-ring\"", &[]).unwrap();
        assert_eq!(a.hash(), b.hash());
    }

    /// A key the same as another takes its value; a derived key that
    /// cannot be 0 stays absent (its model derives it), one that can reads 0.
    #[test]
    fn derived_keys_are_filled_absent_or_zero() {
        let s = load("[node]\nqueue = 9", &[]).unwrap();
        assert_eq!(s.section("node").int("other_queue"), 9);
        assert_eq!(load("[node]\nqueue = 9\nother_queue = 2", &[]).unwrap().section("node").int("other_queue"), 2);
        assert_eq!(s.section("node").opt_int("spare"), None);
        assert_eq!(s.section("toy").float("rate_ns"), 0.0);
        assert!(!s.to_toml().contains("spare") && s.to_toml().contains("other_queue = 9"), "{}", s.to_toml());
    }
}
