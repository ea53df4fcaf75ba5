#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The JVM writing its own perf map at exit (-XX:+DumpPerfMapAtExit, the
# jcmd Compiler.perfmap dialect): the JIT-compiled Hot.hot must be named
# through the perfmap handler with the share Linux perf gives it from the
# same kind of run and the same kind of map.
set -euo pipefail
: "${OPJIT_BUILD:?}" "${OPJIT_SOURCE:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

java=$(command -v java || true)
[ -n "$java" ] || java=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
[ -x "$java" ] || skip "no JVM found (apt-get install openjdk-17-jdk-headless)"
javac=${java%/java}/javac
[ -x "$javac" ] || javac=$(command -v javac || true)
[ -n "$javac" ] || skip "no javac next to $java (apt-get install openjdk-17-jdk-headless)"
command -v perf >/dev/null || skip "perf is not installed (apt-get install linux-perf)"
oprofiled=$OPJIT_BUILD/daemon/oprofiled
opreport=$OPJIT_BUILD/opreport/opreport
for f in "$oprofiled" "$opreport"; do
	[ -x "$f" ] || fail "$f is not built"
done
here=$OPJIT_SOURCE/tests/handlers
jvmopts=(-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit)
hotre='Hot[.:]+hot'

tmp=$(mktemp -d)
maps=()
trap 'rm -rf "$tmp"; rm -f "${maps[@]}"' EXIT
# compiled first, so that javac's own time is in neither profile
"$javac" -d "$tmp" "$here/Hot.java" || fail "javac cannot compile Hot.java"
"$oprofiled" --session-dir="$tmp/s" -- "$java" "${jvmopts[@]}" \
	-cp "$tmp" Hot 4 >"$tmp/op.out" 2>&1 ||
	{ cat "$tmp/op.out" >&2; fail "oprofiled failed"; }
"$opreport" --session-dir="$tmp/s" -l --format=json --anon-handler=perfmap \
	>"$tmp/op.json" 2>"$tmp/op.err" ||
	{ cat "$tmp/op.err" >&2; fail "opreport failed"; }
for pid in $(grep -o 'tgid:[0-9]*' "$tmp/op.json" | cut -d: -f2 | sort -u); do
	maps+=("/tmp/perf-$pid.map")
done
read -r op_n op_total op_pct < <(python3 "$here/report_shares.py" \
	"$tmp/op.json" "$hotre" --handler perfmap)

perf record -q -e cpu-clock -F 4000 -o "$tmp/perf.data" -- "$java" \
	"${jvmopts[@]}" -cp "$tmp" Hot 4 >"$tmp/perf.out" 2>&1 ||
	{ cat "$tmp/perf.out" >&2; fail "perf record failed"; }
perf report -i "$tmp/perf.data" --stdio --sort sym --no-children 2>/dev/null \
	>"$tmp/perf.txt" || fail "perf report failed"
for pid in $(perf report -i "$tmp/perf.data" --stdio --sort pid 2>/dev/null |
	sed -n 's/.*[[:space:]]\([0-9][0-9]*\):.*/\1/p'); do
	maps+=("/tmp/perf-$pid.map")
done
perf_pct=$(python3 - "$tmp/perf.txt" "$hotre" <<'PY'
import re, sys
pat, total = re.compile(sys.argv[2]), 0.0
for line in open(sys.argv[1]):
    m = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(.*?)\s*$", line)
    if m and pat.search(m.group(2)):
        total += float(m.group(1))
print(f"{total:.2f}")
PY
)
echo "Hot.hot share: opjit $op_pct% ($op_n of $op_total samples), perf $perf_pct%"
[ "$op_n" -gt 0 ] || { head -n 30 "$tmp/op.err" >&2; fail "opreport named no Hot.hot rows"; }
python3 - "$op_pct" "$perf_pct" <<'PY'
import sys
op, pf = float(sys.argv[1]), float(sys.argv[2])
if pf < 20.0:
    sys.exit(f"FAIL: perf gives Hot.hot only {pf:.1f}%: nothing to compare")
if abs(op - pf) > 5.0:
    sys.exit(f"FAIL: opjit gives Hot.hot {op:.1f}%, perf {pf:.1f}%: more than 5 points apart")
PY
echo "jvm: Hot.hot shares agree within 5 points"
