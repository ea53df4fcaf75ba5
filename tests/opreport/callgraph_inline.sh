#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Inline chains from a handler (ABI 1.2) in every call graph view.  The
# test handler libfakejit.so names, for comm fakejit-inline, the second
# half of fake_fn_N as fake_leaf_N inlined into fake_mid_N inlined into
# fake_fn_N.  One synthetic session: main calls fake_fn_0, which calls
# fake_fn_1; 3 samples land where fake_leaf_1 was inlined, 2 in fake_fn_1
# itself.  -c, folded, json and pprof (through go tool pprof) must each
# show the inlined functions between fake_fn_1 and the leaf, marked as
# inlined where the view can say so; the flat profile is unchanged.
. "$(dirname "$0")/lib.sh"
FAKE=$OPJIT_BUILD/tests/opreport/handlers
[ -f "$FAKE/libfakejit.so" ] || fail "$FAKE/libfakejit.so is not built"
command -v go >/dev/null || { echo "SKIP: go is not installed (golang-go)"; exit 77; }
APP=$RT/rt_g_pie
off() { python3 "$HERE/offsets.py" "$1" "$2" | cut -d' ' -f2; }
ret() { printf '0x%x' $(($(off "$APP" "$1") + 1)); }
uid=$(id -u)
S=$TMP/s
printf 'ffffffff81000000 T _stext\n' >"$TMP/kallsyms"
# fake_fn_0 at base + 0x000, fake_fn_1 at base + 0x100; caller frames
# are return addresses (looked up at address - 1)
"$MKSESSION" "$S" <<EOS
callgraph 127
separate process
kallsyms $TMP/kallsyms
image app file $APP
ctx a app app tgid 600
stack inl anon:0x7e0000000190 anon:0x7e0000000021 app:$(ret main)
stack own anon:0x7e0000000110 anon:0x7e0000000021 app:$(ret main)
process p 600 $uid fakejit-inline /usr/bin/fakejit start_unix_ns 1 range 0x7e0000000000-0x7e0000010000
anon p 1 0x7e0000000190 600
anon p 2 0x7e0000000190 600
anon p 3 0x7e0000000190 600
anon p 4 0x7e0000000110 600
anon p 5 0x7e0000000110 600
anonstack p 1 inl 600
anonstack p 2 inl 600
anonstack p 3 inl 600
anonstack p 4 own 600
anonstack p 5 own 600
EOS
op() {
	"$OPREPORT" --session-dir="$S" --handler-path="$FAKE" \
		--anon-handler=fakejit "$@" 2>>"$TMP/op.err"
}

# folded: the chain between fake_fn_1 and the leaf, marked _[i]
op --format=folded >"$TMP/folded.txt" || fail "folded exited $?"
want_inl="main [rt_g_pie];fake_fn_0 [fakejit]_[j];fake_fn_1 [fakejit]_[j];fake_mid_1 [fakejit]_[i];fake_leaf_1 [fakejit]_[i] 3"
want_own="main [rt_g_pie];fake_fn_0 [fakejit]_[j];fake_fn_1 [fakejit]_[j] 2"
grep -qxF "$want_inl" "$TMP/folded.txt" && grep -qxF "$want_own" "$TMP/folded.txt" ||
	{ cat "$TMP/folded.txt"; fail "folded: the inlined chain is not in the stacks"; }
[ "$(wc -l <"$TMP/folded.txt")" = 2 ] || { cat "$TMP/folded.txt"; fail "folded: not 2 stacks"; }
echo "ok: folded shows fake_mid_1 and fake_leaf_1 inlined under fake_fn_1"

# -c: fake_leaf_1's caller is fake_mid_1, whose caller is fake_fn_1
op -c >"$TMP/c.txt" || fail "-c exited $?"
python3 - "$TMP/c.txt" <<'EOP' || fail "-c: the inlined functions are not callers and callees"
import re, sys
text = open(sys.argv[1]).read()
# each entry: caller lines (indented), the symbol's own line, callees
blocks = [b for b in re.split(r"\n-+\n", text) if b.strip()]
def entry(sym):
    for b in blocks:
        for l in b.splitlines():
            if not l.startswith(" ") and l.split() and l.split()[-1] == sym:
                return b
    return None
ok = True
for sym, caller, callee in (("fake_leaf_1", "fake_mid_1", None),
                            ("fake_mid_1", "fake_fn_1", "fake_leaf_1"),
                            ("fake_fn_1", "fake_fn_0", "fake_mid_1")):
    b = entry(sym)
    if b is None:
        print("FAIL: no -c entry for", sym); ok = False; continue
    lines = b.splitlines()
    own = [i for i, l in enumerate(lines)
           if not l.startswith(" ") and l.split() and l.split()[-1] == sym][0]
    callers = [l.split()[-1] for l in lines[:own]]
    callees = [l.split()[-1] for l in lines[own + 1:]]
    if caller not in callers:
        print("FAIL: %s: callers %s, not %s" % (sym, callers, caller)); ok = False
    if callee and callee not in callees:
        print("FAIL: %s: callees %s, not %s" % (sym, callees, callee)); ok = False
sys.exit(0 if ok else 1)
EOP
echo "ok: -c links fake_fn_1 -> fake_mid_1 -> fake_leaf_1"

# json: valid, and the two inlined frames are flagged
op --format=json >"$TMP/cg.json" || fail "json exited $?"
python3 "$HERE/json_check.py" "$OPJIT_SOURCE/opreport/report.schema.json" \
	"$TMP/cg.json" || fail "json call graph"
python3 - "$TMP/cg.json" <<'EOP' || fail "json: inlined frames not flagged"
import json, sys
cg = json.load(open(sys.argv[1]))["callgraph"]
names = {n["id"]: n["symbol"] for n in cg["nodes"]}
ok = False
for st in cg["stacks"]:
    frames = [names[i] for i in st["frames"]]
    if frames[-1] == "fake_leaf_1":
        ok = (st["samples"] == 3 and
              [frames[i] for i in st.get("inlined", [])] ==
              ["fake_mid_1", "fake_leaf_1"])
    elif "inlined" in st:
        ok = False
        break
sys.exit(0 if ok else 1)
EOP
echo "ok: json flags fake_mid_1 and fake_leaf_1 as inlined"

# pprof: one location holds the chain, innermost first
op --format=pprof -o "$TMP/p.pb.gz" || fail "pprof exited $?"
go tool pprof -raw "$TMP/p.pb.gz" >"$TMP/raw.txt" 2>"$TMP/go.err" ||
	{ cat "$TMP/go.err"; fail "go tool pprof cannot read the pprof file"; }
python3 - "$TMP/raw.txt" <<'EOP' || { cat "$TMP/raw.txt"; fail "pprof: no location with the inline chain"; }
import re, sys
# -raw lists "Locations" as "ID: ADDR M=N FUNCTION FILE:LINE s=START",
# each further line of the same location on a line of its own
text = open(sys.argv[1]).read().split("Locations", 1)[1].split("Mappings")[0]
locs, cur = [], None
for l in text.splitlines():
    m = re.match(r"^\s*(\d+): 0x[0-9a-f]+ M=\d+ (\S+)", l)
    if m:
        cur = [m.group(2)]
        locs.append(cur)
    elif cur is not None and l.strip():
        cur.append(l.split()[0])
sys.exit(0 if ["fake_leaf_1", "fake_mid_1", "fake_fn_1"] in locs else 1)
EOP
go tool pprof -sample_index=samples -traces "$TMP/p.pb.gz" >"$TMP/traces.txt" 2>"$TMP/go.err" ||
	{ cat "$TMP/go.err"; fail "go tool pprof -traces failed"; }
grep -q "fake_leaf_1" "$TMP/traces.txt" && grep -q "fake_mid_1" "$TMP/traces.txt" ||
	{ cat "$TMP/traces.txt"; fail "pprof -traces: the inlined functions are missing"; }
echo "ok: pprof has one location fake_leaf_1 < fake_mid_1 < fake_fn_1"

# the flat profile names the innermost function, as before
op -l >"$TMP/l.txt" || fail "-l exited $?"
grep -q "fake_leaf_1" "$TMP/l.txt" && ! grep -q "fake_mid_1" "$TMP/l.txt" ||
	{ cat "$TMP/l.txt"; fail "-l: not the innermost function"; }
echo "ok: -l names fake_leaf_1, the innermost function"
[ ! -s "$TMP/op.err" ] || { cat "$TMP/op.err"; fail "opreport warned"; }
echo "PASS"
