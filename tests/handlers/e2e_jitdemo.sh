#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The bundled JIT demo through oprofiled, opreport and the perfmap handler:
# jit_hot/jit_cold must come out at their known 75/25 within 3 points, with
# the map in either file name, from the session's copy once /tmp is
# cleaned, and never from a map that fails the trust rules.
set -euo pipefail
: "${OPJIT_BUILD:?}" "${OPJIT_SOURCE:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }

oprofiled=$OPJIT_BUILD/daemon/oprofiled
opreport=$OPJIT_BUILD/opreport/opreport
jitdemo=$OPJIT_BUILD/tests/workloads/jitdemo
shares=$OPJIT_SOURCE/tests/handlers/report_shares.py
for f in "$oprofiled" "$opreport" "$jitdemo"; do
	[ -x "$f" ] || fail "$f is not built"
done

tmp=$(mktemp -d)
planted=()
trap 'rm -rf "$tmp"; rm -f "${planted[@]}"' EXIT

# record NAME MAPFILE: profile the demo into $tmp/NAME; prints its pid
record() {
	"$oprofiled" --session-dir="$tmp/$1" -- "$jitdemo" --seconds 3 \
		--threads 1 --map-file "$2" >"$tmp/$1.out" 2>&1 ||
		{ cat "$tmp/$1.out" >&2; fail "oprofiled failed ($2 map)"; }
	sed -n 's/.*tgid:\([0-9][0-9]*\).*/\1/p' "$tmp/$1.out" | head -n 1
}

# report NAME [OPTIONS...]: JSON report into $tmp/NAME.json, stderr kept
report() {
	local name=$1; shift
	"$opreport" --session-dir="$tmp/$name" -l --format=json "$@" \
		>"$tmp/$name.json" 2>"$tmp/$name.err" ||
		{ cat "$tmp/$name.err" >&2; fail "opreport failed on $name"; }
}

# share NAME REGEX: samples named REGEX by perfmap, as "N TOTAL PCT"
share() {
	python3 "$shares" "$tmp/$1.json" "$2" --handler perfmap
}

# check_truth NAME: jit_hot/jit_cold at 75/25 within 3 points
check_truth() {
	local hot cold
	read -r hot _ _ < <(share "$1" '^jit_hot$')
	read -r cold _ _ < <(share "$1" '^jit_cold$')
	[ "$hot" -gt 0 ] && [ "$cold" -gt 0 ] ||
		fail "$1: jit_hot ($hot) and jit_cold ($cold) not both named"
	python3 - "$1" "$hot" "$cold" <<'PY' || exit 1
import sys
name, hot, cold = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pct = 100.0 * hot / (hot + cold)
print(f"{name}: jit_hot {pct:.1f}% of the JIT samples (truth 75%)")
if abs(pct - 75.0) > 3.0:
    sys.exit(f"FAIL: {name}: jit_hot share {pct:.1f}% is not within 3 points of 75%")
PY
}

# demo_pid NAME: the demo's tgid, from the image name of its JIT rows
demo_pid() {
	python3 - "$tmp/$1.json" <<'PY'
import json, re, sys
for r in json.load(open(sys.argv[1]))["symbols"]:
    m = re.search(r"tgid:(\d+)", r.get("image") or "")
    if r.get("kind") in ("anon", "jit") and m:
        print(m.group(1)); break
PY
}

for kind in anon perf; do
	record "$kind" "$kind" >/dev/null
	report "$kind" --anon-handler=perfmap
	pid=$(demo_pid "$kind")
	[ -n "$pid" ] || fail "$kind: no JIT rows in the report"
	# the demo leaves its map behind, as runtimes do; it is ours to remove
	planted+=("/tmp/anon.$pid" "/tmp/perf-$pid.map")
	check_truth "$kind"
	if [ -s "$tmp/$kind.err" ]; then
		cat "$tmp/$kind.err" >&2
		fail "$kind: opreport warned about a clean run"
	fi
done

# the session keeps a copy: the report still names the code once the
# map in /tmp is gone (we remove only the file our own demo wrote)
pid=$(demo_pid anon)
rm -f "/tmp/anon.$pid"
report anon --anon-handler=perfmap
check_truth anon

# trust: a world-writable map, and one older than the process, are
# refused with one line each and leave the samples as buckets
record none none >/dev/null
report none --anon-samples
pid=$(demo_pid none)
[ -n "$pid" ] || fail "no anonymous bucket in the report of the demo without a map"
map=/tmp/perf-$pid.map
[ -e "$map" ] && fail "$map exists already; not planting over it"
planted+=("$map")
printf '0 ffffffffffff0000 planted_name\n' >"$map"
chmod 0666 "$map"
report none --anon-handler=perfmap
grep -qx "opreport: perfmap: $map: writable by group or others" "$tmp/none.err" ||
	{ cat "$tmp/none.err" >&2; fail "no refusal line for a world-writable $map"; }
read -r n _ _ < <(share none 'planted_name')
[ "$n" -eq 0 ] || fail "samples were named from the world-writable $map"

chmod 0644 "$map"
touch -d '2 hours ago' "$map"
report none --anon-handler=perfmap
grep -qx "opreport: perfmap: $map: last modified before the process started (pid reused?)" \
	"$tmp/none.err" ||
	{ cat "$tmp/none.err" >&2; fail "no refusal line for the stale $map"; }
read -r n _ _ < <(share none 'planted_name')
[ "$n" -eq 0 ] || fail "samples were named from the stale $map"
rm -f "$map"

# a missing handler: one line, and the report goes on with the others
report perf --anon-handler=nosuch,perfmap
grep -q "^opreport: skipping handler nosuch: libnosuch.so not found in " \
	"$tmp/perf.err" || { cat "$tmp/perf.err" >&2; fail "no line for the missing handler"; }
[ "$(wc -l <"$tmp/perf.err")" -eq 1 ] ||
	{ cat "$tmp/perf.err" >&2; fail "more than one line for one missing handler"; }
check_truth perf

# a bad name is refused in one line naming it, before any lookup (opreport
# may treat it as an option error and stop, or skip it and go on)
"$opreport" --session-dir="$tmp/perf" -l --anon-handler=../x \
	>"$tmp/bad.out" 2>"$tmp/bad.err" || true
grep -q "^opreport: bad handler name '../x': " "$tmp/bad.err" ||
	{ cat "$tmp/bad.err" >&2; fail "no line for the bad handler name ../x"; }
[ "$(wc -l <"$tmp/bad.err")" -eq 1 ] ||
	{ cat "$tmp/bad.err" >&2; fail "more than one line for the bad name ../x"; }
echo "jitdemo: shares within 3 points; archived copy used; untrusted maps refused"
