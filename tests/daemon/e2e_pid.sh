#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# --pid attaches to a running process, follows its threads, stops by
# itself when the process exits, and --duration stops it earlier.
. "$(dirname "$0")/lib.sh"

bin=$WORKLOADS/threetoone
cd "$WORK"
"$bin" 3 &
pid=$!
cleanup_pids+=("$pid")
sleep 0.3
"$OPROFILED" --session-dir=s --pid="$pid" 2>err.txt || fail "oprofiled --pid exited $?: $(cat err.txt)"
kill -0 "$pid" 2>/dev/null && fail "oprofiled returned while pid $pid still runs"
check_summary err.txt
dump s >d.txt
n=$(image_samples d.txt "$bin")
echo "$n samples in threetoone"
[ "$n" -ge 1000 ] || fail "only $n samples in the attached process"
read -r hs he <<<"$(symbol_offsets "$bin" heavy_work)"
[ "$(samples_in d.txt "$bin" "$hs" "$he")" -gt 0 ] || fail "no samples in heavy_work"

# a process with threads started before the attach: jitdemo's workers
if [ "$(uname -m)" = x86_64 ]; then
	"$WORKLOADS/jitdemo" --seconds 3 --threads 2 --map-file none >jit.txt &
	jpid=$!
	cleanup_pids+=("$jpid")
	for _ in $(seq 50); do [ "$(grep -c "^thread" jit.txt 2>/dev/null)" = 2 ] && break; sleep 0.1; done
	"$OPROFILED" --session-dir=j --pid="$jpid" --duration=1 2>jerr.txt ||
		fail "oprofiled --pid --duration exited $?: $(cat jerr.txt)"
	kill -0 "$jpid" 2>/dev/null || fail "--duration=1 did not stop before the process ended"
	dump j >jd.txt
	for t in $(awk '$1 == "thread" { print $2 }' jit.txt); do
		c=$(awk -v t="$t" '$1 == "anon" && $5 == t { n++ } END { print n + 0 }' jd.txt)
		[ "$c" -gt 0 ] || fail "no samples of thread $t after attaching"
	done
	wait "$jpid"
	rm -f "/tmp/anon.$jpid"
fi
# a kernel thread runs no user code: say so, rather than record nothing
rc=0
"$OPROFILED" --session-dir=k --pid=2 --duration=1 2>kerr.txt || rc=$?
[ "$rc" -eq 1 ] || fail "--pid=2 exited $rc, not 1"
grep -qx 'oprofiled: pid 2 is a kernel thread: it runs no user code; use --system-wide to see the kernel.s share' kerr.txt ||
	fail "--pid=2 said: $(cat kerr.txt)"
echo pass
