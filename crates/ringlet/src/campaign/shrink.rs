//! A failing scenario made small: overrides dropped (back to their
//! defaults) and numbers brought toward their smallest legal values, one
//! at a time, as long as the same check still fails. What is left is the
//! regression test to write.

use super::checks::{judge, Verdict};
use super::draw::Overrides;

/// Keys a smaller scenario keeps as they are: the family, and the run's
/// own settings (its length bounds the time a try takes).
const KEPT: &[&str] = &["network.kind", "run.measure_transactions", "run.max_sim_time_ns", "run.max_backlog_transactions"];

/// Most runs one shrink may take.
const MAX_TRIES: usize = 200;

/// Shrinks `o`, which fails `check`: returns the smallest found that still does.
pub fn shrink(o: &Overrides, check: &str) -> Overrides {
    shrink_by(o, &mut |c| matches!(judge(c), Verdict::Failed(p) if p.check == check))
}

/// Shrinks `o`, for which `fails` holds, keeping it so.
pub fn shrink_by(o: &Overrides, still_fails: &mut dyn FnMut(&Overrides) -> bool) -> Overrides {
    let mut best = o.clone();
    let mut tries = 0;
    let mut fails = |c: &Overrides, tries: &mut usize| {
        *tries += 1;
        still_fails(c)
    };
    let mut changed = true;
    while changed && tries < MAX_TRIES {
        changed = false;
        // Drop one override at a time.
        let mut k = 0;
        while k < best.len() && tries < MAX_TRIES {
            if KEPT.contains(&best[k].0.as_str()) {
                k += 1;
                continue;
            }
            let mut c = best.clone();
            c.remove(k);
            if fails(&c, &mut tries) {
                best = c;
                changed = true;
            } else {
                k += 1;
            }
        }
        // Smaller numbers: halve toward zero, or to the smallest.
        for k in 0..best.len() {
            if KEPT.contains(&best[k].0.as_str()) || tries >= MAX_TRIES {
                continue;
            }
            let Ok(v) = best[k].1.parse::<f64>() else { continue };
            for smaller in [0.0, 1.0, 2.0, (v / 2.0).floor()] {
                if smaller >= v || tries >= MAX_TRIES {
                    continue;
                }
                let mut c = best.clone();
                c[k].1 = if best[k].1.contains('.') || best[k].1.contains('e') { format!("{smaller:?}") } else { format!("{}", smaller as i64) };
                if fails(&c, &mut tries) {
                    best = c;
                    changed = true;
                    break;
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::shrink_by;

    fn o(pairs: &[(&str, &str)]) -> super::Overrides {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// What does not matter is dropped, a number brought down to where it
    /// still fails; the family and the run's length stay.
    #[test]
    fn a_failure_is_made_small() {
        let drawn = o(&[("network.kind", "\"gigaring\""), ("network.nodes", "24"), ("gigaring.rings", "1"), ("traffic.priorities", "5"), ("run.max_sim_time_ns", "300000.0")]);
        // Fails with 3 nodes or more and one ring, whatever else.
        let mut fails = |c: &super::Overrides| {
            let get = |k: &str| c.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
            get("network.nodes").is_some_and(|n| n.parse::<i64>().unwrap() >= 3) && get("gigaring.rings").as_deref() == Some("1")
        };
        let shrunk = shrink_by(&drawn, &mut fails);
        assert_eq!(shrunk, o(&[("network.kind", "\"gigaring\""), ("network.nodes", "3"), ("gigaring.rings", "1"), ("run.max_sim_time_ns", "300000.0")]));
    }
}
