//! Gives every build a model identity: a hash of the Rust sources that
//! decide results (engine, scenario, models, this crate). The version results
//! carry is `CARGO_PKG_VERSION+<hash>`, so a results store never mixes
//! results of two different models that happen to share a version number.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for name in ["engine", "scenario", "fabric", "sci-ring", "ringlet"] {
        let src = crates.join(name).join("src");
        println!("cargo:rerun-if-changed={}", src.display());
        sources(&src, &mut files);
    }
    files.sort();
    let mut h = Sha256::new();
    for f in &files {
        // Path relative to crates/, so the hash does not depend on where the checkout is.
        let rel = f.strip_prefix(&crates).unwrap_or(f);
        h.update(rel.to_string_lossy().replace('\\', "/").as_bytes());
        h.update([0]);
        h.update(std::fs::read(f).expect("readable source"));
        h.update([0]);
    }
    let digest = h.finalize();
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=RINGLET_MODEL_HASH={hex}");
}
