#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Call chains through Java frames: CallTree on a JVM with
# -XX:+PreserveFramePointer and the agent, recorded by oprofiled -g.  The
# folded stacks ending in CallTree.hot must name its Java callers
# (CallTree.a, CallTree.b, through the javamap handler), a three times as
# often as b within 5 points.
. "$(dirname "$0")/lib.sh"
jm_need_java
jm_need_profiler
jm_workdir
cd "$JM_WORK"

"$JM_OPROFILED" -g --session-dir="$JM_WORK/s" -- java -XX:+PreserveFramePointer \
	-XX:CompileCommand=quiet '-XX:CompileCommand=dontinline,CallTree::*' \
	-agentpath:"$JM_AGENT" -cp classes CallTree 4 \
	>"$JM_WORK/s.out" 2>"$JM_WORK/s.err" ||
	fail "oprofiled -g failed: $(cat "$JM_WORK/s.err")"
expect_grep '^calltree done$' "$JM_WORK/s.out" "CallTree did not run to its end"
jm_report "$JM_WORK/s" -l --format=json >"$JM_WORK/l.json" \
	2>"$JM_WORK/l.err" || fail "opreport -l failed: $(cat "$JM_WORK/l.err")"
tgid=$(jm_tgid "$JM_WORK/l.json")
[ -n "$tgid" ] || fail "opreport named no JIT code with javamap"
trap 'rm -rf "$JM_WORK" "/tmp/anon.$tgid"' EXIT
jm_report "$JM_WORK/s" --format=folded >"$JM_WORK/folded.txt" \
	2>"$JM_WORK/f.err" || fail "opreport --format=folded failed: $(cat "$JM_WORK/f.err")"

python3 - "$JM_WORK/folded.txt" <<'PY' || fail "Java caller frames are not named"
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
echo PASS
