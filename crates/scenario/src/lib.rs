//! # ringlet-scenario
//!
//! One scenario file describes one simulation point (SPEC section 2). This
//! crate is the only scenario parser in ringlet; the CLI and the Python API
//! both go through it.
//!
//! Parsing is declarative: a [`schema::Schema`] lists every key with its
//! type, range, default and meaning: the core keys ([`schema::CORE`]), and
//! those each network family registers ([`schema::FamilySchema`]) with its
//! protocols' sections ([`schema::ProtocolSchema`]). A scenario is checked
//! against the core keys and its family's (`network.kind`). The same table
//! validates files, applies `--set KEY=VALUE` overrides, fills defaults and
//! generates the reference in `docs/scenario.md`, so documentation and code
//! cannot drift apart. Every error is one line naming the key or the problem.

mod error;
mod parse;
pub mod schema;
mod scenario;
mod trace_file;

pub use error::ScenarioError;
pub use parse::{parse_override, Overrides};
pub use scenario::*;
pub use trace_file::sha256 as trace_sha256;

/// Parses and validates scenario text against `schema`, overrides applied.
pub fn load_str(schema: &schema::Schema, text: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    parse::parse(schema, text, overrides)
}

/// Reads, parses and validates a scenario file against `schema`.
pub fn load_file(schema: &schema::Schema, path: &std::path::Path, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ScenarioError::new(format!("{}: cannot read scenario file: {e}", path.display())))?;
    load_named(schema, &text, &path.display().to_string(), overrides)
}

/// Parses and validates the text of the file named `origin` (read by the
/// caller, as Python's `Scenario.load` does).
pub fn load_named(schema: &schema::Schema, text: &str, origin: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    // A syntax error's line and column mean something only with the file
    // they are in; errors about keys name the key instead.
    let table = parse::parse_table(text).map_err(|e| ScenarioError::new(format!("{origin}: {}", e.message)))?;
    // Files the scenario names are found beside it.
    let folder = std::path::Path::new(origin).parent().map(|d| if d.as_os_str().is_empty() { std::path::Path::new(".") } else { d });
    parse::from_table(schema, table, overrides, folder)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_files_syntax_error_names_the_file() {
        let path = std::env::temp_dir().join(format!("ringlet-broken-{}.toml", std::process::id()));
        std::fs::write(&path, "[network]\nnodes = = 3\n").unwrap();
        let e = super::load_file(&super::schema::test_schema(), &path, &[]).unwrap_err().message;
        std::fs::remove_file(&path).unwrap();
        assert!(e.starts_with(&format!("{}: malformed TOML at line 2, column", path.display())), "{e}");
    }

    #[test]
    fn named_text_gives_the_name_with_a_syntax_error_only() {
        let schema = super::schema::test_schema();
        let e = super::load_named(&schema, "[network]\nnodes = = 3\n", "a.toml", &[]).unwrap_err().message;
        assert!(e.starts_with("a.toml: malformed TOML at line 2, column"), "{e}");
        let e = super::load_named(&schema, "[network]\nnodez = 3\n", "a.toml", &[]).unwrap_err().message;
        assert!(!e.starts_with("a.toml"), "a key error names the key: {e}");
        let e = super::load_named(&schema, "", "a.toml", &[("network.nodes".into(), "= 3".into())]);
        assert!(e.is_err_and(|e| !e.message.starts_with("a.toml")), "an override is not the file's text");
    }
}
