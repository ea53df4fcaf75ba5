#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What a handler's helper process needs, to set its limits with headroom
# (handler-api/README.md, "The helper process"): address space beyond
# opreport's, threads and CPU seconds of the helper (helper_usage.py) for
# the shipped handlers on large maps made here: node --perf-basic-prof and
# node --perf-prof running manyfuncs.js (a perf map and a jitdump of
# FUNCTIONS functions, twice that many entries), and the JIT demo given a
# perf map of 1M entries.
#   tests/bench/sandbox_limits.sh BUILD_DIR [FUNCTIONS] [SECONDS]
set -euo pipefail
build=$(realpath "${1:?usage: sandbox_limits.sh BUILD_DIR [FUNCTIONS] [SECONDS]}")
functions=${2:-100000}
seconds=${3:-10}
src=$(cd "$(dirname "$0")/../.." && pwd)
oprofiled=$build/daemon/oprofiled
opreport=$build/opreport/opreport
jitdemo=$build/tests/workloads/jitdemo
usage=$src/tests/bench/helper_usage.py
export OPJIT_HANDLER_PATH=${OPJIT_HANDLER_PATH:-$build/lib/opjit/handlers}
command -v node >/dev/null || { echo "node is not installed" >&2; exit 77; }
tmp=$(mktemp -d)
maps=()
trap 'rm -rf "$tmp"; rm -f "${maps[@]}"' EXIT

# node with a perf map, then with a jitdump (written in its directory)
cd "$tmp"
for mode in perf-basic-prof:perfmap perf-prof:jitdump; do
	flag=${mode%%:*} handler=${mode#*:}
	"$oprofiled" --session-dir="$tmp/$handler" --frequency=4000 -- \
		node --$flag "$src/tests/bench/workloads/manyfuncs.js" \
		"$functions" "$seconds" "$tmp/$handler.pid" \
		>"$tmp/$handler.out" 2>&1
	pid=$(cat "$tmp/$handler.pid")
	maps+=("/tmp/perf-$pid.map")
	size=$(stat -c %s /tmp/perf-"$pid".map "$tmp"/jit-"$pid".dump \
		2>/dev/null | head -n 1 || true)
	echo -n "node $handler ($functions functions, map of $size bytes): "
	python3 "$usage" "$opreport" --session-dir="$tmp/$handler" -l \
		--anon-handler="$handler"
done

# the JIT demo, with a 1M-entry perf map over its code
"$oprofiled" --session-dir="$tmp/demo" --frequency=4000 -- "$jitdemo" \
	--seconds 3 --threads 1 --map-file none >"$tmp/demo.out" 2>&1
read -r _ start end < <(grep -m1 '^jit-range ' "$tmp/demo.out")
pid=$("$opreport" --session-dir="$tmp/demo" --anon-samples --format=json \
	2>/dev/null | grep -o 'tgid:[0-9]*' | head -n1 | cut -d: -f2)
map=/tmp/perf-$pid.map
maps+=("$map")
python3 - "$((start))" "$((end))" >"$map" <<'PY'
import sys
start, end = int(sys.argv[1]), int(sys.argv[2])
n = 1000000
step = max(1, (end - start) // n)
sys.stdout.write("".join(f"{start + i * step:x} {step:x} jit_entry_{i}\n"
                         for i in range(n)))
PY
chmod 0644 "$map"
echo -n "jitdemo perfmap (1M entries, $(stat -c %s "$map") bytes): "
python3 "$usage" "$opreport" --session-dir="$tmp/demo" -l \
	--anon-handler=perfmap
