#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Call chains through Java frames: CallTree on a JVM with
# -XX:+PreserveFramePointer and the agent, recorded by oprofiled -g.  The
# folded stacks ending in CallTree.hot must name its Java callers
# (CallTree.a, CallTree.b, through the javamap handler), a three times as
# often as b within 5 points.  Then Inline, whose square() the JIT inlines
# into sum() and whose leaf() it may not: leaf's caller is square, marked
# inlined (_[i]), inside sum's compiled code, in most of leaf's stacks.
. "$(dirname "$0")/lib.sh"
jm_need_java
jm_need_profiler
jm_workdir
cd "$JM_WORK"

maps=()
trap 'rm -rf "$JM_WORK" "${maps[@]}"' EXIT

# folded NAME DONTINLINE CLASS ARGS...: CLASS run to its end under
# oprofiled -g, with frame pointers, the agent and the JIT told not to
# inline DONTINLINE; its stacks, folded, into $JM_WORK/NAME.folded
folded() {
	local name=$1 dontinline=$2 class=$3 tgid
	shift 3
	"$JM_OPROFILED" -g --session-dir="$JM_WORK/$name" -- java \
		-XX:+PreserveFramePointer -XX:CompileCommand=quiet \
		"-XX:CompileCommand=dontinline,$dontinline" \
		-agentpath:"$JM_AGENT" -cp classes "$class" "$@" \
		>"$JM_WORK/$name.out" 2>"$JM_WORK/$name.err" ||
		fail "oprofiled -g failed: $(cat "$JM_WORK/$name.err")"
	expect_grep "^${class,,} done$" "$JM_WORK/$name.out" \
		"$class did not run to its end"
	jm_report "$JM_WORK/$name" -l --format=json >"$JM_WORK/$name.json" \
		2>"$JM_WORK/$name.lerr" ||
		fail "opreport -l failed: $(cat "$JM_WORK/$name.lerr")"
	tgid=$(jm_tgid "$JM_WORK/$name.json")
	[ -n "$tgid" ] || fail "opreport named no JIT code of $class with javamap"
	maps+=("/tmp/anon.$tgid")
	jm_report "$JM_WORK/$name" --format=folded >"$JM_WORK/$name.folded" \
		2>"$JM_WORK/$name.ferr" ||
		fail "opreport --format=folded failed: $(cat "$JM_WORK/$name.ferr")"
}

folded s 'CallTree::*' CallTree 4
python3 - "$JM_WORK/s.folded" <<'PY' || fail "Java caller frames are not named"
import sys
callers = {}
for line in open(sys.argv[1]):
    stack, count = line.rsplit(" ", 1)
    frames = stack.split(";")
    if frames[-1] != "CallTree.hot(long) [javamap]_[j]" or len(frames) < 2:
        continue
    callers[frames[-2]] = callers.get(frames[-2], 0) + int(count)
total = sum(callers.values())
a = callers.get("CallTree.a() [javamap]_[j]", 0)
b = callers.get("CallTree.b() [javamap]_[j]", 0)
print("callers of CallTree.hot:", sorted(callers.items(), key=lambda x: -x[1])[:5])
if total < 1000:
    sys.exit("only %d samples in CallTree.hot" % total)
if a + b < 0.8 * total:
    sys.exit("only %d of %d samples of CallTree.hot have a named Java caller"
             % (a + b, total))
pa = 100.0 * a / (a + b)
print("CallTree.a %.1f%%, CallTree.b %.1f%% of hot's named callers"
      % (pa, 100 - pa))
if abs(pa - 75) > 5:
    sys.exit("a's share %.1f%% is not 75%%" % pa)
PY

folded i Inline::leaf Inline
python3 - "$JM_WORK/i.folded" <<'PY' || fail "the inlined caller is not in leaf's stacks"
import sys
leaf = "Inline.leaf(long) [javamap]_[j]"
square = "Inline.square(long) [javamap]_[i]"
summ = "Inline.sum(int) [javamap]_[j]"
compiled = through = 0
for line in open(sys.argv[1]):
    stack, count = line.rsplit(" ", 1)
    frames = stack.split(";")
    if frames[-1] != leaf or len(frames) < 3:
        continue
    # called from sum's compiled code (not from the interpreter, as
    # before sum is compiled, nor through a broken frame chain)
    if summ in frames[-3:-1]:
        compiled += int(count)
        if frames[-2] == square and frames[-3] == summ:
            through += int(count)
print("leaf: %d samples called from sum's code, %d through square "
      "inlined in sum" % (compiled, through))
if compiled < 50:
    sys.exit("only %d samples of Inline.leaf called from sum's code"
             % compiled)
if through < 0.8 * compiled:
    sys.exit("only %d of %d of them go through square inlined in sum"
             % (through, compiled))
PY
echo PASS
