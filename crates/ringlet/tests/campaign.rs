//! The invariant campaign at a fixed seed (`ringlet::campaign`): random
//! legal scenarios of every family, each run to its end and judged:
//! conservation exact, no packet delivered twice (and, in this test
//! build, every send packet's identity audited at its destination), every
//! source progressing where its protocol promises it, memory within its
//! bound linear in the network and the packets alive, bounded time per
//! event. A failure prints the shrunk scenario to make a regression test of.
//! The long campaign: `cargo run -p ringlet --profile campaign --example campaign`.

use ringlet::campaign::{self, checks::Verdict, draw};

#[global_allocator]
static ALLOCATOR: campaign::memory::Counting = campaign::memory::Counting;

/// Scenarios of each family CI runs.
const PER_FAMILY: usize = 500;

fn family(kind: &str) {
    let scratch = std::env::temp_dir().join(format!("ringlet-campaign-test-{kind}-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch folder");
    let config = campaign::Config { per_family: PER_FAMILY, seed: 52, reach: draw::SMALL, families: vec![kind.to_string()], scratch: scratch.clone(), announce: false };
    let outcomes = campaign::run(&config, &mut |_, _, _, _: &Verdict| true);
    let _ = std::fs::remove_dir_all(&scratch);
    let o = &outcomes[0];
    let failures: Vec<String> = o.failures.iter().map(|f| format!("{}: {}\n  shrunk: {}", f.problem.check, f.problem.detail, f.command())).collect();
    assert!(failures.is_empty(), "{kind}: {} of {} scenarios failed:\n{}", failures.len(), o.ran, failures.join("\n"));
    assert_eq!(o.ran, PER_FAMILY, "{kind}: the draw ran out ({} refused)", o.refused);
    // The draw mostly makes scenarios the contract takes, and the progress check applies to many.
    assert!(o.refused < o.ran, "{kind}: {} refused for {} run", o.refused, o.ran);
    assert!(o.progress_judged >= PER_FAMILY / 8, "{kind}: only {} judged for progress", o.progress_judged);
    // So does the throughput check, GigaRing aside (its model leaves out DMA engines and windows).
    assert!(kind == "gigaring" || o.carrying_judged >= PER_FAMILY / 50, "{kind}: only {} judged for carrying their load", o.carrying_judged);
    // The counting allocator counted (a run allocates).
    assert!(o.memory_share_max > 0.0);
}

#[test]
fn sci_rings_keep_their_promises() {
    family("sci-ring");
}

#[test]
fn sci_switches_keep_their_promises() {
    family("sci-switch");
}

#[test]
fn banyans_keep_their_promises() {
    family("banyan");
}

#[test]
fn gigaring_channels_keep_their_promises() {
    family("gigaring");
}

/// The pre-flight of a 4,096-node ring (the analytic model's saturation,
/// the network built and not run) in memory linear in the network: every
/// (source, destination) pair's path stored took 1.36 GB at 256 nodes and
/// more than 17 GB here. Within the campaign's bound for the network, at
/// once and at 1,024 nodes alike.
#[test]
fn a_large_rings_preflight_takes_memory_linear_in_the_network() {
    for nodes in [1024u64, 4096] {
        let s = ringlet::load_str(&format!("[network]\nnodes = {nodes}\n"), &[]).expect("a ring");
        let base = campaign::memory::start();
        let capacity = ringlet::capacity::capacity_mbps_per_node(&s).expect("a capacity");
        let used = campaign::memory::peak_since(base);
        // IEEE 1596's uniform bound over the nodes: 1,066.7 MB/s with one idle.
        assert!((capacity - 64.0 / (30.0 * 2e-9) / 1e6 / nodes as f64).abs() < 1e-3 * capacity, "{nodes}: {capacity}");
        let bound = campaign::checks::memory_bound(nodes, nodes, 0, 1);
        assert!(used < bound, "{nodes} nodes: {used} bytes, bound {bound}");
    }
}
