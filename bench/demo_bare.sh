#!/usr/bin/env bash
# bench/demo_bare.sh - time README's two commands from a bare Debian 12.
#
#   sudo bash bench/demo_bare.sh [--test] [WORK_DIR]
#                                (default: a new directory in /var/tmp)
#
# Builds a minimal Debian 12 root with debootstrap (--variant=minbase: no
# compiler, no CMake, no compiler cache), copies a fresh clone of this
# checkout's HEAD into it, and times `bash scripts/setup.sh demo` (or, with
# --test, `bash scripts/setup.sh test`) run inside it with chroot: the
# packages' download and installation, the build, the report or the tests.
# There is no ../shared beside the clone, as on a user's machine: the tests
# that need it skip. Prints the wall time, what apt-get fetched, the build steps and the
# last lines of the report. Needs root, debootstrap and a Debian mirror
# (deb.debian.org); the root takes ~2.5 GB. The work directory is removed at
# the end unless KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "demo_bare: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
command -v debootstrap > /dev/null || { echo "demo_bare: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
mode=demo
if [ "${1:-}" = --test ]; then mode=test; shift; fi
work=${1:-$(mktemp -d /var/tmp/perfbound-bare.XXXXXX)}
mkdir -p "$work"
root="$work/root"
log="$work/$mode.log"
cleanup() {
  for m in "$root/dev" "$root/sys" "$root/proc"; do
    mountpoint -q "$m" && umount -R "$m"
  done
  if [ "${KEEP:-0}" != 1 ]; then rm -rf "$work"; else echo "demo_bare: kept $work"; fi
}
trap cleanup EXIT
echo "demo_bare: debootstrap bookworm into $root (not timed: that is the bare machine)"
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian > "$work/debootstrap.log" 2>&1
git clone -q "$(pwd)" "$root/home/perfbound"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --rbind /sys "$root/sys"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(date -u +%FT%TZ); $(git rev-parse --short HEAD)"
start=$(date +%s)
chroot "$root" env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb \
  bash -c "cd /home/perfbound && bash scripts/setup.sh $mode" > "$log" 2>&1 || { tail -20 "$log"; exit 1; }
end=$(date +%s)
echo "setup.sh $mode from bare Debian 12: $((end - start)) s wall"
grep -E '^Need to get|^Fetched .* MB|newly installed' "$log" || true
echo "build steps: $(grep -c '^\[' "$log")"
if [ "$mode" = test ]; then
  grep -E 'tests passed|Total Test time|\*\*\*Skipped|Not Run' "$log" || true
else
  tail -3 "$log"
fi
