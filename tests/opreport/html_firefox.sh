#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The page in headless Firefox (firefox-esr) as in headless Chromium:
# a profile and a differential page made with mksession, opened from
# disk in both with every request refused, their self-checks
# (#selftest) read back (page_firefox.sh: Firefox has no --dump-dom)
# and compared: the same
# frames at the same shares and colours, the same search, zoom, drag,
# rows by thread and baseline graph, no error and no request in either,
# and in Firefox the known shares of the session's functions, a hostile
# name shown as text.  Skips (77) without firefox-esr or chromium.
. "$(dirname "$0")/lib.sh"
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -f "$HP/libperfmap.so" ] || fail "$HP/libperfmap.so is not built"
export OPJIT_HANDLER_PATH=$HP
command -v firefox-esr >/dev/null || { echo "SKIP: firefox-esr is not installed"; exit 77; }
command -v chromium >/dev/null || { echo "SKIP: chromium is not installed"; exit 77; }
[ -z "${KEEP:-}" ] || { trap - EXIT; echo "keeping $TMP"; }

. "$(dirname "$0")/page_check.sh"
. "$(dirname "$0")/page_firefox.sh"

# mk DIR PID BASE COUNTS: a call-graph session of one process whose JIT
# functions a perf map names; COUNTS the samples of jit_a, jit_b,
# jit_gone and the hostile name, jit_a's in the first second by thread
# PID, the others' in the second by thread PID+1
mk() {
	local dir=$1 pid=$2 base=$3 counts=$4
	mkdir -p "$TMP/maps"
	perf_map "$TMP/maps/perf-$pid.map" "$base" jit_main jit_a jit_b jit_gone \
		"${hostile_names[0]}"
	python3 - "$pid" "$base" "$counts" "$TMP/maps/perf-$pid.map" "$(id -u)" <<'EOP' | "$MKSESSION" "$dir"
import sys
pid, base, counts, mp = int(sys.argv[1]), int(sys.argv[2], 16), sys.argv[3].split(","), sys.argv[4]
print("callgraph 16")
print("separate process")
print("process p %d %s jitdemo /usr/bin/jitdemo start_unix_ns 1 range 0x%x-0x%x"
      % (pid, sys.argv[5], base - 0x100, base + 0x100000))
for i in range(1, 5):
    print("stack s%d anon:0x%x anon:0x%x" % (i, base + 0x100 * i + 0x10, base + 0x11))
for i, c in enumerate(counts, 1):
    c = int(c)
    for k in range(c):
        # jit_a in the first second, the rest in the second
        t = (0 if i == 1 else 1000000000) + 1000000 + k * 900000000 // max(c, 1)
        tid = pid if i == 1 else pid + 1
        print("anon p %d 0x%x %d" % (t, base + 0x100 * i + 0x10, tid))
        print("anonstack p %d s%d %d" % (t, i, tid))
print("archive p %s" % mp)
EOP
	[ -d "$dir" ] || fail "mksession $dir failed"
}
mk "$TMP/prof" 400 0x7f0000000100 30,10,0,5
mk "$TMP/base" 401 0x7f0000040100 10,10,5,0
"$OPREPORT" --session-dir="$TMP/prof" --anon-handler=perfmap --format=html \
	-o "$TMP/prof.html" 2>"$TMP/op.err" || { cat "$TMP/op.err"; fail "html failed"; }
"$OPREPORT" --session-dir="$TMP/prof" --diff="$TMP/base" --anon-handler=perfmap \
	--format=html -o "$TMP/diff.html" 2>"$TMP/op.err" || { cat "$TMP/op.err"; fail "--diff html failed"; }
no_url "$TMP/prof.html"
no_url "$TMP/diff.html"

h1="&search=%5Ejit_&zoom=jit_main&drag=0,0.47&threads=1"
h2="&search=%5Ejit_a%24&zoom=jit_main&baseline=1&bsearch=%5Ejit_gone%24"
page "$TMP/prof.html" "$h1"
cp "$TMP/check.json" "$TMP/chromium1.json"
page "$TMP/diff.html" "$h2"
cp "$TMP/check.json" "$TMP/chromium2.json"
page_firefox "$TMP/firefox.json" "$TMP/prof.html" "$h1" "$TMP/diff.html" "$h2"
echo "Firefox answered: $(stat -c %s "$TMP/firefox.json") bytes"

python3 - "$TMP/firefox.json" "$TMP/chromium1.json" "$TMP/chromium2.json" <<'EOP' ||
import json, sys
ff = json.load(open(sys.argv[1]))
cr = [json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))]
bad = 0
def check(ok, what):
    global bad
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    bad |= not ok
check(isinstance(ff, list) and len(ff) == 2, "Firefox checked both pages")
if bad:
    sys.exit(1)
hostile = '</script><script>document.title="owned"</script>'
# the frames drawn: names, shares, widths (fonts differ: not the text
# cut to fit), colours and counts of a differential page
def frames(c):
    return sorted((d["name"], round(d["share"], 9), round(d["w"], 3), d.get("fill"),
                   d.get("samples"), d.get("base"), round(d.get("change", 0), 9))
                  for d in c["drawn"])
for k, (f, c) in enumerate(zip(ff, cr), 1):
    check(not f["errors"] and not f["requests"],
          "page %d: no error %s, no request %s in Firefox" % (k, f["errors"], f["requests"]))
    check(frames(f) == frames(c), "page %d: the same %d frames drawn as in Chromium"
          % (k, len(f["drawn"])))
    check(f["search"] == c["search"], "page %d: search %s" % (k, f["search"]["matched"]))
    check(f["zoom"] is not None and f["zoom"]["focus"] == "jit_main" and
          sorted(frames(f["zoom"])) == sorted(frames(c["zoom"])) and f["reset"] == c["reset"],
          "page %d: zoom into jit_main and reset" % k)
    check(f["timeline"] == c["timeline"], "page %d: the timeline strip: %s"
          % (k, f["timeline"] and f["timeline"]["rows"]))
p = ff[0]
share = {d["name"]: d["share"] for d in p["drawn"]}
check(p["total"] == 45 and abs(share.get("jit_a", 0) - 30 / 45) < 1e-9
      and abs(share.get("jit_b", 0) - 10 / 45) < 1e-9 and abs(share.get(hostile, 0) - 5 / 45) < 1e-9,
      "Firefox drew jit_a 30, jit_b 10 and the hostile name 5 of 45: %s" % share)
check(p.get("title", "").startswith("opjit: ") and "owned" not in p.get("title", ""),
      "Firefox: no name ran as script: title %r" % p.get("title", "")[:60])
d, cd = p.get("drag"), cr[0].get("drag")
check(d is not None and d["graph"]["total"] == 30 and
      {x["name"] for x in d["graph"]["drawn"]} == {"jit_main", "jit_a"} and d["stripChanged"]
      and frames(d["graph"]) == frames(cd["graph"]) and d["cmd"] == cd["cmd"]
      and d["buckets"] == cd["buckets"] == [0, 10] and d["reset"] == cd["reset"],
      "Firefox: the first second dragged draws jit_a's 30 samples alone: %s, %s"
      % (d and d["graph"]["total"], d and d["cmd"]))
th = p.get("threads")
check(th is not None and sorted(r["samples"] for r in th["rows"]) == [15, 30]
      and th == cr[0]["threads"], "Firefox: by thread %s" % (th and th["rows"]))
b = ff[1].get("baseline")
gone = b and {x["name"]: x for x in b["drawn"]}.get("jit_gone")
cb = cr[1].get("baseline") or {}
check(b is not None and {k: v for k, v in b.items() if k != "drawn"} ==
      {k: v for k, v in cb.items() if k != "drawn"} and frames(b) == frames(cb)
      and gone is not None and gone["fill"].startswith("hsl(220,") and gone["base"] == 5,
      "Firefox: Baseline draws jit_gone blue at its 5 samples: %s" % (gone and gone["fill"]))
sys.exit(bad)
EOP
	fail "Firefox drew the pages otherwise than Chromium"
echo PASS
