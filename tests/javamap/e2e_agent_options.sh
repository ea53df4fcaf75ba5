#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The agent's options: file= and debug= do what they say, and a bad
# option is one line on stderr while the JVM runs on without a map.  A
# JVM without -XX:+PreserveFramePointer gets one line saying call graphs
# need it (the runs before keep frame pointers, so say nothing more).
. "$(dirname "$0")/lib.sh"
jm_need_java
jm_workdir
trap 'rm -rf "$JM_WORK"' EXIT

# run_hot OPTS [FP]: Hot with the agent's OPTS, with frame pointers
# unless FP is -XX:-PreserveFramePointer
run_hot() {
	local opts=$1 fp=${2:--XX:+PreserveFramePointer}
	touch "$JM_WORK/start"
	java "$fp" -agentpath:"$JM_AGENT$opts" -cp "$JM_WORK/classes" Hot 0.5 \
		>"$JM_WORK/out" 2>"$JM_WORK/err" &
	pid=$!
	wait $pid ||
		fail "java with '$opts' exited with $? ($(cat "$JM_WORK/err"))"
	expect_grep '^hot done$' "$JM_WORK/out" \
		"the JVM with '$opts' did not run to its end"
}

# Whether the last run wrote /tmp/anon.PID: a file of that name left by
# an earlier process with the same pid is older than the run.
wrote_map() {
	[ -n "$(find /tmp -maxdepth 1 -name "anon.$pid" \
		-newer "$JM_WORK/start" 2>/dev/null)" ]
}

# file= and debug=
run_hot "=file=$JM_WORK/x.map,debug=$JM_WORK/debug.log"
! wrote_map || fail "file= still wrote /tmp/anon.$pid"
"$JM_DUMP" "$JM_WORK/x.map" >"$JM_WORK/dump" || fail "file= map does not parse"
expect_grep '^method Hot\.alpha\(long\) ' "$JM_WORK/dump" "file= map content"
expect_grep "^javamap-agent: writing $JM_WORK/x\.map$" "$JM_WORK/debug.log" \
	"debug log header"
expect_grep '^method 0x[0-9a-f]+ Hot\.alpha\(long\) Hot\.java lines=' \
	"$JM_WORK/debug.log" "debug log of methods"
expect_grep '^load 0x[0-9a-f]+ 0x[0-9a-f]+\+[0-9]+ pcs=' "$JM_WORK/debug.log" \
	"debug log of loads"
[ ! -s "$JM_WORK/err" ] || fail "debug=PATH wrote to stderr"

# debug without a path goes to stderr
run_hot "=file=$JM_WORK/y.map,debug"
expect_grep '^dynamic Interpreter 0x' "$JM_WORK/err" "debug to stderr"

# bad options: one line each, the JVM runs, no map
for bad in 'inline=maybe' 'file=relative.map' 'colour=red' 'debug='; do
	run_hot "=$bad"
	if wrote_map; then
		rm -f "/tmp/anon.$pid"
		fail "'$bad' still wrote a map"
	fi
	[ "$(wc -l <"$JM_WORK/err")" = 1 ] ||
		fail "'$bad' gave not one line: $(cat "$JM_WORK/err")"
	expect_grep "^javamap-agent: bad options '$bad': .*; not recording$" \
		"$JM_WORK/err" "the line for '$bad'"
done

# a debug log that cannot be opened: one line, the map is still written
run_hot "=file=$JM_WORK/z.map,debug=/nonexistent/dir/log"
[ "$(wc -l <"$JM_WORK/err")" = 1 ] ||
	fail "unopenable debug log: $(cat "$JM_WORK/err")"
expect_grep '^javamap-agent: cannot open debug log /nonexistent/dir/log: ' \
	"$JM_WORK/err" "the unopenable debug log line"
"$JM_DUMP" "$JM_WORK/z.map" >/dev/null ||
	fail "no map beside a failed debug log"

# without frame pointers: one line, once, and the map as ever
for fp in -XX:-PreserveFramePointer -XX:+PreserveFramePointer; do
	run_hot "=file=$JM_WORK/fp.map" $fp
	"$JM_DUMP" "$JM_WORK/fp.map" >/dev/null || fail "no map with $fp"
	case $fp in
	-XX:-*)
		[ "$(wc -l <"$JM_WORK/err")" = 1 ] ||
			fail "want one line with $fp: $(cat "$JM_WORK/err")"
		expect_grep '^javamap-agent: -XX:\+PreserveFramePointer is off: call graphs will show no Java callers above compiled Java code$' \
			"$JM_WORK/err" "the line for a JVM without frame pointers"
		;;
	*)
		[ ! -s "$JM_WORK/err" ] ||
			fail "$fp gave a line: $(cat "$JM_WORK/err")"
		;;
	esac
done
echo "$JM_NAME: ok"
