#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/bench/pypy.sh [--runs N] [--build DIR]
#
# PyPy's cost under the profilers, on a fixed amount of work
# (tests/handlers/pypy_split.py --rounds N) at 4 kHz: PyPy alone; under oprofiled through
# opjit-pypy with the opjit_pypy module, and with PYPYLOG (--log); and
# under perf record.  Prints the median wall time of each, its ratio to
# PyPy alone, and the map's size per compiled loop or bridge.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$src/build
runs=5
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift ;;
	--build) build=$2; shift ;;
	*) echo "usage: pypy.sh [--runs N] [--build DIR]" >&2; exit 2 ;;
	esac
	shift
done
oprofiled=$build/daemon/oprofiled
launcher=$build/bin/opjit-pypy
rusage=$build/tests/bench/bench_rusage
for f in "$oprofiled" "$launcher" "$rusage"; do
	[ -x "$f" ] || { echo "pypy.sh: $f is not built" >&2; exit 1; }
done
for c in pypy3 perf; do
	command -v $c >/dev/null ||
		{ echo "pypy.sh: $c is not installed" >&2; exit 77; }
done
work=$src/tests/handlers/pypy_split.py
rounds=2500
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# wall SIDE RUN: run one side once, its wall seconds into $tmp/SIDE.RUN
wall() {
	local side=$1 run=$2 out=$tmp/$1.$2
	case $side in
	alone) "$rusage" -o "$out" -- pypy3 "$work" --rounds $rounds ;;
	module) "$rusage" -o "$out" -- "$oprofiled" -F 4000 \
		--session-dir="$tmp/s.$run" -- "$launcher" "$work" --rounds $rounds ;;
	log) "$rusage" -o "$out" -- "$oprofiled" -F 4000 \
		--session-dir="$tmp/l.$run" -- "$launcher" --log "$work" --rounds $rounds ;;
	perf) "$rusage" -o "$out" -- perf record -q --no-buildid-cache \
		-e cpu-clock -F 4000 -o "$tmp/perf.$run.data" -- \
		pypy3 "$work" --rounds $rounds ;;
	esac >/dev/null 2>>"$tmp/err"
}

echo "PyPy $(pypy3 --version 2>&1 | tail -1 | tr -s ' '), $rounds rounds of pypy_split.py at 4 kHz, $runs runs, order rotated"
sides=(alone module log perf)
for ((r = 0; r < runs; r++)); do
	for ((k = 0; k < 4; k++)); do
		wall "${sides[$(((k + r) % 4))]}" "$r"
	done
	# the maps are the runtime's, in /tmp: keep the session copies only
	for f in "$tmp"/s."$r"/maps/*/anon.* "$tmp"/l."$r"/maps/*/anon.*; do
		[ -f "$f" ] && rm -f "/tmp/anon.${f##*.}"
	done
done
python3 - "$tmp" "$runs" <<'PY'
import glob, os, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
def med(side):
    return statistics.median(float(open("%s/%s.%d" % (tmp, side, r)).read().split()[0])
                             for r in range(runs))
alone = med("alone")
print("| run | wall s (median) | vs PyPy alone |")
print("| --- | --- | --- |")
for side, what in (("alone", "pypy3 alone"),
                   ("module", "oprofiled -- opjit-pypy (module map)"),
                   ("log", "oprofiled -- opjit-pypy --log (PYPYLOG)"),
                   ("perf", "perf record -- pypy3")):
    w = med(side)
    print("| %s | %.3f | %.3fx |" % (what, w, w / alone))
for kind, pat in (("module map", "s.*"), ("PYPYLOG", "l.*")):
    sizes, codes = [], []
    for f in glob.glob("%s/%s/maps/*/anon.*" % (tmp, pat)):
        text = open(f, "rb").read()
        if kind == "module map":
            n = sum(1 for l in text.split(b"\n")[1:] if b" loop " in l or b" bridge " in l)
        else:
            n = text.count(b"has address")
        sizes.append(len(text))
        codes.append(n)
    if codes and sum(codes):
        print("%s: %.0f bytes a compiled loop or bridge (%d bytes, %d loops and bridges, median run)"
              % (kind, statistics.median(s / c for s, c in zip(sizes, codes) if c),
                 statistics.median(sizes), statistics.median(codes)))
PY
