#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# --system-wide sees processes it did not start, on every CPU, until
# --duration or SIGINT; without root it fails with one line.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "--system-wide needs root here"
bin=$WORKLOADS/threetoone
cd "$WORK"
"$bin" 4 &
cleanup_pids+=("$!")
sleep 0.2
"$OPROFILED" --session-dir=s --system-wide --duration=1.5 --separate=cpu 2>err.txt ||
	fail "oprofiled --system-wide exited $?: $(cat err.txt)"
check_summary err.txt
dump s >d.txt
n=$(image_samples d.txt "$bin")
echo "$n samples in threetoone, seen system-wide"
[ "$n" -ge 300 ] || fail "only $n samples of a process running through the whole session"
awk '$1 == "context" && $6 < 0 { bad = 1 } $1 == "context" { n++ } END { exit bad || !n }' d.txt ||
	fail "--separate=cpu left contexts without a CPU"

# SIGINT stops it cleanly
"$OPROFILED" --session-dir=i --system-wide 2>ierr.txt &
dpid=$!
sleep 1
kill -INT "$dpid"
wait "$dpid" || fail "oprofiled exited $? on SIGINT: $(cat ierr.txt)"
check_summary ierr.txt
dump i >id.txt
[ "$(info id.txt stop_ns)" -gt 0 ] || fail "SIGINT left the session unclosed"

# an unprivileged user is told why, in one line
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null &&
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ]; then
	chmod 755 "$WORK"
	rc=0
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$OPROFILED" --session-dir="$WORK/u" --system-wide --duration=1 \
		2>uerr.txt || rc=$?
	[ "$rc" -eq 1 ] || fail "unprivileged --system-wide exited $rc"
	[ "$(wc -l <uerr.txt)" -eq 1 ] || fail "not one line: $(cat uerr.txt)"
	grep -q '^oprofiled: --system-wide needs root or CAP_PERFMON (perf_event_paranoid is [0-9-]*)$' uerr.txt ||
		fail "unclear error: $(cat uerr.txt)"
	# profiling its own command it may: kernel samples are left out,
	# with one note saying why
	mkdir -m 777 "$WORK/nobody"
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$OPROFILED" --session-dir="$WORK/nobody/k" -- "$bin" 1 2>kerr.txt ||
		fail "unprivileged oprofiled -- COMMAND exited $?: $(cat kerr.txt)"
	grep -qx 'oprofiled: kernel samples excluded: perf_event_paranoid is [0-9]*' kerr.txt ||
		fail "no note about excluded kernel samples: $(cat kerr.txt)"
	check_summary kerr.txt
	dump "$WORK/nobody/k" >kd.txt
	[ "$(info kd.txt kernel_excluded)" = 1 ] || fail "session does not say kernel samples were excluded"
	[ "$(info kd.txt kernel)" = 0 ] || fail "kernel samples recorded though excluded"
	[ "$(image_samples kd.txt "$bin")" -gt 0 ] || fail "no samples of the unprivileged command"
else
	echo "note: unprivileged case not run (no nobody user or setpriv)"
fi
echo pass
