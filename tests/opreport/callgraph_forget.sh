#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A session whose stack table holds equal stacks under two ids (the
# recorder's index of stack nodes forgot them and stored them again)
# reports as one that holds each stack once: the same session written
# twice by mksession, once with an index that forgets at every node,
# gives the same -c, folded, csv, json and html as the exact one.
. "$(dirname "$0")/lib.sh"
DUMP=$OPJIT_BUILD/tests/daemon/sessiondump
[ -x "$DUMP" ] || fail "$DUMP is not built"
cg_synthetic

# session DIR [stackindex N]: the stacks of callgraph_golden.sh, then
# each given again after others (s1b, s6b, s8b), and one that shares
# all but its leaf with an earlier one (s9)
session() {
	local dir=$1
	shift
	"$MKSESSION" "$dir" <<EOS || fail "mksession $dir failed"
callgraph 127
separate process
kallsyms $TMP/kallsyms
$*
image app file $APP
image k kernel [kernel.kallsyms]
ctx a app app tgid 100
ctx kk app k tgid 100
hist a $A 43
hist a $G 10
hist a $B 5
hist kk 0xffffffff81000104 2
$(cg_golden_stacks)
stack s1b app:$A app:$(ret main)
stack s6b anon:0x7f0000000110 anon:0x7f0000000211 app:$(ret main)
stack s9 anon:0x7f0000000124 anon:0x7f0000000131 anon:0x7f0000000131 anon:0x7f0000000211 app:$(ret main)
stack s8b anon:0x7f0000000120 anon:0x7f0000000131 anon:0x7f0000000131 anon:0x7f0000000211 app:$(ret main)
stackhist a s1 30
stackhist a s1b 10
stackhist a s2 10
stackhist a s3 5
stackhist kk s4 2
stackhist a s5 3
process p 300 $(id -u) jitdemo /usr/bin/jitdemo start_unix_ns 1 range 0x7f0000000000-0x7f0000100000
anon p 1 0x7f0000000110 300
anon p 2 0x7f0000000110 300
anon p 3 0x7f0000000110 300
anonstack p 1 s6 300
anonstack p 2 s6 300
anonstack p 3 s6b 301
hist a $A 1
anonstack p 3 s7 300
anonstack p 4 s8 300
anonstack p 5 s8b 301
anonstack p 6 s9 300
archive p $TMP/maps/perf-300.map
EOS
}
session "$TMP/exact"
session "$TMP/forgot" stackindex 1

# the forgetful one holds equal stacks twice, the same stacks in all
"$DUMP" "$TMP/exact" >"$TMP/exact.dump" || fail "sessiondump exact"
"$DUMP" "$TMP/forgot" >"$TMP/forgot.dump" || fail "sessiondump forgot"
stacks() { sed -n 's/^stack [0-9]* //p' "$1" | sort; }
n_exact=$(stacks "$TMP/exact.dump" | wc -l)
n_forgot=$(stacks "$TMP/forgot.dump" | wc -l)
[ "$n_forgot" -gt "$n_exact" ] ||
	fail "the forgetful writer stored $n_forgot stacks, the exact one $n_exact: nothing stored twice"
diff <(stacks "$TMP/exact.dump" | uniq) <(stacks "$TMP/forgot.dump" | uniq) ||
	fail "the two sessions hold different stacks"
[ "$(stacks "$TMP/exact.dump" | uniq -d | wc -l)" = 0 ] ||
	fail "the exact writer stored a stack twice"
echo "ok: $n_forgot stacks stored against $n_exact, the same ones"

same() {
	local name=$1
	shift
	"$OPREPORT" --session-dir="$TMP/exact" "$@" >"$TMP/exact.out" \
		2>"$TMP/exact.err" || fail "$name: opreport $* exited $?"
	"$OPREPORT" --session-dir="$TMP/forgot" "$@" >"$TMP/forgot.out" \
		2>"$TMP/forgot.err" || fail "$name: opreport $* exited $?"
	[ -s "$TMP/exact.out" ] || fail "$name: no output"
	sed -i "s|$TMP/exact|SESSION|g" "$TMP/exact.out" "$TMP/exact.err"
	sed -i "s|$TMP/forgot|SESSION|g" "$TMP/forgot.out" "$TMP/forgot.err"
	if diff -u "$TMP/exact.out" "$TMP/forgot.out" &&
		diff -u "$TMP/exact.err" "$TMP/forgot.err"; then
		echo "ok: $name (opreport $*)"
	else
		echo "FAIL: $name: stacks stored twice change opreport $*"
		status=1
	fi
}
same callgraph -c --anon-handler=perfmap
same callgraph_x -c -x --anon-handler=perfmap
same callgraph_merge -c -n -m all --anon-handler=perfmap
same folded --format=folded --anon-handler=perfmap
same folded_noanon --format=folded
same csv -c --format=csv --anon-handler=perfmap
same json --format=json --anon-handler=perfmap
same html --format=html --anon-handler=perfmap
[ "$status" -eq 0 ] && echo PASS
exit "$status"
