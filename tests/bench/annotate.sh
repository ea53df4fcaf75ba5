#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/bench/annotate.sh [--quick] [--build DIR] [--compare OPANNOTATE]
#                         [--pairs N]
#
# The annotated disassembly of a JIT's hottest function, opjit beside
# perf in the same run: node --perf-prof fib.js recorded at 4 kHz (20 s,
# 4 s with --quick) by oprofiled and by perf, then
#   opjit:  opannotate --assembly --anon-handler=jitdump -i HOT, and the
#           same with image:anon (JIT code alone: no ELF image is read)
#   perf:   perf inject --jit (an ELF file per compiled function), then
#           perf annotate --stdio HOT
# where HOT is the function with the most samples.  Prints wall time,
# peak RSS, files and bytes each wrote (in node's working directory and
# ~/.debug), the samples each annotates, and the ratios.  CPU time
# (user + system) is beside wall time: on a shared machine it is the
# steadier of the two.  With --compare, another build of opannotate (an
# older one, say) annotates the same session in the same run, and its
# output is compared with this build's.  With --pairs N, the two
# annotations (opannotate's default scope, then perf inject + annotate)
# run N times in turn on the same recordings, and each pair's ratio is
# printed with their median.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$src/build
seconds=20
compare=
pairs=1
while [ $# -gt 0 ]; do
	case $1 in
	--quick) seconds=4 ;;
	--build) build=$2; shift ;;
	--compare) compare=$2; shift ;;
	--pairs) pairs=$2; shift ;;
	*) echo "usage: annotate.sh [--quick] [--build DIR] [--compare OPANNOTATE] [--pairs N]" >&2; exit 2 ;;
	esac
	shift
done
build=$(cd "$build" && pwd) # the recordings run in other directories
oprofiled=$build/daemon/oprofiled
opreport=$build/opreport/opreport
opannotate=$build/opannotate/opannotate
rusage=$build/tests/bench/bench_rusage
for f in "$oprofiled" "$opreport" "$opannotate" "$rusage" ${compare:+"$compare"}; do
	[ -x "$f" ] || { echo "annotate.sh: $f is not built" >&2; exit 1; }
done
for c in node perf; do
	command -v $c >/dev/null ||
		{ echo "annotate.sh: $c is not installed" >&2; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/op" "$tmp/perf" "$HOME/.debug"
fib=$src/tests/handlers/fib.js

# written_since MARKER DIR...: "files bytes" of regular files newer than
# MARKER
written_since() {
	local m=$1; shift
	find "$@" -type f -newer "$m" -printf '%s\n' 2>/dev/null |
		awk '{ n++; b += $1 } END { print n + 0, b + 0 }'
}

echo "recording node --perf-prof fib.js $seconds s at 4000 Hz, twice"
(cd "$tmp/op" && "$oprofiled" -F 4000 --session-dir="$tmp/op/s" -- \
	node --perf-prof "$fib" "$seconds" >/dev/null 2>"$tmp/op.rec")
(cd "$tmp/perf" && perf record -q -k mono -e cpu-clock -F 4000 \
	-o "$tmp/perf/perf.data" -- node --perf-prof "$fib" "$seconds" \
	>/dev/null 2>"$tmp/perf.rec")

# the hottest JIT function, by name, as each tool names it (both from
# node's own dump)
hot=$("$opreport" --session-dir="$tmp/op/s" -l --anon-handler=jitdump \
	--format=csv 2>/dev/null | python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r.get("image", "").startswith("jit:")]
rows.sort(key=lambda r: -int(r["samples"]))
print(rows[0]["symbol"] if rows else "")')
[ -n "$hot" ] || { echo "annotate.sh: no JIT function in the profile" >&2; exit 1; }
echo "hottest JIT function: $hot"

touch "$tmp/mark-op"
sleep 1.1
"$rusage" -o "$tmp/op.ru" -- "$opannotate" --session-dir="$tmp/op/s" \
	--assembly --anon-handler=jitdump -i "$hot" >"$tmp/op.txt" 2>"$tmp/op.err"
"$rusage" -o "$tmp/opanon.ru" -- "$opannotate" --session-dir="$tmp/op/s" \
	--assembly --anon-handler=jitdump -i "$hot" image:anon >"$tmp/opanon.txt" 2>/dev/null
cmp -s <(grep -v '^opannotate: session' "$tmp/op.txt") \
	<(grep -v '^opannotate: session' "$tmp/opanon.txt") ||
	echo "annotate.sh: note: image:anon annotated $hot otherwise (the percentages are of another total)"
read -r op_files op_bytes < <(written_since "$tmp/mark-op" "$tmp/op" "$HOME/.debug")
if [ -n "$compare" ]; then
	"$rusage" -o "$tmp/opold.ru" -- "$compare" --session-dir="$tmp/op/s" \
		--assembly --anon-handler=jitdump -i "$hot" >"$tmp/opold.txt" 2>/dev/null
	cmp -s "$tmp/op.txt" "$tmp/opold.txt" &&
		echo "the compared opannotate's output is this build's" ||
		echo "annotate.sh: note: the compared opannotate's output differs from this build's"
fi

touch "$tmp/mark-perf"
sleep 1.1
"$rusage" -o "$tmp/inject.ru" -- perf inject --jit -i "$tmp/perf/perf.data" \
	-o "$tmp/perf/jit.data" 2>"$tmp/inject.err"
"$rusage" -o "$tmp/annotate.ru" -- perf annotate -i "$tmp/perf/jit.data" \
	--stdio "$hot" >"$tmp/perf.txt" 2>"$tmp/annotate.err"
read -r perf_files perf_bytes < <(written_since "$tmp/mark-perf" "$tmp/perf" "$HOME/.debug")
# what perf inject left behind is ours to remove
find "$HOME/.debug" -newer "$tmp/mark-perf" -name 'jitted-*' \
	-exec rm -rf {} + 2>/dev/null || true

# further pairs, each the default scope then perf, on the same recordings
for ((i = 2; i <= pairs; i++)); do
	"$rusage" -o "$tmp/op.$i.ru" -- "$opannotate" --session-dir="$tmp/op/s" \
		--assembly --anon-handler=jitdump -i "$hot" >/dev/null 2>&1
	touch "$tmp/mark-perf"
	"$rusage" -o "$tmp/inject.$i.ru" -- perf inject --jit -i "$tmp/perf/perf.data" \
		-o "$tmp/perf/jit.data" 2>/dev/null
	"$rusage" -o "$tmp/annotate.$i.ru" -- perf annotate -i "$tmp/perf/jit.data" \
		--stdio "$hot" >/dev/null 2>&1
	find "$HOME/.debug" -newer "$tmp/mark-perf" -name 'jitted-*' \
		-exec rm -rf {} + 2>/dev/null || true
done

python3 - "$tmp" "$op_files" "$op_bytes" "$perf_files" "$perf_bytes" "$pairs" <<'PY'
import re, sys
tmp = sys.argv[1]
op_files, op_bytes, perf_files, perf_bytes = map(int, sys.argv[2:6])
def ru(name):
    f = open(f"{tmp}/{name}.ru").read().split()
    if f[4] != "0":
        sys.exit(f"annotate.sh: {name} failed (status {f[4]})")
    return float(f[0]), float(f[1]) + float(f[2]), int(f[3])
op_w, op_c, op_rss = ru("op")
oa_w, oa_c, oa_rss = ru("opanon")
in_w, in_c, in_rss = ru("inject")
an_w, an_c, an_rss = ru("annotate")
pf_w, pf_c, pf_rss = in_w + an_w, in_c + an_c, max(in_rss, an_rss)
# the samples each annotated: opannotate's generation headers, perf's
# "Percent | Source code" blocks (lines with a percentage)
op_samples = sum(int(m.group(1)) for m in
                 re.finditer(r"^  (\d+) samples, ", open(f"{tmp}/op.txt").read(), re.M))
op_insns = len(re.findall(r"^[ \d.%]+ [0-9a-f]+:  \S", open(f"{tmp}/op.txt").read(), re.M))
perf_lines = [l for l in open(f"{tmp}/perf.txt", errors="replace")
              if re.match(r"\s*[\d.]+\s+:\s+[0-9a-f]+:", l)]
print("| step | wall s | CPU s | peak RSS MiB | files written | bytes written |")
print("| --- | --- | --- | --- | --- | --- |")
print(f"| opannotate --assembly | {op_w:.2f} | {op_c:.2f} | {op_rss/1024:.0f} | {op_files} | {op_bytes} |")
print(f"| opannotate --assembly image:anon | {oa_w:.2f} | {oa_c:.2f} | {oa_rss/1024:.0f} | {op_files} | {op_bytes} |")
import os
if os.path.exists(f"{tmp}/opold.ru"):
    oo_w, oo_c, oo_rss = ru("opold")
    print(f"| compared opannotate --assembly | {oo_w:.2f} | {oo_c:.2f} | {oo_rss/1024:.0f} | | |")
print(f"| perf inject --jit | {in_w:.2f} | {in_c:.2f} | {in_rss/1024:.0f} | | |")
print(f"| perf annotate --stdio | {an_w:.2f} | {an_c:.2f} | {an_rss/1024:.0f} | | |")
print(f"| perf inject + annotate | {pf_w:.2f} | {pf_c:.2f} | {pf_rss/1024:.0f} | {perf_files} | {perf_bytes} |")
print(f"opannotate: {op_samples} samples in {op_insns} instruction lines; "
      f"perf annotate: {len(perf_lines)} instruction lines with a share")
print(f"ratio opjit/perf: wall {op_w/pf_w:.3f}x, CPU {op_c/pf_c:.3f}x, peak RSS {op_rss/pf_rss:.2f}x, "
      f"files {op_files} vs {perf_files}, bytes {op_bytes} vs {perf_bytes}; "
      f"image:anon wall {oa_w/pf_w:.3f}x, CPU {oa_c/pf_c:.3f}x")
if os.path.exists(f"{tmp}/opold.ru"):
    print(f"compared opannotate/perf: wall {oo_w/pf_w:.3f}x, CPU {oo_c/pf_c:.3f}x")
pairs = int(sys.argv[6])
if pairs > 1:
    rows = [(op_w, op_c, pf_w, pf_c)]
    for i in range(2, pairs + 1):
        w, c, _ = ru(f"op.{i}")
        iw, ic, _ = ru(f"inject.{i}")
        aw, ac, _ = ru(f"annotate.{i}")
        rows.append((w, c, iw + aw, ic + ac))
    print("| pair | opannotate wall s | CPU s | perf wall s | CPU s | wall ratio | CPU ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for i, (w, c, pw, pc) in enumerate(rows, 1):
        print(f"| {i} | {w:.2f} | {c:.3f} | {pw:.2f} | {pc:.2f} | {w/pw:.3f}x | {c/pc:.3f}x |")
    med = lambda v: sorted(v)[len(v) // 2] if len(v) % 2 else sum(sorted(v)[len(v)//2-1:len(v)//2+1]) / 2
    print(f"median of {pairs} pairs: wall {med([r[0]/r[2] for r in rows]):.3f}x, "
          f"CPU {med([r[1]/r[3] for r in rows]):.3f}x")
PY
