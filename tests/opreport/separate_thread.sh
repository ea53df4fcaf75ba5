#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Per-thread views: --separate=thread splits the JIT rows by the thread
# each sample carries, in text, csv and json, each thread's rows adding
# up to what tid:N selects and the threads of a symbol to its unsplit
# row; native rows (histograms keep no thread) show none, and one line
# says so.
. "$(dirname "$0")/lib.sh"
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -f "$HP/libperfmap.so" ] || skip "$HP/libperfmap.so is not built"

mkdir "$TMP/maps"
printf '7f0000000100 80 JS:*fib\n' >"$TMP/maps/perf-300.map"
chmod 644 "$TMP/maps/perf-300.map"
S=$TMP/s
{
	echo "separate process"
	echo "image app file $RT/rt_g_pie"
	echo "ctx a app app tgid 300"
	echo "hist a $(off "$RT/rt_g_pie" rt_alpha) 6"
	echo "process p 300 $(id -u) jitdemo /usr/bin/jitdemo start_unix_ns 1 range 0x7f0000000000-0x7f0000100000"
	# fib: 2 on thread 300, 3 on 301; unnamed: 1 on 300, 1 on 302
	t=1
	for s in 100:300 110:301 900:300 104:301 120:300 900:302 110:301; do
		echo "anon p $t 0x7f0000000${s%%:*} ${s##*:}"
		t=$((t + 1))
	done
	echo "archive p $TMP/maps/perf-300.map"
} | "$MKSESSION" "$S"
rep() {
	OPJIT_HANDLER_PATH=$HP "$OPREPORT" --session-dir="$S" \
		--anon-handler=perfmap "$@"
}
note="opreport: note: native samples are not kept per thread: --separate=thread splits only JIT (anonymous) rows, and native rows show no thread (tid -); record with oprofiled --separate=thread"

rep -l --separate=thread --format=csv >"$TMP/sep.csv" 2>"$TMP/sep.err" ||
	{ cat "$TMP/sep.err"; fail "opreport -l --separate=thread --format=csv failed"; }
[ "$(grep -cxF "$note" "$TMP/sep.err")" = 1 ] ||
	{ cat "$TMP/sep.err"; fail "no one line that native rows have no thread"; }
rep -l --format=csv >"$TMP/all.csv" 2>/dev/null || fail "opreport -l --format=csv failed"
head -1 "$TMP/all.csv" | grep -q ',tid,' && fail "a tid column without --separate=thread"
for t in 300 301 302 999; do
	rep --format=json "tid:$t" >"$TMP/tid$t.json" 2>/dev/null ||
		fail "opreport tid:$t failed"
done
python3 - "$TMP" <<'EOP' || fail "the per-thread rows do not add up"
import csv, json, sys
d = sys.argv[1]
sep = [r for r in csv.DictReader(open(d + "/sep.csv")) if r["row"] == "symbol"]
whole = [r for r in csv.DictReader(open(d + "/all.csv")) if r["row"] == "symbol"]
bad = 0
def check(ok, what):
    global bad
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    bad |= not ok
got = {(r["symbol"], r["tid"]): int(r["samples"]) for r in sep}
want = {("JS:*fib", "300"): 2, ("JS:*fib", "301"): 3,
        ("(unknown)", "300"): 1, ("(unknown)", "302"): 1, ("rt_alpha", ""): 6}
check(got == want, "rows by (symbol, thread) %s, expected %s" % (got, want))
check(len(got) == len(sep), "one row a (symbol, thread)")
check(all(r["tid"] for r in sep if r["kind"] in ("jit", "anon")),
      "every JIT row has its thread")
check(all(not r["tid"] for r in sep if r["kind"] in ("file", "kernel")),
      "no native row has a thread")
for t in ("300", "301", "302", "999"):
    rows = sum(int(r["samples"]) for r in sep if r["tid"] == t)
    sel = json.load(open("%s/tid%s.json" % (d, t)))["total_samples"]
    check(rows == sel, "thread %s: rows add to %d, tid:%s selects %d"
          % (t, rows, t, sel))
for w in whole:
    split = sum(int(r["samples"]) for r in sep if r["symbol"] == w["symbol"])
    check(split == int(w["samples"]), "%s: threads add to %d, unsplit %s"
          % (w["symbol"], split, w["samples"]))
check(len(whole) == 3, "3 unsplit rows")
sys.exit(bad)
EOP

# text: a tid column in -l, "-" for the native row; (tid:N) in the summary
rep -l --separate=thread >"$TMP/sep.txt" 2>/dev/null || fail "text -l failed"
grep -Eq '^samples +% +tid +image name' "$TMP/sep.txt" ||
	{ cat "$TMP/sep.txt"; fail "text -l: no tid column"; }
grep -Eq '^3 +[0-9.]+ +301 +jit:perfmap .* JS:\*fib$' "$TMP/sep.txt" ||
	{ cat "$TMP/sep.txt"; fail "text -l: no row of fib on thread 301"; }
grep -Eq '^6 +[0-9.]+ +- +rt_g_pie .*rt_alpha$' "$TMP/sep.txt" ||
	{ cat "$TMP/sep.txt"; fail "text -l: the native row is not marked without a thread"; }
rep --separate=thread >"$TMP/sum.txt" 2>/dev/null || fail "text summary failed"
for t in 300 301 302; do
	grep -q "jit:perfmap (tgid:300 jitdemo) (tid:$t)$" "$TMP/sum.txt" ||
		{ cat "$TMP/sum.txt"; fail "summary: no line of thread $t"; }
done
# json: the same rows, tid null on the native one
rep -l --separate=thread --format=json >"$TMP/sep.json" 2>/dev/null ||
	fail "json failed"
python3 - "$TMP/sep.json" <<'EOP' || fail "json rows by thread"
import json, sys
rows = json.load(open(sys.argv[1]))["symbols"]
got = sorted((r["symbol"], r["tid"], r["samples"]) for r in rows)
want = sorted([("JS:*fib", 300, 2), ("JS:*fib", 301, 3), ("(unknown)", 300, 1),
               ("(unknown)", 302, 1), ("rt_alpha", None, 6)])
print("json rows", got)
sys.exit(got != want)
EOP
# -d: each thread's row has its own addresses
rep -l -d --separate=thread --format=csv >"$TMP/det.csv" 2>/dev/null ||
	fail "-d failed"
python3 - "$TMP/det.csv" <<'EOP' || fail "-d details by thread"
import csv, sys
got = sorted((r["tid"], r["vma"], int(r["samples"]))
             for r in csv.DictReader(open(sys.argv[1]))
             if r["row"] == "detail" and r["symbol"] == "JS:*fib")
want = [("300", "0x7f0000000100", 1), ("300", "0x7f0000000120", 1),
        ("301", "0x7f0000000104", 1), ("301", "0x7f0000000110", 2)]
print("fib details", got)
sys.exit(got != want)
EOP
# unclaimed buckets split the same way
"$OPREPORT" --session-dir="$S" --anon-samples -l --separate=thread \
	--format=csv >"$TMP/anon.csv" 2>/dev/null || fail "--anon-samples failed"
python3 - "$TMP/anon.csv" <<'EOP' || fail "anonymous buckets by thread"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["row"] == "symbol" and r["kind"] == "anon"]
got = sorted((r["tid"], int(r["samples"])) for r in rows)
print("buckets", got)
sys.exit(got != [("300", 3), ("301", 3), ("302", 1)])
EOP

# refused with one line each
refuse() {
	local want=$1; shift
	"$OPREPORT" --session-dir="$S" "$@" >"$TMP/out" 2>"$TMP/err" &&
		fail "opreport $* accepted"
	[ "$(cat "$TMP/err")" = "$want" ] ||
		{ cat "$TMP/err"; fail "opreport $*: not the one line expected"; }
}
refuse "opreport: invalid --separate 'cpu': expected thread or none (processes and CPUs are separated when recording: oprofiled --separate)" \
	--separate=cpu
refuse "opreport: --separate=thread splits the rows of the summary, -l (text, csv, json) and the timelines (timeline-csv, timeline-json): -c, --children, a differential profile, --event and the other formats do not apply (tid:N selects one thread's stacks)" \
	--separate=thread --format=folded
refuse "opreport: --separate=thread and --merge=tid (or tgid, all) say opposite things: give one" \
	--separate=thread -m tid
ok "--separate=thread splits JIT rows by thread in text, csv and json"
