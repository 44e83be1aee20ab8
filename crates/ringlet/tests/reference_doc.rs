//! docs/scenario.md is generated from the schema; this fails when it is stale.
//! Regenerate with `RINGLET_UPDATE_DOCS=1 cargo test -p ringlet --test reference_doc`.

use ringlet_scenario::schema::Default;

#[test]
fn scenario_reference_is_up_to_date() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenario.md");
    let generated = ringlet::schema().markdown();
    if std::env::var_os("RINGLET_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &generated).expect("write docs/scenario.md");
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "docs/scenario.md is stale: run RINGLET_UPDATE_DOCS=1 cargo test -p ringlet --test reference_doc"
    );
}

/// Every key of every family has a doc line and belongs to a section the
/// schema lists for it; a protocol's derived keys accept 0, which is how an
/// absent one reads.
#[test]
fn every_key_is_documented() {
    let schema = ringlet::schema();
    for f in schema.families() {
        assert!(!f.doc.is_empty(), "family {} has no doc", f.kind);
        for p in schema.params(f) {
            assert!(!p.doc.is_empty(), "{}.{} has no doc", p.section, p.key);
            assert!(schema.sections(f).contains(&p.section));
            if f.protocols.iter().any(|q| q.name == p.section) && matches!(p.default, Default::Derived(_)) {
                let zero = match p.kind {
                    ringlet_scenario::schema::Kind::Int { min, .. } => min == 0,
                    ringlet_scenario::schema::Kind::Float { min, .. } => min == 0.0,
                    _ => false,
                };
                assert!(zero, "{}.{}: a derived key must accept 0", p.section, p.key);
            }
        }
        for p in f.protocols {
            assert!(!p.doc.is_empty(), "protocol {} has no doc", p.name);
        }
    }
}
