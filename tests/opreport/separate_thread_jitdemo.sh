#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Per-thread views on a real recording: jitdemo --threads 2, recorded
# flat and with -g.  Under --separate=thread each worker thread jitdemo
# printed has JIT rows, they add up to what tid:N selects, and the
# threads of each function add up to its unsplit row.  tid:N also holds
# in the call graph: the folded stacks, the pprof file (read by go tool
# pprof) and the JSON call graph (-c's model) of tid:N count exactly the
# JIT samples tid:N selects, so one thread's stacks leave the other's out.
. "$(dirname "$0")/lib.sh"
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
export OPJIT_HANDLER_PATH=$HP
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
JIT=$OPJIT_BUILD/tests/workloads/jitdemo
[ "$(uname -m)" = x86_64 ] || skip "jitdemo writes x86-64 code; this is $(uname -m)"
[ -x "$OPROFILED" ] && [ -x "$JIT" ] || fail "oprofiled or jitdemo is not built"
[ -f "$HP/libperfmap.so" ] || skip "$HP/libperfmap.so is not built"

# jitdemo's maps, by the pids its sessions archived: no other test's
cleanup_maps() {
	e2e_forget_jit_maps "$TMP/flat" "$TMP/g"
	rm -rf "$TMP"
}
trap cleanup_maps EXIT

rep() { "$OPREPORT" --session-dir="$S" --anon-handler=perfmap "$@"; }
for mode in flat g; do
	S=$TMP/$mode
	args=()
	[ "$mode" = g ] && args=(-g)
	timeout 60 "$OPROFILED" "${args[@]}" --session-dir="$S" -- \
		"$JIT" --seconds 2 --threads 2 >"$TMP/$mode.out" 2>"$TMP/$mode.err" ||
		{ cat "$TMP/$mode.err"; fail "oprofiled $mode failed"; }
	mapfile -t tids < <(awk '$1 == "thread" { print $2 }' "$TMP/$mode.out")
	[ "${#tids[@]}" = 2 ] ||
		{ cat "$TMP/$mode.out"; fail "$mode: jitdemo printed ${#tids[@]} threads, not 2"; }
	rep -l --separate=thread --format=csv >"$TMP/$mode.sep.csv" 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "$mode: -l --separate=thread failed"; }
	rep -l --format=csv >"$TMP/$mode.all.csv" 2>/dev/null ||
		fail "$mode: -l failed"
	for t in "${tids[@]}"; do
		rep --format=json "tid:$t" >"$TMP/$mode.tid$t.json" 2>/dev/null ||
			fail "$mode: tid:$t failed"
		rep --format=folded "tid:$t" >"$TMP/$mode.tid$t.folded" 2>/dev/null ||
			fail "$mode: folded tid:$t failed"
		[ "$mode" = g ] || continue
		rep -c "tid:$t" >"$TMP/$mode.tid$t.c" 2>/dev/null ||
			fail "$mode: -c tid:$t failed"
		grep -q jit_hot "$TMP/$mode.tid$t.c" ||
			{ cat "$TMP/$mode.tid$t.c"; fail "$mode: -c tid:$t has no jit_hot"; }
		if command -v go >/dev/null; then
			rep --format=pprof -o "$TMP/$mode.tid$t.pb.gz" "tid:$t" 2>/dev/null ||
				fail "$mode: pprof tid:$t failed"
			go tool pprof -sample_index=samples -top -nodecount=1 \
				"$TMP/$mode.tid$t.pb.gz" >"$TMP/$mode.tid$t.top" 2>"$TMP/go.err" ||
				{ cat "$TMP/go.err"; fail "go tool pprof cannot read tid:$t's pprof"; }
		else
			echo "note: go is not installed: the pprof tid:$t check is not run"
		fi
	done
	python3 - "$TMP" "$mode" "${tids[@]}" <<'EOP' || fail "$mode: the threads do not add up"
import csv, json, re, sys
d, mode, tids = sys.argv[1], sys.argv[2], sys.argv[3:]
bad = 0
def check(ok, what):
    global bad
    print("%s: %s: %s" % ("ok" if ok else "FAIL", mode, what))
    bad |= not ok
def rows(name):
    return [r for r in csv.DictReader(open("%s/%s.%s.csv" % (d, mode, name)))
            if r["row"] == "symbol"]
sep, whole = rows("sep"), rows("all")
jit = [r for r in sep if r["kind"] == "jit"]
check({r["tid"] for r in jit} == set(tids),
      "JIT rows of threads %s, jitdemo's workers %s"
      % (sorted({r["tid"] for r in jit}), sorted(tids)))
for t in tids:
    mine = sum(int(r["samples"]) for r in sep if r["tid"] == t)
    sel = json.load(open("%s/%s.tid%s.json" % (d, mode, t)))
    check(mine == sel["total_samples"] and mine > 0,
          "thread %s: rows add to %d, tid:%s selects %d"
          % (t, mine, t, sel["total_samples"]))
    for fn in ("jit_hot", "jit_cold"):
        check(any(r["symbol"] == fn and r["tid"] == t for r in jit),
              "thread %s has a %s row" % (t, fn))
    # the call graph of tid:N: the same samples, and only that thread's
    folded = 0
    for line in open("%s/%s.tid%s.folded" % (d, mode, t)):
        stack, n = line.rsplit(" ", 1)
        folded += int(n)
        leaf = stack.split(";")[-1]
        check(re.match(r"jit_(hot|cold)\b", leaf) is not None,
              "thread %s: folded leaf %s is JIT code" % (t, leaf))
    check(folded == sel["total_samples"],
          "thread %s: folded stacks hold %d samples, tid:%s selects %d"
          % (t, folded, t, sel["total_samples"]))
    if mode == "g":
        try:
            top = open("%s/%s.tid%s.top" % (d, mode, t)).read()
            m = re.search(r"of (\d+) total", top)
            check(m is not None and int(m.group(1)) == sel["total_samples"],
                  "thread %s: pprof holds %s samples, tid:%s selects %d"
                  % (t, m.group(1) if m else "no", t, sel["total_samples"]))
        except FileNotFoundError:
            pass
        cg = sel["callgraph"]
        own = sum(n["self"] for n in cg["nodes"])
        check(own == sel["total_samples"],
              "thread %s: call graph nodes hold %d samples, tid:%s "
              "selects %d" % (t, own, t, sel["total_samples"]))
def by_row(rs):
    out = {}
    for r in rs:
        k = (r["kind"], r["image"], r["app"], r["tgid"], r["symbol"])
        out[k] = out.get(k, 0) + int(r["samples"])
    return out
split, unsplit = by_row(sep), by_row(whole)
for k in sorted(set(split) | set(unsplit)):
    check(split.get(k) == unsplit.get(k), "%s in %s: threads add to %s, "
          "unsplit %s" % (k[4], k[1], split.get(k), unsplit.get(k)))
check(sum(int(r["samples"]) for r in jit) ==
      sum(int(w["samples"]) for w in whole if w["kind"] == "jit"),
      "JIT rows: the split and the whole hold the same samples")
sys.exit(bad)
EOP
done
ok "--separate=thread and tid: agree with the threads jitdemo ran, flat and -g"
