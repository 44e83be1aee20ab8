//! `ringlet bench` from Rust alone (no Python in the loop):
//! `cargo run --release -p ringlet --example bench -- [REPEATS]`; prints the
//! report as JSON, and a line per run on stderr.
fn main() {
    let repeats = match std::env::args().nth(1).map(|a| a.parse::<usize>()) {
        None => 5,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("usage: bench [REPEATS]");
            std::process::exit(2);
        }
    };
    let report = ringlet::bench::run_all(repeats, false, &mut |done, total, name| {
        eprintln!("{done}/{total} {name}");
        true
    })
    .expect("not interrupted");
    println!("{}", serde_json::to_string_pretty(&report).expect("json"));
}
