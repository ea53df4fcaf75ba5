#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The agent's alloc= and lock= options: allocation samples estimate the
# bytes each site allocates (3:1 by the workload's own arithmetic) and
# contended enters the time waited on each monitor (3:1 by the hold
# times), each under its own stack; bad values are one line and the JVM
# runs on; a JVM that cannot sample allocations says so in one line and
# its code is still recorded.
. "$(dirname "$0")/lib.sh"
jm_need_java
jm_workdir
trap 'rm -rf "$JM_WORK"' EXIT
JITLOG=$OPJIT_BUILD/bin/opjit-jitlog
[ -x "$JITLOG" ] || fail "$JITLOG is missing"

# run OPTS CLASS ARG DONE: the JVM must run to its end
run() {
	# frame pointers on: the agent says nothing else on stderr
	java -XX:+PreserveFramePointer -agentpath:"$JM_AGENT=$1" -cp "$JM_WORK/classes" "$2" "$3" \
		>"$JM_WORK/out" 2>"$JM_WORK/err" ||
		fail "java with '$1' exited with $? ($(cat "$JM_WORK/err"))"
	expect_grep "^$4 done$" "$JM_WORK/out" \
		"the JVM with '$1' did not run to its end"
}

# share FOLDED LEAF: the percentage of the weight whose stack ends in
# LEAF, to one decimal
share() {
	sed 's/ \([0-9]*\)$/\t\1/' "$1" | awk -F'\t' -v leaf="$2" '
		{ all += $2; n = split($1, f, ";"); if (f[n] == leaf) mine += $2 }
		END { if (all) printf "%.1f\n", 100 * mine / all; else print "none" }'
}

# within A B POINTS: |A - B| <= POINTS
within() {
	awk -v a="$1" -v b="$2" -v p="$3" \
		'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= p) }'
}

# allocations: 4 M objects of 1024 bytes, 3/4 of them long[] from longs()
run "file=$JM_WORK/a.map,alloc" Alloc 1000000 alloc
[ ! -s "$JM_WORK/err" ] || fail "alloc wrote to stderr: $(cat "$JM_WORK/err")"
"$JITLOG" folded alloc "$JM_WORK/a.map" >"$JM_WORK/a.folded" ||
	fail "opjit-jitlog folded alloc failed"
n=$(wc -l <"$JM_WORK/a.folded")
# 4096000000 bytes at one sample per 512 KiB: about 7800
[ "$n" -ge 4000 ] || fail "only $n allocation samples for 4096000000 bytes"
expect_grep '^Alloc\.main\(java\.lang\.String\[\]\);Alloc\.longs\(\);long\[\] [0-9]+$' \
	"$JM_WORK/a.folded" "long[] under longs()"
expect_grep '^Alloc\.main\(java\.lang\.String\[\]\);Alloc\.doubles\(\);double\[\] [0-9]+$' \
	"$JM_WORK/a.folded" "double[] under doubles()"
if grep -q 'Alloc\.doubles();long\[\]\|Alloc\.longs();double\[\]' \
	"$JM_WORK/a.folded"; then
	fail "a class under the other site's stack"
fi
s=$(share "$JM_WORK/a.folded" 'long[]')
within "$s" 75 5 || fail "long[] has $s% of the bytes, not 75 +- 5"
echo "alloc: long[] ${s}% of the estimated bytes in $n samples"

# monitors: 20 rounds of 30 ms on a LockA and 10 ms on a LockB
run "file=$JM_WORK/l.map,lock=1000000" Contend 20 contend
[ ! -s "$JM_WORK/err" ] || fail "lock wrote to stderr: $(cat "$JM_WORK/err")"
"$JITLOG" folded lock "$JM_WORK/l.map" >"$JM_WORK/l.folded" ||
	fail "opjit-jitlog folded lock failed"
na=$(grep -c ';Contend\.enterA();Contend\$LockA [0-9]*$' "$JM_WORK/l.folded" || :)
nb=$(grep -c ';Contend\.enterB();Contend\$LockB [0-9]*$' "$JM_WORK/l.folded" || :)
# a waiter descheduled past the whole hold (a loaded machine) never
# contends: most of the 20 must, none beyond them
[ "$na" -ge 18 ] && [ "$na" -le 20 ] && [ "$nb" -ge 18 ] && [ "$nb" -le 20 ] ||
	fail "$na waits on LockA and $nb on LockB under their stacks, not 18 to 20 each"
s=$(share "$JM_WORK/l.folded" 'Contend$LockA')
# the truth: the share of the time the workload held LockA
held=$(sed -n 's/^held \([0-9]*\) \([0-9]*\)$/\1 \2/p' "$JM_WORK/out")
[ -n "$held" ] || fail "Contend did not say how long it held the locks"
want=$(echo "$held" | awk '{ printf "%.1f\n", 100 * $1 / ($1 + $2) }')
within "$s" "$want" 5 || fail "LockA has $s% of the time waited, not $want +- 5"
echo "lock: LockA ${s}% of the time waited (held ${want}%)"

# bad values: one line, the JVM runs on
for bad in 'alloc=12k' 'alloc=-1' 'alloc=4294967296' 'lock=' 'lock=1e6'; do
	run "file=$JM_WORK/bad.map,$bad" Alloc 10 alloc
	[ "$(wc -l <"$JM_WORK/err")" = 1 ] ||
		fail "'$bad' gave not one line: $(cat "$JM_WORK/err")"
	expect_grep "^javamap-agent: bad options 'file=$JM_WORK/bad\.map,$bad': (alloc|lock) wants .*; not recording$" \
		"$JM_WORK/err" "the line for '$bad'"
done

# a JVM that cannot sample allocations: one line, code still recorded
JAVAMAP_AGENT_DENY=alloc run "file=$JM_WORK/d.map,alloc" Alloc 100000 alloc
[ "$(wc -l <"$JM_WORK/err")" = 1 ] ||
	fail "no capability gave not one line: $(cat "$JM_WORK/err")"
expect_grep '^javamap-agent: this JVM cannot sample allocations .*alloc= is off' \
	"$JM_WORK/err" "the line for a JVM without SampledObjectAlloc"
"$JITLOG" dump "$JM_WORK/d.map" >"$JM_WORK/d.dump" || fail "d.map does not parse"
expect_grep ' load id=' "$JM_WORK/d.dump" "code recorded without alloc"
if grep -q ' alloc tid=' "$JM_WORK/d.dump"; then
	fail "allocation samples without the capability"
fi
echo "e2e_agent_events: ok"
