#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What running handlers in helper processes costs: opreport's wall time
# with handlers isolated (the default) against --handler-isolation=none,
# on two recordings made here: node --perf-basic-prof running fib.js
# (the perfmap handler on node's own map), and the JIT demo given a perf
# map of 1M entries over its code.  Each report runs RUNS times per mode,
# alternating which goes first; prints the median of each and the ratio.
#   tests/bench/isolation.sh BUILD_DIR [RUNS]
set -euo pipefail
build=$(realpath "${1:?usage: isolation.sh BUILD_DIR [RUNS]}")
runs=${2:-7}
src=$(cd "$(dirname "$0")/../.." && pwd)
oprofiled=$build/daemon/oprofiled
opreport=$build/opreport/opreport
jitdemo=$build/tests/workloads/jitdemo
export OPJIT_HANDLER_PATH=${OPJIT_HANDLER_PATH:-$build/lib/opjit/handlers}
tmp=$(mktemp -d)
maps=()
trap 'rm -rf "$tmp"; rm -f "${maps[@]}"' EXIT

# wall SECONDS of one report; its output is thrown away
wall() {
	local t0=$EPOCHREALTIME
	"$opreport" "$@" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; echo "opreport failed" >&2; exit 1; }
	echo "$EPOCHREALTIME - $t0" | bc -l
}

# compare NAME ARGS...: the two modes, RUNS times each
compare() {
	local name=$1 i; shift
	: >"$tmp/iso" ; : >"$tmp/none"
	for ((i = 0; i < runs; i++)); do
		if ((i % 2)); then
			wall "$@" --handler-isolation=none >>"$tmp/none"
			wall "$@" >>"$tmp/iso"
		else
			wall "$@" >>"$tmp/iso"
			wall "$@" --handler-isolation=none >>"$tmp/none"
		fi
	done
	python3 - "$name" "$tmp/iso" "$tmp/none" <<'PY'
import statistics, sys
name = sys.argv[1]
iso = [float(x) for x in open(sys.argv[2])]
none = [float(x) for x in open(sys.argv[3])]
mi, mn = statistics.median(iso), statistics.median(none)
print(f"{name}: isolated {mi:.3f} s, none {mn:.3f} s, "
      f"ratio {mi / mn:.3f} (median of {len(iso)})")
PY
}

# node, with the perfmap handler on node's own map
cd "$tmp"
if command -v node >/dev/null; then
	"$oprofiled" --session-dir="$tmp/node" --frequency=4000 -- \
		node --perf-basic-prof "$src/tests/handlers/fib.js" 8 \
		>"$tmp/node.out" 2>&1
	# node's map, by the pid of the copy the session archived: a map
	# new in /tmp may be another run's
	for m in "$tmp"/node/maps/*/perf-*.map*; do
		m=${m##*/}
		m=${m%.gz}
		[[ $m =~ ^perf-[0-9]+\.map$ ]] && maps+=("/tmp/$m")
	done
	compare "node perfmap" --session-dir="$tmp/node" -l \
		--anon-handler=perfmap
else
	echo "node: skipped, node is not installed" >&2
fi

# the JIT demo, with a 1M-entry perf map over its code
"$oprofiled" --session-dir="$tmp/demo" --frequency=4000 -- "$jitdemo" \
	--seconds 3 --threads 1 --map-file none >"$tmp/demo.out" 2>&1
read -r _ start end < <(grep -m1 '^jit-range ' "$tmp/demo.out")
pid=$(grep -m1 '^pid ' "$tmp/demo.out" | cut -d' ' -f2 || true)
[ -n "$pid" ] || pid=$("$opreport" --session-dir="$tmp/demo" --anon-samples \
	--format=json 2>/dev/null | grep -o 'tgid:[0-9]*' | head -n1 | cut -d: -f2)
map=/tmp/perf-$pid.map
maps+=("$map")
python3 - "$((start))" "$((end))" >"$map" <<'PY'
import sys
start, end = int(sys.argv[1]), int(sys.argv[2])
n = 1000000
step = max(1, (end - start) // n)
out = []
for i in range(n):
    out.append(f"{start + i * step:x} {step:x} jit_entry_{i}\n")
sys.stdout.write("".join(out))
PY
chmod 0644 "$map"
compare "jitdemo 1M-entry perf map" --session-dir="$tmp/demo" -l \
	--anon-handler=perfmap
