#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# How the agent creates /tmp/anon.<pid> in a world-writable directory: a
# stale file or symlink of its own user is replaced, one of another user
# is neither followed nor touched (one warning, the JVM runs on).
. "$(dirname "$0")/lib.sh"
jm_need_java
jm_workdir
[ "$(id -u)" = 0 ] || skip "planting another user's files needs root"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is missing"
chmod 755 "$JM_WORK" "$JM_WORK/classes"

# run_planted SETUP: run Hot under a shell whose pid the JVM inherits,
# after SETUP (a shell snippet) has run with $map set to /tmp/anon.<pid>
run_planted() {
	local setup=$1
	bash -c 'map=/tmp/anon.$$; '"$setup"'; exec java -agentpath:"$0" \
		-cp "$1" Hot 0.3' "$JM_AGENT" "$JM_WORK/classes" \
		>"$JM_WORK/out" 2>"$JM_WORK/err" &
	pid=$!
	wait $pid || fail "java exited with $? (stderr: $(cat "$JM_WORK/err"))"
	map=/tmp/anon.$pid
	expect_grep '^hot done$' "$JM_WORK/out" "the JVM did not run to its end"
}

cleanup_maps=()
trap 'rm -rf "$JM_WORK" "${cleanup_maps[@]}"' EXIT

# 1. a stale map of our own, from an earlier process with this pid
run_planted 'echo stale-bytes >"$map"; chmod 600 "$map"'
cleanup_maps+=("$map")
[ ! -s "$JM_WORK/err" ] || fail "replacing our own stale map warned: $(cat "$JM_WORK/err")"
[ "$(stat -c %a "$map")" = 644 ] || fail "the new map has mode $(stat -c %a "$map")"
"$JM_DUMP" "$map" >"$JM_WORK/dump" 2>&1 || fail "the new map does not parse: $(cat "$JM_WORK/dump")"
expect_grep "^header version=1\.0 pid=$pid " "$JM_WORK/dump" "the stale map was not replaced"

# 2. a symlink of our own pointing at a file that must survive
echo precious >"$JM_WORK/target"
run_planted "ln -s '$JM_WORK/target' \"\$map\""
cleanup_maps+=("$map")
[ "$(cat "$JM_WORK/target")" = precious ] || fail "the agent wrote through a symlink"
[ -f "$map" ] && [ ! -L "$map" ] || fail "$map is not a fresh regular file"
"$JM_DUMP" "$map" >/dev/null 2>&1 || fail "the map that replaced our symlink does not parse"

# 3. another user's symlink: not followed, not removed, one warning
run_planted "setpriv --reuid=65534 --regid=65534 --clear-groups \
	ln -s '$JM_WORK/target' \"\$map\""
cleanup_maps+=("$map")
[ "$(cat "$JM_WORK/target")" = precious ] || fail "the agent wrote through another user's symlink"
[ -L "$map" ] || fail "the agent removed another user's symlink"
[ "$(wc -l <"$JM_WORK/err")" = 1 ] || fail "want one warning line, got: $(cat "$JM_WORK/err")"
expect_grep "^javamap-agent: /tmp/anon\.$pid exists and is owned by uid 65534, not 0; not recording$" \
	"$JM_WORK/err" "the warning for another user's symlink"

# 4. another user's regular file: left as it was, one warning
run_planted "setpriv --reuid=65534 --regid=65534 --clear-groups \
	sh -c 'echo theirs >\"\$0\"' \"\$map\""
cleanup_maps+=("$map")
[ "$(cat "$map")" = theirs ] || fail "the agent changed another user's file"
[ "$(wc -l <"$JM_WORK/err")" = 1 ] || fail "want one warning line, got: $(cat "$JM_WORK/err")"
expect_grep "owned by uid 65534, not 0; not recording$" "$JM_WORK/err" \
	"the warning for another user's file"
echo "$JM_NAME: ok"
