#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole chain on a JVM: oprofiled records Hot with the agent, opreport
# names its samples through the javamap handler.  The two hot methods'
# shares must agree with JDK Flight Recorder's execution samples of the
# same workload within 10 points, and -g must show their source lines.
. "$(dirname "$0")/lib.sh"
jm_need_java
jm_need_profiler
command -v jfr >/dev/null ||
	skip "no jfr on PATH (install openjdk-17-jdk-headless)"
jm_workdir
cd "$JM_WORK"

secs=4
jm_profile "$JM_WORK/s" java -agentpath:"$JM_AGENT" -cp classes Hot $secs
expect_grep '^hot done$' "$JM_WORK/s.out" "Hot did not run to its end"
jm_report "$JM_WORK/s" -l --format=json >"$JM_WORK/l.json" \
	2>"$JM_WORK/l.err" ||
	fail "opreport -l failed: $(cat "$JM_WORK/l.err")"
tgid=$(jm_tgid "$JM_WORK/l.json")
[ -n "$tgid" ] || fail "opreport named no JIT code with javamap:" \
	"$(head -c 600 "$JM_WORK/l.json")"
trap 'rm -rf "$JM_WORK" "/tmp/anon.$tgid"' EXIT

java -XX:StartFlightRecording=filename="$JM_WORK/hot.jfr",settings=profile \
	-cp classes Hot $secs >/dev/null 2>"$JM_WORK/jfr.err" ||
	fail "java with JFR failed: $(cat "$JM_WORK/jfr.err")"
jfr print --events jdk.ExecutionSample "$JM_WORK/hot.jfr" \
	>"$JM_WORK/jfr.txt" || fail "jfr print failed"

python3 - "$JM_WORK/l.json" "$JM_WORK/jfr.txt" <<'PY' || fail "shares disagree"
import json, sys

rep = json.load(open(sys.argv[1]))
# opjit: shares among the samples the javamap handler named in the JVM
jit = [r for r in rep["symbols"] if r.get("handler") == "javamap"]
total = sum(r["samples"] for r in jit)
ours = {}
for r in jit:
    ours[r["symbol"]] = ours.get(r["symbol"], 0) + r["samples"]

# JFR: the top frame of each execution sample
tops, expect_top = [], False
for line in open(sys.argv[2]):
    line = line.strip()
    if line.startswith("stackTrace = ["):
        expect_top = True
    elif expect_top:
        tops.append(line.split(" line:")[0])
        expect_top = False
jfr = {m: tops.count(m) for m in set(tops)}

if total < 1000 or len(tops) < 100:
    print(f"too few samples: opjit {total}, jfr {len(tops)}")
    sys.exit(1)
ok = True
for m in ("Hot.alpha(long)", "Hot.beta(long)"):
    a = 100.0 * ours.get(m, 0) / total
    b = 100.0 * jfr.get(m, 0) / len(tops)
    print(f"{m}: opjit {a:.1f}% of {total}, JFR {b:.1f}% of {len(tops)}")
    if abs(a - b) > 10:
        ok = False
# and the workload's own truth: alpha does three times beta's work
ratio = ours.get("Hot.alpha(long)", 0) / max(ours.get("Hot.beta(long)", 0), 1)
print(f"alpha/beta = {ratio:.2f} (work ratio 3)")
if not 2 <= ratio <= 4.5:
    ok = False
sys.exit(0 if ok else 1)
PY

# -g: the symbols carry their first line, the samples lines of their body
jm_report "$JM_WORK/s" -l -g >"$JM_WORK/g.txt" 2>"$JM_WORK/g.err" ||
	fail "opreport -l -g failed: $(cat "$JM_WORK/g.err")"
a0=$(line_of "$JM_JAVA_SRC/Hot.java" 'static long alpha')
b0=$(line_of "$JM_JAVA_SRC/Hot.java" 'static long beta')
m0=$(line_of "$JM_JAVA_SRC/Hot.java" 'public static void main')
expect_grep "Hot\.java:$((a0 + 1)) .* Hot\.alpha\(long\)$" "$JM_WORK/g.txt" \
	"alpha's line with -g"
expect_grep "Hot\.java:$((b0 + 1)) .* Hot\.beta\(long\)$" "$JM_WORK/g.txt" \
	"beta's line with -g"
jm_report "$JM_WORK/s" -d -g --format=json >"$JM_WORK/dg.json" \
	2>"$JM_WORK/dg.err" ||
	fail "opreport -d -g failed: $(cat "$JM_WORK/dg.err")"
why="per-sample lines outside the methods"
python3 - "$JM_WORK/dg.json" "$a0" "$b0" "$m0" <<'PY' || fail "$why"
import json, sys

rep = json.load(open(sys.argv[1]))
a0, b0, m0 = map(int, sys.argv[2:5])
body = {"Hot.alpha(long)": (a0, b0), "Hot.beta(long)": (b0, m0)}
ok = True
for r in rep["symbols"]:
    if r["symbol"] not in body:
        continue
    lo, hi = body[r["symbol"]]
    lines = {}
    for d in r["details"] or []:
        if d.get("line"):
            lines[d["line"]] = lines.get(d["line"], 0) + d["samples"]
    inside = sum(n for l, n in lines.items() if lo < l < hi)
    total = sum(lines.values())
    print(f'{r["symbol"]}: lines {sorted(lines)}, '
          f'{inside} of {total} samples in its body')
    # every sample with a line lies in the method's own body
    if not total or inside != total:
        ok = False
sys.exit(0 if ok else 1)
PY
echo "$JM_NAME: ok"
