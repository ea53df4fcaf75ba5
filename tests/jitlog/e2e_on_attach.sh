#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# exprjit with its log opened on attach: run alone it writes no file at
# all; oprofiled started on it later (--pid) finds the library's control
# block, and the code compiled before the attach is named as well as the
# code after, from the table the library writes at the attach, each load
# as older than the attach; when the session stops the library stops
# writing; under oprofiled -- COMMAND the shares are the JIT's own within
# 1 point; a profiler not allowed to write the process's memory says so
# in one line and profiles it without the log.
. "$(dirname "$0")/lib.sh"

# nobody attaches: not one byte
"$exprjit" --on-attach 0.3 >"$tmp/alone.out" &
pid=$!
logs+=("/tmp/anon.$pid")
wait "$pid" || fail "exprjit --on-attach failed"
[ ! -e "/tmp/anon.$pid" ] || fail "exprjit wrote /tmp/anon.$pid with no profiler attached"
echo "ok: alone, no log"

# attached later, for the first half of the run and into the re-JIT
"$exprjit" --on-attach 6 >"$tmp/pid.out" &
pid=$!
logs+=("/tmp/anon.$pid")
sleep 0.6
[ ! -e "/tmp/anon.$pid" ] || fail "exprjit wrote its log before the attach"
# stopped in the re-JIT's phase, before the move: exprjit's phases go by
# its CPU time, so the stop waits for its "phase 1" line, not a clock
"$oprofiled" --session-dir="$tmp/p" --pid="$pid" >/dev/null 2>"$tmp/p.err" &
dpid=$!
for _ in $(seq 600); do
	grep -qx 'phase 1' "$tmp/pid.out" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
grep -qx 'phase 1' "$tmp/pid.out" || fail "exprjit never reached its re-JIT"
sleep 0.5
grep -qx 'phase 2' "$tmp/pid.out" &&
	fail "exprjit moved its code before the session could stop: the machine is too slow for this test"
kill -INT "$dpid"
wait "$dpid" || { cat "$tmp/p.err"; fail "oprofiled --pid failed"; }
! grep -q "cannot attach" "$tmp/p.err" || { cat "$tmp/p.err"; fail "oprofiled did not attach"; }
wait "$pid" || fail "exprjit failed"
"$opreport" --session-dir="$tmp/p" -l --format=json --anon-handler=jitlog \
	>"$tmp/p.json" 2>"$tmp/p.rerr" || { cat "$tmp/p.rerr"; fail "opreport failed"; }
shares "$tmp/p.json" || fail "--pid: the JIT code is not all named"
copy=$(archived_log "$tmp/p")
"$dump" dump "$copy" >"$tmp/p.dump" || fail "opjit-jitlog dump failed"
grep -Eq '^seq=[0-9]+ t=0 load id=1 .* older$' "$tmp/p.dump" ||
	{ cat "$tmp/p.dump"; fail "expr_heavy's load from before the attach is not written as older than the attach"; }
echo "ok: --pid names the code compiled before the attach"
# the move of expr_light came after the session stopped
"$dump" dump "/tmp/anon.$pid" >"$tmp/live.dump" || fail "opjit-jitlog dump of the live log failed"
grep -Eq '^seq=[0-9]+ t=[0-9]+ unload id=1 ' "$tmp/live.dump" ||
	{ cat "$tmp/live.dump"; fail "the re-JIT, while attached, is not in the log"; }
! grep -Eq '^seq=[0-9]+ t=[0-9]+ unload id=2 ' "$tmp/live.dump" ||
	{ cat "$tmp/live.dump"; fail "the library wrote the move, after the session stopped"; }
echo "ok: detached at the end, nothing written after"

# another user's JIT, and a profiler without CAP_SYS_PTRACE: one line
# that says why, and the process profiled all the same
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$tmp"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$exprjit" --on-attach 2 >"$tmp/nobody.out" &
	pid=$!
	logs+=("/tmp/anon.$pid")
	sleep 0.5
	setpriv --bounding-set=-sys_ptrace "$oprofiled" --session-dir="$tmp/n" \
		--pid="$pid" --duration=0.8 >/dev/null 2>"$tmp/n.err" ||
		{ cat "$tmp/n.err"; fail "oprofiled without CAP_SYS_PTRACE failed"; }
	wait "$pid" || fail "exprjit as nobody failed"
	[ "$(grep -c 'cannot attach' "$tmp/n.err")" = 1 ] &&
		grep -q "^oprofiled: cannot attach to the JIT log of pid $pid (exprjit): .*Permission denied (attaching needs the process's uid or CAP_SYS_PTRACE); its code is named only if its JIT writes the log without a profiler$" "$tmp/n.err" ||
		{ cat "$tmp/n.err"; fail "no one line for an attach not allowed"; }
	grep -q "^oprofiled: [1-9][0-9]* samples" "$tmp/n.err" ||
		{ cat "$tmp/n.err"; fail "the process was not profiled without its log"; }
	[ ! -e "/tmp/anon.$pid" ] || fail "the library wrote a log nobody could attach"
	echo "ok: an attach not allowed is one line"
else
	echo "SKIP (loud): the attach-refused case needs root and setpriv" >&2
fi

# started by oprofiled: the whole run, at the JIT's own shares
"$oprofiled" --session-dir="$tmp/c" -- "$exprjit" --on-attach 3 >"$tmp/c.out" 2>"$tmp/c.err" ||
	{ cat "$tmp/c.err"; fail "oprofiled -- exprjit --on-attach failed"; }
copy=$(archived_log "$tmp/c")
logs+=("/tmp/${copy##*/}")
"$opreport" --session-dir="$tmp/c" -l --format=json --anon-handler=jitlog \
	>"$tmp/c.json" 2>"$tmp/c.rerr" || { cat "$tmp/c.rerr"; fail "opreport failed"; }
shares "$tmp/c.json" "$tmp/c.out" || fail "-- COMMAND: the shares are not the JIT's own"
echo PASS
