//! The scenario parser fuzzed: arbitrary text, near-valid TOML built from
//! the real sections and keys, and arbitrary `--set` strings. Whatever the
//! input, loading either gives a scenario (which the model's check then
//! accepts or refuses) or one line naming the key or the problem; nothing
//! panics. (The Python binding's side: tests/python/test_scenario_fuzz.py.)

use proptest::prelude::*;
use ringlet_scenario::schema::{Kind, Param};

/// An error message as the CLI prints it: one non-empty line.
fn one_line(message: &str) -> Result<(), TestCaseError> {
    prop_assert!(!message.trim().is_empty(), "empty message");
    let breaks = |c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
    prop_assert!(!message.chars().any(breaks), "not one line: {message:?}");
    Ok(())
}

/// Loads, then checks and round-trips what loads.
fn load(text: &str, sets: &[String]) -> Result<(), TestCaseError> {
    let mut overrides = Vec::new();
    for spec in sets {
        match ringlet_scenario::parse_override(spec) {
            Ok(pair) => overrides.push(pair),
            Err(e) => return one_line(&e.message),
        }
    }
    match ringlet::load_str(text, &overrides) {
        Ok(s) => {
            if let Err(e) = ringlet::check(&s) {
                one_line(&e.message)?;
            }
            let again = ringlet::load_str(&s.to_toml(), &[]).expect("a loaded scenario's TOML loads");
            prop_assert_eq!(again.hash(), s.hash());
            Ok(())
        }
        Err(e) => one_line(&e.message),
    }
}

/// Every section and key the contract knows, and some it does not.
fn section() -> impl Strategy<Value = String> {
    let mut known: Vec<String> = ringlet::schema().families().iter().flat_map(|f| ringlet::schema().sections(f)).map(String::from).collect();
    known.extend(["bogus", "", "network.x", "a\nb"].map(String::from));
    prop_oneof![4 => prop::sample::select(known), 1 => any::<String>()]
}

fn key() -> impl Strategy<Value = String> {
    let mut known: Vec<String> = ringlet::schema().families().iter().flat_map(|f| ringlet::schema().params(f)).map(|p| p.key.to_string()).collect();
    known.extend(["kind", "nodez", "", "\"quoted\"", "no\ndes"].map(String::from));
    prop_oneof![4 => prop::sample::select(known), 1 => "[a-z_\\n\u{2028}\u{85}]{0,12}"]
}

/// A TOML value, mostly of a kind some key accepts, with edge cases.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        (-5i64..300).prop_map(|i| i.to_string()),
        any::<f64>().prop_map(|f| format!("{f:?}")),
        prop::sample::select(vec!["nan", "inf", "-inf", "1e400", "0.0", "-0.0", "true", "false", "[]", "[1, 2]", "{a = 1}", "1979-05-27T07:32:00Z"]).prop_map(String::from),
        prop::sample::select(vec!["sci", "dfc", "ppq", "train", "sci-ring", "read64", "hotspot", "local", "aging", "ieee", "ab", "none"]).prop_map(|s| format!("\"{s}\"")),
        any::<String>().prop_map(|s| format!("{s:?}")),
    ]
}

/// A real key of some family with a value of its kind, mostly in range,
/// or any value: `(section, key, value)`.
fn real_entry() -> impl Strategy<Value = (String, String, String)> {
    let schema = ringlet::schema();
    let names = |it: &mut dyn Iterator<Item = &'static str>| it.map(|s| format!("\"{s}\"")).collect::<Vec<_>>();
    let protocols = names(&mut schema.families().iter().flat_map(|f| f.protocols.iter().map(|p| p.name)));
    let kinds = names(&mut schema.families().iter().map(|f| f.kind));
    let params: Vec<Param> = schema.families().iter().flat_map(|f| schema.params(f)).collect();
    prop::sample::select(params).prop_flat_map(move |p| {
        let fitting: BoxedStrategy<String> = match p.kind {
            Kind::Int { min, max } => (min..=max.min(min.saturating_add(1000))).prop_map(|i| i.to_string()).boxed(),
            Kind::Float { min, max } => (min..max.min(min + 1e6)).prop_map(|f| format!("{f:?}")).boxed(),
            Kind::Choice(c) => prop::sample::select(c.to_vec()).prop_map(|s| format!("\"{s}\"")).boxed(),
            Kind::Bool => any::<bool>().prop_map(|b| b.to_string()).boxed(),
            Kind::Protocol => prop::sample::select(protocols.clone()).boxed(),
            Kind::Family => prop::sample::select(kinds.clone()).boxed(),
            Kind::Text(_) => prop::sample::select(vec!["\"t.csv\"", "\"t.parquet\"", "\"\"", "\"a\\nb.csv\""]).prop_map(String::from).boxed(),
        };
        (Just(p.section.to_string()), Just(p.key.to_string()), prop_oneof![4 => fitting, 1 => value()])
    })
}

/// TOML text: mostly real keys, each in a section of its own (TOML allows
/// a section once), sometimes any section and key.
fn toml_text() -> impl Strategy<Value = String> {
    let entry = prop_oneof![4 => real_entry(), 1 => (section(), key(), value())];
    prop::collection::vec(entry, 0..6).prop_map(|entries| {
        let mut out = String::new();
        for (section, k, v) in entries {
            out.push_str(&format!("[{section}]\n{k} = {v}\n"));
        }
        out
    })
}

fn set() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => real_entry().prop_map(|(s, k, v)| format!("{s}.{k}={v}")),
        1 => (section(), key(), value()).prop_map(|(s, k, v)| format!("{s}.{k}={v}")),
        1 => (section(), key(), "[^=]{0,8}").prop_map(|(s, k, v)| format!("{s}.{k}={v}")),
        1 => any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_loads_or_says_why_in_one_line(text in any::<String>(), sets in prop::collection::vec(any::<String>(), 0..3)) {
        load(&text, &sets)?;
    }

    #[test]
    fn near_valid_toml_loads_or_says_why_in_one_line(text in toml_text(), sets in prop::collection::vec(set(), 0..4)) {
        load(&text, &sets)?;
    }
}

/// What the Python side's fuzzing found before messages were kept to one line.
#[test]
fn keys_and_file_names_with_line_breaks_give_one_line() {
    for (text, sets) in [("\"a\\nb\" = 1", vec![]), ("[network]\n\"no\\ndes\" = 8", vec![]), ("", vec!["net\nwork.nodes=8".to_string()])] {
        load(text, &sets).unwrap();
    }
    let e = ringlet::load_named("nodes = = 8", "a\nb.toml", &[]).unwrap_err().message;
    assert!(e.starts_with("a\\nb.toml: malformed TOML"), "{e}");
}
