#!/usr/bin/env bash
# Peak resident memory of a trace-driven run against the trace's length (docs/traces.md,
# "Memory"): writes all-to-all traces of about 1 and 10 million rows, CSV and Parquet, for an 8-node ring
# (each node about 50 MB/s: a read64 every 1280 ns), replays each with the Rust example
# run_scenario (no Python), and prints rows, file size, wall time and peak RSS
# (/usr/bin/time -v). Not a test: minutes of CPU, and memory figures are the machine's.
#
#   scripts/trace-memory.sh [DIR]     (DIR: where the traces go; default a temporary folder)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$(mktemp -d)}
cargo build --release -q -p ringlet --example run_scenario --manifest-path "$root/Cargo.toml"
bin="${CARGO_TARGET_DIR:-$root/target}/release/examples/run_scenario"
cat > "$dir/ring.toml" <<'TOML'
[network]
nodes = 8
protocol = "dfc"
[traffic]
source = "trace"
trace = "trace.csv"  # (each run sets its own)
[run]
warmup_ns = 10000.0
measure_transactions = 1000000000000
max_sim_time_ns = 1e15
TOML
echo "| rows | file | wall | peak RSS |"
for rounds in 1116 11161; do
 for ext in csv parquet; do
  trace="$dir/trace-$rounds.$ext"
  python3 -c "import ringlet; ringlet.trace_gen('all-to-all', '$trace', nodes=8, count=16, gap_ns=1280, period_ns=20480, repeats=$rounds)"
  rows=$(( rounds * 7 * 8 * 16 ))
  size="$(du -h "$trace" | cut -f1) $ext"
  /usr/bin/time -v "$bin" "$dir/ring.toml" "traffic.trace=\"$trace\"" > "$dir/out.json" 2> "$dir/time.txt"
  rss=$(awk -F': ' '/Maximum resident/ {printf "%.0f MB", $2 / 1024}' "$dir/time.txt")
  wall=$(awk -F': ' '/Elapsed/ {print $2}' "$dir/time.txt")
  grep -Eq '"stopped_by": ?"trace_done"' "$dir/out.json" || { echo "the run did not play the trace out" >&2; exit 1; }
  echo "| $rows | $size | $wall | $rss |"
 done
done
