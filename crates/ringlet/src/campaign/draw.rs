//! Random legal scenarios of one family, drawn from its schema: every key
//! within its range, most left at their defaults, the set ones weighted
//! toward the edges (the smallest buffers, one ring, the largest windows,
//! every protocol and choice), node numbers among the network's nodes,
//! faults at random times on random nodes and links, and now and then a
//! trace. The load is drawn last, as a multiple of what the analytic model
//! says the drawn network carries, from a twentieth of it to five times.

use rand::seq::SliceRandom;
use rand::Rng;
use ringlet_engine::rng::Stream;
use ringlet_scenario::schema::{Default, FamilySchema, Kind, Param};

/// How far the draws reach: the largest networks, times and blocks. The
/// CI campaign stays small; the long one goes further.
#[derive(Clone, Copy, Debug)]
pub struct Reach {
    /// Most `network.nodes`.
    pub nodes: i64,
    /// Most `traffic.priorities`.
    pub priorities: i64,
    /// Most of any other count (queues, buffers, windows, block words).
    pub count: i64,
    /// Most of any time in ns (service times, delays, hold-offs).
    pub time_ns: f64,
    /// Simulated time each run is given, ns (its cap).
    pub run_ns: f64,
}

/// The CI campaign's reach.
pub const SMALL: Reach = Reach { nodes: 24, priorities: 8, count: 4096, time_ns: 20_000.0, run_ns: 300_000.0 };
/// The long campaign's.
pub const WIDE: Reach = Reach { nodes: 128, priorities: 64, count: 65_536, time_ns: 200_000.0, run_ns: 2_000_000.0 };

/// Keys the campaign sets itself (the run's length and seed, the load)
/// or that need a file (a trace).
const OWN: &[&str] = &["network.kind", "run.seed", "run.warmup_ns", "run.measure_transactions", "run.ci_rel_halfwidth", "run.max_sim_time_ns", "run.max_backlog_transactions", "run.series_interval_ns", "run.batches", "traffic.load_mbps_per_node", "traffic.source", "traffic.trace", "traffic.trace_sha256"];

/// Keys that name a node (or count them): drawn among the network's nodes.
const NODE_KEYS: &[&str] = &["traffic.hotspot_node", "train.ticketmaster", "faults.fail_node", "faults.fail_link", "traffic.masters"];

/// Keys of a fault: set together or not at all.
const FAULT_KEYS: &[&str] = &["faults.fail_node", "faults.fail_link", "faults.at_ns", "faults.detection_ns", "faults.reinit_circulations"];

/// Most backlog a run may build (its memory), whatever the load.
pub const BACKLOG: u64 = 20_000;

/// A key's name as `--set` takes it.
fn name(p: &Param) -> String {
    format!("{}.{}", p.section, p.key)
}

/// A scenario's overrides, as `--set` takes them (`section.key`, TOML literal).
pub type Overrides = Vec<(String, String)>;

/// Draws a scenario of `family` (its load and trace come later: `with_load`).
pub fn draw(rng: &mut Stream, family: &FamilySchema, reach: &Reach) -> Overrides {
    let schema = crate::schema();
    let mut o: Overrides = vec![("network.kind".into(), format!("\"{}\"", family.kind))];
    let params = schema.params(family);
    // The network's size first: node numbers are drawn below it.
    let nodes = *[2, 2, 3, 4, 8, 16, reach.nodes].choose(rng).expect("sizes");
    let nodes = if rng.gen_bool(0.3) { rng.gen_range(2..=reach.nodes) } else { nodes };
    o.push(("network.nodes".into(), nodes.to_string()));
    let set_share = rng.gen_range(0.1..0.5);
    let faulty = params.iter().any(|p| p.section == "faults") && rng.gen_bool(0.3);
    for p in params.iter() {
        let key = name(p);
        if OWN.contains(&key.as_str()) || key == "network.nodes" {
            continue;
        }
        let fault = FAULT_KEYS.contains(&key.as_str());
        if fault && !faulty {
            continue;
        }
        if !fault && !rng.gen_bool(set_share) {
            continue;
        }
        if let Some(v) = value(rng, p, &key, nodes, reach) {
            o.push((key, v));
        }
    }
    if faulty {
        // One failure, a node or a link, not both.
        let drop = if rng.gen_bool(0.5) { "faults.fail_node" } else { "faults.fail_link" };
        o.retain(|(k, _)| k != drop);
    }
    // A faster clock packs more events into each ns: the run is as much shorter.
    let run_ns = reach.run_ns * [0.25, 0.5, 1.0].choose(rng).expect("lengths") * clock_scale(family, &o);
    o.push(("run.seed".into(), rng.gen_range(0..1_000_000u64).to_string()));
    o.push(("run.warmup_ns".into(), format!("{:?}", *[0.0, 1000.0, run_ns / 10.0].choose(rng).expect("warm-ups"))));
    o.push(("run.measure_transactions".into(), "1000000000".into()));
    o.push(("run.max_sim_time_ns".into(), format!("{run_ns:?}")));
    o.push(("run.max_backlog_transactions".into(), BACKLOG.to_string()));
    if rng.gen_bool(0.1) {
        o.push(("run.series_interval_ns".into(), format!("{:?}", run_ns / 8.0)));
    }
    if faulty {
        // At a random time of the run, fold and all.
        o.retain(|(k, _)| k != "faults.at_ns");
        o.push(("faults.at_ns".into(), format!("{:?}", rng.gen_range(0.0..run_ns).round())));
    }
    o
}

/// How much faster than its default the drawn symbol clock runs (at most 1):
/// `cycle_ns` over its default, or the default `clock_mhz` over the drawn one.
fn clock_scale(family: &FamilySchema, o: &Overrides) -> f64 {
    let drawn = |key: &str| o.iter().find(|(k, _)| k == key).and_then(|(_, v)| v.parse::<f64>().ok());
    let default = |key: &str| crate::schema().params(family).into_iter().find(|p| name(p) == key).and_then(|p| match p.default {
        Default::Float(d) => Some(d),
        _ => None,
    });
    let scale = match (drawn("network.cycle_ns"), default("network.cycle_ns"), drawn("gigaring.clock_mhz"), default("gigaring.clock_mhz")) {
        (Some(c), Some(d), ..) => c / d,
        (_, _, Some(c), Some(d)) => d / c,
        _ => 1.0,
    };
    scale.clamp(1e-3, 1.0)
}

/// A value for key `p` of a scenario of `nodes` nodes, weighted toward its
/// edges and its default; `None` to leave it (a key the draw does not set).
fn value(rng: &mut Stream, p: &Param, key: &str, nodes: i64, reach: &Reach) -> Option<String> {
    let default_int = match p.default {
        Default::Int(d) => Some(d),
        _ => None,
    };
    Some(match p.kind {
        Kind::Int { min, max } => {
            let top = if NODE_KEYS.contains(&key) {
                (nodes - 1).max(min)
            } else if key == "traffic.priorities" {
                reach.priorities
            } else {
                max.min(reach.count)
            };
            let top = top.min(max).max(min);
            let mut edges = vec![min, top, (min + 1).min(top)];
            edges.extend(default_int.filter(|d| (min..=top).contains(d)));
            if key == "traffic.masters" {
                edges.push(1);
            }
            let v = if rng.gen_bool(0.6) { *edges.choose(rng).expect("edges") } else { log_uniform(rng, min as f64, top as f64).round() as i64 };
            v.clamp(min, top).to_string()
        }
        Kind::Float { min, max } => {
            let top = if key.ends_with("_ns") { max.min(reach.time_ns) } else { max.min(1e4) };
            let top = top.max(min);
            let mut edges = vec![min, top];
            if let Default::Float(d) = p.default {
                if (min..=top).contains(&d) {
                    edges.push(d);
                }
            }
            let v = if rng.gen_bool(0.5) { *edges.choose(rng).expect("edges") } else { log_uniform(rng, min, top) };
            format!("{:?}", v.clamp(min, top))
        }
        Kind::Choice(choices) => format!("\"{}\"", choices.choose(rng).expect("choices")),
        Kind::Bool => rng.gen_bool(0.5).to_string(),
        // The protocol is drawn by `protocol` (each as likely); a family and a file are not drawn.
        Kind::Protocol | Kind::Family | Kind::Text(_) => return None,
    })
}

/// Picks the protocol of `family` (each as likely), if it has several.
pub fn protocol(rng: &mut Stream, family: &FamilySchema, o: &mut Overrides) {
    if let Some(p) = family.protocols.choose(rng) {
        if family.protocols.len() > 1 {
            o.push(("network.protocol".into(), format!("\"{}\"", p.name)));
        }
    }
}

/// A number between `lo` and `hi`, its logarithm uniform (0 allowed at the bottom).
fn log_uniform(rng: &mut Stream, lo: f64, hi: f64) -> f64 {
    if hi <= lo {
        return lo;
    }
    let (a, b) = ((lo.max(0.0) + 1.0).ln(), (hi + 1.0).ln());
    (rng.gen_range(a..=b).exp() - 1.0).clamp(lo, hi)
}

/// Multiples of the model's saturation load the campaign offers.
const LOADS: &[f64] = &[0.05, 0.1, 0.3, 0.7, 0.95, 1.2, 2.0, 5.0];

/// Sets the load: a multiple of what the analytic model says the drawn
/// network carries per node (a fixed small load where it has no figure).
/// Returns the multiple.
pub fn with_load(rng: &mut Stream, o: &mut Overrides) -> f64 {
    let f = *LOADS.choose(rng).expect("loads");
    let probe: Overrides = o.iter().cloned().chain([("traffic.load_mbps_per_node".to_string(), "1.0".to_string())]).collect();
    // (A panic here is the run's too, which `judge` catches and reports.)
    let capacity = crate::load_str("", &probe).ok().and_then(|s| super::checks::quietly(|| crate::capacity::capacity_mbps_per_node(&s)).ok().flatten());
    let priorities = o.iter().find(|(k, _)| k == "traffic.priorities").and_then(|(_, v)| v.parse::<f64>().ok()).unwrap_or(1.0);
    let load = capacity.map_or(10.0 * f, |c| f * c / priorities);
    o.push(("traffic.load_mbps_per_node".into(), format!("{load:?}")));
    f
}
