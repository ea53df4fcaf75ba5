#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A recording with nothing to record does not wake the recorder (it used
# to wake every second to flush nothing), and what is recorded after the
# idle stretch, when the workload gets busy, is all in the session.
. "$(dirname "$0")/lib.sh"

bin=$WORKLOADS/threetoone
cd "$WORK"
OPJIT_WORKLOAD_CPU_FILE=$PWD/cpu_ms \
	"$OPROFILED" --session-dir=s -- bash -c 'sleep 6; exec "$0" 1cpu' "$bin" \
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
ms=$(cat cpu_ms) || fail "threetoone did not say its CPU time"
echo "threetoone: $n samples after the idle stretch, for $ms ms of CPU"
# a second of its own CPU time, however long a busy machine makes that
[ "$ms" -ge 900 ] || fail "threetoone ran for $ms ms of CPU, not its second"
# its CPU time at 4000 Hz, less half for the kernel's ramp-up
want=$((ms * 2))
[ "$n" -ge "$want" ] || fail "only $n samples of threetoone's $ms ms of CPU after the idle stretch, want $want"
echo pass
