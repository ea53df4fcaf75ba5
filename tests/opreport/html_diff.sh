#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The differential page (--format=html with --diff or "{ } { }") in
# headless Chromium, opened from disk with every request refused; the
# page's self-check (#selftest) writes what it drew into the DOM.
#  - two call-graph sessions made with mksession, JIT code named by
#    perf maps of two processes at different addresses (so frames are
#    matched by name): jit_up grows from 10% to 40% and is drawn red,
#    jit_down shrinks from 30% to 10% and is drawn blue, their caller
#    jit_main shrinks by jit_new's 10%, jit_same keeps its share and is
#    white; each frame's two counts and its change are those of
#    `opreport -l --diff --format=csv` for the same pair, and its
#    tooltip says them.  jit_gone (baseline only) has no width in the
#    profile's graph, and the status says so; Baseline draws the
#    baseline's graph at its widths, where jit_gone is blue at its 10%,
#    its tooltip says it is only in the baseline, and a search finds
#    it (in the profile's graph too, as the baseline's share).  Hostile
#    names (</script>, quotes, control bytes, a 5000-byte name) come
#    back as the same text with their counts, and run as nothing.
#  - search and zoom work as on the normal page; "{ session:A }
#    { session:B }" writes the same page as --diff.
#  - threetoone recorded with -g at 3:1 and then 1:1: heavy_work drawn
#    blue, light_work red, their counts those of the csv.
#  - no console error, no request, no URL in the file.  KEEP=1 keeps
#    the files; a screenshot is kept as html_diff.png beside the test.
. "$(dirname "$0")/lib.sh"
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -f "$HP/libperfmap.so" ] || fail "$HP/libperfmap.so is not built"
export OPJIT_HANDLER_PATH=$HP
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
WORKLOAD=$OPJIT_BUILD/tests/workloads/threetoone
command -v chromium >/dev/null || { echo "SKIP: chromium is not installed"; exit 77; }
[ -x "$OPROFILED" ] && [ -x "$WORKLOAD" ] || fail "oprofiled or threetoone is not built"
[ -z "${KEEP:-}" ] || { trap - EXIT; echo "keeping $TMP"; }

. "$(dirname "$0")/page_check.sh"

# the pair: one process each, its JIT functions at other addresses, the
# same names; every function is a leaf under jit_main but jit_new
# mkpair DIR PID BASEADDR COUNTS: COUNTS the samples of each name below,
# in order, jit_main's none of its own
mkpair() {
	local dir=$1 pid=$2 addr=$3 counts=$4
	mkdir -p "$TMP/maps"
	perf_map "$TMP/maps/perf-$pid.map" "$addr" jit_main jit_up jit_down \
		jit_same jit_gone jit_new "${hostile_names[@]:0:3}" "$long"
	python3 - "$pid" "$addr" "$counts" "$TMP/maps/perf-$pid.map" "$(id -u)" <<'EOP' | "$MKSESSION" "$dir"
import sys
pid, base, counts, mp = int(sys.argv[1]), int(sys.argv[2], 16), sys.argv[3].split(","), sys.argv[4]
uid = int(sys.argv[5])
print("callgraph 16")
print("separate process")
print("process p %d %d jitdemo /usr/bin/jitdemo start_unix_ns 1 range 0x%x-0x%x"
      % (pid, uid, base - 0x100, base + 0x100000))
main_ret = base + 0x11
for i, c in enumerate(counts):
    if i == 0 or not int(c):
        continue
    leaf = base + 0x100 * i + 0x10
    if i == 5:  # jit_new: no caller
        print("stack s%d anon:0x%x" % (i, leaf))
    else:
        print("stack s%d anon:0x%x anon:0x%x" % (i, leaf, main_ret))
t = 1
for i, c in enumerate(counts):
    for _ in range(int(c) if i else 0):
        print("anon p %d 0x%x %d" % (t, base + 0x100 * i + 0x10, pid))
        print("anonstack p %d s%d %d" % (t, i, pid))
        t += 1
print("archive p %s" % mp)
EOP
	[ -d "$dir" ] || fail "mksession $dir failed"
}
# baseline: up 2, down 6, same 2, gone 2, hostile 1 2 3 2 (total 20)
# profile:  up 8, down 2, same 2, new 2, hostile 3 1 1 1  (total 20)
mkpair "$TMP/base" 300 0x7f0000000100 0,2,6,2,2,0,1,2,3,2
mkpair "$TMP/prof" 301 0x7f0000040100 0,8,2,2,0,2,3,1,1,1

"$OPREPORT" --session-dir="$TMP/prof" --diff="$TMP/base" --anon-handler=perfmap \
	-l --format=csv >"$TMP/diff.csv" 2>"$TMP/op.err" || { cat "$TMP/op.err"; fail "--diff csv failed"; }
"$OPREPORT" --session-dir="$TMP/prof" --diff="$TMP/base" --anon-handler=perfmap \
	--format=html -o "$TMP/diff.html" 2>"$TMP/op.err" || { cat "$TMP/op.err"; fail "--diff html failed"; }
[ ! -s "$TMP/op.err" ] || { cat "$TMP/op.err"; fail "--diff html said something"; }
no_url "$TMP/diff.html"
[ "$(grep -c '</script>' "$TMP/diff.html")" = 2 ] || fail "a name ended a script block"
"$OPREPORT" --anon-handler=perfmap --format=html -o "$TMP/braces.html" \
	{ session:"$TMP/base" } { session:"$TMP/prof" } 2>"$TMP/op.err" ||
	{ cat "$TMP/op.err"; fail "{ } { } html failed"; }
cmp -s "$TMP/diff.html" "$TMP/braces.html" || fail "{ session:A } { session:B } differs from --diff"
echo "ok: --diff and { } { } write the same page ($(stat -c %s "$TMP/diff.html") bytes)"

# check_diff CHECK CSV GREW SHRANK [SAME]: the drawn frames against the
# csv's rows; GREW red, SHRANK blue, SAME white
check_diff() {
	python3 - "$@" <<'EOP'
import csv, json, re, sys
c = json.load(open(sys.argv[1]))
rows = {}
for r in csv.DictReader(open(sys.argv[2])):
    rows.setdefault(r["symbol"], []).append(r)
grew, shrank = sys.argv[3], sys.argv[4]
same = sys.argv[5] if len(sys.argv) > 5 else None
all_drawn = same is not None  # the synthetic pair: every frame is drawn
bad = 0
def check(ok, what):
    global bad
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    bad |= not ok
def hue(fill):
    m = re.match(r"hsl\((\d+),(\d+)%,(\d+)%\)$", fill or "")
    return tuple(int(x) for x in m.groups()) if m else None
by = {}
for d in c["drawn"]:
    by.setdefault(d["name"], []).append(d)
def sums(name):
    fs = by.get(name, [])
    return (sum(f["self"] for f in fs), sum(f["baseSelf"] for f in fs))
def csv_counts(name):
    rs = rows.get(name, [])
    return (sum(int(r["samples"]) for r in rs), sum(int(r["base samples"]) for r in rs))
check(c["base"] is not None and c["base"]["total"] > 0 and c["total"] > 0,
      "a differential page: profile %d samples, baseline %s" % (c["total"], c["base"]))
# each function's own samples in the page's two graphs are the csv's
# counts of it
# (the csv writes control bytes as \xNN)
def csv_name(n):
    return "".join("\\x%02x" % ord(ch) if ord(ch) < 0x20 or ord(ch) == 0x7f else ch for ch in n)
whole = {csv_name(n): v for n, v in c["base"]["self"].items()}
for name in sorted(set(rows) | set(whole)):
    got, want = tuple(whole.get(name, [0, 0])), csv_counts(name)
    if name in rows and name in whole:
        check(got == want, "%.30r: %d against %d in the baseline, csv %d against %d"
              % (name, got[0], got[1], want[0], want[1]))
    else:
        check(False, "%.30r: only in %s" % (name, "the csv" if name in rows else "the page"))
# the frames drawn of the functions looked at: their two counts are the
# csv's, their change the csv's, their tooltip says it
for name, fs in sorted(by.items()):
    if not rows.get(name) or (not all_drawn and name not in (grew, shrank, same)):
        continue
    p, b = sums(name)
    want = csv_counts(name)
    check((p, b) == want, "%.30r: drawn %d against %d in the baseline, csv %d against %d"
          % (name, p, b, want[0], want[1]))
    if len(fs) == 1 and fs[0]["self"] == fs[0]["samples"]:
        ch = float(rows[name][0]["change"]) if len(rows[name]) == 1 else None
        if ch is not None:
            check(abs(fs[0]["change"] - ch) < 1e-3,
                  "%.30r: change %+.4f points, csv %+.4f" % (name, fs[0]["change"], ch))
        tip = fs[0]["tip"]
        check("%d samples" % p in tip and "baseline %d samples" % b in tip and "change " in tip,
              "%.30r: tooltip says both counts and the change: %r" % (name, tip.split("\n")[2]))
for name, want_hue, sign in ((grew, 0, 1), (shrank, 220, -1)):
    fs = by.get(name, [])
    ok = fs and all(hue(f["fill"]) and hue(f["fill"])[0] == want_hue and hue(f["fill"])[2] < 80
                    and f["change"] * sign > 1 for f in fs)
    check(bool(ok), "%s drawn %s: %s" % (name, "red" if sign > 0 else "blue",
                                        [(f["fill"], round(f["change"], 2)) for f in fs]))
if same:
    fs = by.get(same, [])
    check(bool(fs) and all(f["fill"] == "hsl(0,0%,96%)" and abs(f["change"]) < 1e-9 for f in fs),
          "%s white: %s" % (same, [(f["fill"], f["change"]) for f in fs]))
check(not c["errors"] and not c["requests"],
      "no errors %s, no requests %s" % (c["errors"], c["requests"]))
sys.exit(bad)
EOP
}

page "$TMP/diff.html" "&search=%5Ejit_(up%7Cdown)%24&zoom=jit_main&baseline=1&bsearch=%5Ejit_gone%24"
cp "$TMP/check.json" "$TMP/synthetic.json"
check_diff "$TMP/check.json" "$TMP/diff.csv" jit_up jit_down jit_same ||
	fail "the differential page drew the wrong colours or counts"
python3 - "$TMP/check.json" "$TMP/dom$pages.html" "$long" <<'EOP' || fail "the synthetic pair's page"
import json, sys
c = json.load(open(sys.argv[1]))
dom = open(sys.argv[2]).read()
bad = 0
def check(ok, what):
    global bad
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    bad |= not ok
drawn = {d["name"]: d for d in c["drawn"]}
check("jit_gone" not in drawn, "jit_gone, only in the baseline, has no width in the profile's graph")
check("1 frame only in the baseline, 2 samples: Baseline draws them" in c["base"]["status"],
      "the status says what only the baseline has: %s" % c["base"]["status"])
b = c.get("baseline")
check(b is not None, "a Baseline button on the differential page")
if b:
    bd = {d["name"]: d for d in b["drawn"]}
    g = bd.get("jit_gone")
    check(g is not None and (g["samples"], g["base"], g["baseSelf"]) == (0, 2, 2)
          and abs(g["share"] - 0.1) < 1e-9 and g["w"] > 100 and abs(g["change"] + 10) < 1e-9
          and g["fill"].startswith("hsl(220,") and "only in the baseline" in g["tip"]
          and "profile 0 samples" in g["tip"],
          "Baseline: jit_gone drawn blue at its 10%%, -10 points: %s"
          % str(g and (g["samples"], g["base"], round(g["share"], 3), round(g["w"]), g["change"],
                       g["fill"], g["tip"].split("\n")[1:3])))
    check("jit_new" not in bd, "Baseline: jit_new, only in the profile, has no width there")
    u = bd.get("jit_up")
    check(u is not None and (u["samples"], u["base"]) == (8, 2) and abs(u["share"] - 0.1) < 1e-9
          and u["fill"].startswith("hsl(0,"),
          "Baseline: jit_up at its baseline 10%%, red, 8 against 2: %s"
          % str(u and (u["samples"], u["base"], u["share"], u["fill"])))
    m = bd.get("jit_main")
    check(m is not None and m["share"] == 1 and (m["samples"], m["base"]) == (18, 20),
          "Baseline: jit_main spans the baseline's 20 samples, 18 in the profile")
    for d in b["drawn"]:  # the same counts from either side
        p = drawn.get(d["name"])
        if p:
            check((p["samples"], p["base"], round(p["change"], 9)) ==
                  (d["samples"], d["base"], round(d["change"], 9)),
                  "%.30r: the same counts and change in both graphs" % d["name"])
    check(b["total"] == 20 and b["label"] == "Profile" and "the baseline's 20 samples at its widths"
          in b["status"] and "1 frame only in the baseline" in b["status"],
          "Baseline's status: %s" % b["status"])
    check(b.get("matched") == "matched 2 samples, 10.00%; profile 0 samples, 0.00%"
          and b.get("highlighted") == ["jit_gone"],
          "Baseline: search ^jit_gone$ %s, lit %s" % (b.get("matched"), b.get("highlighted")))
    check(b["back"] == {"total": 20, "drawn": len(c["drawn"]), "label": "Baseline"},
          "Profile draws the profile's graph again: %s" % b["back"])
m = drawn.get("jit_main")
check(m is not None and m["samples"] == 18 and m["base"] == 20 and abs(m["change"] + 10) < 1e-9
      and m["fill"].startswith("hsl(220,"),
      "jit_main (a caller): 18 of 20 against 20 of 20, -10 points, blue: %s"
      % str(m and (m["samples"], m["base"], m["change"], m["fill"])))
n = drawn.get("jit_new")
check(n is not None and n["base"] == 0 and n["fill"].startswith("hsl(0,"),
      "jit_new, only in the profile, red with no baseline samples")
want = {'</script><script>document.title="owned"</script>': (3, 1),
        '"quoted" \'single\' \\back\\slash': (1, 2), 'ctl\x01\x1b[31m\x7fbytes': (1, 3),
        sys.argv[3]: (1, 2)}
for name, (p, b) in want.items():
    d = drawn.get(name)
    check(d is not None and (d["samples"], d["base"]) == (p, b),
          "hostile %r...: %s against %s" % (name[:30], d and d["samples"], d and d["base"]))
title = dom.split("<title>")[1].split("</title>")[0] if "<title>" in dom else ""
check(title.startswith("opjit: ") and "owned" not in title, "no name ran as script: title %r" % title[:60])
s = c["search"]
check(abs(s["share"] - 0.5) < 1e-9 and s["highlighted"] == 2 and
      s["matched"] == "matched 10 samples, 50.00%; baseline 8 samples, 40.00%",
      "search ^jit_(up|down)$ matched %s, %d frames lit" % (s["matched"], s["highlighted"]))
z = c["zoom"]
names = {d["name"] for d in (z or {}).get("drawn", [])}
check(z is not None and z["focus"] == "jit_main" and "jit_new" not in names and "jit_up" in names,
      "zoomed into jit_main: %s" % (z and z["focus"]))
check(c["reset"]["focus"] == "all" and c["reset"]["drawn"] == len(c["drawn"]), "reset draws all again")
check("against the baseline's 20 samples" in c["base"]["status"] and "red" in c["base"]["status"],
      "status: %s" % c["base"]["status"])
sys.exit(bad)
EOP

shot=$OPJIT_BUILD/tests/opreport/html_diff.png
screenshot "$TMP/diff.html" "$shot" 1280 420

# a real workload, recorded twice with -g: 3:1, then 1:1 (each run 2 s
# of its own CPU time, whatever the machine's load)
record() { # DIR ARGS...
	local dir=$1; shift
	(cd "$TMP" && timeout 120 "$OPROFILED" -g --session-dir="$dir" -- \
		"$WORKLOAD" "$@" >"$dir.out" 2>&1) || { cat "$dir.out"; fail "oprofiled threetoone $* failed"; }
}
record "$TMP/t1" 2cpu 3
record "$TMP/t2" 2cpu 1
"$OPREPORT" -l --session-dir="$TMP/t2" --diff="$TMP/t1" --format=csv \
	>"$TMP/t.csv" 2>/dev/null || fail "threetoone --diff csv failed"
"$OPREPORT" --session-dir="$TMP/t2" --diff="$TMP/t1" --format=html \
	-o "$TMP/t.html" 2>"$TMP/op.err" || { cat "$TMP/op.err"; fail "threetoone --diff html failed"; }
no_url "$TMP/t.html"
page "$TMP/t.html" ""
check_diff "$TMP/check.json" "$TMP/t.csv" light_work heavy_work ||
	fail "threetoone: the differential page drew the wrong colours or counts"

# (--event=alloc|lock pages with a baseline: tests/javamap/e2e_report_events.sh)
echo PASS
