#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Events: --list-events and -e list name what this machine can sample
# (each listed event records; perf agrees on the hardware ones), and a
# bad list of events (e2e_events_multi.sh records good ones) is refused
# in one line naming what is wrong.
. "$(dirname "$0")/lib.sh"

cd "$WORK"
"$OPROFILED" --list-events >list.txt 2>list.err ||
	fail "--list-events failed: $(cat list.err)"
[ ! -s list.err ] || fail "--list-events wrote to stderr: $(cat list.err)"
"$OPROFILED" -e list >elist.txt 2>&1 || fail "-e list failed: $(cat elist.txt)"
cmp -s list.txt elist.txt || fail "-e list differs from --list-events"
grep -qx 'software events:' list.txt || fail "no software events: $(cat list.txt)"
grep -qx '  cpu-clock' list.txt || fail "cpu-clock is not listed: $(cat list.txt)"
grep -qx '  page-faults (faults)' list.txt ||
	fail "page-faults is not listed with its alias: $(cat list.txt)"
if grep -qx 'hardware events:' list.txt; then
	hw=yes
else
	grep -Eqx 'hardware events: none available on this machine \(.+\)' \
		list.txt || fail "nothing said of hardware events: $(cat list.txt)"
	hw=no
fi
# what is listed can be recorded, and reads back as the session's event
listed=$(sed -n 's/^  \([a-z-]*\).*/\1/p' list.txt)
for ev in cpu-clock page-faults $(printf '%s\n' "$listed" | grep -m1 -x cycles || true); do
	rm -rf s
	"$OPROFILED" --session-dir=s -e "$ev" -- "$WORKLOADS/threetoone" 1 \
		>rec.out 2>rec.err || fail "-e $ev (listed) failed: $(cat rec.err)"
	dump s >s.dump
	grep -qx "info event $ev" s.dump || fail "-e $ev: the session records another event"
done
# perf, where installed, agrees whether there are hardware counters
if command -v perf >/dev/null 2>&1 && perf stat -e cpu-clock true >/dev/null 2>&1; then
	if perf stat -x, -e cycles:u true 2>&1 | grep -q '<not supported>\|<not counted>'; then
		perf_hw=no
	else
		perf_hw=yes
	fi
	[ "$hw" = "$perf_hw" ] ||
		fail "hardware events listed: $hw; perf counts cycles: $perf_hw"
fi

# expect REGEX ARGS...: exit 1, one line on stderr, no session
expect() {
	local re=$1 rc=0
	shift
	"$OPROFILED" --session-dir="$WORK/s1" "$@" >out.txt 2>err.txt </dev/null || rc=$?
	[ "$rc" -eq 1 ] || fail "oprofiled $* exited $rc, not 1: $(cat err.txt)"
	[ "$(wc -l <err.txt)" -eq 1 ] || fail "oprofiled $* printed not one line: $(cat err.txt)"
	grep -Eq "^oprofiled: $re\$" err.txt || fail "oprofiled $* said: $(cat err.txt)"
	[ ! -e "$WORK/s1" ] || fail "oprofiled $* created a session"
}
expect "unknown event 'bogus' \\(oprofiled --list-events lists them\\)" \
	-e cpu-clock,bogus,page-faults -- true
expect "unknown event 'bogus' \\(oprofiled --list-events lists them\\)" \
	-e cpu-clock -e bogus -- true
expect "event 'faults' given twice \\(page-faults\\)" -e page-faults,cpu-clock -e faults -- true
expect "empty event name in 'cpu-clock,,page-faults'" -e cpu-clock,,page-faults -- true
expect "empty event name in 'cpu-clock,'" -e cpu-clock, -- true
expect '-e list lists the events; it is not one' -e cpu-clock,list -- true
if [ "$hw" = no ]; then
	# the one that cannot open is named, whatever its place
	expect "event 'cycles' is not supported on this machine" \
		-e cpu-clock,page-faults,cycles -- true
fi
echo "events listed ($(printf '%s\n' "$listed" | wc -l), hardware: $hw);" \
	"bad lists refused in one line"
