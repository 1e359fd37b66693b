#!/usr/bin/env bash
# bench/scale_curve.sh - extraction time and peak memory of ONE function of
# 1, 4, 16 and 64 MiB, HIVM and TTIR (issue 27: is extraction linear?).
#
#   bash bench/scale_curve.sh [BUILD_DIR] [SIZES...]      (default: build 1 4 16 64)
#
# Each size runs in a fresh process of the bench drivers, which build the
# function from a real kernel with every SSA value renamed per copy
# (bench/big_function.hpp): HIVM from chunk_kda's AIC function
# (../shared/data/hivm/chunk_kda.npuir.mlir; skipped with a message without
# ../shared), TTIR from the bundled vector_add. One line per run: input MiB,
# CPU seconds, MB/s of CPU, and the peak resident growth over the input.
# Read the CPU figures on a loaded machine; the peak is per process.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1 4 16 64)
hivm_bin="$build/bin/perfbound_hivm_extract"
ttir_bin="$build/bin/perfbound_ttir_extract"
for b in "$hivm_bin" "$ttir_bin"; do
  [ -x "$b" ] || { echo "scale_curve: $b not built (cmake --build --preset default --target $(basename "$b"))" >&2; exit 2; }
done
shared=${PERFBOUND_SHARED_DIR:-../shared}
chunk="$shared/data/hivm/chunk_kda.npuir.mlir"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(date -u +%FT%TZ); $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
if [ -f "$chunk" ]; then
  for n in "${sizes[@]}"; do
    printf 'HIVM %3s MiB: ' "$n"
    "$hivm_bin" "$chunk" --grid 128,32 --single-function "$n" --out /dev/null 2>&1 | grep '^input'
  done
else
  echo "HIVM: skipped ($chunk not found: the HIVM curve is built from chunk_kda in ../shared)"
fi
for n in "${sizes[@]}"; do
  printf 'TTIR %3s MiB: ' "$n"
  "$ttir_bin" examples/kernels/vector_add/vector_add.ttir.mlir --single-function "$n" 2>&1 | grep '^input'
done
