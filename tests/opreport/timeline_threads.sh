#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The timeline by thread: --separate=thread splits each (bucket, process)
# row of timeline-csv and timeline-json into a row per thread of its JIT
# samples (which carry their thread) and one row of its counted samples,
# which have none (an empty tid in csv, null in json), with one line
# saying so; the rows of a cell add up to its unsplit row, and without
# the option the rows and columns are as they were.
. "$(dirname "$0")/lib.sh"

S=$TMP/s
"$MKSESSION" "$S" <<'EOF'
separate process
image app file /usr/bin/app
ctx a app app tgid 300
process p 300 0 jitdemo /usr/bin/jitdemo range 0x7f0000000000-0x7f0000100000
clock 50001000
hist a 0x10 4
anon p 60000000 0x7f0000000100 300
anon p 70000000 0x7f0000000100 301
anon p 80000000 0x7f0000000100 301
clock 150001000
hist a 0x10 2
anon p 160000000 0x7f0000000100 302
anon p 250000000 0x7f0000000100 300
EOF
note="opreport: note: native samples are not kept per thread: --separate=thread splits only JIT (anonymous) rows, and native rows show no thread (tid -)"

tl() {
	"$OPREPORT" --session-dir="$S" "$@" >"$TMP/out" 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "opreport $* failed"; }
}

tl --format=timeline-csv
cp "$TMP/out" "$TMP/plain.csv"
[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "timeline-csv said something"; }
diff -u - "$TMP/plain.csv" <<'EOF' || fail "timeline-csv without --separate changed"
time_s,process,tgid,samples
0.000,jitdemo,300,3
0.000,app,300,4
0.100,jitdemo,300,1
0.100,app,300,2
0.200,jitdemo,300,1
EOF

tl --format=timeline-csv --separate=thread
cp "$TMP/out" "$TMP/thread.csv"
[ "$(cat "$TMP/err")" = "$note" ] || { cat "$TMP/err"; fail "timeline-csv by thread: not the one note"; }
diff -u - "$TMP/thread.csv" <<'EOF' || fail "timeline-csv --separate=thread"
time_s,process,tgid,samples,tid
0.000,jitdemo,300,1,300
0.000,jitdemo,300,2,301
0.000,app,300,4,
0.100,jitdemo,300,1,302
0.100,app,300,2,
0.200,jitdemo,300,1,300
EOF

tl --format=timeline-json --separate=thread
cp "$TMP/out" "$TMP/thread.json"
[ "$(cat "$TMP/err")" = "$note" ] || { cat "$TMP/err"; fail "timeline-json by thread: not the one note"; }
tl --format=timeline-json
cp "$TMP/out" "$TMP/plain.json"
# a window: slice 1 alone
tl --format=timeline-csv --separate=thread --time=0.1,0.2
cp "$TMP/out" "$TMP/win.csv"

python3 - "$TMP" <<'EOP' || fail "the timelines by thread do not add up"
import collections, csv, json, os, sys
d = sys.argv[1]
def rows(name):
    return list(csv.DictReader(open(os.path.join(d, name))))
plain, thread = rows("plain.csv"), rows("thread.csv")
cells = collections.Counter()
for r in thread:
    cells[(r["time_s"], r["process"], r["tgid"])] += int(r["samples"])
ok = cells == collections.Counter({(r["time_s"], r["process"], r["tgid"]): int(r["samples"])
                                  for r in plain})
pj, tj = json.load(open(os.path.join(d, "plain.json"))), json.load(open(os.path.join(d, "thread.json")))
ok = ok and pj["processes"] == tj["processes"] and all(len(b) == 3 for b in pj["buckets"])
ok = ok and all(len(b) == 4 for b in tj["buckets"])
jc = collections.Counter()
for t, p, n, tid in tj["buckets"]:
    jc[(t, p)] += n
ok = ok and jc == collections.Counter({(t, p): n for t, p, n in pj["buckets"]})
# the json rows are the csv rows: tid null where csv's is empty
names = [p["name"] for p in tj["processes"]]
ok = ok and [("%.3f" % t, names[p], str(n), "" if tid is None else str(tid))
             for t, p, n, tid in tj["buckets"]] == \
    [(r["time_s"], r["process"], r["samples"], r["tid"]) for r in thread]
win = rows("win.csv")
ok = ok and [(r["process"], r["samples"], r["tid"]) for r in win] == \
    [("jitdemo", "1", "302"), ("app", "2", "")]
print("%s: %d rows by thread, %d unsplit, json %d, window %s" %
      ("ok" if ok else "FAIL", len(thread), len(plain), len(tj["buckets"]),
       [(r["process"], r["samples"], r["tid"]) for r in win]))
sys.exit(not ok)
EOP

# the formats --separate=thread does not split still refuse it, one line
if "$OPREPORT" --session-dir="$S" --separate=thread --format=folded >"$TMP/out" 2>"$TMP/err"; then
	fail "--separate=thread --format=folded was taken"
fi
[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "timeline-csv, timeline-json" "$TMP/err" ||
	{ cat "$TMP/err"; fail "--separate=thread --format=folded: not one line naming the timelines"; }
echo "ok: timeline-csv and timeline-json by thread"
