#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/bench/callgraph_naming.sh [--seconds S] [--build DIR]
#
# The share of JIT frames named in call stacks, opjit against perf, each
# recording its own run of the same workload at 4 kHz with call chains:
#   node   --perf-basic-prof --interpreted-frames-native-stack fib.js;
#          opjit reads node's perf map with the perfmap handler, perf
#          reads the same kind of map;
#   JVM    -XX:+PreserveFramePointer, Hot; opjit with the javamap agent
#          (its time-stamped map), perf with the JVM's own perf map
#          written at exit (-XX:+DumpPerfMapAtExit).
# A JIT frame is a frame in anonymous memory (opjit: "_[j]" in folded
# output; perf: a frame whose object is the perf map, //anon or
# [unknown]); it is named when it has a symbol ("(unknown)" and "[anon]"
# in opjit's output, "[unknown]" in perf's, are not).  Prints both shares and
# the frames counted.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$src/build
seconds=5
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=$2; shift ;;
	--build) build=$2; shift ;;
	*) echo "usage: callgraph_naming.sh [--seconds S] [--build DIR]" >&2; exit 2 ;;
	esac
	shift
done
oprofiled=$build/daemon/oprofiled
opreport=$build/opreport/opreport
agent=$build/lib/opjit/libjavamap-agent.so
for f in "$oprofiled" "$opreport"; do
	[ -x "$f" ] || { echo "callgraph_naming.sh: $f is not built" >&2; exit 1; }
done
command -v perf >/dev/null || { echo "callgraph_naming.sh: perf is not installed" >&2; exit 77; }
tmp=$(mktemp -d)
maps=()
trap 'rm -rf "$tmp" "${maps[@]}"' EXIT

# opjit_share SESSION HANDLER: "NAMED TOTAL" JIT frames, weighted by count
opjit_share() {
	"$opreport" --session-dir="$1" --format=folded --anon-handler="$2" \
		2>/dev/null | python3 -c '
import sys
named = total = 0
for line in sys.stdin:
    stack, _, count = line.rstrip("\n").rpartition(" ")
    for f in stack.split(";"):
        if f.endswith("_[j]"):
            total += int(count)
            # "[anon]": nobody claimed it; "(unknown) [H]": H had no name
            named += int(count) * (not f.startswith(("[anon]", "(unknown) [")))
print(named, total)'
}

# perf_share DATA: "NAMED TOTAL" JIT frames
perf_share() {
	perf script -i "$1" -F ip,sym,dso 2>/dev/null | python3 -c '
import re, sys
named = total = 0
jit = re.compile(r"\((/tmp/perf-\d+\.map|//anon|\[anon\]|\[unknown\])\)$")
for line in sys.stdin:
    w = line.strip()
    if not w or not jit.search(w):
        continue
    ip = int(w.split()[0], 16)
    if ip >= 1 << 47:
        continue  # a kernel address perf could not name
    total += 1
    named += " [unknown] " not in " " + w + " "
print(named, total)'
}

forget_maps() {
	local f
	for f in "$@"; do maps+=("$f"); done
}

row() { # NAME "NAMED TOTAL" "NAMED TOTAL"
	python3 - "$@" <<'PY'
import sys
name, o, p = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
def pct(a, b):
    return 100.0 * int(a) / int(b) if int(b) else 0.0
print("| %s | %.2f%% of %s | %.2f%% of %s |" % (name, pct(*o), o[1], pct(*p), p[1]))
PY
}

echo "JIT frames named in stacks, $seconds s at 4 kHz with call chains"
echo "| workload | opjit | perf |"
echo "| --- | --- | --- |"
if command -v node >/dev/null; then
	node_args=(--perf-basic-prof --interpreted-frames-native-stack "$src/tests/handlers/fib.js" "$seconds")
	"$oprofiled" -g -F 4000 --session-dir="$tmp/node.s" -- node "${node_args[@]}" >/dev/null 2>&1
	perf record -q --no-buildid-cache -g -e cpu-clock -F 4000 -o "$tmp/node.data" -- \
		node "${node_args[@]}" >/dev/null 2>&1
	for f in "$tmp"/node.s/maps/*/perf-*.map.gz; do [ -f "$f" ] && f=${f%.gz} && forget_maps "/tmp/${f##*/}"; done
	row "node fib.js" "$(opjit_share "$tmp/node.s" perfmap)" "$(perf_share "$tmp/node.data")"
	perf script -i "$tmp/node.data" -F pid 2>/dev/null | sort -u | while read -r p; do
		rm -f "/tmp/perf-$p.map"; done
else
	echo "| node fib.js | node is not installed | |"
fi
java=$(command -v java || true)
javac=$(command -v javac || true)
if [ -n "$java" ] && [ -n "$javac" ] && [ -f "$agent" ]; then
	"$javac" -d "$tmp" "$src/tests/handlers/Hot.java"
	"$oprofiled" -g -F 4000 --session-dir="$tmp/jvm.s" -- "$java" \
		-XX:+PreserveFramePointer -agentpath:"$agent" -cp "$tmp" Hot "$seconds" \
		>/dev/null 2>&1
	for f in "$tmp"/jvm.s/maps/*/anon.*.gz; do [ -f "$f" ] && f=${f%.gz} && forget_maps "/tmp/${f##*/}"; done
	perf record -q --no-buildid-cache -g -e cpu-clock -F 4000 -o "$tmp/jvm.data" -- \
		"$java" -XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions \
		-XX:+DumpPerfMapAtExit -cp "$tmp" Hot "$seconds" >/dev/null 2>&1
	row "JVM Hot" "$(opjit_share "$tmp/jvm.s" javamap)" "$(perf_share "$tmp/jvm.data")"
	perf script -i "$tmp/jvm.data" -F pid 2>/dev/null | sort -u | while read -r p; do
		rm -f "/tmp/perf-$p.map"; done
else
	echo "| JVM Hot | no JDK or no javamap agent built | |"
fi
