#!/usr/bin/env bash
# bench/models/sweep_scale.sh - wall time and peak memory of `perfbound sweep`
# over a range spec of 10^12 configurations sampled to N (issue 27: sampling
# is independent of the spec's size; the JSON document is streamed).
#
#   bash bench/models/sweep_scale.sh [BUILD_DIR] [N...]     (default: build 10000 100000 1000000)
#
# The DSL facts are the bundled vector_add's (pipelines/bound_dsl.toml); the
# spec ranges grid x over 1..10^6 and n_elements over 1..10^6. One line per
# format and N: wall seconds, peak RSS (MB) and output size, from /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shift || true
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(10000 100000 1000000)
bin="$build/bin/perfbound"
[ -x "$bin" ] || { echo "sweep_scale: $bin not built (cmake --build --preset default)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "sweep_scale: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
k=examples/kernels/vector_add
"$bin" run pipelines/bound_dsl.toml --set ttir=$k/vector_add.ttir.mlir \
  --set 'launch={grid=[8192,1,1],args={n_elements=16777216}}' --out "$tmp/dsl" > /dev/null
echo '{"grid":{"x":{"from":1,"to":1000000}},"args":{"n_elements":{"from":1,"to":1000000}},"tuning":["n_elements"]}' > "$tmp/spec.json"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(date -u +%FT%TZ); $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
for n in "${counts[@]}"; do
  for format in json text; do
    out=$( { /usr/bin/time -f '%e %M' "$bin" sweep --dsl "$tmp/dsl/facts.json" --configs "$tmp/spec.json" --max-configs "$n" \
             --format "$format" --out "$tmp/out"; } 2>&1 | tail -1)
    read -r wall rss_kb <<< "$out"
    printf 'sweep 10^12 sampled to %8s, --format %-4s: %7s s wall, peak %6s MB, output %5s MB\n' \
      "$n" "$format" "$wall" "$((rss_kb / 1024))" "$(( $(stat -c %s "$tmp/out") / 1048576 ))"
  done
done
