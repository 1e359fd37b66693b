#!/usr/bin/env bash
# setup.sh - one command per job on a fresh Debian 12 machine.
#
#   bash scripts/setup.sh demo    install the demo's packages, build only the
#                                 CLI and the plugins it runs (preset "demo"),
#                                 print the bound report of the bundled example
#   bash scripts/setup.sh test    install every package (and chromium, for the
#                                 browser test of the pictures), build, run every test
#   bash scripts/setup.sh deps    only install the Debian packages (all of them)
#   bash scripts/setup.sh build   only configure and build (preset "default")
#
# Uses sudo for apt-get when not run as root. Set PERFBOUND_PRESET to build
# another CMake preset for test/build (e.g. ci, debug, asan).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${PERFBOUND_PRESET:-default}

# The packages of the sets named ("demo", "test") in scripts/debian-packages.txt.
packages() {
  awk -v want=" $* " '
    /^#/ || /^[[:space:]]*$/ { next }
    /^\[/ { set = substr($1, 2, length($1) - 2); next }
    index(want, " " set " ") { print $1 }' scripts/debian-packages.txt
}

deps() {
  mapfile -t pkgs < <(packages "$@")
  missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all ${#pkgs[@]} Debian packages ($*) are installed"
    return
  fi
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# Chromium renders the HTML pictures in tests/pictures (ctest pictures_chromium,
# skipped without it). It is ~300 MB, so it is installed for `test` only and
# not listed in debian-packages.txt; a failed install only skips that test.
browser() {
  command -v chromium > /dev/null && return
  echo "setup: installing chromium (for the pictures_chromium test)"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends chromium ||
    echo "setup: chromium could not be installed; ctest will skip pictures_chromium"
}

build() {
  cmake --preset "$1"
  cmake --build --preset "$1"
}

demo() {
  local pb kernel
  pb=build/bin/perfbound
  kernel=examples/kernels/vector_add
  # The two-tier bound report of the bundled example kernel (the Triton
  # tutorial add_kernel, n = 16M f32, grid 8192) on the 910B3 profile: the
  # bound, the binding unit, both limits, the verdict, attribution, findings.
  "$pb" run pipelines/bound.toml --profile ascend_910b3 \
    --set "ttir=$kernel/vector_add.ttir.mlir" --set "hivm=$kernel/vector_add.npuir.mlir" \
    --set 'launch={grid=[8192,1,1],args={n_elements=16777216}}' --format text \
    --out build/demo
  # The same report as one self-contained HTML page (roofline, where the time
  # goes, busy time per component, findings with their source lines).
  echo "setup: HTML report: build/demo/report.html"
}

case "${1:-}" in
  # The demo builds only what it runs, in build/ (preset "demo": no tests,
  # benchmarks or validate plugin); `test` reconfigures build/ with all of it.
  demo) deps demo; build demo; demo ;;
  test) deps demo test; browser; build "$preset"; ctest --preset "$preset" -j "$(nproc)" ;;
  deps) deps demo test ;;
  build) deps demo test; build "$preset" ;;
  *) sed -n '2,13p' "$0"; exit 2 ;;
esac
