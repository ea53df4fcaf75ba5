#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A recording with nothing to record does not wake the recorder (it used
# to wake every second to flush nothing), and what is recorded after the
# idle stretch, when the workload gets busy, is all in the session.
. "$(dirname "$0")/lib.sh"

bin=$WORKLOADS/threetoone
cd "$WORK"
"$OPROFILED" --session-dir=s -- bash -c 'sleep 6; exec "$0" 1' "$bin" \
	>out.txt 2>err.txt &
dpid=$!
cleanup_pids+=("$dpid")
switches() { awk '$1 == "voluntary_ctxt_switches:" { print $2 }' "/proc/$dpid/status"; }
# from 3 s in, when the start's records are long flushed, for 2 s: a
# recorder that flushes every second wakes twice
sleep 3
a=$(switches)
sleep 2
b=$(switches)
echo "oprofiled woke $((b - a)) times in 2 s of an idle recording"
[ $((b - a)) -le 1 ] || fail "an idle recorder woke $((b - a)) times in 2 s"
wait "$dpid" || fail "oprofiled exited $?: $(cat err.txt)"
dump s >d.txt
n=$(image_samples d.txt "$bin")
echo "threetoone: $n samples after the idle stretch"
# 1 s at 4000 Hz, less half for a busy machine and the ramp-up
[ "$n" -ge 2000 ] || fail "only $n samples of threetoone's second after the idle stretch"
echo pass
