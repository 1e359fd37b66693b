#!/usr/bin/env bash
# run.sh - the latency microbenchmarks under msprof, one capture per launch
# length, each op_summary CSV copied to out/<kernel>_N<n>.csv (the names
# calibration_spec.toml reads). Needs an Ascend device, CANN's msprof and
# triton-ascend; nothing here runs without them.
#
#   bash bench/calibration/latency/run.sh [OUT_DIR]
#   perfbound calibrate bench/calibration/latency/calibration_spec.toml --data OUT_DIR --out latency.json
#
# then copy the two constants into the profile's calibration (docs/profiles.md §5).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/out}"
mkdir -p "$out"
for kernel in dma_chain barrier_chain; do
  for n in 64 128 256 512 1024; do
    capture="$out/capture_${kernel}_$n"
    rm -rf "$capture"
    msprof --output="$capture" --ai-core=on --task-time=on \
      --application="python3 $here/$kernel.py --n $n --launches 45"
    csv=$(find "$capture" -name 'op_summary_*.csv' | head -n 1)
    [ -n "$csv" ] || { echo "run.sh: msprof wrote no op_summary for $kernel N=$n" >&2; exit 1; }
    cp "$csv" "$out/${kernel}_N$n.csv"
  done
done
echo "run.sh: CSVs in $out; now: perfbound calibrate $here/calibration_spec.toml --data $out --out latency.json"
