#!/usr/bin/env bash
# bench/validate/msprof_scale.sh - wall time and peak memory of
# `perfbound validate` over op_summary CSVs of growing size (issue 27: the
# msprof reader streams; memory follows the kernel's launches, not the file).
#
#   bash bench/validate/msprof_scale.sh [BUILD_DIR] [MIB...]   (default: build 16 64 256)
#
# For each size two files are generated in a temporary directory, with the
# row format of tests/validate/fixtures/op_summary_mix.csv (a mix kernel,
# one MIX_AIC and one MIX_AIV row per launch):
#   all  - every row is a launch of the measured kernel `mix_k`;
#   1%   - one launch in 100 is `mix_k`, the others another kernel (a whole
#          model's profile, of which one kernel is validated).
# One line per run: file MiB, launches of mix_k, wall seconds, peak RSS (MB),
# from /usr/bin/time. The validated report is the fixture report_mix_90us.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(16 64 256)
bin="$build/bin/perfbound"
[ -x "$bin" ] || { echo "msprof_scale: $bin not built (cmake --build --preset default)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "msprof_scale: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
report=tests/validate/fixtures/report_mix_90us.json
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(date -u +%FT%TZ); $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
for mib in "${sizes[@]}"; do
  for share in all 1; do
    python3 - "$tmp/op.csv" "$mib" "$share" <<'EOF'
import sys
path, mib, share = sys.argv[1], int(sys.argv[2]), sys.argv[3]
target = mib << 20
with open(path, "w") as f:
    f.write("Device_id,Task ID,Stream ID,Op Name,Task Type,Task Start Time(us),Task Duration(us),"
            "Block Num,Mix Block Num,aic_mac_time(us),aiv_vec_time(us),aiv_scalar_time(us)\n")
    size, i, rows = 0, 0, []
    while size < target:
        name = "mix_k" if share == "all" or i % 100 == 0 else "other_kernel"
        start = 10000 + 1000 * i
        pair = (f"0,{100 + i},3,{name},MIX_AIC,{start}.000,100.000,24,48,30,N/A,N/A\n"
                f"0,{100 + i},3,{name},MIX_AIV,{start}.500,101.000,24,48,N/A,20,60\n")
        rows.append(pair)
        size += len(pair)
        i += 1
        if len(rows) == 10000:
            f.write("".join(rows))
            rows = []
    f.write("".join(rows))
EOF
    launches=$(grep -c ',mix_k,MIX_AIC,' "$tmp/op.csv")
    out=$( { /usr/bin/time -f '%e %M' "$bin" validate --report "$report" --measurement "$tmp/op.csv" --kernel mix_k \
             --warmup 1 --format json > /dev/null; } 2>&1 | tail -1)
    read -r wall rss_kb <<< "$out"
    printf 'msprof %4s MiB, kernel rows %-3s: %9s launches of mix_k, %7s s wall, peak %6s MB\n' \
      "$mib" "$share" "$launches" "$wall" "$((rss_kb / 1024))"
  done
done
