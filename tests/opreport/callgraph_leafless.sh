#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A leaf without a frame under code with frame pointers: the leafless
# workload (-O1 -fno-omit-frame-pointer, where gcc still gives leaf no
# frame) calls leaf through left three times for each call through
# right.  The kernel's walk from leaf skips its caller (main;leaf);
# recorded with oprofiled --callgraph=dwarf, opreport unwinds leaf's
# frame and joins the walk at main: folded and -c must show
# main;left;leaf and main;right;leaf within 2 points of the workload's
# own split of its CPU time, and --no-unwind must not.
. "$(dirname "$0")/lib.sh"
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
WORKLOAD=$OPJIT_BUILD/tests/workloads/leafless
[ -x "$OPROFILED" ] || fail "$OPROFILED is not built"
[ -x "$WORKLOAD" ] || fail "$WORKLOAD is not built"

timeout 120 "$OPROFILED" --callgraph=dwarf --session-dir="$TMP/s" -- \
	"$WORKLOAD" 3 >"$TMP/truth.txt" 2>"$TMP/oprofiled.err" ||
	{ cat "$TMP/oprofiled.err"; fail "oprofiled --callgraph=dwarf failed"; }
S=$TMP/s
op() { local out=$1; shift
	"$OPREPORT" --session-dir="$S" "$@" >"$TMP/$out.txt" 2>"$TMP/err.txt" ||
		{ cat "$TMP/err.txt"; fail "opreport $* failed"; }
	# a sample of the exec itself may reach the depth limit: the kernel's
	# doing, not the unwinder's; and one or two samples of the start
	# (the loader, before the stack is whole) may unwind part of the way
	! grep -v -e "cut at the recording's depth limit" \
		-e ": [12] samples have a stack unwound from its stack copy only part of the way" \
		"$TMP/err.txt" ||
		fail "opreport $* warned"; }
op folded --format=folded
op fp --format=folded --no-unwind
op c -c

python3 - "$TMP" <<'EOP'
import os, re, sys
sys.path.insert(0, os.environ["OPJIT_SOURCE"] + "/tests/opreport")
import cg_text
tmp = sys.argv[1]
truth = dict(l.split() for l in open(tmp + "/truth.txt"))
tl, tr = float(truth["left"]), float(truth["right"])
want = 100.0 * tl / (tl + tr)
print("workload: left %.2f%% of its CPU time in the two callers" % want)
bad = 0

def check(name, l, r, expect=True):
    global bad
    t = l + r
    ok = t >= 1000 and abs(100.0 * l / t - want) <= 2
    print("%s: %s left %.2f%% right %.2f%% (%d samples)"
          % ("ok" if ok == expect else "FAIL", name,
             100.0 * l / t if t else 0, 100.0 * r / t if t else 0, t))
    bad |= ok != expect

def folded(path):
    n = {"left": 0, "right": 0}
    for line in open(path):
        stack, count = line.rsplit(" ", 1)
        frames = [re.sub(r" \[[^]]*\]$", "", f) for f in stack.split(";")]
        if len(frames) >= 3 and frames[-1] == "leaf" and \
           frames[-2] in n and frames[-3] == "main":
            n[frames[-2]] += int(count)
    return n

n = folded(tmp + "/folded.txt")
check("folded", n["left"], n["right"])
n = folded(tmp + "/fp.txt")
check("folded --no-unwind (frame pointers alone)", n["left"], n["right"],
      expect=False)

callers = cg_text.callers(tmp + "/c.txt", "leaf")
check("opreport -c", callers.get("left", 0), callers.get("right", 0))
sys.exit(bad)
EOP
echo PASS
