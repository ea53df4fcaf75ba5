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
else
	echo "note: unprivileged case not run (no nobody user or setpriv)"
fi
echo pass
