#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The call graph views of one synthetic session (mksession) against
# golden files: -c with its options, folded, json (validated), and the
# damage a session can hold: a cut call chain and a stack id with no
# entry, each one warning line with the rest of the report intact.
# Stack s8 is a JIT recursion, fib calling itself from one return
# address twice, which the report names once per sample.
. "$(dirname "$0")/lib.sh"
cg_synthetic

S=$TMP/s
"$MKSESSION" "$S" <<EOS
callgraph 127
separate process
kallsyms $TMP/kallsyms
image app file $APP
image k kernel [kernel.kallsyms]
ctx a app app tgid 100
ctx kk app k tgid 100
hist a $A 33
hist a $G 10
hist a $B 5
hist kk 0xffffffff81000104 2
$(cg_golden_stacks)
stackhist a s1 30
stackhist a s2 10
stackhist a s3 5
stackhist kk s4 2
stackhist a s5 3
process p 300 $(id -u) jitdemo /usr/bin/jitdemo start_unix_ns 1 range 0x7f0000000000-0x7f0000100000
anon p 1 0x7f0000000110 300
anon p 2 0x7f0000000110 300
anonstack p 1 s6 300
anonstack p 2 s6 300
hist a $A 1
anonstack p 3 s7 300
anonstack p 4 s8 300
anonstack p 5 s8 301
archive p $TMP/maps/perf-300.map
EOS
golden cg_callgraph -c --anon-handler=perfmap
golden cg_callgraph_x -c -x --anon-handler=perfmap
golden cg_callgraph_threshold -c -t 20 -n
golden cg_callgraph_merge -c -n -m all
golden cg_callgraph_image -c -n image:rt_g_pie
golden cg_folded --format=folded --anon-handler=perfmap
golden cg_folded_noanon --format=folded

# json: valid, and its call graph adds up
"$OPREPORT" --session-dir="$S" --format=json --anon-handler=perfmap \
	>"$TMP/cg.json" 2>/dev/null || fail "json exited $?"
python3 "$HERE/json_check.py" "$OPJIT_SOURCE/opreport/report.schema.json" \
	"$TMP/cg.json" || fail "json call graph"
echo "ok: json call graph"

# one warning for the cut chain, and nothing else on stderr but the note
# of the hidden anonymous samples
"$OPREPORT" --session-dir="$S" -c >/dev/null 2>"$TMP/err.all" ||
	fail "-c exited $?"
grep -v '^opreport: note: .* --anon-handler=auto names them$' "$TMP/err.all" >"$TMP/err" || true
[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "cut at the recording's depth limit" "$TMP/err" ||
	{ cat "$TMP/err"; fail "a cut call chain: not one warning line"; }
echo "ok: a cut chain is one warning"
# a corrupt stack table: the block is dropped with one warning, the
# anonymous stack samples that name its stacks with one more, and the
# flat anonymous samples still read
cp -r "$S" "$TMP/bad"
python3 - "$TMP/bad/samples.hist" <<'EOP'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
off = 16
while off + 16 <= len(data):
    magic, kind, size = data[off:off + 4], *struct.unpack_from("<H2xI", data, off + 4)
    if magic != b"OBLK":
        sys.exit("no block at %d" % off)
    if kind == 4:  # STACKS
        data[off + 16] ^= 0xff
        open(sys.argv[1], "wb").write(data)
        sys.exit(0)
    off += 16 + size
sys.exit("no STACKS block")
EOP
"$OPREPORT" --session-dir="$TMP/bad" -c >"$TMP/bad.txt" 2>"$TMP/bad.all" ||
	{ cat "$TMP/bad.all"; fail "-c on a corrupt stack table exited $?"; }
grep -v '^opreport: note: .* --anon-handler=auto names them$' "$TMP/bad.all" >"$TMP/bad.err" || true
cat "$TMP/bad.err"
[ "$(wc -l <"$TMP/bad.err")" = 2 ] &&
	grep -q 'samples.hist: offset [0-9]*: ' "$TMP/bad.err" &&
	grep -q 'anon.samples: .*no entry' "$TMP/bad.err" ||
	fail "a corrupt stack table: not one warning for each file"
"$OPREPORT" --session-dir="$TMP/bad" -l --anon-handler=perfmap \
	>"$TMP/bad_l.txt" 2>/dev/null || fail "-l on a corrupt stack table exited $?"
grep -q 'JS:\*fib$' "$TMP/bad_l.txt" ||
	{ cat "$TMP/bad_l.txt"; fail "a corrupt stack table lost the flat anonymous samples"; }
echo "ok: a corrupt stack table and stack ids with no entry"
[ "$status" -eq 0 ] && echo PASS
exit "$status"
