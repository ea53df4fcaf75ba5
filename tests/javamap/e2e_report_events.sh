#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The JVM's events through the whole chain: oprofiled records a JVM whose
# agent samples allocations and contended monitor enters, archives its
# log, and opreport --event=alloc and --event=lock sum them by stack: the
# shares the workloads make (3:1 by bytes, 3:1 by time held) within 5
# points, in text, CSV and folded stacks.
. "$(dirname "$0")/lib.sh"
jm_need_java
jm_need_profiler
jm_workdir
cd "$JM_WORK"
OPREPORT=$OPJIT_BUILD/opreport/opreport

# profile NAME OPTS CLASS ARGS...: the session $JM_WORK/NAME
profile() {
	jm_profile "$JM_WORK/$1" java -agentpath:"$JM_AGENT=$2" -cp classes \
		"${@:3}"
	local map
	map=$(ls "$JM_WORK/$1"/maps/*/anon.*.gz 2>/dev/null | head -n 1)
	[ -n "$map" ] || fail "the session $1 archived no javamap"
	map=${map##*/anon.}
	rm -f "/tmp/anon.${map%.gz}"
}

# share CSV LEAF: the percent column's sum over the rows ending in LEAF
share() {
	python3 - "$1" "$2" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(round(sum(float(r["percent"]) for r in rows
		if r["stack"].split(";")[-1] == sys.argv[2]), 1))
PY
}

# jshare JSON LEAF: the percent key's sum over the stacks ending in LEAF,
# once the document passed events.schema.json
jshare() {
	python3 - "$1" "$2" "$OPJIT_SOURCE" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[3] + "/tests/opreport")
from json_check import validate
doc = json.load(open(sys.argv[1]))
errors = []
validate(doc, json.load(open(sys.argv[3] + "/opreport/events.schema.json")),
	 "$", errors)
if errors:
	print("; ".join(errors))
	sys.exit(1)
print(round(sum(s["percent"] for s in doc["stacks"]
		if s["frames"][-1] == sys.argv[2]), 1))
PY
}

within() {
	awk -v a="$1" -v b="$2" -v p="$3" \
		'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= p) }'
}

profile a alloc Alloc 1000000
"$OPREPORT" --session-dir=a --event=alloc >a.txt 2>a.err ||
	fail "opreport --event=alloc failed: $(cat a.err)"
expect_grep '^Allocations: [0-9]+ bytes estimated from [0-9]+ samples$' \
	a.txt "the alloc report's header"
expect_grep '^[0-9]+ +[0-9.]+ +[0-9]+ +Alloc\.main\(java\.lang\.String\[\]\);Alloc\.longs\(\);long\[\]$' \
	a.txt "long[] under longs() in the text report"
"$OPREPORT" --session-dir=a --event=alloc --format=csv >a.csv ||
	fail "opreport --event=alloc --format=csv failed"
s=$(share a.csv 'long[]')
within "$s" 75 5 || fail "long[] has $s% of the bytes, not 75 +- 5"
"$OPREPORT" --session-dir=a --event=alloc --format=folded >a.folded ||
	fail "opreport --event=alloc --format=folded failed"
expect_grep '^Alloc\.main\(java\.lang\.String\[\]\);Alloc\.doubles\(\);double\[\] [0-9]+$' \
	a.folded "double[] under doubles() in folded stacks"
# 4 M objects of 1024 bytes: the estimate within 5 %
bytes=$(sed -n 's/^Allocations: \([0-9]*\) bytes.*/\1/p' a.txt)
within "$bytes" 4096000000 204800000 ||
	fail "$bytes bytes estimated for 4096000000 allocated"
"$OPREPORT" --session-dir=a --event=alloc --format=json >a.json ||
	fail "opreport --event=alloc --format=json failed"
js=$(jshare a.json 'long[]') || fail "a.json: $js"
within "$js" 75 5 || fail "json: long[] has $js% of the bytes, not 75 +- 5"
[ "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d["total"]["weight"], d["units"]["weight"], d["units"]["count"])' \
	a.json)" = "$bytes bytes objects" ] ||
	fail "a.json's total or units differ from the text's $bytes bytes"
# the page: its data block names the allocation sites, weighed in bytes
"$OPREPORT" --session-dir=a --event=alloc --format=html -o a.html ||
	fail "opreport --event=alloc --format=html failed"
python3 - a.html "$bytes" <<'PY' || fail "a.html lacks the allocation sites"
import json, re, sys
page = open(sys.argv[1]).read()
d = json.loads(re.search(r'id="opjit-data">(.*?)</script>', page, re.S)[1])
names = set(d["strings"])
want = {"Alloc.longs()", "Alloc.doubles()", "long[]", "double[]"}
assert want <= names, want - names
assert d["unit"] == "bytes" and d["total"] == int(sys.argv[2]), d["total"]
# the weights of the stacks (count, depth, frames...) sum to the total
i, w = 0, 0
while i < len(d["stacks"]):
	w += d["stacks"][i]
	i += 2 + d["stacks"][i + 1]
assert w == d["total"], (w, d["total"])
PY
echo "alloc: long[] ${s}% (json ${js}%), $bytes bytes estimated of 4096000000"

profile l lock=1000000 Contend 20
"$OPREPORT" --session-dir=l --event=lock --format=csv >l.csv ||
	fail "opreport --event=lock --format=csv failed"
s=$(share l.csv 'Contend$LockA')
# the truth: the share of the time the workload held LockA
held=$(sed -n 's/^held \([0-9]*\) \([0-9]*\)$/\1 \2/p' "$JM_WORK/l.out")
[ -n "$held" ] || fail "Contend did not say how long it held the locks"
want=$(echo "$held" | awk '{ printf "%.1f\n", 100 * $1 / ($1 + $2) }')
within "$s" "$want" 5 || fail "LockA has $s% of the time waited, not $want +- 5"
n=$(python3 -c 'import csv,sys
print(sum(int(r["contentions"]) for r in csv.DictReader(open(sys.argv[1]))))' l.csv)
# a waiter descheduled past the whole hold (a loaded machine) never
# contends: most of the 40 must, none beyond them
[ "$n" -ge 36 ] && [ "$n" -le 40 ] || fail "$n contentions, not 36 to 40"
"$OPREPORT" --session-dir=l --event=lock --format=json >l.json ||
	fail "opreport --event=lock --format=json failed"
js=$(jshare l.json 'Contend$LockA') || fail "l.json: $js"
within "$js" "$want" 5 || fail "json: LockA has $js%, not $want +- 5"
[ "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d["total"]["count"], d["units"]["weight"])' l.json)" = "$n nanoseconds" ] ||
	fail "l.json's contentions or unit differ from the CSV's $n"
echo "lock: LockA ${s}% (json ${js}%) of the time waited (held ${want}%) in $n contentions"

# pprof with Go's sample types
if command -v go >/dev/null; then
	"$OPREPORT" --session-dir=a --event=alloc --format=pprof -o a.pb.gz ||
		fail "opreport --event=alloc --format=pprof failed"
	"$OPREPORT" --session-dir=l --event=lock --format=pprof -o l.pb.gz ||
		fail "opreport --event=lock --format=pprof failed"
	go tool pprof -sample_index=alloc_space -top a.pb.gz >a.top 2>&1 ||
		fail "go tool pprof cannot read a.pb.gz: $(cat a.top)"
	p=$(awk '$NF == "long[]" { sub("%", "", $2); print $2 }' a.top)
	within "${p:-0}" 75 5 || fail "pprof alloc_space: long[] ${p:-none}%"
	go tool pprof -sample_index=alloc_objects -top a.pb.gz >ao.top 2>&1 ||
		fail "pprof alloc_objects: $(cat ao.top)"
	expect_grep ' Alloc\.doubles\(\)$' ao.top "doubles() in alloc_objects"
	go tool pprof -sample_index=delay -top l.pb.gz >l.top 2>&1 ||
		fail "go tool pprof cannot read l.pb.gz: $(cat l.top)"
	p=$(awk '$NF == "Contend$LockA" { sub("%", "", $2); print $2 }' l.top)
	within "${p:-0}" "$want" 5 || fail "pprof delay: LockA ${p:-none}%, held $want%"
	go tool pprof -sample_index=contentions -top l.pb.gz >lc.top 2>&1 ||
		fail "pprof contentions: $(cat lc.top)"
	expect_grep '^ +(18|19|20) .*Contend\$LockB$' lc.top "LockB's contentions"
	echo "pprof: alloc_space, alloc_objects, delay, contentions read"
else
	echo "pprof: not checked here, no go on PATH (install golang-go)" >&2
fi

"$OPREPORT" --session-dir=l --event=lock --format=html -o l.html ||
	fail "opreport --event=lock --format=html failed"
expect_grep '"unit":"ns"' l.html "the lock page's unit"
expect_grep '"Contend\$LockA"' l.html "LockA on the lock page"

# differential text: against itself every change is 0; against a session
# without allocation samples (l) every stack is new, its change its share
"$OPREPORT" --session-dir=a --event=alloc --diff=a >d0.txt ||
	fail "opreport --event=alloc --diff=a failed"
awk 'NR > 2 { n++; if ($1 != $3 || $5 != 0) bad++ }
	END { exit !(n > 0 && !bad) }' d0.txt ||
	fail "a self-diff with a change: $(cat d0.txt)"
"$OPREPORT" --session-dir=a --event=alloc --diff=l >d1.txt 2>d1.err ||
	fail "opreport --event=alloc --diff=l failed"
awk 'NR > 2 { n++; s += $5; if ($1 != 0 || $5 != $4) bad++ }
	$NF == "Alloc.main(java.lang.String[]);Alloc.longs();long[]" { l = $5 }
	END { exit !(n > 0 && !bad && s > 99.9 && s < 100.1 && l > 70 && l < 80) }' \
	d1.txt || fail "the diff against no allocations: $(cat d1.txt)"
"$OPREPORT" --event=alloc "{" session:l "}" "{" session:a "}" >d2.txt ||
	fail "opreport --event=alloc { session:l } { session:a } failed"
cmp -s d1.txt d2.txt || fail "{ } { } and --diff differ"
echo "diff: long[] new at $(awk '$NF ~ /longs\(\);long\[\]$/ { print $5 }' d1.txt) points"

# the other formats give the text's rows: CSV and JSON with a status,
# folded the two counts of a differential flame graph
"$OPREPORT" --session-dir=a --event=alloc --diff=l --format=csv >d1.csv ||
	fail "opreport --event=alloc --diff=l --format=csv failed"
"$OPREPORT" --event=alloc "{" session:l "}" "{" session:a "}" \
	--format=json >d1.json || fail "the differential JSON failed"
"$OPREPORT" --session-dir=a --event=alloc --diff=a --format=folded >d0.folded ||
	fail "opreport --event=alloc --diff=a --format=folded failed"
python3 - d1.txt d1.csv d1.json d0.folded a.folded "$OPJIT_SOURCE" <<'PY' ||
import csv, json, sys
txt, csvf, js, d0, af, src = sys.argv[1:7]
sys.path.insert(0, src + "/tests/opreport")
from json_check import validate
text = {}
for line in open(txt).readlines()[2:]:
    f = line.split(None, 5)
    text[f[5].rstrip("\n")] = (int(f[0]), int(f[2]), float(f[4]))
rows = list(csv.DictReader(open(csvf)))
assert {r["stack"]: (int(r["base bytes"]), int(r["bytes"]), float(r["change"]))
        for r in rows} == text, "the CSV's rows are not the text's"
assert all(r["status"] == "new" for r in rows), "a stack of l not new"
doc = json.load(open(js))
errors = []
validate(doc, json.load(open(src + "/opreport/events_diff.schema.json")), "$", errors)
assert not errors, errors
assert {";".join(s["frames"]): (s["baseline"]["weight"], s["profile"]["weight"],
        s["change"]) for s in doc["stacks"]} == text, "the JSON's rows are not the text's"
assert doc["baseline"]["total"]["weight"] == 0 and doc["profile"]["total"]["weight"] == \
    sum(v[1] for v in text.values())
want = {l.rsplit(" ", 1)[0]: int(l.rsplit(" ", 1)[1]) for l in open(af)}
got = {}
for l in open(d0):
    stack, b, n = l.rsplit(" ", 2)
    assert int(b) == int(n), "a self-diff with two counts: " + l
    got[stack] = int(n)
assert got == want, "the folded self-diff is not the folded report"
print("diff: csv, json and folded give the text's %d stacks" % len(text))
PY
	fail "the differential CSV, JSON or folded report differs from the text"
"$OPREPORT" --session-dir=a --event=alloc --diff=l --format=pprof -o d.pb.gz \
	2>dp.err || fail "the differential pprof failed: $(cat dp.err)"
[ -s d.pb.gz ] && [ -s d.pb.gz.base ] || fail "no d.pb.gz and d.pb.gz.base"
expect_grep '^opreport: compare with: go tool pprof -diff_base=d\.pb\.gz\.base d\.pb\.gz$' \
	dp.err "the pprof comparison command"
if command -v go >/dev/null; then
	go tool pprof -sample_index=alloc_space -diff_base=d.pb.gz.base -top \
		d.pb.gz >d.top 2>&1 || fail "go tool pprof -diff_base: $(cat d.top)"
	expect_grep ' long\[\]$' d.top "long[] in the pprof difference"
fi
# the differential page: Alloc at 3:1 against a baseline run at 1:1;
# long[] grew from half the bytes to three quarters (red), double[]
# shrank (blue), each frame's own bytes on both sides the CSV's
profile a1 alloc Alloc 400000 1
"$OPREPORT" --session-dir=a --event=alloc --diff=a1 --format=html -o d.html ||
	fail "opreport --event=alloc --diff --format=html failed"
"$OPREPORT" --session-dir=a --event=alloc --diff=a1 --format=csv >d2.csv ||
	fail "opreport --event=alloc --diff=a1 --format=csv failed"
if command -v chromium >/dev/null; then
	TMP=$JM_WORK
	. "$OPJIT_SOURCE/tests/opreport/page_check.sh"
	no_url d.html
	page "$JM_WORK/d.html" ""
	python3 - "$JM_WORK/check.json" d2.csv <<'PY' ||
import csv, json, re, sys
c = json.load(open(sys.argv[1]))
rows = {}
for r in csv.DictReader(open(sys.argv[2])):
    w = rows.setdefault(r["stack"].split(";")[-1], [0, 0])
    w[0] += int(r["bytes"])
    w[1] += int(r["base bytes"])
assert c["base"] and c["base"]["total"] > 0, "not a differential page"
assert "bytes" in c["base"]["status"], c["base"]["status"]
for leaf, hue, sign in (("long[]", 0, 1), ("double[]", 220, -1)):
    got = c["base"]["self"].get(leaf)
    want = rows.get(leaf)
    assert got == want, "%s: page %s, csv %s" % (leaf, got, want)
    # the site's frame (a rare stack may hold the class elsewhere)
    fs = [d for d in c["drawn"] if d["name"] == leaf]
    assert fs, leaf + " not drawn"
    f = max(fs, key=lambda d: d["samples"])
    m = re.match(r"hsl\((\d+),", f["fill"])
    assert m and int(m[1]) == hue and f["change"] * sign > 15, (leaf, f["fill"], f["change"])
assert not c["errors"] and not c["requests"], (c["errors"], c["requests"])
print("page: long[] %+.1f, double[] %+.1f points" % tuple(max(
    (d for d in c["drawn"] if d["name"] == l), key=lambda d: d["samples"])["change"]
    for l in ("long[]", "double[]")))
PY
		fail "the differential allocation page drew the wrong colours or bytes"
else
	fail "the differential page cannot be checked: no chromium on PATH (test.sh installs it)"
fi
# an event opreport does not know: one line
"$OPREPORT" --session-dir=l --event=heap >/dev/null 2>e.err &&
	fail "--event=heap did not fail"
[ "$(wc -l <e.err)" = 1 ] || fail "not one line: $(cat e.err)"
expect_grep "^opreport: invalid --event 'heap': expected cpu, alloc or lock$" \
	e.err "the line for --event=heap"
echo "e2e_report_events: ok"
