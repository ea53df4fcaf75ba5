#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A daemon killed with SIGKILL leaves a session that reads back, missing
# at most about the last second; SIGUSR1 flushes without stopping.
. "$(dirname "$0")/lib.sh"

bin=$WORKLOADS/threetoone
cd "$WORK"
"$OPROFILED" --session-dir=s -- bash -c 'echo $$ >child.pid; exec "$0" 6' "$bin" 2>err.txt &
dpid=$!
cleanup_pids+=("$dpid")
sleep 1
kill -0 "$dpid" 2>/dev/null || fail "oprofiled ended early: $(cat err.txt)"
kill -USR1 "$dpid"
sleep 2.5
kill -0 "$dpid" 2>/dev/null || fail "SIGUSR1 stopped oprofiled: $(cat err.txt)"
kill -9 "$dpid"
wait "$dpid" 2>/dev/null || true
child=$(cat child.pid)
cleanup_pids+=("$child")
dump s >d.txt
n=$(image_samples d.txt "$bin")
samples=$(info d.txt samples)
echo "after kill -9 at 3.5 s: $n samples in threetoone, $samples in total"
# 3.5 s at up to 4 kHz; a session that kept only its first second or
# less would hold far fewer
[ "$n" -ge 1500 ] || fail "only $n samples survived kill -9"
[ "$samples" -ge "$n" ] || fail "totals ($samples) lag the histograms ($n) by more than a flush"
kill -9 "$child" 2>/dev/null || true
echo pass
