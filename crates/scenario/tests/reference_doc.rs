//! docs/scenario.md is generated from the schema; this fails when it is stale.
//! Regenerate with `RINGLET_UPDATE_DOCS=1 cargo test -p ringlet-scenario`.

#[test]
fn scenario_reference_is_up_to_date() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenario.md");
    let generated = ringlet_scenario::schema::markdown();
    if std::env::var_os("RINGLET_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &generated).expect("write docs/scenario.md");
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(on_disk == generated, "docs/scenario.md is stale: run RINGLET_UPDATE_DOCS=1 cargo test -p ringlet-scenario");
}

/// Every key of the schema has a default or says why it has none, and a doc line.
#[test]
fn every_key_is_documented() {
    for p in ringlet_scenario::schema::SCHEMA {
        assert!(!p.doc.is_empty(), "{}.{} has no doc", p.section, p.key);
        assert!(ringlet_scenario::schema::SECTIONS.contains(&p.section));
    }
}
