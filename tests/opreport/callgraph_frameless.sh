#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Stacks through frameless native code.  The frameless workload (built
# -O2 without frame pointers) calls hot through path_a three times for
# each call through path_b, and hot spends its time in glibc's memcpy,
# which has no frame pointer either.  Recorded with
# oprofiled --callgraph=dwarf, opreport unwinds the stack copies: -c,
# --format=folded and --format=pprof (read by go tool pprof) must each
# put path_a's and path_b's shares of hot's samples within 2 points of
# the workload's own split of its thread CPU time.  With --no-unwind
# (frame pointers alone) the same session must not: the kernel's walk
# from memcpy loses hot and its callers, which is what this test is for.
# And 99% of the samples whose user leaf is memcpy (those taken in the
# kernel too, by their user part) must have their whole stack from main
# through path_a or path_b and hot: the environment holds 16 KiB, so
# that every copy is the whole 8 KiB (not what ASLR leaves above sp),
# 16000 copies of 128 MiB that the session's writer must keep.
. "$(dirname "$0")/lib.sh"
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
WORKLOAD=$OPJIT_BUILD/tests/workloads/frameless
[ -x "$OPROFILED" ] || fail "$OPROFILED is not built"
[ -x "$WORKLOAD" ] || fail "$WORKLOAD is not built"
command -v go >/dev/null || { echo "SKIP: go is not installed (golang-go)"; exit 77; }

OPJIT_TEST_PAD=$(printf '%16384s' '') \
	timeout 120 "$OPROFILED" --callgraph=dwarf --frequency=4000 \
	--session-dir="$TMP/s" -- \
	"$WORKLOAD" 4 >"$TMP/truth.txt" 2>"$TMP/oprofiled.err" ||
	{ cat "$TMP/oprofiled.err"; fail "oprofiled --callgraph=dwarf failed"; }
! grep "kept no stack copy" "$TMP/oprofiled.err" ||
	fail "oprofiled dropped stack copies"
S=$TMP/s

op() { "$OPREPORT" --session-dir="$S" "$@" 2>"$TMP/op.err" ||
	{ cat "$TMP/op.err"; fail "opreport $* failed"; }
	# a sample of the exec itself may reach the depth limit: the kernel's
	# doing, not the unwinder's
	! grep -q -v "cut at the recording's depth limit" "$TMP/op.err" ||
		{ cat -A "$TMP/op.err"; fail "opreport $* warned on a clean session"; }; }

op -c >"$TMP/c.txt"
op --format=folded >"$TMP/folded.txt"
op --format=pprof -o "$TMP/p.pb.gz"
op --no-unwind --format=folded >"$TMP/fp.txt"
go tool pprof -sample_index=samples -traces "$TMP/p.pb.gz" >"$TMP/traces.txt" 2>"$TMP/go.err" ||
	{ cat "$TMP/go.err"; fail "go tool pprof cannot read the pprof file"; }

python3 - "$TMP" <<'EOP'
import os, re, sys
sys.path.insert(0, os.environ["OPJIT_SOURCE"] + "/tests/opreport")
import cg_text
tmp = sys.argv[1]
bad = 0
truth = dict(l.split() for l in open(tmp + "/truth.txt"))
ta, tb = float(truth["path_a"]), float(truth["path_b"])
want = 100.0 * ta / (ta + tb)
print("workload: path_a %.2f%% of its CPU time in the two paths" % want)

def shares(name, a, b, expect=True):
    """path_a's share of hot's samples under path_a and path_b."""
    global bad
    t = a + b
    ok = t >= 1000 and abs(100.0 * a / t - want) <= 2
    print("%s: %s path_a %.2f%% path_b %.2f%% (%d samples)"
          % ("ok" if ok == expect else "FAIL", name,
             100.0 * a / t if t else 0, 100.0 * b / t if t else 0, t))
    bad |= ok != expect

# -c: the callers above hot's unindented line
callers = cg_text.callers(tmp + "/c.txt", "hot")
shares("opreport -c", callers.get("path_a", 0), callers.get("path_b", 0))

def folded(path):
    """Samples of stacks through main;path_X;hot, the memcpy below
    hot included; samples whose user leaf is memcpy, and those of them
    whose stack is whole (from main through a path and hot)."""
    n = {"path_a": 0, "path_b": 0}
    memcpy = whole = 0
    for line in open(path):
        stack, count = line.rsplit(" ", 1)
        frames = [re.sub(r" \[[^]]*\]$", "", f) for f in stack.split(";")
                  if not f.endswith("_[k]")]
        through = False
        for i in range(1, len(frames) - 1):
            if frames[i] in n and frames[i + 1] == "hot" and \
               frames[i - 1] == "main":
                n[frames[i]] += int(count)
                through = i + 3 == len(frames)
        if "memcpy" in frames[-1] and "_dl_" not in stack:
            memcpy += int(count)
            whole += int(count) if through else 0
    return n, memcpy, whole

n, memcpy, whole = folded(tmp + "/folded.txt")
shares("folded", n["path_a"], n["path_b"])
# hot's time is memcpy's: most of the stacks go through it
if memcpy * 2 < n["path_a"] + n["path_b"]:
    print("FAIL: folded: only %d of hot's samples in memcpy" % memcpy)
    bad = 1
ok = whole * 100 >= memcpy * 99
print("%s: folded: %d of %d samples in memcpy with their whole stack"
      % ("ok" if ok else "FAIL", whole, memcpy))
bad |= not ok
n, _, _ = folded(tmp + "/fp.txt")
shares("folded --no-unwind (frame pointers alone)", n["path_a"],
       n["path_b"], expect=False)

# go tool pprof -traces: blocks of "COUNT leaf" then the callers
pa = pb = 0
for value, frames in cg_text.pprof_traces(tmp + "/traces.txt"):
    for i in range(len(frames) - 1):
        if frames[i] == "hot":
            pa += value if frames[i + 1] == "path_a" else 0
            pb += value if frames[i + 1] == "path_b" else 0
shares("go tool pprof -traces", pa, pb)
sys.exit(bad)
EOP
echo PASS
