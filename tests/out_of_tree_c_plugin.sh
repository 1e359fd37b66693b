#!/usr/bin/env bash
# out_of_tree_c_plugin.sh SOURCE_DIR WORK_DIR BUILD_DIR PIPELINE HIVM
#
# The C99 example plugin (examples/launch_floor_c) as a vendor builds it:
#   1. out_of_tree_plugin.sh: a clean configure with only -Dperfbound_DIR
#      pointing at the build tree, the build, `perfbound plugin check`
#      (its examples include create-time refusals, ABI 1.3) and PIPELINE;
#   2. the library is pure C: the project configured no C++ compiler, the
#      sources were compiled with hidden visibility, it exports only
#      perfbound_plugin_negotiate and needs no libstdc++;
#   3. a launch floor given as a fastest-launch figure binds a tiny launch,
#      and the verdict is latency-bound on unit launch;
#   4. the same source against an installation of BUILD_DIR
#      (cmake --install) with only -Dperfbound_DIR=<prefix>/lib/cmake/perfbound,
#      as on a machine without nlohmann_json (find_package of it disabled):
#      a C plugin needs neither the C++ SDK nor its JSON library.
set -euo pipefail
src=$1; work=$2; build=$3; pipeline=$4; hivm=$5
pb="$build/bin/perfbound"
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }

# 1. Build tree.
bash "$here/out_of_tree_plugin.sh" "$src" "$work" "$build" "$pipeline" \
  --set "hivm=$hivm" --set 'launch={grid=[16384],args={"3"=33554432}}' | tee "$work.run.log"
grep -q "OK: no violations" "$work.run.log" || fail "plugin check reported violations"
grep -q "refused as declared with PB_ERR_INVALID_INPUT" "$work.run.log" || fail "no create-time refusal example was checked"
grep -Eq "launch_floor +floor +[0-9.]+ us +launch +diagnostic" "$work.run.log" \
  || fail "the default (calibration) launch floor is not in the report as a diagnostic term"
lib="$work/liblaunch_floor.so"

# 2. Pure C.
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort -u)
[ "$exported" = "perfbound_plugin_negotiate" ] || fail "exports more than the entry symbol: $exported"
if readelf -d "$lib" | grep -q 'NEEDED.*libstdc++'; then fail "the C plugin needs libstdc++"; fi
if grep -q 'CMAKE_CXX_COMPILER:' "$work/CMakeCache.txt"; then fail "the C project configured a C++ compiler"; fi
grep -q 'fvisibility=hidden' "$work/build.ninja" || fail "the C sources were not compiled with hidden visibility"

# 3. A fastest-launch figure that binds: the verdict is latency-bound on launch.
"$pb" --plugin-path "$work" run "$pipeline" --set "hivm=$hivm" --set 'launch={grid=[1],args={"3"=64}}' \
  --set 'launch_floor.seconds=2e-6' --set 'launch_floor.source="test figure, not a measurement"' \
  --set 'launch_floor.kind="peak"' | tee "$work.binding.log"
grep -Eq "bound +2 us, hivm tier, launch_floor on launch, strict" "$work.binding.log" || fail "the given launch floor does not bind"
grep -Eq "verdict +latency-bound, unit launch" "$work.binding.log" || fail "a binding launch floor is not latency-bound on unit launch"

# 4. Installation.
prefix="$work.prefix"
rm -rf "$prefix" "$work.installed"
cmake --install "$build" --prefix "$prefix" >"$work.install.log" 2>&1 || { cat "$work.install.log"; exit 1; }
cmake -S "$src" -B "$work.installed" -G Ninja -Dperfbound_DIR="$prefix/lib/cmake/perfbound" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON \
  >"$work.installed.configure.log" 2>&1 || { cat "$work.installed.configure.log"; exit 1; }
cmake --build "$work.installed" >"$work.installed.build.log" 2>&1 || { cat "$work.installed.build.log"; exit 1; }
grep -q "$prefix/bin/perfbound" "$work.installed/build.ninja" || fail "the installed package did not write the manifest with its own perfbound"
"$prefix/bin/perfbound" --no-builtin-plugins plugin check "$work.installed/liblaunch_floor.so" | tail -n 1
echo "out-of-tree C plugin: OK"
