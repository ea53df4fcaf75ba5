#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The timeline by thread of native code: twothreads recorded with
# oprofiled --separate=thread, its two workers running native functions
# (no JIT sample at all).  timeline-csv and timeline-json under
# --separate=thread give each worker rows of its own, with no row and no
# note of samples without a thread; each worker's samples agree with its
# own CPU time (CLOCK_THREAD_CPUTIME_ID, which the workload prints) and
# are those of its rows in `opreport -l --separate=thread`; the rows of a
# bucket add up to its unsplit row; the page's Threads rows (headless
# Chromium) are the same threads with the same samples.
. "$(dirname "$0")/lib.sh"
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
bin=$OPJIT_BUILD/tests/workloads/twothreads
[ -x "$OPROFILED" ] && [ -x "$bin" ] || fail "oprofiled or twothreads is not built"

cd "$TMP"
timeout 120 "$OPROFILED" --separate=thread --session-dir=s -- "$bin" 2 >out.txt 2>err.txt ||
	{ cat err.txt; fail "oprofiled --separate=thread twothreads failed"; }
# thread TID NAME FUNCTION CPU_NS, one line a worker
read -r _ atid _ _ acpu < <(grep '^thread [0-9]* tt-alpha ' out.txt)
read -r _ btid _ _ bcpu < <(grep '^thread [0-9]* tt-beta ' out.txt)
[ -n "${atid:-}" ] && [ -n "${btid:-}" ] || fail "the workload printed no threads: $(cat out.txt)"

run() { # OUT ARGS...: opreport ARGS into OUT, which must say nothing
	local o=$1; shift
	"$OPREPORT" --session-dir=s "$@" >"$o" 2>op.err || { cat op.err; fail "opreport $* failed"; }
	[ ! -s op.err ] || { cat op.err; fail "opreport $* said something"; }
}
run split.csv --format=timeline-csv --separate=thread
run split.json --format=timeline-json --separate=thread
run plain.csv --format=timeline-csv
run l.csv -l --separate=thread --format=csv
run page.html --format=html

python3 - "$atid" "$acpu" "$btid" "$bcpu" <<'EOP' || fail "the native timeline by thread"
import collections, csv, json, sys
atid, acpu, btid, bcpu = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
bad = 0
def check(ok, what):
    global bad
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    bad |= not ok
split = list(csv.DictReader(open("split.csv")))
plain = list(csv.DictReader(open("plain.csv")))
by_tid = collections.Counter()
for r in split:
    by_tid[r["tid"]] += int(r["samples"])
check("" not in by_tid, "no row without a thread: %d samples" % by_tid.get("", 0))
rows = collections.Counter()
for r in csv.DictReader(open("l.csv")):
    rows[r["tid"]] += int(r["samples"])
for name, tid, cpu in (("tt-alpha", atid, acpu), ("tt-beta", btid, bcpu)):
    n = by_tid[tid]
    # 4000 Hz of the thread's own CPU time: cpu-clock counts the task's
    # time, so busy neighbours do not change it; 15% below for samples
    # the kernel throttled or lost, 5% above for the few after the
    # clock read
    want = cpu * 4000 // 10**9
    check(want * 0.85 <= n <= want * 1.05,
          "%s (%s): %d samples in its timeline rows, %d for its %.3f s of CPU"
          % (name, tid, n, want, cpu / 1e9))
    check(n == rows[tid], "%s: the samples of its -l rows, %d" % (name, rows[tid]))
    buckets = sum(1 for r in split if r["tid"] == tid)
    check(buckets >= cpu / 1e9 / 0.1 * 0.5, "%s: in %d buckets" % (name, buckets))
cells = collections.Counter()
for r in split:
    cells[(r["time_s"], r["process"], r["tgid"])] += int(r["samples"])
check(cells == collections.Counter({(r["time_s"], r["process"], r["tgid"]): int(r["samples"])
                                   for r in plain}),
      "the rows of each bucket add up to its unsplit row (%d rows, %d unsplit)"
      % (len(split), len(plain)))
j = json.load(open("split.json"))
names = [p["name"] for p in j["processes"]]
check([("%.3f" % t, names[p], str(n), "" if tid is None else str(tid))
       for t, p, n, tid in j["buckets"]] ==
      [(r["time_s"], r["process"], r["samples"], r["tid"]) for r in split],
      "timeline-json holds the csv's rows")
sys.exit(bad)
EOP

if ! command -v chromium >/dev/null; then
	echo "SKIP: chromium is not installed: the page's rows by thread were not checked"
	exit 77
fi
. "$(dirname "$0")/page_check.sh"
page "$TMP/page.html" "&threads=1"
python3 - "$TMP/check.json" "$atid" "$btid" <<'EOP' || fail "the page's rows by thread"
import collections, csv, json, sys
c = json.load(open(sys.argv[1]))
want = collections.Counter()
for r in csv.DictReader(open("split.csv")):
    want["%s tid %s" % (r["process"], r["tid"])] += int(r["samples"])
th = c.get("threads")
got = {r["name"]: r["samples"] for r in th["rows"]} if th else None
ok = got is not None and all(got.get("twothreads tid %s" % t) == want["twothreads tid %s" % t]
                             for t in sys.argv[2:4]) and \
    sum(got.values()) == th["total"] == sum(want.values()) and not c["errors"] and not c["requests"]
print("%s: the page's rows by thread %s, the csv's %s" % ("ok" if ok else "FAIL", got, dict(want)))
sys.exit(not ok)
EOP
echo PASS
