#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Inline chains from a handler (ABI 1.2) in every call graph view.  The
# test handler libfakejit.so names, for comm fakejit-inline, the second
# half of fake_fn_N as fake_leaf_N inlined into fake_mid_N inlined into
# fake_fn_N.  One synthetic session: main calls fake_fn_0, which calls
# fake_fn_1; 3 samples land where fake_leaf_1 was inlined, 2 in fake_fn_1
# itself.  -c, folded, json and pprof (through go tool pprof) must each
# show the inlined functions between fake_fn_1 and the leaf, marked as
# inlined where the view can say so; the flat profile is unchanged.  Then
# a native binary whose DWARF describes two inlined functions: with -g,
# folded and pprof show them the same way.
. "$(dirname "$0")/lib.sh"
FAKE=$OPJIT_BUILD/tests/opreport/handlers
[ -f "$FAKE/libfakejit.so" ] || fail "$FAKE/libfakejit.so is not built"
command -v go >/dev/null || { echo "SKIP: go is not installed (golang-go)"; exit 77; }
APP=$RT/rt_g_pie
uid=$(id -u)
S=$TMP/s
printf 'ffffffff81000000 T _stext\n' >"$TMP/kallsyms"
# fake_fn_0 at base + 0x000, fake_fn_1 at base + 0x100; caller frames
# are return addresses (looked up at address - 1).  The handler's lines
# there: fake_leaf_1 at 15, inlined at fake_mid_1's line 13, inlined at
# fake_fn_1's 11; fake_fn_1 itself at 21 (it starts at 20); fake_fn_0's
# call at 12 (it starts at 10).
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

# pprof: one location holds the chain, innermost first, each function
# at the handler's line of it there, never at its first line
op --format=pprof -o "$TMP/p.pb.gz" || fail "pprof exited $?"
# raw_locs FILE: each location of FILE as "FUNCTION:LINE ... s=START ..."
raw_locs() {
	go tool pprof -raw "$1" >"$TMP/raw.txt" 2>"$TMP/go.err" ||
		{ cat "$TMP/go.err"; fail "go tool pprof cannot read $1"; }
	python3 - "$TMP/raw.txt" <<'EOP'
import re, sys
# -raw lists "Locations" as "ID: ADDR M=N FUNCTION FILE:LINE s=START",
# each further line of the same location on a line of its own
text = open(sys.argv[1]).read().split("Locations", 1)[1].split("Mappings")[0]
locs = []
for l in text.splitlines():
    m = re.match(r"^\s*(?:\d+: 0x[0-9a-f]+ M=\d+ )?(\S+) \S*:(\d+) s=(\d+)$", l)
    if not m:
        continue
    if re.match(r"^\s*\d+:", l):
        locs.append([])
    locs[-1].append("%s:%s" % (m.group(1), m.group(2)))
for loc in sorted(locs):
    print(" ".join(loc))
EOP
}
raw_locs "$TMP/p.pb.gz" >"$TMP/locs.txt"
printf '%s\n' "fake_fn_0:12" "fake_fn_1:21" \
	"fake_leaf_1:15 fake_mid_1:13 fake_fn_1:11" "main:0" >"$TMP/want_locs.txt"
diff -u "$TMP/want_locs.txt" "$TMP/locs.txt" ||
	{ cat "$TMP/raw.txt"; fail "pprof: the locations are not at the handler's lines"; }
grep -qE " fake_fn_0 fake.js:12 s=10\$" "$TMP/raw.txt" ||
	{ cat "$TMP/raw.txt"; fail "pprof: fake_fn_0 does not start at line 10"; }
go tool pprof -sample_index=samples -traces "$TMP/p.pb.gz" >"$TMP/traces.txt" 2>"$TMP/go.err" ||
	{ cat "$TMP/go.err"; fail "go tool pprof -traces failed"; }
grep -q "fake_leaf_1" "$TMP/traces.txt" && grep -q "fake_mid_1" "$TMP/traces.txt" ||
	{ cat "$TMP/traces.txt"; fail "pprof -traces: the inlined functions are missing"; }
echo "ok: pprof has one location fake_leaf_1:15 < fake_mid_1:13 < fake_fn_1:11, fake_fn_0 at its call, 12"

# the flat profile names the innermost function, as before
op -l >"$TMP/l.txt" || fail "-l exited $?"
grep -q "fake_leaf_1" "$TMP/l.txt" && ! grep -q "fake_mid_1" "$TMP/l.txt" ||
	{ cat "$TMP/l.txt"; fail "-l: not the innermost function"; }
echo "ok: -l names fake_leaf_1, the innermost function"
[ ! -s "$TMP/op.err" ] || { cat "$TMP/op.err"; fail "opreport warned"; }

# The same from DWARF, with -g: rt_inline's rt_inl_outer holds rt_inl_mid
# inlined, which holds rt_inl_leaf.  addr2line -i (binutils' own tool)
# picks an address where it sees that chain; the session's samples land
# there, called from main.
ELF=$RT/rt_inline
[ -x "$ELF" ] || fail "$ELF is not built"
leaf_off=$(python3 - "$ELF" <<'EOP'
import re, subprocess, sys
elf = sys.argv[1]
run = lambda *a: subprocess.run(a, check=True, capture_output=True,
                                text=True).stdout
start = size = None
for l in run("nm", "-S", "--defined-only", elf).splitlines():
    p = l.split()
    if len(p) == 4 and p[3] == "rt_inl_outer":
        start, size = int(p[0], 16), int(p[1], 16)
addrs = ["%x" % a for a in range(start, start + size)]
out = run("addr2line", "-a", "-i", "-f", "-e", elf, *addrs)
for block in re.split(r"^0x", out, flags=re.M)[1:]:
    lines = block.splitlines()
    funcs = lines[1::2]
    if funcs == ["rt_inl_leaf", "rt_inl_mid", "rt_inl_outer"]:
        vma = int(lines[0], 16)
        break
else:
    sys.exit("addr2line sees no address of rt_inl_leaf inlined twice")
for l in run("readelf", "-SW", elf).splitlines():
    m = re.search(r"\]\s+\S+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+"
                  r"([0-9a-f]+)", l)
    if m and m.group(1) != "NOBITS":
        a, o, n = (int(m.group(i), 16) for i in (2, 3, 4))
        if a and a <= vma < a + n:
            print("0x%x 0x%x" % (vma - a + o, vma))
            break
EOP
) || fail "no address of rt_inl_leaf inlined in rt_inl_mid in rt_inl_outer"
leaf_vma=${leaf_off#* }
leaf_off=${leaf_off% *}
main_ret=$(printf '0x%x' $(($(python3 "$HERE/offsets.py" "$ELF" main | cut -d' ' -f2) + 1)))
E=$TMP/e
"$MKSESSION" "$E" <<EOS
callgraph 127
kallsyms $TMP/kallsyms
image app file $ELF
ctx a app app tgid 700
hist a $leaf_off 5
stack s app:$leaf_off app:$main_ret
stackhist a s 5
EOS
ope() { "$OPREPORT" --session-dir="$E" "$@" 2>>"$TMP/op.err"; }
ope -g --format=folded >"$TMP/efolded.txt" || fail "-g folded exited $?"
want="main [rt_inline];rt_inl_outer [rt_inline];rt_inl_mid [rt_inline]_[i];rt_inl_leaf [rt_inline]_[i] 5"
grep -qxF "$want" "$TMP/efolded.txt" ||
	{ cat "$TMP/efolded.txt"; fail "-g folded: not the DWARF inline chain"; }
echo "ok: -g folded shows rt_inl_mid and rt_inl_leaf inlined in rt_inl_outer"
ope --format=folded >"$TMP/efolded0.txt" || fail "folded exited $?"
grep -qxF "main [rt_inline];rt_inl_outer [rt_inline] 5" "$TMP/efolded0.txt" ||
	{ cat "$TMP/efolded0.txt"; fail "folded without -g: not the symbol table's function"; }
echo "ok: without -g, the frame is the symbol table's rt_inl_outer"
ope -g --format=pprof -o "$TMP/e.pb.gz" || fail "-g pprof exited $?"
go tool pprof -sample_index=samples -traces "$TMP/e.pb.gz" >"$TMP/etraces.txt" 2>"$TMP/go.err" ||
	{ cat "$TMP/go.err"; fail "go tool pprof cannot read the -g pprof file"; }
grep -q "rt_inl_leaf (inline)" "$TMP/etraces.txt" && grep -q "rt_inl_mid (inline)" "$TMP/etraces.txt" ||
	{ cat "$TMP/etraces.txt"; fail "pprof -traces: the DWARF inline chain is not one location"; }
echo "ok: pprof shows rt_inl_leaf and rt_inl_mid (inline)"
# each function of the chain at addr2line -i's line of it there (the
# leaf's own, then each inlining's), main at its call's (return address
# - 1: the session's return address is main's fourth byte)
a2l() { addr2line -e "$ELF" "$@" | sed 's/.*://; s/ .*//'; }
inl_lines=($(a2l -i "$leaf_vma"))
main_line=$(a2l "$(printf '0x%x' $(($(nm "$ELF" | awk '$3 == "main" { print "0x" $1 }') + 2)))")
raw_locs "$TMP/e.pb.gz" >"$TMP/elocs.txt"
printf '%s\n' "main:$main_line" \
	"rt_inl_leaf:${inl_lines[0]} rt_inl_mid:${inl_lines[1]} rt_inl_outer:${inl_lines[2]}" \
	>"$TMP/want_elocs.txt"
diff -u "$TMP/want_elocs.txt" "$TMP/elocs.txt" ||
	{ cat "$TMP/raw.txt"; fail "-g pprof: the inline chain is not at addr2line -i's lines"; }
echo "ok: -g pprof puts rt_inl_leaf:${inl_lines[0]} < rt_inl_mid:${inl_lines[1]} < rt_inl_outer:${inl_lines[2]}, as addr2line -i"
[ ! -s "$TMP/op.err" ] || { cat "$TMP/op.err"; fail "opreport warned"; }
echo "PASS"
