#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Code-cache reuse: Churn alternates ChurnA and ChurnB, each defined
# afresh and unloaded after its phase, so their compiled code lands in the
# same memory at different times.  The javamap handler must follow time:
# the same address is named ChurnA.work in A's phases and ChurnB.work in
# B's, and the shares match how long each ran.  A timeless view of the
# same map (one name per address, the last code loaded there, as a perf
# map gives) misnames those samples; the test prints by how much.
. "$(dirname "$0")/lib.sh"
jm_need_java
jm_need_profiler
jm_workdir
cd "$JM_WORK"

jm_profile "$JM_WORK/s" java -XX:ReservedCodeCacheSize=8m \
	-agentpath:"$JM_AGENT" -cp classes Churn 24 0.25
truth=$(sed -n \
	's/^churn ran ChurnA \([0-9]*\) ns ChurnB \([0-9]*\) ns$/\1 \2/p' \
	"$JM_WORK/s.out")
[ -n "$truth" ] || fail "Churn did not run to its end: $(cat "$JM_WORK/s.out")"
jm_report "$JM_WORK/s" -d --format=json >"$JM_WORK/d.json" \
	2>"$JM_WORK/d.err" ||
	fail "opreport -d failed: $(cat "$JM_WORK/d.err")"
tgid=$(jm_tgid "$JM_WORK/d.json")
[ -n "$tgid" ] || fail "opreport named no JIT code with javamap:" \
	"$(head -c 600 "$JM_WORK/d.json")"
trap 'rm -rf "$JM_WORK" "/tmp/anon.$tgid"' EXIT
# the map the handler used: the session's copy, else the live file
map=/tmp/anon.$tgid
for m in "$JM_WORK"/s/maps/*/anon."$tgid".gz; do
	if [ -f "$m" ]; then
		map=$JM_WORK/anon.$tgid
		gzip -dc "$m" >"$map" || fail "cannot inflate $m"
	fi
done
"$JM_DUMP" "$map" >"$JM_WORK/dump" 2>"$JM_WORK/dump.err" ||
	fail "jmdump $map: $(cat "$JM_WORK/dump.err")"

why="attribution does not follow time"
python3 - "$JM_WORK/dump" "$JM_WORK/d.json" $truth <<'PY' || fail "$why"
import json, re, sys

dump, rep = sys.argv[1], sys.argv[2]
ran_a, ran_b = int(sys.argv[3]), int(sys.argv[4])
A, B = "ChurnA.work(long)", "ChurnB.work(long)"

codes = []
pat = re.compile(r"^(code|stub) 0x([0-9a-f]+) size=(\d+) load=(\d+) "
                 r"unload=(-?\d+)( replayed)? (.*)$")
for line in open(dump):
    m = pat.match(line.rstrip("\n"))
    if m:
        codes.append((int(m[2], 16), int(m[3]), int(m[4]), m[7]))

# 1. the map shows memory that held A's code and later B's, or the reverse
def overlaps(x, y):
    return x[0] < y[0] + y[1] and y[0] < x[0] + x[1]
reused = sum(1 for x in codes if x[3] == A
             for y in codes if y[3] == B and overlaps(x, y))
print(f"code ranges of ChurnA.work and ChurnB.work that share memory: "
      f"{reused}")

# the time-aware names, per sampled address
named = {}
for r in json.load(open(rep))["symbols"]:
    if r.get("handler") != "javamap":
        continue
    for d in r["details"] or []:
        named.setdefault(int(d["vma"], 16), {}).setdefault(r["symbol"], 0)
        named[int(d["vma"], 16)][r["symbol"]] += d["samples"]

# 2. one address, two names at two times
both = {a: n for a, n in named.items() if n.get(A) and n.get(B)}
both_samples = sum(n[A] + n[B] for n in both.values())
print(f"sampled addresses named ChurnA.work at one time and ChurnB.work "
      f"at another: {len(both)} ({both_samples} samples)")

# 3. shares against the workload's own clock
sa = sum(n.get(A, 0) for n in named.values())
sb = sum(n.get(B, 0) for n in named.values())
share = 100.0 * sa / max(sa + sb, 1)
truth = 100.0 * ran_a / (ran_a + ran_b)
print(f"time-aware: ChurnA {share:.1f}% of {sa + sb} samples in the two "
      f"workers; truth {truth:.1f}%")

# 4. the timeless view: the last code loaded at the address, whenever
def timeless(addr):
    best = None
    for c in codes:
        if c[0] <= addr < c[0] + c[1] and (best is None or c[2] > best[2]):
            best = c
    return best[3] if best else "(unknown)"
wrong = 0
ta = tb = 0
for a, n in named.items():
    t = timeless(a)
    for sym, k in n.items():
        if sym in (A, B):
            wrong += k if t != sym else 0
            ta += k if t == A else 0
            tb += k if t == B else 0
print(f"timeless: ChurnA {100.0 * ta / max(ta + tb, 1):.1f}%, "
      f"{wrong} of {sa + sb} worker samples get another name than the "
      "time-aware view")

ok = (reused > 0 and len(both) > 0 and sa + sb >= 1000 and
      abs(share - truth) <= 10 and wrong > 0)
sys.exit(0 if ok else 1)
PY
echo "$JM_NAME: ok"
