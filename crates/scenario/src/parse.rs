//! From TOML text (plus overrides) to a validated [`Scenario`].

use crate::error::ScenarioError;
use crate::scenario::Scenario;
use crate::schema::{self, FamilySchema, Kind, Schema};
use std::collections::BTreeMap;
use std::path::Path;
use toml::Value;

/// `--set KEY=VALUE` pairs, applied in order on top of the file.
pub type Overrides = [(String, String)];

/// A validated value of one key.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Val {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
}

impl serde::Serialize for Val {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        match self {
            Val::Int(i) => ser.serialize_i64(*i),
            Val::Float(f) => ser.serialize_f64(*f),
            Val::Str(s) => ser.serialize_str(s),
            Val::Bool(b) => ser.serialize_bool(*b),
        }
    }
}

/// Validated values by (section, key); absent keys were not written.
pub(crate) type Values = BTreeMap<(&'static str, &'static str), Val>;

/// Splits `KEY=VALUE`; the value is read as a TOML literal (`120`, `"dfc"`,
/// `true`), and a bare word that is not TOML is taken as a string (`dfc`).
pub fn parse_override(spec: &str) -> Result<(String, String), ScenarioError> {
    let (k, v) = spec
        .split_once('=')
        .ok_or_else(|| ScenarioError::new(format!("--set {spec}: expected KEY=VALUE, e.g. traffic.load_mbps_per_node=120")))?;
    Ok((k.trim().to_string(), v.trim().to_string()))
}

fn override_value(raw: &str) -> Value {
    match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        Ok(mut t) => t.remove("v").expect("key v"),
        Err(_) => Value::String(raw.to_string()),
    }
}

/// One-line description of a TOML syntax error, with its line and column.
fn syntax_error(text: &str, e: &toml::de::Error) -> ScenarioError {
    let message = e.message().lines().next().unwrap_or("syntax error").to_string();
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1;
            ScenarioError::new(format!("malformed TOML at line {line}, column {col}: {message}"))
        }
        None => ScenarioError::new(format!("malformed TOML: {message}")),
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Boolean(b) => b.to_string(),
        Value::Datetime(d) => d.to_string(),
        Value::Array(_) => "an array".to_string(),
        Value::Table(_) => "a table".to_string(),
    }
}

/// "one of "a", "b"" for a list of names.
fn one_of(names: impl Iterator<Item = &'static str>) -> String {
    names.map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ")
}

fn check(schema: &Schema, family: &FamilySchema, p: &schema::Param, v: &Value) -> Result<Val, ScenarioError> {
    let name = format!("{}.{}", p.section, p.key);
    match p.kind {
        Kind::Choice(_) | Kind::Protocol | Kind::Family => {
            let names: Vec<&'static str> = match p.kind {
                Kind::Choice(choices) => choices.to_vec(),
                Kind::Protocol => family.protocols.iter().map(|p| p.name).collect(),
                _ => schema.families().iter().map(|f| f.kind).collect(),
            };
            match v {
                Value::String(s) if names.contains(&s.as_str()) => Ok(Val::Str(s.clone())),
                _ => Err(ScenarioError::new(format!("{name}: expected one of {}, got {}", one_of(names.into_iter()), describe(v)))),
            }
        }
        Kind::Int { min, max } => match v {
            Value::Integer(i) if *i >= min && *i <= max => Ok(Val::Int(*i)),
            _ => Err(ScenarioError::new(format!("{name}: expected an integer in {min}..{max}, got {}", describe(v)))),
        },
        Kind::Float { min, max } => {
            let x = match v {
                Value::Integer(i) => Some(*i as f64),
                Value::Float(f) => Some(*f),
                _ => None,
            };
            match x {
                Some(x) if x.is_finite() && x >= min && x <= max => Ok(Val::Float(x)),
                _ if max.is_infinite() => Err(ScenarioError::new(format!("{name}: expected a number >= {min}, got {}", describe(v)))),
                _ => Err(ScenarioError::new(format!("{name}: expected a number in {min}..{max}, got {}", describe(v)))),
            }
        }
        Kind::Bool => match v {
            Value::Boolean(b) => Ok(Val::Bool(*b)),
            _ => Err(ScenarioError::new(format!("{name}: expected true or false, got {}", describe(v)))),
        },
        Kind::Text(what) => match v {
            Value::String(s) if !s.is_empty() => Ok(Val::Str(s.clone())),
            _ => Err(ScenarioError::new(format!("{name}: expected {what} (a string), got {}", describe(v)))),
        },
    }
}

/// The TOML table of `text`, or its syntax error.
pub(crate) fn parse_table(text: &str) -> Result<toml::Table, ScenarioError> {
    toml::from_str(text).map_err(|e| syntax_error(text, &e))
}

pub(crate) fn parse(schema: &Schema, text: &str, overrides: &Overrides) -> Result<Scenario, ScenarioError> {
    from_table(schema, parse_table(text)?, overrides, None)
}

/// A parsed TOML table with overrides applied, validated. A relative file
/// path the table itself names (`traffic.trace`) is taken from `folder`,
/// the scenario file's, if given; the scenario keeps it absolute, and
/// relative paths left (overrides', text's without a file) are taken from
/// the current directory.
pub(crate) fn from_table(schema: &Schema, mut table: toml::Table, overrides: &Overrides, folder: Option<&Path>) -> Result<Scenario, ScenarioError> {
    if let (Some(folder), Some(Value::Table(traffic))) = (folder, table.get_mut("traffic")) {
        if let Some(Value::String(path)) = traffic.get_mut("trace") {
            if Path::new(path.as_str()).is_relative() && !path.is_empty() {
                *path = folder.join(path.as_str()).to_string_lossy().into_owned();
            }
        }
    }
    for (key, raw) in overrides {
        let (section, name) = key
            .split_once('.')
            .ok_or_else(|| ScenarioError::new(format!("--set {key}: expected SECTION.KEY, e.g. traffic.load_mbps_per_node")))?;
        let sec = table.entry(section.to_string()).or_insert_with(|| Value::Table(toml::Table::new()));
        match sec {
            Value::Table(t) => {
                t.insert(name.to_string(), override_value(raw));
            }
            other => return Err(ScenarioError::new(format!("{section}: expected a table, got {}", describe(other)))),
        }
    }
    let family = family_of(schema, &table)?;
    let sections = schema.sections(family);
    let mut values = Values::new();
    for (section, content) in &table {
        if !sections.contains(&section.as_str()) {
            let owners: Vec<&str> = schema.families().iter().filter(|f| schema.sections(f).contains(&section.as_str())).map(|f| f.kind).collect();
            let whose = if owners.is_empty() { String::new() } else { format!("; [{section}] is a section of network.kind = {}", one_of(owners.into_iter())) };
            return Err(ScenarioError::new(format!(
                "{section}: unknown section for network.kind = \"{}\" (expected one of {}{whose})",
                family.kind,
                sections.iter().map(|s| format!("[{s}]")).collect::<Vec<_>>().join(", ")
            )));
        }
        let Value::Table(t) = content else {
            return Err(ScenarioError::new(format!("{section}: expected a table [{section}], got {}", describe(content))));
        };
        for (key, v) in t {
            let Some(p) = schema.find(family, section, key) else {
                let owners = schema.owners(section, key);
                return Err(ScenarioError::new(if owners.is_empty() {
                    format!("{section}.{key}: unknown key")
                } else {
                    format!("{section}.{key}: not a key of network.kind = \"{}\" (it is one of network.kind = {})", family.kind, one_of(owners.into_iter()))
                }));
            };
            values.insert((p.section, p.key), check(schema, family, &p, v)?);
        }
    }
    Scenario::from_values(schema, family, &values)
}

/// The family a table names in `network.kind` (checked), or the default one.
fn family_of<'a>(schema: &'a Schema, table: &toml::Table) -> Result<&'a FamilySchema, ScenarioError> {
    let kind = match table.get("network") {
        Some(Value::Table(t)) => t.get("kind"),
        _ => None,
    };
    let Some(v) = kind else { return Ok(schema.family(schema.default_kind()).expect("the default family is registered")) };
    let any = &schema.families()[0];
    match check(schema, any, schema::kind_key(), v)? {
        Val::Str(k) => Ok(schema.family(&k).expect("checked against the families")),
        _ => unreachable!("a family is named by a string"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(text, &[]).unwrap_err().message
    }

    fn parse(text: &str, o: &Overrides) -> Result<Scenario, ScenarioError> {
        super::parse(&schema::test_schema(), text, o)
    }

    #[test]
    fn empty_file_gives_defaults() {
        let s = parse("", &[]).unwrap();
        assert_eq!(s.network.nodes, 8);
        assert_eq!(s.section("node").int("queue"), 5);
        assert_eq!(s.run.ci_rel_halfwidth, None);
    }

    #[test]
    fn errors_name_the_key() {
        assert_eq!(
            err("[traffic]\nload_mbps_per_node = \"fast\""),
            "traffic.load_mbps_per_node: expected a number >= 0, got \"fast\""
        );
        assert_eq!(err("[traffic]\nload_mbps_per_node = -1.5"), "traffic.load_mbps_per_node: expected a number >= 0, got -1.5");
        assert_eq!(err("[network]\nnodes = 1"), "network.nodes: expected an integer in 2..4096, got 1");
        assert_eq!(err("[network]\nnodez = 3"), "network.nodez: unknown key");
        assert_eq!(err("[netwrk]\nnodes = 3").lines().count(), 1);
        assert!(err("[netwrk]\nnodes = 3").starts_with("netwrk: unknown section"));
        assert_eq!(err("[network]\nprotocol = \"token\""), "network.protocol: expected one of \"sci\", \"toy\", got \"token\"");
        assert_eq!(err("[toy]\nlevel = 11"), "toy.level: expected an integer in 0..10, got 11");
        assert_eq!(err("[toy]\nlevell = 1"), "toy.levell: unknown key");
        assert!(err("[ppq]\naging_ns = 1").starts_with("ppq: unknown section for network.kind = \"sci-ring\" (expected one of [network], [node], [traffic], [run], [toy])"));
    }

    /// A key or section of another family names whose it is; the family's
    /// own keys and sections are accepted only with it.
    #[test]
    fn families_have_their_own_keys() {
        assert_eq!(err("[network]\nkind = \"mesh\"\nprotocol = \"sci\""), "network.protocol: not a key of network.kind = \"mesh\" (it is one of network.kind = \"sci-ring\")");
        assert_eq!(err("[network]\nkind = \"mesh\"\n[toy]\nlevel = 1"), "toy: unknown section for network.kind = \"mesh\" (expected one of [network], [node], [traffic], [run], [mesh]; [toy] is a section of network.kind = \"sci-ring\")");
        assert_eq!(err("[mesh]\nwidth = 2"), "mesh: unknown section for network.kind = \"sci-ring\" (expected one of [network], [node], [traffic], [run], [toy]; [mesh] is a section of network.kind = \"mesh\")");
        assert_eq!(err("[network]\nkind = \"banyan\""), "network.kind: expected one of \"sci-ring\", \"mesh\", got \"banyan\"");
        assert_eq!(err("[network]\nkind = 3"), "network.kind: expected one of \"sci-ring\", \"mesh\", got 3");
        let s = parse("[network]\nkind = \"mesh\"\n[mesh]\nwidth = 8", &[]).unwrap();
        assert_eq!((s.network.kind, s.section("mesh").int("width")), ("mesh", 8));
        // The family is named by an override as well as by the file.
        let o = vec![("network.kind".to_string(), "mesh".to_string())];
        assert_eq!(parse("[mesh]\nwidth = 2", &o).unwrap().section("mesh").int("width"), 2);
    }

    #[test]
    fn malformed_toml_is_one_line_with_position() {
        let e = err("[network]\nnodes = = 3\n");
        assert!(e.starts_with("malformed TOML at line 2, column"), "{e}");
        assert_eq!(e.lines().count(), 1);
    }

    #[test]
    fn overrides_apply_and_are_validated() {
        let o = vec![("traffic.load_mbps_per_node".to_string(), "120".to_string())];
        assert_eq!(parse("", &o).unwrap().traffic.load_mbps_per_node, 120.0);
        let o = vec![("traffic.destinations".to_string(), "hotspot".to_string())];
        assert_eq!(parse("", &o).unwrap().traffic.destinations, crate::Destinations::Hotspot);
        let o = vec![("traffic.speed".to_string(), "3".to_string())];
        assert_eq!(parse("", &o).unwrap_err().message, "traffic.speed: unknown key");
        assert!(parse_override("nokey").is_err());
    }

    #[test]
    fn cross_key_checks() {
        let e = err("[network]\nnodes = 4\n[traffic]\nhotspot_node = 4");
        assert_eq!(e, "traffic.hotspot_node: expected a node index in 0..3 (network.nodes = 4), got 4");
        // A protocol's own check runs whichever protocol the scenario picks.
        let e = err("[toy]\nlevel = 8");
        assert_eq!(e, "toy.level: expected less than network.nodes (8), got 8");
        let e = err("[run]\nwarmup_ns = 1e6\nmax_sim_time_ns = 1e6");
        assert_eq!(e, "run.warmup_ns: expected less than run.max_sim_time_ns (1000000), got 1000000");
        let e = err("[toy]\non = \"yes\"");
        assert_eq!(e, "toy.on: expected true or false, got \"yes\"");
    }

    #[test]
    fn protocol_sections_fill_defaults_and_derive_as_zero() {
        let s = parse("[network]\nprotocol = \"toy\"\n[toy]\nmode = \"b\"", &[]).unwrap();
        assert_eq!(s.section("network").str("protocol"), "toy");
        let toy = s.section("toy");
        assert_eq!((toy.int("level"), toy.float("rate_ns"), toy.str("mode"), toy.bool("on")), (3, 0.0, "b", false));
        let o = vec![("toy.rate_ns".to_string(), "7".to_string())];
        assert_eq!(parse("", &o).unwrap().section("toy").float("rate_ns"), 7.0);
        // A protocol's section is written beside the core ones.
        let json = parse("", &[]).unwrap().to_json();
        assert!(json.contains(r#""toy":{"level":3,"mode":"a","on":false,"rate_ns":0.0}"#), "{json}");
    }
}
