//! The pre-flight check's bound from Rust alone (its time and memory
//! without Python, docs/performance.md):
//! `cargo run --release --example preflight -- FILE [KEY=VALUE ...]`
//! prints what one node can have carried (`ringlet::capacity`: the
//! analytic model's saturation, the network built and not run), how long
//! loading, building and the model took, and the overload warning
//! `ringlet run` would give (python/ringlet/api/preflight.py: a load more
//! than `OVERLOAD_FACTOR` times it).

/// As `OVERLOAD_FACTOR` in python/ringlet/api/preflight.py.
const OVERLOAD_FACTOR: f64 = 4.0;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: preflight FILE [KEY=VALUE ...]");
        std::process::exit(2);
    };
    let started = std::time::Instant::now();
    let overrides: Result<Vec<_>, _> = args[1..].iter().map(|a| ringlet_scenario::parse_override(a)).collect();
    let s = match overrides.and_then(|o| ringlet::load_file(std::path::Path::new(path), &o)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let capacity = ringlet::capacity::capacity_mbps_per_node(&s);
    let took = started.elapsed().as_secs_f64();
    let load = s.traffic.load_mbps_per_node * s.traffic.priorities as f64;
    match capacity {
        Some(c) => println!("capacity {c:.6} MB/s per node; load {load} MB/s per node ({:.1}x); {took:.3} s", load / c),
        None => println!("no capacity (no model); {took:.3} s"),
    }
    if let Some(c) = capacity.filter(|&c| load > OVERLOAD_FACTOR * c) {
        println!("warning: traffic.load_mbps_per_node: {load:.0} MB/s per node is {:.1}x what the network can carry (about {c:.0} MB/s per node)", load / c);
    }
}
