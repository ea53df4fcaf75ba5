#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Two recorders on one session directory: the second says which process
# holds it and stops, and the first's session is whole and in place.
. "$(dirname "$0")/writer_lib.sh"

dir=$work/session
"$OPROFILED" --session-dir="$dir" -- "$WORKLOADS/threetoone" 3 \
	>"$work/first.out" 2>&1 &
first=$!
bg_pids+=("$first")
for _ in $(seq 100); do
	[ -s "$dir/.lock" ] && break
	sleep 0.05
done
[ -s "$dir/.lock" ] || fail "the first recorder made no lock: $(cat "$work/first.out")"
holder=$(cat "$dir/.lock")
[ "$holder" = "$first" ] || fail "the lock names $holder, not $first"

expect_line second "^oprofiled: session directory $dir is in use by process $first$" \
	"$OPROFILED" --session-dir="$dir" -- true
wait "$first" || fail "the first recorder failed: $(cat "$work/first.out")"
[ ! -e "$dir.previous-1" ] || fail "the second recorder moved the first's session aside"
"$OPREPORT" --session-dir="$dir" >"$work/report.txt" 2>&1 ||
	fail "opreport: $(cat "$work/report.txt")"
grep -q threetoone "$work/report.txt" ||
	fail "the first session lost its samples: $(cat "$work/report.txt")"
ok "the first session is whole"

# a finished session is no longer locked: the next recorder moves it aside
"$OPROFILED" --session-dir="$dir" -- true >"$work/third.out" 2>&1 ||
	fail "third: $(cat "$work/third.out")"
[ -e "$dir.previous-1/session.meta" ] || fail "third: the earlier session was not kept aside"
ok "after the first ends, the next recorder keeps it as $dir.previous-1"
