#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Re-JIT under a stack: jitstack's caller of hot() is JIT code that is
# replaced at the same address, jit_outer_a for 75% of the time and
# jit_outer_b for 25%.  With call chains and the javamap handler, each
# caller frame must be named after the code that lived at its address at
# the sample's time: hot's samples under a and b in the shares the
# workload measured (within 3 points), and almost none unnamed.
. "$(dirname "$0")/lib.sh"
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
WORKLOAD=$OPJIT_BUILD/tests/workloads/jitstack
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -x "$OPROFILED" ] || fail "$OPROFILED is not built"
[ -x "$WORKLOAD" ] || fail "$WORKLOAD is not built"
[ -f "$HP/libjavamap.so" ] || fail "$HP/libjavamap.so is not built"

# jitstack runs 3 s of its CPU time: longer on a busy machine
timeout 300 "$OPROFILED" -g --session-dir="$TMP/s" -- "$WORKLOAD" 3 \
	>"$TMP/wl.out" 2>"$TMP/oprofiled.err" ||
	{ cat "$TMP/oprofiled.err"; fail "oprofiled -g failed"; }
pid=$(sed -n 's/^jitstack pid \([0-9]*\)$/\1/p' "$TMP/wl.out")
[ -n "$pid" ] || fail "jitstack did not start: $(cat "$TMP/wl.out")"
trap 'rm -rf "$TMP" "/tmp/anon.$pid"' EXIT
truth=$(sed -n 's/^jitstack ran A \([0-9]*\) B \([0-9]*\)$/\1 \2/p' "$TMP/wl.out")
[ -n "$truth" ] || fail "jitstack did not run to its end: $(cat "$TMP/wl.out")"

"$OPREPORT" --session-dir="$TMP/s" --handler-path="$HP" \
	--anon-handler=javamap --format=folded >"$TMP/folded.txt" \
	2>"$TMP/op.err" || { cat "$TMP/op.err"; fail "opreport --format=folded failed"; }
"$OPREPORT" --session-dir="$TMP/s" --handler-path="$HP" \
	--anon-handler=javamap -c >"$TMP/c.txt" 2>>"$TMP/op.err" ||
	{ cat "$TMP/op.err"; fail "opreport -c failed"; }
grep -E '^ +[0-9]+ .*jit_outer_a$' "$TMP/c.txt" >/dev/null ||
	{ cat "$TMP/c.txt"; fail "opreport -c names no caller jit_outer_a"; }

python3 - "$TMP/folded.txt" $truth <<'EOP'
import re, sys
ta, tb = int(sys.argv[2]), int(sys.argv[3])
callers = {}
for line in open(sys.argv[1]):
    stack, count = line.rsplit(" ", 1)
    frames = stack.split(";")
    if frames[-1] != "hot [jitstack]" or len(frames) < 2:
        continue
    callers[frames[-2]] = callers.get(frames[-2], 0) + int(count)
a = callers.get("jit_outer_a [javamap]_[j]", 0)
b = callers.get("jit_outer_b [javamap]_[j]", 0)
total = sum(callers.values())
print("callers of hot:", callers)
if total < 1000:
    sys.exit("FAIL: only %d samples in hot" % total)
if a + b < 0.9 * total:
    sys.exit("FAIL: only %d of hot's %d samples have a named JIT caller"
             % (a + b, total))
want = 100.0 * ta / (ta + tb)
got = 100.0 * a / (a + b)
print("jit_outer_a: %.2f%% of hot's named callers, ran %.2f%% of the time"
      % (got, want))
if abs(got - want) > 3:
    sys.exit("FAIL: caller frames do not follow the code's time")
EOP
echo PASS
