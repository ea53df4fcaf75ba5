#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# exprjit with its log opened on attach: run alone it writes no file at
# all; oprofiled started on it later (--pid) finds the library's control
# block, and the code compiled before the attach is named as well as the
# code after, from the table the library writes with each load's own
# time; when the session stops the library stops writing; under
# oprofiled -- COMMAND the shares are the JIT's own within 1 point.
. "$(dirname "$0")/lib.sh"

# nobody attaches: not one byte
"$exprjit" --on-attach 0.3 >"$tmp/alone.out" &
pid=$!
logs+=("/tmp/anon.$pid")
wait "$pid" || fail "exprjit --on-attach failed"
[ ! -e "/tmp/anon.$pid" ] || fail "exprjit wrote /tmp/anon.$pid with no profiler attached"
echo "ok: alone, no log"

# attached later, for the first half of the run
"$exprjit" --on-attach 6 >"$tmp/pid.out" &
pid=$!
logs+=("/tmp/anon.$pid")
sleep 0.6
[ ! -e "/tmp/anon.$pid" ] || fail "exprjit wrote its log before the attach"
"$oprofiled" --session-dir="$tmp/p" --pid="$pid" --duration=2.5 >/dev/null 2>"$tmp/p.err" ||
	{ cat "$tmp/p.err"; fail "oprofiled --pid failed"; }
! grep -q "cannot attach" "$tmp/p.err" || { cat "$tmp/p.err"; fail "oprofiled did not attach"; }
wait "$pid" || fail "exprjit failed"
"$opreport" --session-dir="$tmp/p" -l --format=json --anon-handler=jitlog \
	>"$tmp/p.json" 2>"$tmp/p.rerr" || { cat "$tmp/p.rerr"; fail "opreport failed"; }
shares "$tmp/p.json" || fail "--pid: the JIT code is not all named"
copy=$(archived_log "$tmp/p")
"$dump" dump "$copy" >"$tmp/p.dump" || fail "opjit-jitlog dump failed"
start=$(sed -nE 's/^version .* start_ns=([0-9]+).*/\1/p' "$tmp/p.dump")
load=$(sed -nE 's/^seq=[0-9]+ t=([0-9]+) load id=1 .*/\1/p' "$tmp/p.dump")
[ -n "$start" ] && [ -n "$load" ] && [ "$load" -lt "$start" ] ||
	{ cat "$tmp/p.dump"; fail "expr_heavy's load does not keep its time from before the attach"; }
echo "ok: --pid names the code compiled before the attach"
# the move of expr_light, at 4 s, came after the session stopped
"$dump" dump "/tmp/anon.$pid" >"$tmp/live.dump" || fail "opjit-jitlog dump of the live log failed"
grep -Eq '^seq=[0-9]+ t=[0-9]+ unload id=1 ' "$tmp/live.dump" ||
	{ cat "$tmp/live.dump"; fail "the re-JIT at 2 s, while attached, is not in the log"; }
! grep -Eq '^seq=[0-9]+ t=[0-9]+ unload id=2 ' "$tmp/live.dump" ||
	{ cat "$tmp/live.dump"; fail "the library wrote the move at 4 s, after the session stopped"; }
echo "ok: detached at the end, nothing written after"

# started by oprofiled: the whole run, at the JIT's own shares
"$oprofiled" --session-dir="$tmp/c" -- "$exprjit" --on-attach 3 >"$tmp/c.out" 2>"$tmp/c.err" ||
	{ cat "$tmp/c.err"; fail "oprofiled -- exprjit --on-attach failed"; }
copy=$(archived_log "$tmp/c")
logs+=("/tmp/${copy##*/}")
"$opreport" --session-dir="$tmp/c" -l --format=json --anon-handler=jitlog \
	>"$tmp/c.json" 2>"$tmp/c.rerr" || { cat "$tmp/c.rerr"; fail "opreport failed"; }
shares "$tmp/c.json" "$tmp/c.out" || fail "-- COMMAND: the shares are not the JIT's own"
echo PASS
