#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The agent's DATA ranges for interpreted frames: with
# -XX:+PreserveFramePointer, each method of each prepared class (Deep's
# own, loaded after the agent, and the JDK's, loaded before VMInit) has
# its Method* logged as an 8-byte DATA range naming it, each value once;
# without frame pointers there are none (no chain reaches an
# interpreted caller) and the map is as before.
. "$(dirname "$0")/lib.sh"
jm_need_java
jm_workdir
w=$JM_WORK

run_deep() {
	local fp=$1 map=$2
	java "$fp" -XX:CompileCommand=quiet \
		-XX:CompileCommand=exclude,Deep::left \
		-XX:CompileCommand=exclude,Deep::right \
		'-XX:CompileCommand=dontinline,Deep::*' \
		-agentpath:"$JM_AGENT=file=$map" -cp "$w/classes" Deep 0.5 \
		>"$w/out" 2>"$w/err" ||
		fail "java $fp exited with $? ($(cat "$w/err"))"
	expect_grep '^deep done$' "$w/out" "Deep did not run to its end"
	"$JM_DUMP" "$map" >"$map.dump" 2>"$map.err" ||
		fail "the map of java $fp does not parse: $(cat "$map.err")"
	[ ! -s "$map.err" ] || fail "damaged: $(cat "$map.err")"
}

run_deep -XX:+PreserveFramePointer "$w/fp.map"
for m in 'Deep.left()' 'Deep.right()' 'Deep.leaf(long)' \
	'java.lang.String.hashCode()'; do
	n=$(grep -cF -- " $m" <(grep -E '^data 0x[0-9a-f]+ size=8 ' \
		"$w/fp.map.dump") || true)
	[ "$n" = 1 ] || fail "want one DATA range naming $m, got $n"
done
dups=$(grep '^data ' "$w/fp.map.dump" | cut -d' ' -f2 | sort | uniq -d |
	head -n 3)
[ -z "$dups" ] || fail "Method* values logged twice: $dups"
grep -q '^code .* Deep\.leaf(long)$' "$w/fp.map.dump" ||
	fail "leaf was never compiled: no interpreted callers above compiled code"

run_deep -XX:-PreserveFramePointer "$w/nofp.map"
! grep -q '^data ' "$w/nofp.map.dump" ||
	fail "DATA ranges without frame pointers"
grep -q '^code .* Deep\.leaf(long)$' "$w/nofp.map.dump" ||
	fail "the map without frame pointers lost its code"
echo "$JM_NAME: ok"
