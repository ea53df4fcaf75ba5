#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A daemon killed with SIGKILL leaves a session that reads back, missing
# at most about the last two seconds; SIGUSR1 flushes without stopping.
# The second part says "about the last two seconds" by the clock: the
# newest anonymous sample (they carry their time) that survived the kill.
. "$(dirname "$0")/lib.sh"

bin=$WORKLOADS/threetoone
cd "$WORK"
"$OPROFILED" --session-dir=s -- bash -c 'echo $$ >child.pid; exec "$0" 60' "$bin" 2>err.txt &
dpid=$!
cleanup_pids+=("$dpid")
for _ in $(seq 100); do [ -s child.pid ] && break; sleep 0.1; done
child=$(cat child.pid)
cleanup_pids+=("$child")

# CPU time of the workload in ms (utime + stime of /proc/PID/stat)
cpu_ms() {
	local st
	read -r -a st < <(sed 's/.*) //' "/proc/$child/stat")
	echo $(( (st[11] + st[12]) * 1000 / $(getconf CLK_TCK) ))
}

sleep 1
kill -0 "$dpid" 2>/dev/null || fail "oprofiled ended early: $(cat err.txt)"
kill -USR1 "$dpid"
# a busy machine gives the workload less than a CPU: wait for CPU time,
# not wall time
for _ in $(seq 400); do [ "$(cpu_ms)" -ge 4000 ] && break; sleep 0.1; done
kill -0 "$dpid" 2>/dev/null || fail "SIGUSR1 stopped oprofiled: $(cat err.txt)"
ms=$(cpu_ms)
[ "$ms" -ge 3000 ] || skip "the workload got only $ms ms of CPU in 30 s: machine too busy to judge"
kill -9 "$dpid"
wait "$dpid" 2>/dev/null || true
dump s >d.txt
n=$(image_samples d.txt "$bin")
samples=$(info d.txt samples)
# 4000 Hz, less a generous quarter for the kernel's frequency ramp-up,
# over all but the last 2.2 s
want=$(( (ms - 2200) * 3 ))
echo "after kill -9: $n samples in threetoone, $samples in total, for $ms ms of CPU (want >= $want)"
[ "$n" -ge "$want" ] || fail "only $n samples survived kill -9, want $want"
[ "$samples" -ge "$n" ] || fail "totals ($samples) lag the histograms ($n) by more than a flush"

[ "$(uname -m)" = x86_64 ] || { echo "pass (no jitdemo on $(uname -m))"; exit 0; }
command -v python3 >/dev/null || { echo "pass (no python3 for the clock)"; exit 0; }
mono_ns() { python3 -c 'import time; print(time.monotonic_ns())'; }
"$OPROFILED" --session-dir=j -- bash -c 'echo $$ >jit.pid; exec "$0" "$@"' \
	"$WORKLOADS/jitdemo" --seconds 60 --threads 1 --map-file none \
	>jout.txt 2>jerr.txt &
dpid=$!
cleanup_pids+=("$dpid")
for _ in $(seq 100); do grep -q '^thread ' jout.txt && break; sleep 0.1; done
[ -s jit.pid ] || fail "jitdemo did not start: $(cat jerr.txt)"
cleanup_pids+=("$(cat jit.pid)")
# past the start's busy rounds, at no particular phase of the flushes
sleep "$(awk -v r="$RANDOM" 'BEGIN { print 3 + r / 32768 }')"
kill -0 "$dpid" 2>/dev/null || fail "oprofiled ended early: $(cat jerr.txt)"
killed=$(mono_ns)
kill -9 "$dpid"
wait "$dpid" 2>/dev/null || true
kill -9 "$(cat jit.pid)" 2>/dev/null || true
dump j >dj.txt
# a flush every two seconds reads the buffers first: what was taken
# before the last flush is durable; a second more for a busy machine
lag=$(awk -v k="$killed" '$1 == "anon" && $3 > m { m = $3 }
	END { if (m) printf "%d", (k - m) / 1000000; else print "none" }' dj.txt)
echo "after kill -9: the newest anonymous sample was taken $lag ms before the kill"
[ "$lag" != none ] || fail "no anonymous sample survived kill -9"
[ "$lag" -le 3000 ] || fail "the newest sample kept is $lag ms older than the kill, want <= 3000"
echo pass
