//! The invariant campaign: random legal scenarios of every family, each run
//! briefly and judged (`checks`): it runs to its end, conservation is
//! exact, no packet is delivered twice, every source makes progress where
//! its protocol promises it, memory stays linear in the network and the
//! packets alive, time per event bounded. A failure is shrunk (`shrink`)
//! to a small scenario, the regression test to write.
//!
//! `crates/ringlet/tests/campaign.rs` runs a fixed-seed campaign in CI;
//! `cargo run -p ringlet --profile campaign --example campaign -- --help`
//! runs a longer one (docs/validation.md has its last result).

pub mod checks;
pub mod draw;
pub mod memory;
pub mod shrink;

use checks::{Problem, Verdict};
use draw::{Overrides, Reach};
use rand::Rng;
use ringlet_engine::rng::StreamSeeds;

/// A campaign: how many scenarios of each family, from which seed, how far.
#[derive(Clone, Debug)]
pub struct Config {
    pub per_family: usize,
    pub seed: u64,
    pub reach: Reach,
    /// Families to draw (`network.kind`); empty: every family.
    pub families: Vec<String>,
    /// Where trace files the draws use are written.
    pub scratch: std::path::PathBuf,
    /// Name each scenario on stderr before it runs, so that one that runs
    /// for minutes (or hangs) can be found while it does.
    pub announce: bool,
}

/// A scenario that failed: as drawn, and shrunk.
#[derive(Clone, Debug)]
pub struct Failure {
    pub drawn: Overrides,
    pub shrunk: Overrides,
    pub problem: Problem,
}

impl Failure {
    /// The shrunk scenario as a `ringlet run` command line.
    pub fn command(&self) -> String {
        command(&self.shrunk)
    }
}

/// `o` as a `ringlet run` command line.
pub fn command(o: &Overrides) -> String {
    let sets: Vec<String> = o.iter().map(|(k, v)| format!("--set '{k}={v}'")).collect();
    format!("ringlet run /dev/null {}", sets.join(" "))
}

/// What a campaign found, family by family.
#[derive(Clone, Debug, Default)]
pub struct FamilyOutcome {
    pub family: String,
    /// Scenarios run and judged.
    pub ran: usize,
    /// Drawn combinations the contract refused (drawn again).
    pub refused: usize,
    /// Of those run, the ones whose protocol promised progress (judged for
    /// stalls), the trace-driven ones and those with a fault.
    pub progress_judged: usize,
    /// Of those run, the ones held to carrying their offered load (`checks::carries`).
    pub carrying_judged: usize,
    pub traced: usize,
    pub faulted: usize,
    pub events: u64,
    /// The largest share of the memory bound a run used, and of the time bound per event.
    pub memory_share_max: f64,
    pub us_per_event_max: f64,
    /// Wall time the family's campaign took, s.
    pub wall_s: f64,
    pub failures: Vec<Failure>,
}

/// Most draws refused in a row before a family's campaign gives up (the
/// draw would be at fault).
const MAX_REFUSED_IN_A_ROW: usize = 200;

/// Runs the campaign; `progress` hears of every scenario judged (family,
/// how many so far, the scenario, its verdict) and may stop it (false).
pub fn run(c: &Config, progress: &mut dyn FnMut(&str, usize, &Overrides, &Verdict) -> bool) -> Vec<FamilyOutcome> {
    let schema = crate::schema();
    let mut out = Vec::new();
    for (k, family) in schema.families().iter().enumerate() {
        if !c.families.is_empty() && !c.families.iter().any(|f| f == family.kind) {
            continue;
        }
        let started = std::time::Instant::now();
        let mut rng = StreamSeeds::new(c.seed).stream(k as u64);
        let mut fo = FamilyOutcome { family: family.kind.to_string(), ..FamilyOutcome::default() };
        let mut refused_in_a_row = 0;
        let mut n = 0;
        while fo.ran < c.per_family && refused_in_a_row < MAX_REFUSED_IN_A_ROW {
            let mut o = draw::draw(&mut rng, family, &c.reach);
            draw::protocol(&mut rng, family, &mut o);
            let mut o = repair(o);
            draw::with_load(&mut rng, &mut o);
            if rng.gen_bool(0.1) {
                with_trace(&mut o, &c.scratch.join(format!("{}-{}-{n}.csv", family.kind, c.seed)), &mut rng);
            }
            n += 1;
            if c.announce {
                eprintln!("{} #{}: running\n  {}", family.kind, fo.ran + 1, command(&o));
            }
            let verdict = checks::judge(&o);
            match &verdict {
                Verdict::Refused(_) => {
                    fo.refused += 1;
                    refused_in_a_row += 1;
                }
                Verdict::Passed(m) => {
                    refused_in_a_row = 0;
                    fo.ran += 1;
                    fo.traced += o.iter().any(|(k, _)| k == "traffic.trace") as usize;
                    fo.faulted += o.iter().any(|(k, _)| k.starts_with("faults.fail")) as usize;
                    fo.events += m.events;
                    fo.progress_judged += m.progress_judged as usize;
                    fo.carrying_judged += m.carrying_judged as usize;
                    fo.memory_share_max = fo.memory_share_max.max(m.memory_share);
                    fo.us_per_event_max = fo.us_per_event_max.max(m.us_per_event);
                }
                Verdict::Failed(p) => {
                    refused_in_a_row = 0;
                    fo.ran += 1;
                    let shrunk = shrink::shrink(&o, p.check);
                    fo.failures.push(Failure { drawn: o.clone(), shrunk, problem: p.clone() });
                }
            }
            fo.wall_s = started.elapsed().as_secs_f64();
            if !progress(family.kind, fo.ran, &o, &verdict) {
                out.push(fo);
                return out;
            }
        }
        out.push(fo);
    }
    out
}

/// Drops the overrides a load or check refuses, naming them, one at a
/// time, until the scenario loads (or nothing named is left to drop).
fn repair(mut o: Overrides) -> Overrides {
    for _ in 0..12 {
        let refused = match crate::load_str("", &o).and_then(|s| crate::check(&s)) {
            Ok(()) => return o,
            Err(e) => e.message,
        };
        // An error names its key first ("traffic.hotspot_node: ...").
        let named = o.iter().position(|(k, _)| refused.starts_with(k.as_str()) && k != "network.kind");
        match named {
            Some(at) => {
                o.remove(at);
            }
            None => return o,
        }
    }
    o
}

/// Makes `o` trace-driven: a CSV of random transactions between its
/// endpoints over its run (`docs/traces.md`), written to `path`.
fn with_trace(o: &mut Overrides, path: &std::path::Path, rng: &mut ringlet_engine::rng::Stream) {
    let Ok(s) = crate::load_str("", o) else { return };
    let family = crate::schema().family(s.network.kind).expect("a family");
    let nodes = s.network.nodes as u64;
    let get = |key: &str| o.iter().find(|(k, _)| k == key).map(|(_, v)| v.trim_matches('"').to_string());
    let default = |key: &str| {
        crate::schema().params(family).into_iter().find(|p| format!("{}.{}", p.section, p.key) == key).and_then(|p| match p.default {
            ringlet_scenario::schema::Default::Str(s) => Some(s.to_string()),
            ringlet_scenario::schema::Default::Int(i) => Some(i.to_string()),
            _ => None,
        })
    };
    let value = |key: &str| get(key).or_else(|| default(key));
    let switched = matches!(s.network.kind, "sci-switch" | "banyan");
    let (senders, receivers): (Vec<u64>, Vec<u64>) = if switched {
        ((0..nodes).collect(), (nodes..2 * nodes).collect())
    } else {
        // With masters, they send and the others answer; else every node does both.
        match value("traffic.masters").and_then(|m| m.parse::<u64>().ok()).filter(|&m| m > 0 && m < nodes) {
            Some(m) => ((0..m).collect(), (m..nodes).collect()),
            None => ((0..nodes).collect(), (0..nodes).collect()),
        }
    };
    let kind = match value("traffic.transaction").as_deref() {
        Some("mixed") | None => "message".to_string(),
        Some(k) => k.to_string(),
    };
    let priorities = s.traffic.priorities as u64;
    let run_ns = s.run.max_sim_time_ns;
    let rows = rng.gen_range(1..400u32);
    let mut text = String::from("time_ns,src,dst,transaction,priority\n");
    let mut times: Vec<f64> = (0..rows).map(|_| rng.gen_range(0.0..run_ns * 0.8).round()).collect();
    times.sort_by(f64::total_cmp);
    for t in times {
        let src = senders[rng.gen_range(0..senders.len())];
        let others: Vec<u64> = receivers.iter().copied().filter(|&d| d != src).collect();
        if others.is_empty() {
            return;
        }
        let dst = others[rng.gen_range(0..others.len())];
        text += &format!("{t},{src},{dst},{kind},{}\n", rng.gen_range(0..priorities));
    }
    if std::fs::write(path, text).is_err() {
        return;
    }
    o.retain(|(k, _)| k != "traffic.load_mbps_per_node");
    o.push(("traffic.source".into(), "\"trace\"".into()));
    o.push(("traffic.trace".into(), format!("{:?}", path.display().to_string())));
}
