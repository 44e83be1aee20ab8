//! The invariant campaign, long: random legal scenarios of every family,
//! each run and judged (see `ringlet::campaign`):
//! `cargo run -p ringlet --profile campaign --example campaign -- [SCENARIOS_PER_FAMILY] [SEED] [small|wide] [FAMILY ...]`
//! (defaults: 500, 1, wide, every family). Prints a line per failure as
//! it is found, then the summary; exits 1 if anything failed.
//! `CAMPAIGN_VERBOSE=1` prints every run as it passes; `=2` also names
//! each scenario before it runs.
use ringlet::campaign::{self, checks::Verdict, draw};

#[global_allocator]
static ALLOCATOR: campaign::memory::Counting = campaign::memory::Counting;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |k: usize, default: u64| args.get(k).map_or(Ok(default), |a| a.parse::<u64>());
    let (Ok(per_family), Ok(seed)) = (number(0, 500), number(1, 1)) else {
        eprintln!("usage: campaign [SCENARIOS_PER_FAMILY] [SEED] [small|wide] [FAMILY ...]");
        std::process::exit(2);
    };
    let reach = match args.get(2).map(String::as_str) {
        None | Some("wide") => draw::WIDE,
        Some("small") => draw::SMALL,
        Some(other) => {
            eprintln!("campaign: reach {other:?}: expected small or wide");
            std::process::exit(2);
        }
    };
    let scratch = std::env::temp_dir().join(format!("ringlet-campaign-{seed}"));
    std::fs::create_dir_all(&scratch).expect("a scratch folder");
    let verbose = std::env::var("CAMPAIGN_VERBOSE").unwrap_or_default();
    let config = campaign::Config { per_family: per_family as usize, seed, reach, families: args.iter().skip(3).cloned().collect(), scratch, announce: verbose == "2" };
    let started = std::time::Instant::now();
    let outcomes = campaign::run(&config, &mut |family, ran, o, verdict| {
        if let Verdict::Failed(p) = verdict {
            eprintln!("{family} #{ran}: {} ({})\n  {}", p.check, p.detail, campaign::command(o));
        } else if let (Verdict::Passed(m), true) = (verdict, !verbose.is_empty()) {
            eprintln!("{family} #{ran}: memory {:.2} of bound, {:.1} µs/event, {} events\n  {}", m.memory_share, m.us_per_event, m.events, campaign::command(o));
        } else if ran % 50 == 0 && matches!(verdict, Verdict::Passed(_)) {
            eprintln!("{family}: {ran} run ({:.0} s)", started.elapsed().as_secs_f64());
        }
        true
    });
    let mut failed = false;
    println!("| family | scenarios run | refused draws | judged for progress | judged for carrying | trace-driven | with a fault | events | most memory (of bound) | most µs per event | wall time, s | failures |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for f in &outcomes {
        println!("| {} | {} | {} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.0} | {} |", f.family, f.ran, f.refused, f.progress_judged, f.carrying_judged, f.traced, f.faulted, f.events, f.memory_share_max, f.us_per_event_max, f.wall_s, f.failures.len());
    }
    for f in outcomes.iter().flat_map(|o| o.failures.iter()) {
        failed = true;
        println!("\n{}: {}\n  shrunk: {}", f.problem.check, f.problem.detail, f.command());
    }
    println!("\n{} s", started.elapsed().as_secs());
    std::process::exit(failed as i32);
}
