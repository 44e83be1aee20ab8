//! The trace file a scenario names (`traffic.trace`): made absolute, its
//! format told by its extension, and its content's SHA-256, which joins the
//! scenario hash so that results are keyed by what the file holds, not by
//! its name. Rows are read by the fabric's trace source, not here.

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

/// The formats a trace may have, by file extension.
pub const EXTENSIONS: &[&str] = &["csv", "parquet"];

/// `path` made absolute (from the current directory; `..` and links are
/// kept as written), checked to end in a known extension.
pub fn absolute(path: &str) -> Result<String, String> {
    let p = Path::new(path);
    let ext = p.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
    if !ext.as_deref().is_some_and(|e| EXTENSIONS.contains(&e)) {
        return Err(format!("traffic.trace: expected a .csv or .parquet file, got {path:?}"));
    }
    let abs = std::path::absolute(p).map_err(|e| format!("traffic.trace: cannot resolve {path:?}: {e}"))?;
    Ok(abs.to_string_lossy().into_owned())
}

/// Digests already taken in this process, by path: valid while the file
/// keeps its length and modification time (a sweep loads its scenario
/// once per point; a large trace is read once).
type Seen = HashMap<PathBuf, (u64, SystemTime, String)>;

fn seen() -> &'static Mutex<Seen> {
    static SEEN: std::sync::OnceLock<Mutex<Seen>> = std::sync::OnceLock::new();
    SEEN.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The SHA-256 of the file at `path`, as 64 lowercase hex digits.
pub fn sha256(path: &str) -> Result<String, String> {
    let cannot = |e: std::io::Error| format!("traffic.trace: cannot read {path}: {e}");
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        return Err(format!("traffic.trace: {path} is not a file"));
    }
    let stamp = (meta.len(), meta.modified().unwrap_or(SystemTime::UNIX_EPOCH));
    if let Some((len, at, hex)) = seen().lock().expect("not poisoned").get(Path::new(path)) {
        if (*len, *at) == stamp {
            return Ok(hex.clone());
        }
    }
    let mut f = std::fs::File::open(path).map_err(cannot)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).map_err(cannot)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    seen().lock().expect("not poisoned").insert(PathBuf::from(path), (stamp.0, stamp.1, hex.clone()));
    Ok(hex)
}

#[cfg(test)]
mod tests {
    #[test]
    fn digest_follows_the_content() {
        let path = std::env::temp_dir().join(format!("ringlet-digest-{}.csv", std::process::id()));
        std::fs::write(&path, "time_ns,src,dst,bytes\n").unwrap();
        let p = path.to_str().unwrap();
        let a = super::sha256(p).unwrap();
        // (sha256sum of the same bytes.)
        assert_eq!(a, "af7d6efa003147a070564b35e9bca67c4e69cac73c4558a6c82b725b5f11678f");
        std::fs::write(&path, "time_ns,src,dst,bytes\n0,0,1,64\n").unwrap();
        let b = super::sha256(p).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_ne!(a, b, "an edited file has another digest");
        assert!(super::absolute("t.txt").unwrap_err().contains("expected a .csv or .parquet file"));
        assert!(super::absolute("t.CSV").unwrap().ends_with("/t.CSV"));
    }
}
