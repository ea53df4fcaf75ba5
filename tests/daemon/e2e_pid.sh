#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# --pid attaches to a running process, follows its threads, stops by
# itself when the process exits, and --duration stops it earlier.
. "$(dirname "$0")/lib.sh"

bin=$WORKLOADS/threetoone
# thread_cpu_ms PID TID: the thread's CPU time so far (utime + stime)
thread_cpu_ms() {
	local st
	read -r -a st < <(sed 's/.*) //' "/proc/$1/task/$2/stat")
	echo $(((st[11] + st[12]) * 1000 / $(getconf CLK_TCK)))
}
declare -A before
cd "$WORK"
OPJIT_WORKLOAD_CPU_FILE=$PWD/cpu_ms "$bin" 3cpu &
pid=$!
cleanup_pids+=("$pid")
sleep 0.3
"$OPROFILED" --session-dir=s --pid="$pid" 2>err.txt || fail "oprofiled --pid exited $?: $(cat err.txt)"
kill -0 "$pid" 2>/dev/null && fail "oprofiled returned while pid $pid still runs"
check_summary err.txt
dump s >d.txt
n=$(image_samples d.txt "$bin")
ms=$(cat cpu_ms) || fail "threetoone did not say its CPU time"
echo "$n samples in threetoone, for $ms ms of CPU"
# 3 s of its own CPU time, however long a busy machine makes that;
# attached after at most 0.3 s of it
[ "$ms" -ge 2700 ] || fail "threetoone ran for $ms ms of CPU, not its 3 s"
# 4000 Hz, less half for the kernel's ramp-up
want=$(((ms - 300) * 2))
[ "$n" -ge "$want" ] || fail "only $n samples in the attached process for $ms ms of CPU, want $want"
read -r hs he <<<"$(symbol_offsets "$bin" heavy_work)"
[ "$(samples_in d.txt "$bin" "$hs" "$he")" -gt 0 ] || fail "no samples in heavy_work"

# a process with threads started before the attach: jitdemo's workers
if [ "$(uname -m)" = x86_64 ]; then
	# long enough to outlast --duration=1 on a busy machine; ended below
	"$WORKLOADS/jitdemo" --seconds 60 --threads 2 --map-file none >jit.txt &
	jpid=$!
	cleanup_pids+=("$jpid")
	for _ in $(seq 50); do [ "$(grep -c "^thread" jit.txt 2>/dev/null)" = 2 ] && break; sleep 0.1; done
	threads=$(awk '$1 == "thread" { print $2 }' jit.txt)
	for t in $threads; do before[$t]=$(thread_cpu_ms "$jpid" "$t"); done
	"$OPROFILED" --session-dir=j --pid="$jpid" --duration=1 2>jerr.txt ||
		fail "oprofiled --pid --duration exited $?: $(cat jerr.txt)"
	kill -0 "$jpid" 2>/dev/null || fail "--duration=1 did not stop before the process ended"
	dump j >jd.txt
	for t in $threads; do
		c=$(awk -v t="$t" '$1 == "anon" && $5 == t { n++ } END { print n + 0 }' jd.txt)
		ms=$(($(thread_cpu_ms "$jpid" "$t") - before[$t]))
		echo "thread $t: $c samples for $ms ms of CPU while attached"
		# a busy machine may give a thread no time in that second: a
		# count is judged by the thread's CPU time, not by the clock
		[ "$ms" -lt 50 ] || [ "$c" -gt 0 ] ||
			fail "no samples of thread $t in $ms ms of its CPU after attaching"
	done
	kill "$jpid"
	wait "$jpid" 2>/dev/null || true
	rm -f "/tmp/anon.$jpid"
fi
# a kernel thread runs no user code: say so, rather than record nothing
rc=0
"$OPROFILED" --session-dir=k --pid=2 --duration=1 2>kerr.txt || rc=$?
[ "$rc" -eq 1 ] || fail "--pid=2 exited $rc, not 1"
grep -qx 'oprofiled: pid 2 is a kernel thread: it runs no user code; use --system-wide to see the kernel.s share' kerr.txt ||
	fail "--pid=2 said: $(cat kerr.txt)"
echo pass
