//! From TOML text (plus overrides) to a validated [`Scenario`].

use crate::error::ScenarioError;
use crate::scenario::Scenario;
use crate::schema::{self, Kind, Schema};
use std::collections::BTreeMap;
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

fn check(schema: &Schema, p: &schema::Param, v: &Value) -> Result<Val, ScenarioError> {
    let name = format!("{}.{}", p.section, p.key);
    match p.kind {
        Kind::Protocol => match v {
            Value::String(s) if schema.protocol(s).is_some() => Ok(Val::Str(s.clone())),
            _ => Err(ScenarioError::new(format!(
                "{name}: expected one of {}, got {}",
                schema.protocols().iter().map(|c| format!("\"{}\"", c.name)).collect::<Vec<_>>().join(", "),
                describe(v)
            ))),
        },
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
        Kind::Choice(choices) => match v {
            Value::String(s) if choices.contains(&s.as_str()) => Ok(Val::Str(s.clone())),
            _ => Err(ScenarioError::new(format!(
                "{name}: expected one of {}, got {}",
                choices.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", "),
                describe(v)
            ))),
        },
    }
}

/// The TOML table of `text`, or its syntax error.
pub(crate) fn parse_table(text: &str) -> Result<toml::Table, ScenarioError> {
    toml::from_str(text).map_err(|e| syntax_error(text, &e))
}

pub(crate) fn parse(schema: &Schema, text: &str, overrides: &Overrides) -> Result<Scenario, ScenarioError> {
    from_table(schema, parse_table(text)?, overrides)
}

/// A parsed TOML table with overrides applied, validated.
pub(crate) fn from_table(schema: &Schema, mut table: toml::Table, overrides: &Overrides) -> Result<Scenario, ScenarioError> {
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
    let mut values = Values::new();
    for (section, content) in &table {
        if !schema.sections().contains(&section.as_str()) {
            return Err(ScenarioError::new(format!(
                "{section}: unknown section (expected one of {})",
                schema.sections().iter().map(|s| format!("[{s}]")).collect::<Vec<_>>().join(", ")
            )));
        }
        let Value::Table(t) = content else {
            return Err(ScenarioError::new(format!("{section}: expected a table [{section}], got {}", describe(content))));
        };
        for (key, v) in t {
            let p = schema.find(section, key).ok_or_else(|| ScenarioError::new(format!("{section}.{key}: unknown key")))?;
            values.insert((p.section, p.key), check(schema, p, v)?);
        }
    }
    Scenario::from_values(schema, &values)
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
        assert_eq!(s.node.responder_input_queue_packets, 5);
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
        assert!(err("[ppq]\naging_ns = 1").starts_with("ppq: unknown section (expected one of [network], [node], [traffic], [run], [toy])"));
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
        let e = err("[network]\nkind = \"banyan\"");
        assert!(e.starts_with("network.kind: \"banyan\" is not implemented in this build"), "{e}");
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
        assert_eq!(s.network.protocol, "toy");
        let toy = s.section("toy");
        assert_eq!((toy.int("level"), toy.float("rate_ns"), toy.str("mode"), toy.bool("on")), (3, 0.0, "b", false));
        let o = vec![("toy.rate_ns".to_string(), "7".to_string())];
        assert_eq!(parse("", &o).unwrap().section("toy").float("rate_ns"), 7.0);
        // A protocol's section is written beside the core ones, in schema order.
        let json = parse("", &[]).unwrap().to_json();
        assert!(json.ends_with(r#","toy":{"level":3,"rate_ns":0.0,"mode":"a","on":false}}"#), "{json}");
    }
}
