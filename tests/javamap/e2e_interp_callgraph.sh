#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Interpreted Java callers named from stack copies: Deep on a JVM with
# -XX:+PreserveFramePointer and the agent, recorded by oprofiled
# --callgraph=dwarf; left() and right() stay interpreted (the
# interpreter's code, "Interpreter" to javamap, is each one's frame) and
# call the compiled leaf().  The folded stacks ending in Deep.leaf must
# name Deep.left and Deep.right as its callers, left's share within 3
# points of the share of CPU time Deep itself measured under left.
. "$(dirname "$0")/lib.sh"
jm_need_java
jm_need_profiler
jm_workdir
cd "$JM_WORK"

map=
trap 'rm -rf "$JM_WORK" $map' EXIT

"$JM_OPROFILED" --callgraph=dwarf --session-dir="$JM_WORK/s" -- java \
	-XX:+PreserveFramePointer -XX:CompileCommand=quiet \
	-XX:CompileCommand=exclude,Deep::left \
	-XX:CompileCommand=exclude,Deep::right \
	-XX:CompileCommand=dontinline,Deep::* \
	-agentpath:"$JM_AGENT" -cp classes Deep 6 \
	>"$JM_WORK/s.out" 2>"$JM_WORK/s.err" ||
	fail "oprofiled --callgraph=dwarf failed: $(cat "$JM_WORK/s.err")"
expect_grep "^deep done$" "$JM_WORK/s.out" "Deep did not run to its end"
jm_report "$JM_WORK/s" -l --format=json >"$JM_WORK/s.json" 2>"$JM_WORK/s.lerr" ||
	fail "opreport -l failed: $(cat "$JM_WORK/s.lerr")"
# grep stops at head's first line: its SIGPIPE is no failure
tgid=$(jm_tgid "$JM_WORK/s.json" || true)
[ -n "$tgid" ] || fail "opreport named no JIT code of Deep with javamap"
map=/tmp/anon.$tgid
jm_report "$JM_WORK/s" --format=folded >"$JM_WORK/s.folded" 2>"$JM_WORK/s.ferr" ||
	fail "opreport --format=folded failed: $(cat "$JM_WORK/s.ferr")"
truth=$(sed -n 's/^deep left_ns=\([0-9]*\) right_ns=\([0-9]*\)$/\1 \2/p' "$JM_WORK/s.out")
[ -n "$truth" ] || fail "Deep printed no CPU times: $(cat "$JM_WORK/s.out")"

python3 - "$JM_WORK/s.folded" $truth <<'PY' || fail "Deep's interpreted callers are not named"
import sys
callers = {}
in_kernel = {}
for line in open(sys.argv[1]):
    stack, count = line.rsplit(" ", 1)
    frames = stack.split(";")
    # a sample taken in the kernel (an interrupt in leaf's code) ends
    # in kernel frames; its Java callers are named all the same
    user = [f for f in frames if not f.endswith("_[k]")]
    if not user[-1].startswith("Deep.leaf(long) [javamap]") or len(user) < 2:
        continue
    c = user[-2].split(" [")[0]
    callers[c] = callers.get(c, 0) + int(count)
    if len(user) < len(frames):
        in_kernel[c] = in_kernel.get(c, 0) + int(count)
total = sum(callers.values())
l = callers.get("Deep.left()", 0)
r = callers.get("Deep.right()", 0)
print("callers of Deep.leaf:", sorted(callers.items(), key=lambda x: -x[1])[:5])
if total < 1000:
    sys.exit("only %d samples in Deep.leaf" % total)
if l + r < 0.8 * total:
    sys.exit("only %d of %d samples of Deep.leaf have Deep.left or "
             "Deep.right as their caller" % (l + r, total))
kt = sum(in_kernel.values())
kn = in_kernel.get("Deep.left()", 0) + in_kernel.get("Deep.right()", 0)
print("callers of Deep.leaf in samples taken in the kernel:",
      sorted(in_kernel.items(), key=lambda x: -x[1])[:3])
if kt < 10:
    print("note: only %d samples of Deep.leaf were taken in the kernel; "
          "their callers are not judged" % kt)
elif kn < 0.9 * kt:
    sys.exit("only %d of the %d samples of Deep.leaf taken in the kernel "
             "have Deep.left or Deep.right as their caller" % (kn, kt))
tl, tr = int(sys.argv[2]), int(sys.argv[3])
want = 100.0 * tl / (tl + tr)
got = 100.0 * l / (l + r)
print("Deep.left %.1f%% of leaf's named callers; Deep measured %.1f%%"
      % (got, want))
if abs(got - want) > 3:
    sys.exit("left's share %.1f%% is not %.1f%% within 3 points"
             % (got, want))
PY
echo PASS
