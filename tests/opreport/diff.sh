#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Differential profiles.  Two runs of a workload whose split moves from
# 75/25 to 50/50: threetoone (C) and split.js (node, its functions named
# by the perfmap handler, so JIT code is matched by name across runs).
# opreport -l --diff and OProfile's "{ } { }" must show about -25 points
# on the heavy function and +25 on the light one, in text, csv, json,
# folded (two counts a stack) and pprof (go tool pprof -diff_base).
# Malformed differential arguments: one line, exit 1.
. "$(dirname "$0")/lib.sh"
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
WORKLOAD=$OPJIT_BUILD/tests/workloads/threetoone
[ -x "$OPROFILED" ] || fail "$OPROFILED is not built"
[ -x "$WORKLOAD" ] || fail "$WORKLOAD is not built"
command -v node >/dev/null || { echo "SKIP: node is not installed"; exit 77; }
command -v go >/dev/null || { echo "SKIP: go is not installed (golang-go)"; exit 77; }

record() { # DIR COMMAND...
	local dir=$1; shift
	(cd "$TMP" && "$OPROFILED" --session-dir="$dir" -- "$@" \
		>"$dir.out" 2>&1) || { cat "$dir.out"; fail "oprofiled $* failed"; }
}

# change ROWS_FILE SYMBOL_REGEX: the change of the rows whose symbol
# matches, summed (a JS function has a row a tier: interpreted,
# baseline, optimized)
change() {
	awk -v re="$2" 'NF > 6 && ($NF ~ re || $(NF-1) ~ re) { s += $5; n++ }
		END { if (!n) exit 1; printf "%.4f\n", s }' "$1" ||
		{ cat "$1" >&2; echo "FAIL: no row for /$2/" >&2; echo nan; }
}

# near VALUE WANT: |VALUE - WANT| <= 5 points
near() {
	python3 -c "import sys; sys.exit(not abs(float('$1') - float('$2')) <= 5)" ||
		fail "change $1 is not within 5 points of $2"
}

# a second each: some 4,000 samples a run at 4 kHz, where the changes
# are held to 5 points
record "$TMP/c1" "$WORKLOAD" 1cpu 3
record "$TMP/c2" "$WORKLOAD" 1cpu 1

"$OPREPORT" -l --session-dir="$TMP/c2" --diff="$TMP/c1" >"$TMP/c.txt" ||
	fail "opreport --diff failed"
grep -q "^baseline  $TMP/c1: [0-9]* samples$" "$TMP/c.txt" ||
	{ cat "$TMP/c.txt"; fail "no baseline line"; }
near "$(change "$TMP/c.txt" '^heavy_work$')" -25
near "$(change "$TMP/c.txt" '^light_work$')" 25
# the largest change comes first
sed -n 6,7p "$TMP/c.txt" | grep -q _work ||
	{ cat "$TMP/c.txt"; fail "the two changed functions are not first"; }
echo "ok: C, --diff: heavy_work -25, light_work +25"

# OProfile's form gives the same rows
"$OPREPORT" -l { session:"$TMP/c1" } { session:"$TMP/c2" } >"$TMP/c2.txt" ||
	fail "opreport { } { } failed"
diff <(sed 1,2d "$TMP/c.txt") <(sed 1,2d "$TMP/c2.txt") ||
	fail "{ session:A } { session:B } differs from --diff"
"$OPREPORT" -l --session-dir="$TMP/c2" { session:"$TMP/c1" } {} \
	>"$TMP/c3.txt" || fail "opreport { } {} failed"
diff <(sed 1,2d "$TMP/c.txt") <(sed 1,2d "$TMP/c3.txt") ||
	fail "{ session:A } {} differs from --diff"
echo "ok: { session:A } { session:B } and { session:A } {}"

"$OPREPORT" -l --session-dir="$TMP/c2" --diff="$TMP/c1" --format=csv \
	>"$TMP/c.csv" || fail "csv failed"
head -1 "$TMP/c.csv" | grep -qx \
	'base samples,base %,samples,%,change,kind,image,symbol,status' ||
	{ head -1 "$TMP/c.csv"; fail "csv header"; }
"$OPREPORT" -l --session-dir="$TMP/c2" --diff="$TMP/c1" --format=json \
	>"$TMP/c.json" || fail "json failed"
python3 - "$TMP/c.csv" "$TMP/c.json" <<'PY' || fail "csv or json rows"
import csv, json, sys
rows = {r["symbol"]: r for r in csv.DictReader(open(sys.argv[1]))}
doc = json.load(open(sys.argv[2]))["diff"]
jrows = {r["symbol"]: r for r in doc["rows"]}
for sym, want in (("heavy_work", -25), ("light_work", 25)):
    c, j = float(rows[sym]["change"]), jrows[sym]["change"]
    assert abs(c - want) <= 5 and abs(j - c) < 1e-3, (sym, c, j)
    assert jrows[sym]["status"] == "both"
    p = jrows[sym]["profile"]
    assert abs(p["percent"] - 100.0 * p["samples"] / doc["profile"]["samples"]) < 1e-3
print("csv and json agree")
PY
echo "ok: csv and json"

"$OPREPORT" --session-dir="$TMP/c2" --diff="$TMP/c1" --format=folded \
	>"$TMP/c.folded" || fail "folded failed"
awk 'NF < 3 || $(NF-1) !~ /^[0-9]+$/ || $NF !~ /^[0-9]+$/ { bad = 1 }
	END { exit bad }' "$TMP/c.folded" ||
	{ cat "$TMP/c.folded"; fail "folded lines are not 'stack base profile'"; }
python3 - "$TMP/c.folded" <<'PY' || fail "folded counts"
import sys
base, prof = {}, {}
for line in open(sys.argv[1]):
    stack, a, b = line.rsplit(" ", 2)
    base[stack], prof[stack] = int(a), int(b)
h = [s for s in base if s.startswith("heavy_work ")]
l = [s for s in base if s.startswith("light_work ")]
assert len(h) == 1 and len(l) == 1, (h, l)
hb, lb, hp, lp = base[h[0]], base[l[0]], prof[h[0]], prof[l[0]]
assert abs(hb / (hb + lb) - 0.75) < 0.05 and abs(hp / (hp + lp) - 0.5) < 0.05
PY
echo "ok: folded has both counts a stack"

"$OPREPORT" --session-dir="$TMP/c2" --diff="$TMP/c1" --format=pprof \
	-o "$TMP/c.pb.gz" 2>"$TMP/pprof.err" || fail "pprof failed"
grep -q "go tool pprof -diff_base=$TMP/c.pb.gz.base $TMP/c.pb.gz" \
	"$TMP/pprof.err" || { cat "$TMP/pprof.err"; fail "no pprof hint"; }
# -normalize: the base scaled to the profile's total, so that the
# difference is the shares' (a busy machine gives either run other CPU)
go tool pprof -top -normalize -diff_base="$TMP/c.pb.gz.base" "$TMP/c.pb.gz" \
	>"$TMP/top.txt" 2>"$TMP/go.err" || { cat "$TMP/go.err"; fail "go tool pprof"; }
python3 - "$TMP/top.txt" <<'PY' || { cat "$TMP/top.txt"; fail "pprof diff"; }
import re, sys
flat = {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*(-?[0-9.]+)(us|ms|s)\s.*\s(\S+)$", line)
    if m:
        v = float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
        flat[m.group(3)] = v
assert flat["light_work"] > 0 > flat["heavy_work"], flat
PY
echo "ok: go tool pprof -diff_base: light_work up, heavy_work down"

# node: JIT code matched by name although the pids differ.  The perf
# maps node leaves in /tmp go with the test (the sessions keep copies).
trap 'for f in "$TMP"/n*.pid; do
	[ -f "$f" ] && e2e_rm_maps "/tmp/perf-$(cat "$f").map"; done; rm -rf "$TMP"' EXIT
record "$TMP/n1" sh -c 'echo $$ >"$0.pid"; exec node --perf-basic-prof "$1" 2 3' \
	"$TMP/n1" "$HERE/split.js"
record "$TMP/n2" sh -c 'echo $$ >"$0.pid"; exec node --perf-basic-prof "$1" 2 1' \
	"$TMP/n2" "$HERE/split.js"
"$OPREPORT" -l --session-dir="$TMP/n2" --diff="$TMP/n1" \
	--anon-handler=perfmap >"$TMP/n.txt" 2>"$TMP/n.err" ||
	{ cat "$TMP/n.err"; fail "node --diff failed"; }
grep -q 'jit:perfmap (node) .*heavyJs' "$TMP/n.txt" ||
	{ cat "$TMP/n.txt"; fail "heavyJs is not one JIT row"; }
# node's own threads (compiler, GC) take a share that a loaded machine
# changes, so the split of the two functions is what must move from
# 75/25 to 50/50; their changes must have the right signs
python3 - "$TMP/n.txt" <<'PY' || { cat "$TMP/n.txt"; fail "node split"; }
import sys
base, prof = {"heavyJs": 0, "lightJs": 0}, {"heavyJs": 0, "lightJs": 0}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 6 and f[0].isdigit():
        for fn in base:
            if fn in line:
                base[fn] += int(f[0]); prof[fn] += int(f[2])
hb = base["heavyJs"] / (base["heavyJs"] + base["lightJs"])
hp = prof["heavyJs"] / (prof["heavyJs"] + prof["lightJs"])
print(f"heavyJs: {100*hb:.1f}% of the two, then {100*hp:.1f}%")
assert abs(hb - 0.75) < 0.05 and abs(hp - 0.5) < 0.05
PY
# the change is in points of each session's whole, of which the two are
# a part a loaded machine shrinks (0.25 of 40% is 10 points): 5 points
# is a move, whatever the noise
c=$(change "$TMP/n.txt" 'heavyJs')
python3 -c "import sys; sys.exit(not float('$c') < -5)" ||
	fail "heavyJs change $c is not a fall"
c=$(change "$TMP/n.txt" 'lightJs')
python3 -c "import sys; sys.exit(not float('$c') > 5)" ||
	fail "lightJs change $c is not a rise"
echo "ok: node, JIT symbols: heavyJs 75% -> 50% of the two, lightJs up"

# bad arguments: one line, exit 1
bad() { # LINE ARGS...
	local want=$1; shift
	if "$OPREPORT" "$@" >"$TMP/bad.out" 2>"$TMP/bad.err"; then
		fail "opreport $* succeeded"
	fi
	[ "$(cat "$TMP/bad.err")" = "$want" ] ||
		{ cat "$TMP/bad.err"; fail "opreport $*: not '$want'"; }
}
bad 'opreport: bad differential profile: expected "{ ... } { ... }"' \
	-l { session:"$TMP/c1" }
bad "opreport: bad differential profile: 'image:x' outside \"{ }\"" \
	-l { session:"$TMP/c1" } image:x { }
bad 'opreport: --diff and "{ } { }" are two ways to say the same: give one' \
	-l --diff="$TMP/c1" { } { }
bad 'opreport: a differential profile compares symbols: -c and -d do not apply' \
	-d --diff="$TMP/c1" --session-dir="$TMP/c2"
bad "opreport: cannot open session $TMP/nothing: No such file or directory" \
	-l --diff="$TMP/nothing" --session-dir="$TMP/c2"
echo "ok: bad differential arguments"
