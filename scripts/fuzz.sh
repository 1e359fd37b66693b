#!/usr/bin/env bash
# fuzz.sh - run one libFuzzer target of tests/fuzz/ for a while.
#
#   bash scripts/fuzz.sh TARGET SECONDS [extra libFuzzer flags...]
#   bash scripts/fuzz.sh list
#
# TARGET: one of `bash scripts/fuzz.sh list` (tests/fuzz/CMakeLists.txt).
# Builds the `fuzz` preset (clang-19 + libclang-rt-19-dev, see
# scripts/fuzz-packages.txt) target if needed, copies the seed corpus from
# ../shared/data and the project's own fixtures into build-fuzz/corpus/TARGET/seed
# (never committed), keeps what the fuzzer finds in build-fuzz/corpus/TARGET/work
# between runs, and writes crashes to build-fuzz/findings/TARGET/ (FUZZ_NO_BUILD=1:
# use the built target as it is; PERFBOUND=path: the perfbound that prepares
# plan seeds, default build/bin/perfbound). A finding is
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
    pipeline) ls pipelines/*.toml tests/host/pipelines/*.toml examples/*/*.toml tests/regress/host/*.toml ;;
    schema) ls abi/schemas/*.json tests/schemas/*.json tests/validate/fixtures/*.json hardware_profiles/*/*.json "$shared"/testlists/*.json ;;
    testlist) ls "$shared"/testlists/*.json bench/timing/*.json ;;
    plan) ls tests/fuzz/data/*.plan.json tests/regress/plan/*.json ;;
    sweep) ls tests/regress/sweep/*.json ;;
    ttir_nesting) ls tests/fuzz/data/ttir_nesting/* ;;  # generator programs (fuzz_ttir_nesting.cpp)
    profile|set_value|launch|counterfactual|hivm_view|hivm_oracle|sbatch) ;;  # generated below
    *) echo "fuzz.sh: unknown target '$1' (try: bash scripts/fuzz.sh list)" >&2; exit 2 ;;
  esac 2>/dev/null || true
}

generated_seeds() {  # TARGET DIR: seeds written from the project's own files
  local i=0
  case "$1" in
    profile)  # first byte even: the input is profile.toml; odd: calibration.json
      for f in hardware_profiles/*/profile.toml tests/profiles/fixtures/*/profile.toml; do
        { printf '\x00'; cat "$f"; } > "$2/gen_profile_$i"; i=$((i + 1)); done
      for f in hardware_profiles/*/calibration.json tests/profiles/fixtures/*/calibration.json; do
        [ -f "$f" ] && { printf '\x01'; cat "$f"; } > "$2/gen_calibration_$i"; i=$((i + 1)); done ;;
    set_value)
      for v in 'launch.grid=[8192,1,1]' 'launch={grid=[128,32],args={"22"=8192}}' 'launch.args.n_elements=16777216' \
               'hivm=examples/kernels/vector_add/vector_add.npuir.mlir' 'x="quoted \"string\""' 'p=1.5e3' 't=true' \
               'a.b.c={d=[1,[2,[3]]],e="f"}' 'd=1979-05-27T07:32:00Z'; do
        printf '%s' "$v" > "$2/gen_set_$i"; i=$((i + 1)); done ;;
    launch)
      for v in '{"schema":"perfbound.launch/1","grid":[8192,1,1],"args":{"n_elements":16777216}}' \
               '{"schema":"perfbound.launch/1","grid":[128,32],"args":{"22":8192,"%arg3":4},"kernel":"chunk"}' \
               '{"schema":"perfbound.launch/1","grid":[1]}'; do
        printf '%s' "$v" > "$2/gen_launch_$i"; i=$((i + 1)); done ;;
    counterfactual)
      printf 'version = 1\nkernel = "add_kernel"\nhivm = "examples/kernels/vector_add/vector_add.npuir.mlir"\n[[edit]]\nkind = "remove_barrier"\nline = 63\n[measure]\ncompile = { argv = ["cp", "{ir}", "{dir}/kernel.o"] }\nrun = { argv = ["sh", "-c", "true"], timeout_s = 5 }\noutputs = ["out.npy"]\nwarmup = 1\n' > "$2/gen_cf_0"
      printf 'version = 1\nkernel = "k"\nhivm = "k.mlir"\n[[edit]]\nkind = "remove_barrier"\nline = 1\n' > "$2/gen_cf_1" ;;
    sweep)  # specs over the two models of fuzz_sweep.cpp (vector_add: n_elements; blockptr_matmul: %arg3..%arg8)
      for v in '{"args":{"n_elements":[1048576,16777216,16777215]},"grid_from":{"x":"cdiv(n_elements, 2048)"}}' \
               '[{"grid":[8192,1,1],"args":{"n_elements":16777216}},{"grid":[16,16]},{"args":{"%arg5":2048}}]' \
               '{"grid":{"x":{"from":1,"to":64,"mul":2},"y":[1,2,4]},"args":{"%arg5":{"from":64,"to":4096,"step":64}}}' \
               '{"args":{"n_elements":{"from":1024,"to":1048576,"mul":4}},"grid_from":{"x":"max(1, floordiv(n_elements + 2047, 2048) % 64 - -1)","y":"min(n_elements, 3) * 1"},"max_configs":3}' \
               '{"grid":{"x":{"from":1,"to":100000}},"args":{"n_elements":[1,2,3]},"max_configs":1000}' \
               '[{"grid":[1]},{"args":{}},{}]'; do
        printf '%s' "$v" > "$2/gen_sweep_$i"; i=$((i + 1)); done ;;
    hivm_oracle)  # generator decisions: a few fixed byte strings (every byte string is a program)
      for v in '' 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' \
               'the oracle executes every loop of the generated program concretely' \
               '0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz'; do
        printf '%s' "$v" > "$2/gen_choices_$i"; i=$((i + 1)); done
      head -c 4096 /dev/urandom > "$2/gen_choices_random" ;;
    sbatch)  # NUL-separated fields: plan, run dir, partition, time, gres, perfbound, script, backend, plugin dirs (2), run args (3)
      printf '%s\0' /runs/plan.json /runs/campaign ascend 02:00:00 npu /opt/pb/bin/perfbound /runs/job.sbatch acl \
        /opt/pb/lib/perfbound/plugins /opt/vendor --case-timeout 5 > "$2/gen_sbatch_0"
      printf '%s\0' '/home/a b/$(touch pwned)/p`id`.json' '/runs/c$(x);y|z' '' '' '' '/opt/p b/perfbound' \
        $'/tmp/j\n.sbatch' cpu "/d'q" > "$2/gen_sbatch_1"
      printf '%s\0' /p.json /r gpu1 UNLIMITED gpu /pb /s cuda > "$2/gen_sbatch_2" ;;
    hivm_view)  # hivm_program documents of our own dumps, when the extractor driver is built
      local extract=${PERFBOUND_HIVM_EXTRACT:-build/bin/perfbound_hivm_extract}
      if [ -x "$extract" ]; then
        for f in examples/kernels/*/*.npuir.mlir tests/extract_hivm/data/*.mlir; do
          for grid in "" "--grid 8,2"; do
            # shellcheck disable=SC2086  # grid is a list of words
            "$extract" "$f" $grid --out "$2/gen_program_$i.json" >/dev/null 2>&1 || true
            i=$((i + 1))
          done
        done
      fi ;;
    plan)  # plans of the shared testlists, when a built perfbound can prepare them
      local perfbound=${PERFBOUND:-build/bin/perfbound}
      if [ -x "$perfbound" ]; then
        for f in "$shared"/testlists/*.json bench/timing/*.json; do
          [ -f "$f" ] || continue
          for opts in "" "--shards 4 --profile ascend_910b3" "--shape-divisor 64 --shards 2"; do
            # shellcheck disable=SC2086  # opts is a list of words
            "$perfbound" bench prepare --testlist "$f" --backend cpu $opts -o "$2/gen_plan_$i.json" >/dev/null 2>&1 || true
            i=$((i + 1))
          done
        done
      fi ;;
  esac
}

max_len() {
  case "$1" in
    hivm|ttir) echo 200000 ;;
    ttir_nesting) echo 4096 ;;  # one generator step per byte
    hivm_oracle) echo 4096 ;;  # two bytes per generator decision
    *) echo 65536 ;;
  esac
}

if [ "${1:-}" = list ]; then
  echo "hivm hivm_des ttir ttir_nesting msprof_csv pipeline set_value schema launch profile testlist plan sbatch sweep counterfactual hivm_view hivm_oracle"
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
[ -n "${FUZZ_NO_BUILD:-}" ] || nice -n 19 cmake --build build-fuzz -j "${FUZZ_BUILD_JOBS:-1}" --target "perfbound_fuzz_$target"

dir=build-fuzz/corpus/$target
rm -rf "$dir/seed"
mkdir -p "$dir/seed" "$dir/work" "build-fuzz/findings/$target"
n=0
while IFS= read -r f; do
  [ -f "$f" ] || continue
  cp "$f" "$dir/seed/$(printf '%04d' $n)_$(basename "$f")"
  n=$((n + 1))
done < <(seeds "$target")
generated_seeds "$target" "$dir/seed"
n=$(ls "$dir/seed" | wc -l)
echo "fuzz.sh: $target for ${seconds}s, $n seed files, dictionary tests/fuzz/dict/$target.dict"

dict=()
[ -f "tests/fuzz/dict/$target.dict" ] && dict=(-dict="tests/fuzz/dict/$target.dict")
# detect_leaks=0: the readers keep nothing between inputs, and LLVM's
# one-time statics (ttir) would be reported as leaks of every input.
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons the rest of a slab
# when its inline code is built with ASan (our TUs: the tt dialect's types)
# and Debian's libMLIR, built without it, then hands out that memory without
# unpoisoning it: a false use-after-poison in RankedTensorType::get (seen
# 2026-12-03 in fuzz_ttir; clean with this flag). Real heap errors are still
# caught: the flag only turns off manual poisoning.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
exec nice -n 19 "build-fuzz/bin/perfbound_fuzz_$target" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len="$(max_len "$target")" \
  -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$target/" "${dict[@]}" \
  ${FUZZ_JOBS:+-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS} "$@" "$dir/work" "$dir/seed"
