#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# --format=html in headless Chromium, opened from disk with every request
# refused: the page's self-check (#selftest) writes what it drew into the
# DOM, which must match the folded output of the same session.
#  - jitdemo (-g, and flat): jit_hot and jit_cold drawn with the shares
#    the folded stacks give (and jit_hot within 3 points of the share
#    of CPU time jitdemo measured itself); search ^jit_ matches their share; zooming into
#    jit_hot draws it full width without jit_cold; reset redraws all.
#  - hostile JIT names (</script>, quotes, control bytes, a 5000-byte
#    name) come back from the page's data as the same text, and the
#    page has no markup of them.
#  - Threads draws the strip a row per thread of jitdemo's JIT samples
#    (and one of its counted samples), the same samples in all.
#  - a drag over the middle half of the strip redraws the graph from
#    that range: flat, exactly the strip's samples there; Reset draws
#    the whole graph again.
#  - the timeline strip (a --phases jitdemo) holds the timeline-csv's
#    samples; a drag over each phase changes the strip, redraws the
#    graph with that phase's function above 95% and the other below 5%
#    and as many samples as the timeline-csv has in the range, and its
#    --time= command reports that phase's function above 95%.
#    A sample's stack is in its flat count's time slice: with -g as
#    without, a range's graph holds exactly the timeline's samples.
#  - no console error, no request, no URL in the file; a screenshot is
#    kept as html_flame.png beside the test.  KEEP=1 keeps the files.
. "$(dirname "$0")/lib.sh"
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
export OPJIT_HANDLER_PATH=$HP
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
JIT=$OPJIT_BUILD/tests/workloads/jitdemo
command -v chromium >/dev/null || { echo "SKIP: chromium is not installed"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "SKIP: jitdemo writes x86-64 code"; exit 77; }
[ -x "$OPROFILED" ] && [ -x "$JIT" ] || fail "oprofiled or jitdemo is not built"

. "$(dirname "$0")/page_check.sh"

# jitdemo's maps, by the pids its sessions archived: no other test's
cleanup_maps() {
	e2e_forget_jit_maps "$TMP/g" "$TMP/flat" "$TMP/phases"
	rm -rf "$TMP"
}
trap cleanup_maps EXIT
[ -z "${KEEP:-}" ] || trap - EXIT
for mode in g flat; do
	args=()
	[ "$mode" = g ] && args=(-g)
	timeout 60 "$OPROFILED" "${args[@]}" --session-dir="$TMP/$mode" -- \
		"$JIT" --seconds 2 --threads 2 >"$TMP/jit.out" 2>"$TMP/jit.err" ||
		{ cat "$TMP/jit.err"; fail "oprofiled $mode failed"; }
	"$OPREPORT" --session-dir="$TMP/$mode" --anon-handler=perfmap \
		--format=folded >"$TMP/$mode.folded" 2>/dev/null ||
		fail "folded $mode failed"
	"$OPREPORT" --session-dir="$TMP/$mode" --anon-handler=perfmap \
		--format=html -o "$TMP/$mode.html" 2>"$TMP/op.err" ||
		{ cat "$TMP/op.err"; fail "html $mode failed"; }
	no_url "$TMP/$mode.html"
	echo "$mode: html $(stat -c %s "$TMP/$mode.html") bytes, folded $(stat -c %s "$TMP/$mode.folded") bytes"
	page "$TMP/$mode.html" "&search=%5Ejit_&zoom=jit_hot&drag=0.25,0.75&threads=1"
	python3 - "$TMP/check.json" "$TMP/$mode.folded" "$mode" "$TMP/jit.out" <<'EOP' || fail "$mode: the page drew the wrong graph"
import json, re, sys
c = json.load(open(sys.argv[1]))
mode = sys.argv[3]
bad = 0
def check(ok, what):
    global bad
    print("%s: %s: %s" % ("ok" if ok else "FAIL", mode, what))
    bad |= not ok
# the truth from the folded lines: each stack's samples once per name
total, under = 0, {}
for line in open(sys.argv[2]):
    stack, n = line.rsplit(" ", 1)
    n = int(n)
    total += n
    names = {re.sub(r" \[[^]]*\](_\[.\])?$|_\[.\]$", "", f) for f in stack.split(";")}
    for name in names:
        under[name] = under.get(name, 0) + n
check(c["total"] == total, "page total %d, folded %d" % (c["total"], total))
drawn = {}
for d in c["drawn"]:
    drawn[d["name"]] = drawn.get(d["name"], 0) + d["share"]
for fn in ("jit_hot", "jit_cold"):
    want = under.get(fn, 0) / total
    check(abs(drawn.get(fn, 0) - want) < 1e-6,
          "%s drawn at %.4f, folded %.4f" % (fn, drawn.get(fn, 0), want))
    check(any(d["name"] == fn and d["text"] == fn for d in c["drawn"]),
          "%s labelled with its name" % fn)
hot, cold = drawn.get("jit_hot", 0), drawn.get("jit_cold", 0)
cpu = {l.split()[1]: float(l.split()[2]) for l in open(sys.argv[4]) if l.startswith("cpu ")}
truth = cpu.get("jit_hot", 0) / max(cpu.get("jit_hot", 0) + cpu.get("jit_cold", 0), 1)
check(hot + cold > 0 and abs(hot / (hot + cold) - truth) <= 0.03,
      "jit_hot %.1f%% of the JIT samples (workload's own CPU time: %.1f%%)"
      % (100 * hot / max(hot + cold, 1e-9), 100 * truth))
s = c["search"]
check(abs(s["share"] - (hot + cold)) < 1e-6 and s["highlighted"] >= 2 and
      "%.2f%%" % (100 * s["share"]) in s["matched"],
      "search ^jit_ matched %.4f (%s), %d frames lit" % (s["share"], s["matched"], s["highlighted"]))
z = c["zoom"]
check(z is not None and z["focus"] == "jit_hot", "zoomed into jit_hot")
if z:
    names = {d["name"] for d in z["drawn"]}
    top = [d for d in z["drawn"] if d["name"] == "jit_hot"]
    check("jit_cold" not in names and top and top[0]["w"] > 1000,
          "zoomed: jit_hot full width (%.0f px), no jit_cold" % (top[0]["w"] if top else 0))
    check(c["reset"]["focus"] == "all" and c["reset"]["drawn"] == len(c["drawn"]),
          "reset draws the whole graph again")
t = c["timeline"]
check(t is not None and t["shown"] and t["bars"] >= 10 and t["total"] > 0,
      "timeline strip drawn: %s" % t)
if mode == "flat":
    check(t is not None and t["total"] == total,
          "flat: the strip's samples %s, the graph's %d" % (t and t["total"], total))
    check(all(d["share"] <= 1 for d in c["drawn"]) and
          len(c["drawn"]) == len({d["name"] for d in c["drawn"]}),
          "flat: one level, each function once")
# by thread: jitdemo's two threads a row each, with its counted samples
# in a row of their own, and nothing lost
th = c.get("threads")
check(th is not None, "a Threads button")
if th:
    tids = [r for r in th["rows"] if re.match(r"jitdemo tid [0-9]+$", r["name"])]
    check(len(tids) == 2 and all(r["samples"] > 0 and r["bars"] > 0 for r in tids) and
          sum(r["samples"] for r in th["rows"]) == t["total"] == th["total"],
          "by thread: %s" % th["rows"])
# the drag over the middle half: the graph of those buckets only
d = c.get("drag")
g = d and d.get("graph")
check(bool(g), "the drag redrew the graph")
if g:
    # a stack is in its flat sample's bucket, with -g as without
    check(0 < g["total"] < c["total"] and g["total"] == d["samples"],
          "drag %s: graph %d samples, strip %d in the range, whole %d"
          % (d["buckets"], g["total"], d["samples"], c["total"]))
    check("in the range picked" in g["status"], "status: %s" % g["status"])
    r = d["reset"]
    check(r["total"] == c["total"] and r["range"] is None and r["drawn"] == len(c["drawn"]),
          "Reset: %d samples, %d frames drawn, range %s" % (r["total"], r["drawn"], r["range"]))
check(not c["errors"] and not c["requests"],
      "no errors %s, no requests %s" % (c["errors"], c["requests"]))
print("%s: first draw %.0f ms after the script started, %.0f ms after navigation"
      % (mode, c["firstDrawMs"], c["loadToDrawMs"]))
sys.exit(bad)
EOP
done

# the screenshot of the -g page, for the test log
shot=$OPJIT_BUILD/tests/opreport/html_flame.png
screenshot "$TMP/g.html" "$shot" 1280 420

# hostile names from a perf map: they come back as the same text
HOST=$TMP/hostile
mkdir -p "$TMP/maps"
perf_map "$TMP/maps/perf-300.map" 7f0000000100 "${hostile_names[@]}"
{
	echo "separate process"
	echo "process p 300 $(id -u) jitdemo /usr/bin/jitdemo start_unix_ns 1 range 0x7f0000000000-0x7f0000100000"
	t=1
	for i in 0 1 2 3 4; do
		for _ in $(seq $((i + 1))); do
			printf 'anon p %d 0x%x 300\n' $((t++)) $((0x7f0000000110 + 0x100 * i))
		done
	done
	echo "archive p $TMP/maps/perf-300.map"
} | "$MKSESSION" "$HOST"
"$OPREPORT" --session-dir="$HOST" --anon-handler=perfmap --format=html \
	-o "$TMP/hostile.html" 2>"$TMP/op.err" || { cat "$TMP/op.err"; fail "html of hostile names failed"; }
no_url "$TMP/hostile.html"
# the data block ends once: at its own </script>
[ "$(grep -c '</script>' "$TMP/hostile.html")" = 2 ] || fail "a name ended a script block"
page "$TMP/hostile.html" ""
python3 - "$TMP/check.json" "$TMP/dom$pages.html" "$long" <<'EOP' || fail "hostile names did not come back as text"
import json, sys
c = json.load(open(sys.argv[1]))
dom = open(sys.argv[2]).read()
want = {'</script><script>document.title="owned"</script>': 1,
        '"quoted" \'single\' \\back\\slash': 2, 'ctl\x01\x1b[31m\x7fbytes': 3,
        '<!-- open comment': 4, sys.argv[3]: 5}
got = {d["name"]: round(d["share"] * 15) for d in c["drawn"]}
bad = 0
for name, n in want.items():
    ok = got.get(name) == n
    print("%s: %r... drawn with %s of 15 samples" % ("ok" if ok else "FAIL", name[:40], got.get(name)))
    bad |= not ok
if "<title>opjit: " not in dom or "owned" in dom.split("<title>")[1].split("</title>")[0]:
    print("FAIL: a name ran as script")
    bad = 1
if c["errors"] or c["requests"]:
    print("FAIL: errors %s requests %s" % (c["errors"], c["requests"]))
    bad = 1
sys.exit(bad)
EOP

# the timeline strip, on a workload with two phases (jit_hot, then
# jit_cold): the strip holds the timeline's samples; a drag over each
# phase changes the strip and gives a --time= command whose report is
# that phase's function
P=$TMP/phases
timeout 60 "$OPROFILED" -g --session-dir="$P" -- "$JIT" --seconds 3 --phases 1 \
	>"$TMP/ph.out" 2>"$TMP/ph.err" || { cat "$TMP/ph.err"; fail "oprofiled --phases failed"; }
switch=$(awk '$1 == "phase-switch" { print $2 }' "$TMP/ph.out")
start=$(awk '$1 == "start_ns" { print $2 }' "$P/session.meta")
[ -n "$switch" ] && [ -n "$start" ] || fail "no phase-switch line or no session start"
# arithmetic by awk: a python3 start costs 0.08 s of CPU
sw=$(awk -v d=$((switch - start)) 'BEGIN { printf "%.3f", d / 1e9 }')
"$OPREPORT" --session-dir="$P" --anon-handler=perfmap --format=html \
	-o "$TMP/ph.html" 2>/dev/null || fail "html of the phases failed"
"$OPREPORT" --session-dir="$P" --format=timeline-csv >"$TMP/ph.csv" 2>/dev/null ||
	fail "timeline-csv of the phases failed"
tl_total=$(awk -F, 'NR > 1 { n += $NF } END { print n + 0 }' "$TMP/ph.csv")
page "$TMP/ph.html" ""
strip=$(python3 - "$TMP/check.json" "$tl_total" <<'EOP'
import json, sys
t = json.load(open(sys.argv[1]))["timeline"]
ok = t and t["shown"] and t["total"] == int(sys.argv[2]) and t["bars"] > 10 and \
    sum(r["samples"] for r in t["rows"]) == t["total"]
print("%s: strip: %s" % ("ok" if ok else "FAIL", t), file=sys.stderr)
print(t["buckets"], t["bucket_s"]) if ok else sys.exit(1)
EOP
) || fail "the strip did not draw the timeline (timeline-csv: $tl_total samples)"
read -r buckets bucket_s <<<"$strip"
echo "phases: switch at $sw s, strip $buckets buckets of $bucket_s s, $tl_total samples"
# drag FROM TO FN OTHER (seconds): the graph redrawn for the range has
# FN above 95% and OTHER below 5%, and the timeline-csv's samples in
# it; prints the --time= range the page gives
drag() {
	local a b
	a=$(awk "BEGIN { printf \"%.17g\", $1 / ($buckets * $bucket_s) }")
	b=$(awk "BEGIN { b = $2 / ($buckets * $bucket_s); printf \"%.17g\", b < 1 ? b : 1 }")
	page "$TMP/ph.html" "&drag=$a,$b"
	python3 - "$TMP/check.json" "$P" "$TMP/ph.csv" "$3" "$4" <<'EOP'
import csv, json, sys
c = json.load(open(sys.argv[1]))
d = c["drag"]
want = "--time=%g,%g" % (d["start_s"], d["end_s"]) if d else None
ok = d and d["stripChanged"] and 0 < d["samples"] < c["timeline"]["total"] and \
    want in d["shownCmd"] and ("--session-dir='%s'" % sys.argv[2]) in d["shownCmd"] \
    and not c["errors"]
print("%s: drag: %s" % ("ok" if ok else "FAIL", {k: v for k, v in (d or {}).items() if k != "graph"}),
      file=sys.stderr)
g = d and d.get("graph")
if ok and g:
    b0, b1 = d["buckets"]
    bs = c["timeline"]["bucket_s"]
    csv_n = sum(int(r["samples"]) for r in csv.DictReader(open(sys.argv[3]))
                if b0 <= round(float(r["time_s"]) / bs) < b1)
    share = {}
    for f in g["drawn"]:
        share[f["name"]] = share.get(f["name"], 0) + f["share"]
    fn, other = sys.argv[4], sys.argv[5]
    gok = share.get(fn, 0) > 0.95 and share.get(other, 0) < 0.05 and \
        g["total"] == csv_n and d["samples"] == csv_n and \
        d["reset"]["total"] == c["total"]
    print("%s: drag redrew buckets [%d, %d): %s %.1f%%, %s %.1f%%, %d samples drawn, "
          "timeline-csv %d, Reset %d" % ("ok" if gok else "FAIL", b0, b1, fn,
          100 * share.get(fn, 0), other, 100 * share.get(other, 0), g["total"], csv_n,
          d["reset"]["total"]), file=sys.stderr)
    ok = gok
else:
    print("FAIL: the drag did not redraw the graph", file=sys.stderr)
    ok = False
print("%g,%g" % (d["start_s"], d["end_s"])) if ok else sys.exit(1)
EOP
}
# phase_share RANGE FN: FN's share of the --time=RANGE report, in percent
phase_share() {
	"$OPREPORT" --session-dir="$P" --anon-handler=perfmap --format=folded \
		--time="$1" 2>/dev/null | awk -v fn="$2" '
		{ n = $NF; t += n; if (index($0, fn)) f += n }
		END { if (t) printf "%d\n", 100 * f / t; else print 0 }'
}
r1=$(drag 0 "$(awk "BEGIN { printf \"%.17g\", $sw - 0.15 }")" jit_hot jit_cold) ||
	fail "the drag over the first phase did not draw the first phase"
h=$(phase_share "$r1" jit_hot)
[ "$h" -ge 95 ] || fail "first phase: --time=$r1 gives jit_hot $h%"
echo "ok: first phase dragged: --time=$r1, jit_hot $h%"
r2=$(drag "$(awk "BEGIN { printf \"%.17g\", $sw + 0.1 }")" 1000 jit_cold jit_hot) ||
	fail "the drag over the second phase did not draw the second phase"
c2=$(phase_share "$r2" jit_cold)
[ "$c2" -ge 95 ] || fail "second phase: --time=$r2 gives jit_cold $c2%"
echo "ok: second phase dragged: --time=$r2, jit_cold $c2%"

# the differential page: html_diff.sh
echo PASS
