#!/usr/bin/env bash
# The pictures in a real browser: renders the bundled example's HTML report
# (and chunk_kda's, the corpus dashboard, when ../shared/data is there), the
# sweep chart, loads each in headless Chromium, checks the DOM it built
# (check_pictures.py: ceilings and points, the waterfall reaching the
# measured time, a source link per finding, one row per corpus case) and
# that its screenshot is not blank.
#
#   chromium_pictures.sh PERFBOUND SOURCE_DIR WORK_DIR [SHARED_DIR]
#
# Each page is also checked as a reader sees it, at 1400 and 800 px and in
# forced dark mode (check_layout.js: no clipping, no overlapping labels,
# readable contrast, no duplicated sections), with a screenshot of each;
# PERFBOUND_PICTURES_OUT=DIR copies those screenshots to DIR (docs/pictures).
#
# Exits 77 (ctest: skipped) with a message when Debian's chromium is absent.
set -euo pipefail
pb=$1 src=$2 work=$3 shared=${4:-}
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
  echo "SKIP: chromium is not installed (Debian package chromium; 'scripts/setup.sh test' installs it)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
check="python3 $src/tests/pictures/check_pictures.py"
export PERFBOUND_PLUGIN_PATH=

chromium() {  # chromium ARGS...: headless, no network, a fresh profile each time
  local profile
  profile=$(mktemp -d "$work/profile.XXXXXX")
  timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$profile" "$@"
  rm -rf "$profile"
}

browse() {  # browse NAME KIND: DOM check and screenshot of $work/NAME.html
  local name=$1 kind=$2
  chromium --dump-dom "file://$work/$name.html" > "$work/$name.dom.html" 2> "$work/$name.chromium.log"
  $check dom "$kind" "$work/$name.dom.html"
  chromium --hide-scrollbars --screenshot="$work/$name.png" --window-size=1000,1400 "file://$work/$name.html" \
    >> "$work/$name.chromium.log" 2>&1
  $check png "$work/$name.png"
  # What a reader sees: at 1400 and 800 px, and in forced dark mode (the
  # browser's own dark setting and its automatic darkening of light pages).
  layout "$name" 1400 light
  layout "$name" 800 light
  layout "$name" 1400 dark
}

layout() {  # layout NAME WIDTH light|dark: check_layout.js on a copy of the page, and a screenshot
  local name=$1 width=$2 mode=$3 copy="$work/$1.$2.$3.html" flags=()
  [ "$mode" = dark ] && flags=(--force-dark-mode --enable-features=WebContentsForceDark)
  python3 - "$work/$name.html" "$src/tests/pictures/check_layout.js" "$copy" <<'PY'
import sys
page, script, out = sys.argv[1:]
html = open(page, encoding="utf-8").read()
js = open(script, encoding="utf-8").read()
at = html.rfind("</body>")
open(out, "w", encoding="utf-8").write(html[:at] + "<script>//<![CDATA[\n" + js + "\n//]]></script>\n" + html[at:])
PY
  chromium "${flags[@]}" --window-size="$width,1400" --dump-dom "file://$copy" > "$copy.dom" 2>> "$work/$name.chromium.log"
  $check layout "$copy.dom"
  chromium "${flags[@]}" --hide-scrollbars --window-size="$width,2000" --screenshot="$work/$name.$width.$mode.png" \
    "file://$work/$name.html" >> "$work/$name.chromium.log" 2>&1
  $check png "$work/$name.$width.$mode.png"
  if [ -n "${PERFBOUND_PICTURES_OUT:-}" ]; then cp "$work/$name.$width.$mode.png" "$PERFBOUND_PICTURES_OUT/"; fi
}

k=$src/examples/kernels/vector_add
# measured_us: the corpus median of vector_add 16M (docs/validation.md), so the waterfall has its measured end.
"$pb" run "$src/pipelines/bound.toml" --profile ascend_910b3 --set "ttir=$k/vector_add.ttir.mlir" --set "hivm=$k/vector_add.npuir.mlir" \
  --set 'launch={grid=[8192,1,1],args={n_elements=16777216}}' --set bound.measured_us=309.338 \
  --out "$work/vector_add" --format json > /dev/null
cp "$work/vector_add/report.html" "$work/vector_add.html"
browse vector_add report

printf '%s' '{"args":{"n_elements":{"from":1048576,"to":67108864,"mul":2}},"grid_from":{"x":"cdiv(n_elements, 2048)"}}' > "$work/spec.json"
"$pb" sweep --dsl "$work/vector_add/facts.json" --configs "$work/spec.json" --factor 4 --format html --out "$work/sweep.html"
browse sweep sweep

if [ -n "$shared" ] && [ -f "$shared/data/hivm/chunk_kda.npuir.mlir" ]; then
  "$pb" run "$src/pipelines/bound_hivm.toml" --set "hivm=$shared/data/hivm/chunk_kda.npuir.mlir" \
    --set 'launch={grid=[128,32],args={"20"=8192,"22"=8192}}' --set bound.measured_us=104288.944 \
    --format html > "$work/chunk_kda.html"
  browse chunk_kda report
  "$pb" validate --corpus "$src/tests/corpus/shared_corpus.toml" --data "$shared/data" --format html > "$work/dashboard.html" || [ $? -eq 4 ]
  browse dashboard dashboard
else
  echo "note: ../shared/data absent: chunk_kda and the corpus dashboard not checked"
fi
echo "OK: pictures checked in $chrome"
