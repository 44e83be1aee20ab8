//! Runs a scenario file from Rust alone (for profiling without Python):
//! `cargo run --release --example run_scenario -- FILE [KEY=VALUE ...]`
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: run_scenario FILE [KEY=VALUE ...]");
        std::process::exit(2);
    };
    let overrides: Result<Vec<_>, _> = args[1..].iter().map(|a| ringlet_scenario::parse_override(a)).collect();
    let result = overrides
        .and_then(|o| ringlet::load_file(std::path::Path::new(path), &o))
        .and_then(|s| ringlet::run(&s));
    match result {
        Ok(r) => println!("{}", serde_json::to_string_pretty(&r).expect("json")),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
