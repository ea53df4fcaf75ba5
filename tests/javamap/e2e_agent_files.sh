#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# How the agent creates /tmp/anon.<pid> in a world-writable directory: a
# stale file or symlink of its own user is replaced, one of another user
# is neither followed nor touched (one warning, the JVM runs on).  The
# JVMs keep frame pointers, so that the agent has nothing else to say.
. "$(dirname "$0")/lib.sh"
jm_need_java
jm_workdir
[ "$(id -u)" = 0 ] || skip "planting another user's files needs root"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is missing"
w=$JM_WORK
chmod 755 "$w" "$w/classes"
nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"

# run_planted SETUP: run Hot under a shell whose pid the JVM inherits,
# after SETUP (a shell snippet) has run with $map set to /tmp/anon.<pid>
run_planted() {
	local setup=$1
	bash -c 'map=/tmp/anon.$$; '"$setup"'; exec java -XX:+PreserveFramePointer -agentpath:"$0" \
		-cp "$1" Hot 0.3' "$JM_AGENT" "$w/classes" \
		>"$w/out" 2>"$w/err" &
	pid=$!
	wait $pid || fail "java exited with $? (stderr: $(cat "$w/err"))"
	map=/tmp/anon.$pid
	expect_grep '^hot done$' "$w/out" "the JVM did not run to its end"
}

# one_warning PATTERN WHAT: stderr is exactly one line, matching
one_warning() {
	[ "$(wc -l <"$w/err")" = 1 ] ||
		fail "want one warning line, got: $(cat "$w/err")"
	expect_grep "$1" "$w/err" "$2"
}

cleanup_maps=()
trap 'rm -rf "$w" "${cleanup_maps[@]}"' EXIT

# 1. a stale map of our own, from an earlier process with this pid
run_planted 'printf "OPJITJMPstale" >"$map"; chmod 600 "$map"'
cleanup_maps+=("$map")
[ ! -s "$w/err" ] ||
	fail "replacing our own stale map warned: $(cat "$w/err")"
mode=$(stat -c %a "$map")
[ "$mode" = 644 ] || fail "the new map has mode $mode"
"$JM_DUMP" "$map" >"$w/dump" 2>&1 ||
	fail "the new map does not parse: $(cat "$w/dump")"
expect_grep "^header version=2\.1 pid=$pid " "$w/dump" \
	"the stale map was not replaced"

# 2. a symlink of our own pointing at a file that must survive
echo precious >"$w/target"
run_planted "ln -s '$w/target' \"\$map\""
cleanup_maps+=("$map")
[ "$(cat "$w/target")" = precious ] || fail "the agent wrote through a symlink"
[ -f "$map" ] && [ ! -L "$map" ] || fail "$map is not a fresh regular file"
"$JM_DUMP" "$map" >/dev/null 2>&1 ||
	fail "the map that replaced our symlink does not parse"

# 3. another user's symlink: not followed, not removed, one warning
run_planted "$nobody ln -s '$w/target' \"\$map\""
cleanup_maps+=("$map")
[ "$(cat "$w/target")" = precious ] ||
	fail "the agent wrote through another user's symlink"
[ -L "$map" ] || fail "the agent removed another user's symlink"
one_warning "^javamap-agent: cannot create /tmp/anon\.$pid: the log's file \
belongs to another user; not recording$" "the warning for another user's symlink"

# 4. another user's regular file: left as it was, one warning
run_planted "$nobody sh -c 'echo theirs >\"\$0\"' \"\$map\""
cleanup_maps+=("$map")
[ "$(cat "$map")" = theirs ] || fail "the agent changed another user's file"
one_warning "belongs to another user; not recording$" \
	"the warning for another user's file"
# 5. file=PATH naming a file of our own that is not a map (a user's
# document): left as it was, one warning, the JVM runs on
echo "my thesis" >"$w/thesis.txt"
java -agentpath:"$JM_AGENT=file=$w/thesis.txt" -cp "$w/classes" Hot 0.3 \
	>"$w/out" 2>"$w/err" || fail "java exited with $? (stderr: $(cat "$w/err"))"
expect_grep '^hot done$' "$w/out" "the JVM did not run to its end"
[ "$(cat "$w/thesis.txt")" = "my thesis" ] || fail "the agent replaced $w/thesis.txt"
one_warning "^javamap-agent: cannot create $w/thesis.txt: a file that is not a log is in its place \(left alone\); not recording$" \
	"the warning for a file that is not a map"

# 6. file=PATH naming a stale map of ours: replaced
printf 'OPJITJMPstale' >"$w/old.map"
java -XX:+PreserveFramePointer -agentpath:"$JM_AGENT=file=$w/old.map" -cp "$w/classes" Hot 0.3 \
	>"$w/out" 2>"$w/err" || fail "java exited with $? (stderr: $(cat "$w/err"))"
[ ! -s "$w/err" ] || fail "replacing our own stale map warned: $(cat "$w/err")"
"$JM_DUMP" "$w/old.map" >/dev/null 2>&1 || fail "the stale map named by file= was not replaced"
echo "$JM_NAME: ok"
