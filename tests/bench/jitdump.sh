#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/bench/jitdump.sh [--quick] [--build DIR]
#
# node --perf-prof recorded at 4 kHz (20 s, 4 s with --quick) by oprofiled
# and by perf in the same run, then reported both ways:
#   opjit:  opreport -l --anon-handler=jitdump
#   perf:   perf inject --jit, then perf report --stdio
# The same opreport without a handler is timed too, to show what the
# handler itself adds.  Prints wall time, peak RSS and the files each report step wrote (in the
# node's working directory and ~/.debug), the share each gives the hot
# function, and the ratios; then the jitdump handler's own load time and
# resolution rate on a synthetic dump of 1 M code loads.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$src/build
seconds=20
loads=1000000
while [ $# -gt 0 ]; do
	case $1 in
	--quick) seconds=4; loads=200000 ;;
	--build) build=$2; shift ;;
	*) echo "usage: jitdump.sh [--quick] [--build DIR]" >&2; exit 2 ;;
	esac
	shift
done
oprofiled=$build/daemon/oprofiled
opreport=$build/opreport/opreport
rusage=$build/tests/bench/bench_rusage
resolve=$build/tests/handlers/bench_jitdump_resolve
for f in "$oprofiled" "$opreport" "$rusage" "$resolve"; do
	[ -x "$f" ] || { echo "jitdump.sh: $f is not built" >&2; exit 1; }
done
for c in node perf; do
	command -v $c >/dev/null ||
		{ echo "jitdump.sh: $c is not installed" >&2; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/op" "$tmp/perf" "$HOME/.debug"
fib=$src/tests/handlers/fib.js
re='^(JS|LazyCompile|Function):[*~^+]?fib( |$)'

# files_since MARKER DIR...: regular files newer than MARKER
files_since() {
	local m=$1; shift
	find "$@" -type f -newer "$m" 2>/dev/null | wc -l
}

echo "recording node --perf-prof fib.js $seconds at 4000 Hz, twice"
(cd "$tmp/op" && "$oprofiled" -F 4000 --session-dir="$tmp/op/s" -- \
	node --perf-prof "$fib" "$seconds" >/dev/null 2>"$tmp/op.rec")
(cd "$tmp/perf" && perf record -q -k mono -e cpu-clock -F 4000 \
	-o "$tmp/perf/perf.data" -- node --perf-prof "$fib" "$seconds" \
	>/dev/null 2>"$tmp/perf.rec")

touch "$tmp/mark-op"
sleep 1.1
"$rusage" -o "$tmp/op.ru" -- "$opreport" --session-dir="$tmp/op/s" -l \
	--anon-handler=jitdump >"$tmp/op.txt" 2>"$tmp/op.err"
op_files=$(files_since "$tmp/mark-op" "$tmp/op" "$HOME/.debug")
# the same report without the handler: what the ELF side costs alone
"$rusage" -o "$tmp/base.ru" -- "$opreport" --session-dir="$tmp/op/s" -l \
	--anon-samples >/dev/null 2>&1

touch "$tmp/mark-perf"
sleep 1.1
"$rusage" -o "$tmp/inject.ru" -- perf inject --jit -i "$tmp/perf/perf.data" \
	-o "$tmp/perf/jit.data" 2>"$tmp/inject.err"
"$rusage" -o "$tmp/report.ru" -- perf report -i "$tmp/perf/jit.data" \
	--stdio --sort sym --no-children >"$tmp/perf.txt" 2>"$tmp/report.err"
perf_files=$(files_since "$tmp/mark-perf" "$tmp/perf" "$HOME/.debug")
# what perf inject left behind is ours to remove
find "$HOME/.debug" -newer "$tmp/mark-perf" -name 'jitted-*' \
	-exec rm -rf {} + 2>/dev/null || true

python3 - "$tmp" "$re" "$op_files" "$perf_files" <<'PY'
import re, sys
tmp, pat, op_files, perf_files = sys.argv[1], re.compile(sys.argv[2]), \
    int(sys.argv[3]), int(sys.argv[4])
def ru(name):
    f = open(f"{tmp}/{name}.ru").read().split()
    if f[4] != "0":
        sys.exit(f"jitdump.sh: {name} failed (status {f[4]})")
    return float(f[0]), int(f[3])
op_w, op_rss = ru("op")
bs_w, bs_rss = ru("base")
in_w, in_rss = ru("inject")
rp_w, rp_rss = ru("report")
pf_w, pf_rss = in_w + rp_w, max(in_rss, rp_rss)
def share_op():
    tot = got = 0
    for line in open(f"{tmp}/op.txt", errors="replace"):
        m = re.match(r"\s*(\d+)\s+([\d.]+)\s+(.*)$", line)
        if m:
            if pat.search(m.group(3).split("  ")[-1].strip()):
                got += float(m.group(2))
    return got
def share_perf():
    got = 0.0
    for line in open(f"{tmp}/perf.txt", errors="replace"):
        m = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(.*?)\s*$", line)
        if m and pat.search(m.group(2)):
            got += float(m.group(1))
    return got
print(f"| step | wall s | peak RSS MiB | files written | fib share |")
print(f"| --- | --- | --- | --- | --- |")
print(f"| opreport -l --anon-handler=jitdump | {op_w:.2f} | "
      f"{op_rss/1024:.0f} | {op_files} | {share_op():.1f}% |")
print(f"| (opreport -l --anon-samples, no handler) | {bs_w:.2f} | "
      f"{bs_rss/1024:.0f} | | |")
print(f"| perf inject --jit | {in_w:.2f} | {in_rss/1024:.0f} | | |")
print(f"| perf report | {rp_w:.2f} | {rp_rss/1024:.0f} | | |")
print(f"| perf inject + report | {pf_w:.2f} | {pf_rss/1024:.0f} | "
      f"{perf_files} | {share_perf():.1f}% |")
print(f"ratio opjit/perf: wall {op_w/pf_w:.3f}x, peak RSS "
      f"{op_rss/pf_rss:.2f}x, files {op_files} vs {perf_files}")
PY
echo "synthetic dump of $loads code loads:"
"$resolve" "$loads" 10000000
