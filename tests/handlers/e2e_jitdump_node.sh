#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# node --perf-prof, whose jitdump (./jit-<pid>.dump, mmapped executable)
# opjit reads directly: the hot JS function fib must be named by the
# jitdump handler, with a share within 3 points of what the perfmap
# handler gives from the perf map the same node run wrote beside it
# (--perf-basic-prof: the same samples, named the other way), its
# rows' source file fib.js, and the dump must be kept in the session and
# read without a warning.
. "$(dirname "$0")/e2e_lib.sh"
need_cmd node nodejs

# run MODE FLAGS HANDLER: profile fib.js with node's FLAGS (words),
# report with HANDLER.  Two seconds: the shares compared below are of the
# same samples named two ways, so a longer run makes them no surer.
run() {
	# shellcheck disable=SC2086 # FLAGS are words
	(cd "$tmp/$1" && "$oprofiled" --session-dir="$tmp/$1/s" -- \
		node $2 "$here/fib.js" 2) >"$tmp/$1.out" 2>&1 ||
		show_fail "$tmp/$1.out" "oprofiled failed on node $2"
	"$opreport" --session-dir="$tmp/$1/s" -l --format=json \
		--anon-handler="$3" >"$tmp/$1.json" 2>"$tmp/$1.err" ||
		show_fail "$tmp/$1.err" "opreport failed on node $2"
	forget_maps_of $(report_pids "$tmp/$1.json")
}

# fib_share MODE HANDLER: "FIB_SAMPLES TOTAL PERCENT"
fib_share() {
	python3 - "$tmp/$1.json" "$2" <<'PY'
import json, re, sys
# V8's names for fib at any tier: JS:*fib (optimised), JS:~fib, ...
pat = re.compile(r'^(JS|LazyCompile|Function):[*~^+]?fib( |$)')
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    rep = json.load(f)
n = sum(r["samples"] for r in rep["symbols"]
        if r.get("handler") == sys.argv[2] and pat.search(r["symbol"] or ""))
total = rep["total_samples"]
print(n, total, f"{100.0 * n / total if total else 0:.2f}")
PY
}

mkdir -p "$tmp/prof"
run prof "--perf-prof --perf-basic-prof" jitdump
ls "$tmp/prof"/jit-*.dump >/dev/null 2>&1 ||
	fail "node --perf-prof wrote no jit-<pid>.dump in its working directory"
ls "$tmp/prof/s/maps"/*/jit-*.dump.gz >/dev/null 2>&1 ||
	fail "the session kept no copy of node's jitdump"
[ ! -s "$tmp/prof.err" ] || show_fail "$tmp/prof.err" \
	"warnings about node's jitdump"
# fib's line tables name fib.js: node 20 writes some of their file names
# from freed memory, which must not come out as files of their own
"$opreport" --session-dir="$tmp/prof/s" -l -g -f --format=json \
	--anon-handler=jitdump >"$tmp/prof.g.json" 2>"$tmp/prof.g.err" ||
	show_fail "$tmp/prof.g.err" "opreport -g failed on node's jitdump"
python3 - "$tmp/prof.g.json" "$here/fib.js" <<'PY' || fail "fib's rows do not name fib.js"
import json, re, sys
pat = re.compile(r'^(JS|LazyCompile|Function):[*~^+]?fib( |$)')
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    rep = json.load(f)
rows = [r for r in rep["symbols"]
        if r.get("handler") == "jitdump" and pat.search(r["symbol"] or "")]
named = sum(r["samples"] for r in rows if r.get("file") == sys.argv[2])
other = [(r["symbol"], r.get("file")) for r in rows
         if r.get("file") not in (None, sys.argv[2])]
total = sum(r["samples"] for r in rows)
print(f"fib's samples in rows naming fib.js: {named} of {total}")
for sym, f in other:
    print(f"FAIL: {sym} names the file {f!r}")
sys.exit(1 if other or named * 100 < total * 90 else 0)
PY
# the same session through the perf map: a share that differs can only
# come from naming, not from how node's run went on a busy machine
"$opreport" --session-dir="$tmp/prof/s" -l --format=json \
	--anon-handler=perfmap >"$tmp/basic.json" 2>"$tmp/basic.err" ||
	show_fail "$tmp/basic.err" "opreport --anon-handler=perfmap failed"
read -r jd_n jd_total jd_pct < <(fib_share prof jitdump)
read -r pm_n pm_total pm_pct < <(fib_share basic perfmap)
echo "fib share: jitdump $jd_pct% ($jd_n of $jd_total)," \
	"perfmap $pm_pct% ($pm_n of $pm_total)"
[ "$jd_n" -gt 0 ] || fail "the jitdump handler named no fib rows"
[ "$pm_n" -gt 0 ] || fail "the perfmap handler named no fib rows"
python3 - "$jd_pct" "$pm_pct" <<'PY'
import sys
jd, pm = float(sys.argv[1]), float(sys.argv[2])
if abs(jd - pm) > 3.0:
    sys.exit(f"FAIL: fib at {jd:.2f}% through jitdump, {pm:.2f}% "
             "through perfmap: more than 3 points apart")
PY
echo "node --perf-prof: fib named, within 3 points of its perf map"

# with call chains: fib's JIT frames, callers included, are named by the
# dump through the same batches, so fib's recursion shows as a run of
# named fib frames above node's own code
mkdir -p "$tmp/cg"
(cd "$tmp/cg" && "$oprofiled" -g --session-dir="$tmp/cg/s" -- node \
	--perf-prof --interpreted-frames-native-stack "$here/fib.js" 2) \
	>"$tmp/cg.out" 2>&1 || show_fail "$tmp/cg.out" "oprofiled -g failed on node --perf-prof"
"$opreport" --session-dir="$tmp/cg/s" --format=folded --anon-handler=jitdump \
	>"$tmp/cg.folded" 2>"$tmp/cg.err" ||
	show_fail "$tmp/cg.err" "opreport --format=folded failed on node's jitdump"
python3 - "$tmp/cg.folded" <<'PY' || fail "fib's callers are not named in node's stacks"
import re, sys
fib = re.compile(r'^(JS|LazyCompile|Function):[*~^+]?fib .*\[jitdump\]_\[j\]$')
total = leaf = deep = 0
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    total += int(count)
    if not fib.match(frames[-1]):
        continue
    leaf += int(count)
    # fib recurses: above a fib leaf, at least two fib callers named
    if len(frames) >= 3 and all(fib.match(f) for f in frames[-3:]):
        deep += int(count)
print(f"samples in fib: {leaf} of {total}; with two fib callers named: {deep}")
# how much of the run is fib depends on node's start-up and the machine;
# that fib's own samples have their callers named does not
sys.exit(0 if leaf * 100 >= total * 5 and deep * 100 >= leaf * 90 else 1)
PY
# the session keeps only the dump's records its samples and frames need:
# the report from that copy is the report from the whole dump (the live
# file, which the handler reads once the copy is gone), and it is smaller
copy=$(ls "$tmp/cg/s/maps"/*/jit-*.dump.gz)
live=$(ls "$tmp/cg"/jit-*.dump)
kept=$(gzip -dc "$copy" | wc -c)
whole=$(wc -c <"$live")
mv "$copy" "$tmp/cg/copy.gz"
"$opreport" --session-dir="$tmp/cg/s" --format=folded --anon-handler=jitdump \
	>"$tmp/cg.live.folded" 2>"$tmp/cg.live.err" ||
	show_fail "$tmp/cg.live.err" "opreport failed on the live jitdump"
cmp -s <(sort "$tmp/cg.folded") <(sort "$tmp/cg.live.folded") ||
	fail "the session's trimmed dump names stacks otherwise than the whole dump"
[ "$kept" -lt "$whole" ] || fail "the session's dump kept $kept of $whole bytes"
echo "the session's dump: $kept of the dump's $whole bytes, the same stacks named"
echo "node --perf-prof -g: fib's JIT callers named through the dump"
