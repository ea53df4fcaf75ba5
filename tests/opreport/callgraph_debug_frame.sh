#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Call-frame information from a separate debug file found by build-id:
# the frameless workload built with its CFI in .debug_frame alone
# (frameless_debug_frame), that section moved out with objcopy to
# DIR/.build-id/NN/REST.debug.  Recorded with oprofiled
# --callgraph=dwarf, opreport --debug-dir=DIR unwinds hot's callers
# (path_a and path_b within 2 points of the workload's own split);
# without the debug file it cannot, which shows where the CFI came from.
. "$(dirname "$0")/lib.sh"
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
WORKLOAD=$OPJIT_BUILD/tests/workloads/frameless_debug_frame
[ -x "$OPROFILED" ] || fail "$OPROFILED is not built"
[ -x "$WORKLOAD" ] || fail "$WORKLOAD is not built"
command -v objcopy >/dev/null || { echo "SKIP: objcopy is not installed (binutils)"; exit 77; }

id=$(readelf -n "$WORKLOAD" | sed -n 's/.*Build ID: //p')
[ -n "$id" ] || fail "$WORKLOAD has no build-id"
mkdir -p "$TMP/debug/.build-id/${id:0:2}"
objcopy --only-keep-debug "$WORKLOAD" "$TMP/debug/.build-id/${id:0:2}/${id:2}.debug"
objcopy --strip-debug "$WORKLOAD" "$TMP/prog"
sections=$(readelf -S "$TMP/prog")
! grep -q debug_frame <<<"$sections" || fail "objcopy left .debug_frame in the program"

timeout 120 "$OPROFILED" --callgraph=dwarf --session-dir="$TMP/s" -- \
	"$TMP/prog" 3 >"$TMP/truth.txt" 2>"$TMP/oprofiled.err" ||
	{ cat "$TMP/oprofiled.err"; fail "oprofiled --callgraph=dwarf failed"; }
"$OPREPORT" --session-dir="$TMP/s" --format=folded --debug-dir="$TMP/debug" \
	>"$TMP/with.txt" 2>"$TMP/err.txt" || { cat "$TMP/err.txt"; fail "opreport --debug-dir failed"; }
"$OPREPORT" --session-dir="$TMP/s" --format=folded \
	>"$TMP/without.txt" 2>"$TMP/err.txt" || { cat "$TMP/err.txt"; fail "opreport failed"; }

python3 - "$TMP" <<'EOP'
import re, sys
tmp = sys.argv[1]
truth = dict(l.split() for l in open(tmp + "/truth.txt"))
ta, tb = float(truth["path_a"]), float(truth["path_b"])
want = 100.0 * ta / (ta + tb)
print("workload: path_a %.2f%% of its CPU time in the two paths" % want)
bad = 0
for name, expect in (("with", True), ("without", False)):
    n = {"path_a": 0, "path_b": 0}
    for line in open("%s/%s.txt" % (tmp, name)):
        stack, count = line.rsplit(" ", 1)
        frames = [re.sub(r" \[[^]]*\]$", "", f) for f in stack.split(";")]
        for i in range(1, len(frames) - 1):
            if frames[i] in n and frames[i + 1] == "hot" and frames[i - 1] == "main":
                n[frames[i]] += int(count)
    t = n["path_a"] + n["path_b"]
    ok = t >= 1000 and abs(100.0 * n["path_a"] / t - want) <= 2
    print("%s: %s the debug file: path_a %.2f%% of %d samples"
          % ("ok" if ok == expect else "FAIL", name,
             100.0 * n["path_a"] / t if t else 0, t))
    bad |= ok != expect
sys.exit(bad)
EOP
echo PASS
