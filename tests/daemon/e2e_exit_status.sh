#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# oprofiled exits as its command did, leaves its stdin, stdout and stderr
# alone, and a command that cannot run gives one line and 127.
. "$(dirname "$0")/lib.sh"

cd "$WORK"
rc=0; "$OPROFILED" --session-dir=s -- sh -c 'exit 3' 2>err.txt || rc=$?
[ "$rc" -eq 3 ] || fail "exit 3 came back as $rc"
check_summary err.txt

rc=0; "$OPROFILED" --session-dir=s -- sh -c 'kill -TERM $$' 2>err.txt || rc=$?
[ "$rc" -eq 143 ] || fail "death by SIGTERM came back as $rc, not 143"
rc=0; "$OPROFILED" --session-dir=s -- sh -c 'kill -SEGV $$' 2>err.txt || rc=$?
[ "$rc" -eq 139 ] || fail "death by SIGSEGV came back as $rc, not 139"

# --duration ends recording, not the command: its status still comes back
rc=0; "$OPROFILED" --session-dir=s --duration=0.3 -- sh -c 'sleep 1; exit 4' 2>err.txt || rc=$?
[ "$rc" -eq 4 ] || fail "--duration with a command exited $rc, not the command's 4"
check_summary err.txt
# SIGINT stops recording and the command, as perf record does
"$OPROFILED" --session-dir=s -- sleep 30 2>err.txt &
dpid=$!
cleanup_pids+=("$dpid")
sleep 0.5
kill -INT "$dpid"
rc=0; wait "$dpid" || rc=$?
[ "$rc" -eq 143 ] || fail "SIGINT gave $rc, not the 143 of the command ended by SIGTERM"
check_summary err.txt

out=$(echo "through stdin" | "$OPROFILED" --session-dir=s -- cat 2>err.txt)
[ "$out" = "through stdin" ] || fail "stdin/stdout not passed through: '$out'"
"$OPROFILED" --session-dir=s -- sh -c 'echo to-stderr >&2' 2>err.txt
grep -qx to-stderr err.txt || fail "the command's stderr was not passed through: $(cat err.txt)"

rm -rf missing
rc=0; "$OPROFILED" --session-dir=missing -- /nonexistent/command 2>err.txt || rc=$?
[ "$rc" -eq 127 ] || fail "a missing command exited $rc, not 127"
[ "$(cat err.txt)" = "oprofiled: cannot run /nonexistent/command: No such file or directory" ] ||
	fail "unclear error for a missing command: $(cat err.txt)"
rc=0; "$OPROFILED" --session-dir=missing -- no-such-command-in-path 2>err.txt || rc=$?
[ "$rc" -eq 127 ] || fail "a command missing from PATH exited $rc, not 127"
[ "$(wc -l <err.txt)" -eq 1 ] || fail "not one line: $(cat err.txt)"
[ ! -e missing ] || fail "a command that never ran left a session"

# an earlier session is kept aside, never mixed in
"$OPROFILED" --session-dir=keep -- true 2>/dev/null
"$OPROFILED" --session-dir=keep -- true 2>err.txt
[ -d keep.previous-1 ] || fail "the earlier session was not kept aside"
grep -q 'keep.previous-1' err.txt || fail "not told where the earlier session went: $(cat err.txt)"
echo pass
