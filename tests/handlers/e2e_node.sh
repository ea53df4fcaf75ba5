#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# node --perf-basic-prof, a runtime we did not write: the share of the
# JS fib rows opreport names through the perfmap handler must match the
# share Linux perf reports for the same workload (perf reads the same
# /tmp/perf-<pid>.map itself).
set -euo pipefail
: "${OPJIT_BUILD:?}" "${OPJIT_SOURCE:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

command -v node >/dev/null || skip "node is not installed (apt-get install nodejs)"
command -v perf >/dev/null || skip "perf is not installed (apt-get install linux-perf)"
oprofiled=$OPJIT_BUILD/daemon/oprofiled
opreport=$OPJIT_BUILD/opreport/opreport
for f in "$oprofiled" "$opreport"; do
	[ -x "$f" ] || fail "$f is not built"
done
here=$OPJIT_SOURCE/tests/handlers
seconds=4
# V8's names for fib at any tier: JS:*fib (optimised), JS:~fib, ...
fibre='^(JS|LazyCompile|Function):[*~^+]?fib( |$)'

tmp=$(mktemp -d)
maps=()
trap 'rm -rf "$tmp"; rm -f "${maps[@]}"' EXIT

# with opjit
"$oprofiled" --session-dir="$tmp/s" -- node --perf-basic-prof \
	"$here/fib.js" "$seconds" >"$tmp/op.out" 2>&1 ||
	{ cat "$tmp/op.out" >&2; fail "oprofiled failed"; }
"$opreport" --session-dir="$tmp/s" -l --format=json --anon-handler=perfmap \
	>"$tmp/op.json" 2>"$tmp/op.err" ||
	{ cat "$tmp/op.err" >&2; fail "opreport failed"; }
read -r op_n op_total op_pct < <(python3 "$here/report_shares.py" \
	"$tmp/op.json" "$fibre" --handler perfmap)
for m in $(python3 - "$tmp/op.json" <<'PY'
import json, re, sys
for r in json.load(open(sys.argv[1]))["symbols"]:
    m = re.search(r"tgid:(\d+)", r.get("image") or "")
    if m:
        print(f"/tmp/perf-{m.group(1)}.map")
PY
); do maps+=("$m"); done

# with perf, same workload, same rate
perf record -q -e cpu-clock -F 4000 -o "$tmp/perf.data" -- \
	node --perf-basic-prof "$here/fib.js" "$seconds" >"$tmp/perf.out" 2>&1 ||
	{ cat "$tmp/perf.out" >&2; fail "perf record failed"; }
perf report -i "$tmp/perf.data" --stdio --sort sym --no-children 2>/dev/null \
	>"$tmp/perf.txt" || fail "perf report failed"
perf_pct=$(python3 - "$tmp/perf.txt" "$fibre" <<'PY'
import re, sys
pat, total = re.compile(sys.argv[2]), 0.0
for line in open(sys.argv[1]):
    m = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(.*?)\s*$", line)
    if m and pat.search(m.group(2)):
        total += float(m.group(1))
print(f"{total:.2f}")
PY
)
pid=$(perf report -i "$tmp/perf.data" --stdio --sort pid 2>/dev/null |
	sed -n 's/.*[[:space:]]\([0-9][0-9]*\):node.*/\1/p' |
	head -n 1)
[ -n "$pid" ] && maps+=("/tmp/perf-$pid.map")

echo "fib share: opjit $op_pct% ($op_n of $op_total samples), perf $perf_pct%"
[ "$op_n" -gt 0 ] || { head -n 30 "$tmp/op.err" >&2; fail "opreport named no fib rows"; }
python3 - "$op_pct" "$perf_pct" <<'PY'
import sys
op, pf = float(sys.argv[1]), float(sys.argv[2])
if pf < 20.0:
    sys.exit(f"FAIL: perf gives fib only {pf:.1f}%: the workload is not hot enough to compare")
if abs(op - pf) > 5.0:
    sys.exit(f"FAIL: opjit gives fib {op:.1f}%, perf {pf:.1f}%: more than 5 points apart")
PY
echo "node: fib shares agree within 5 points"
