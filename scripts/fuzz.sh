#!/usr/bin/env bash
# fuzz.sh - run one libFuzzer target of tests/fuzz/ for a while.
#
#   bash scripts/fuzz.sh TARGET SECONDS [extra libFuzzer flags...]
#   bash scripts/fuzz.sh list
#
# TARGET: hivm, hivm_des, ttir, msprof_csv (tests/fuzz/CMakeLists.txt).
# Builds the `fuzz` preset (clang-19 + libclang-rt-19-dev, see
# scripts/fuzz-packages.txt) target if needed, copies the seed corpus from
# ../shared/data and the project's own fixtures into build-fuzz/corpus/TARGET/seed
# (never committed), keeps what the fuzzer finds in build-fuzz/corpus/TARGET/work
# between runs, and writes crashes to build-fuzz/findings/TARGET/. A finding is
# committed as a regression input under tests/regress/ (tests/regress/README.md).
# Runs at nice 19: the machine is shared. FUZZ_JOBS=N runs N workers.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
shared=${PERFBOUND_SHARED_DIR:-$root/../shared}/data

seeds() {  # the files that seed TARGET, one per line
  case "$1" in
    hivm) ls "$shared"/hivm/*.mlir examples/kernels/*/*.npuir.mlir tests/extract_hivm/data/*.mlir tests/regress/hivm/*.mlir ;;
    hivm_des) ls "$shared"/hivm/des_json/*.json ;;
    ttir) ls "$shared"/ttir/*.ttir examples/kernels/*/*.ttir.mlir tests/extract_ttir/kernels/*.ttir tests/extract_ttir/syntax/*.ttir tests/regress/ttir/* ;;
    msprof_csv) find "$shared"/msprof "$shared"/calibration tests -name '*.csv' ;;
    *) echo "fuzz.sh: unknown target '$1' (try: bash scripts/fuzz.sh list)" >&2; exit 2 ;;
  esac 2>/dev/null || true
}

max_len() {
  case "$1" in
    hivm|ttir) echo 200000 ;;
    *) echo 65536 ;;
  esac
}

if [ "${1:-}" = list ]; then
  echo "hivm hivm_des ttir msprof_csv"
  exit 0
fi
if [ $# -lt 2 ]; then
  sed -n '2,16p' "$0"
  exit 2
fi
target=$1
seconds=$2
shift 2

command -v clang++-19 >/dev/null || { echo "fuzz.sh: clang++-19 not found: apt-get install -y \$(grep -v '^#' scripts/fuzz-packages.txt)" >&2; exit 2; }
[ -d build-fuzz ] || cmake --preset fuzz >/dev/null
nice -n 19 cmake --build build-fuzz -j "${FUZZ_BUILD_JOBS:-1}" --target "perfbound_fuzz_$target"

dir=build-fuzz/corpus/$target
rm -rf "$dir/seed"
mkdir -p "$dir/seed" "$dir/work" "build-fuzz/findings/$target"
n=0
while IFS= read -r f; do
  [ -f "$f" ] || continue
  cp "$f" "$dir/seed/$(printf '%04d' $n)_$(basename "$f")"
  n=$((n + 1))
done < <(seeds "$target")
echo "fuzz.sh: $target for ${seconds}s, $n seed files, dictionary tests/fuzz/dict/$target.dict"

dict=()
[ -f "tests/fuzz/dict/$target.dict" ] && dict=(-dict="tests/fuzz/dict/$target.dict")
# detect_leaks=0: the readers keep nothing between inputs, and LLVM's
# one-time statics (ttir) would be reported as leaks of every input.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
exec nice -n 19 "build-fuzz/bin/perfbound_fuzz_$target" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len="$(max_len "$target")" \
  -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$target/" "${dict[@]}" \
  ${FUZZ_JOBS:+-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS} "$@" "$dir/work" "$dir/seed"
