#!/usr/bin/env bash
# out_of_tree_plugin.sh SOURCE_DIR WORK_DIR BUILD_DIR [PIPELINE [SETS...]]
#
# Proves the plugin ABI works without rebuilding the host: configures and
# builds SOURCE_DIR as a separate CMake project against the package config of
# the perfbound build in BUILD_DIR (find_package(perfbound)), with
# -Dperfbound_DIR as the only variable a vendor sets, then checks the result
# with `perfbound plugin check` and, when given, runs PIPELINE with the new
# library on the plugin path.
set -euo pipefail
src=$1; work=$2; build=$3; shift 3
pb="$build/bin/perfbound"
rm -rf "$work"
cmake -S "$src" -B "$work" -G Ninja -Dperfbound_DIR="$build" -DCMAKE_BUILD_TYPE=Release >"$work.configure.log" 2>&1 \
  || { cat "$work.configure.log"; exit 1; }
cmake --build "$work" >"$work.build.log" 2>&1 || { cat "$work.build.log"; exit 1; }
lib=$(find "$work" -maxdepth 1 -name 'lib*.so' | head -n 1)
test -n "$lib" || { echo "no plugin library was built in $work"; exit 1; }
test -f "$lib.pbplugin.json" || { echo "no manifest next to $lib"; exit 1; }
"$pb" plugin check "$lib"
if [ $# -gt 0 ]; then
  pipeline=$1; shift
  "$pb" --plugin-path "$work" run "$pipeline" "$@"
fi
