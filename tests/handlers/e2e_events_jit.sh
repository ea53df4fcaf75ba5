#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# JIT samples of every event of a session: jitdemo under -e cpu-clock -e
# page-faults runs jit_hot/jit_cold (no faults) and jit_touch (a fault a
# fresh page).  opreport names each event's JIT samples through the
# perfmap handler: cpu-clock's jit_hot/jit_cold split as the demo's own
# CPU clock splits them, page-faults' jit_touch as many as the faults the
# demo counted in it, and neither event's JIT samples in the other's
# rows.  Then the same with -g: each event's stacks with a JIT leaf, by
# folded output.
. "$(dirname "$0")/e2e_lib.sh"
jitdemo=$OPJIT_BUILD/tests/workloads/jitdemo
[ -x "$jitdemo" ] || fail "$jitdemo is not built"
pages=8192

# record NAME OPTIONS...: jitdemo, its pages touched, into session
# $tmp/NAME; its stdout in NAME.out, the recorder's in NAME.err
record() {
	local name=$1; shift
	forget_maps_recorded_in "$tmp/$name"
	"$oprofiled" --session-dir="$tmp/$name" "$@" -- "$jitdemo" \
		--seconds 3 --threads 1 --map-file perf --touch-pages $pages \
		>"$tmp/$name.out" 2>"$tmp/$name.err" ||
		show_fail "$tmp/$name.err" "oprofiled $* failed"
}

# report NAME OUT OPTIONS...: JSON report of session NAME into OUT.json
report() {
	local name=$1 out=$2; shift 2
	"$opreport" --session-dir="$tmp/$name" -l --format=json \
		--anon-handler=perfmap "$@" >"$tmp/$out.json" \
		2>"$tmp/$out.err" || show_fail "$tmp/$out.err" \
		"opreport $* failed on $name"
	forget_maps_of $(report_pids "$tmp/$out.json")
}

# named OUT REGEX: how many samples perfmap named REGEX in OUT.json
named() {
	local n
	read -r n _ _ < <(python3 "$here/report_shares.py" "$tmp/$1.json" \
		"$2" --handler perfmap)
	echo "$n"
}

# summary NAME FIELD: lost or unattributed, from oprofiled's summary
summary() {
	sed -n "s/^oprofiled: [0-9]* samples, \([0-9]*\) lost ([0-9.]*%), \
\([0-9]*\) unattributed .*/\1 \2/p" "$tmp/$1.err" |
		awk -v f="$2" '{ print f == "lost" ? $1 : $2 }'
}

record s -e cpu-clock -e page-faults
faults=$(awk '$1 == "faults" && $2 == "jit_touch" { print $3 }' "$tmp/s.out")
[ -n "$faults" ] || show_fail "$tmp/s.out" "jitdemo printed no faults line"
[ "$faults" -ge $((pages * 9 / 10)) ] ||
	fail "jitdemo took $faults faults touching $pages pages"
lost=$(summary s lost)
unattributed=$(summary s unattributed)
[ -n "$lost" ] || show_fail "$tmp/s.err" "no summary line"

# cpu-clock, the default: one line on stderr says which others there are
report s clock
[ "$(cat "$tmp/clock.err")" = "opreport: session $tmp/s recorded cpu-clock,page-faults: reporting cpu-clock (--event=NAME for another)" ] ||
	show_fail "$tmp/clock.err" "opreport of cpu-clock said more than its one line"
hot=$(named clock '^jit_hot$')
cold=$(named clock '^jit_cold$')
touch_clock=$(named clock '^jit_touch$')
[ "$hot" -gt 0 ] && [ "$cold" -gt 0 ] ||
	fail "cpu-clock: jit_hot ($hot) and jit_cold ($cold) not both named"
check_jitdemo_share cpu-clock "$hot" "$cold" $(jitdemo_cpu "$tmp/s.out")

report s pf --event=page-faults
[ ! -s "$tmp/pf.err" ] || show_fail "$tmp/pf.err" "opreport --event=page-faults warned"
touch=$(named pf '^jit_touch$')
hot_pf=$(named pf '^jit_hot$')
cold_pf=$(named pf '^jit_cold$')
echo "page-faults: jit_touch $touch for $faults faults ($lost lost," \
	"$unattributed unattributed), jit_hot $hot_pf, jit_cold $cold_pf;" \
	"cpu-clock: jit_hot $hot, jit_cold $cold, jit_touch $touch_clock"
# every fault is a sample (a count beside a clock), in the function that
# took it: within 1% and the samples the kernel lost
[ $((touch * 100)) -le $((faults * 101)) ] &&
	[ $(((touch + lost) * 100)) -ge $((faults * 99)) ] ||
	fail "page-faults: jit_touch $touch samples for $faults faults ($lost lost)"
# the JIT samples of page-faults are its own, not unattributed
[ $((unattributed * 100)) -le "$faults" ] ||
	fail "$unattributed samples unattributed for $faults faults in JIT code"
# and the events apart: the loops take no faults, so the clock's
# samples are not among the faults'; and the faults are not among the
# clock's, which would hold all of them in jit_touch (the clock's own
# there are its instructions between faults and the ticks that wait for
# a fault's return to user space)
[ $(((hot_pf + cold_pf) * 100)) -le "$faults" ] ||
	fail "page-faults: $hot_pf in jit_hot, $cold_pf in jit_cold, which take no faults"
[ "$touch_clock" -lt "$touch" ] ||
	fail "cpu-clock counted $touch_clock in jit_touch, as many as the $touch faults"
# the clock's samples in the loops at 4000 Hz of the demo's own CPU time
# there: at least half (the kernel ramps the period up at the start), at
# most all of it and a tenth
read -r hot_ns cold_ns < <(jitdemo_cpu "$tmp/s.out")
ms=$(((hot_ns + cold_ns) / 1000000))
[ $((hot + cold)) -ge $((ms * 2)) ] && [ $((hot + cold)) -le $((ms * 44 / 10)) ] ||
	fail "cpu-clock: $((hot + cold)) samples in jit_hot and jit_cold for $ms ms of their CPU"

# each header says its event's own rate: the clock's frequency, and a
# sample at every fault (session.meta's event_periods)
for ev in cpu-clock page-faults; do
	"$OPJIT_OPREPORT" --session-dir="$tmp/s" --event=$ev >"$tmp/h-$ev.txt" \
		2>/dev/null || fail "opreport --event=$ev failed"
done
[ "$(head -n 1 "$tmp/h-cpu-clock.txt")" = "Counted cpu-clock events (software timer) at 4000 Hz" ] &&
	[ "$(head -n 1 "$tmp/h-page-faults.txt")" = "Counted page-faults events, every one a sample" ] ||
	fail "headers: '$(head -n 1 "$tmp/h-cpu-clock.txt")', '$(head -n 1 "$tmp/h-page-faults.txt")'"
# and each counts every event's samples, the JIT ones included: as many
# as the reader gives each event (sessiondump, which reads one event as a
# report does), the faults' almost all JIT samples
sessiondump=$OPJIT_BUILD/tests/daemon/sessiondump
[ -x "$sessiondump" ] || fail "$sessiondump is not built"
for e in 0 1; do
	"$sessiondump" "$tmp/s" $e >"$tmp/dump$e.txt" 2>"$tmp/dump$e.err" ||
		show_fail "$tmp/dump$e.err" "sessiondump $e failed"
done
read -r all_clock anon_clock < <(awk '$1 == "hist" { n += $4 }
	$1 == "anon" { n++; a++ } END { print n + 0, a + 0 }' "$tmp/dump0.txt")
read -r all_pf anon_pf < <(awk '$1 == "hist" { n += $4 }
	$1 == "anon" { n++; a++ } END { print n + 0, a + 0 }' "$tmp/dump1.txt")
echo "the session: cpu-clock $all_clock samples ($anon_clock JIT), page-faults $all_pf ($anon_pf JIT)"
[ "$anon_pf" -ge "$touch" ] && [ "$anon_clock" -ge $((hot + cold)) ] ||
	fail "the session's JIT samples ($anon_clock, $anon_pf) are fewer than those named ($((hot + cold)), $touch)"
[ "$(sed -n 3p "$tmp/h-cpu-clock.txt")" = "Events recorded: cpu-clock $all_clock samples (this report), page-faults $all_pf samples (--event=page-faults)" ] &&
	[ "$(sed -n 3p "$tmp/h-page-faults.txt")" = "Events recorded: cpu-clock $all_clock samples (--event=cpu-clock), page-faults $all_pf samples (this report)" ] ||
	fail "the headers' events: '$(sed -n 3p "$tmp/h-cpu-clock.txt")', '$(sed -n 3p "$tmp/h-page-faults.txt")'"

# -g: each event's stacks; folded lines end in their leaf and count
record g -g -e cpu-clock -e page-faults
faults=$(awk '$1 == "faults" && $2 == "jit_touch" { print $3 }' "$tmp/g.out")
lost=$(summary g lost)
for ev in cpu-clock page-faults; do
	"$opreport" --session-dir="$tmp/g" --format=folded --event=$ev \
		--anon-handler=perfmap >"$tmp/g-$ev.txt" 2>"$tmp/g-$ev.err" ||
		show_fail "$tmp/g-$ev.err" "opreport --format=folded --event=$ev failed"
done
# leaf_sum FILE FUNCTION: the samples of the stacks whose leaf frame is
# the JIT function FUNCTION (a line: frames joined by ';', a space, the
# count); a kernel leaf (the clock's ticks in a fault) is not one
leaf_sum() {
	awk -v l="$2" '{ c = $NF; st = $0; sub(/ [0-9]+$/, "", st)
		n = split(st, f, ";") }
		index(f[n], l " [perfmap]") == 1 { s += c }
		END { print s + 0 }' "$1"
}
g_touch=$(leaf_sum "$tmp/g-page-faults.txt" jit_touch)
g_hot_pf=$(leaf_sum "$tmp/g-page-faults.txt" jit_hot)
g_hot=$(leaf_sum "$tmp/g-cpu-clock.txt" jit_hot)
g_cold=$(leaf_sum "$tmp/g-cpu-clock.txt" jit_cold)
g_touch_clock=$(leaf_sum "$tmp/g-cpu-clock.txt" jit_touch)
echo "-g: page-faults stacks in jit_touch $g_touch for $faults faults" \
	"($lost lost), in jit_hot $g_hot_pf; cpu-clock stacks in jit_hot" \
	"$g_hot, jit_cold $g_cold, jit_touch $g_touch_clock"
[ $((g_touch * 100)) -le $((faults * 101)) ] &&
	[ $(((g_touch + lost) * 100)) -ge $((faults * 99)) ] ||
	fail "-g page-faults: $g_touch stacks in jit_touch for $faults faults ($lost lost)"
[ $((g_hot_pf * 100)) -le "$faults" ] && [ "$g_touch_clock" -lt "$g_touch" ] ||
	fail "-g: the events' stacks are mixed"
check_jitdemo_share "-g cpu-clock" "$g_hot" "$g_cold" $(jitdemo_cpu "$tmp/g.out")
# the clock's ticks while the kernel handled jit_touch's faults: the JIT
# frame above the kernel's is the one the fault stopped, named by its
# own instruction (a store on jit_touch's first byte), not as a return
# address one byte back, in jit_cold.  Only the kernel stacks a fault
# entered count: on a busy machine the clock also stops jit_cold in the
# timer interrupt's and the scheduler's return to user space.
read -r stopped_touch stopped_cold < <(awk '{ c = $NF; st = $0
	sub(/ [0-9]+$/, "", st); n = split(st, f, ";")
	for (i = 1; i < n; i++)
		if (f[i + 1] ~ /_\[k\]$/ && f[i] !~ /_\[k\]$/) {
			if (f[i + 1] !~ /page_fault/) break
			if (index(f[i], "jit_touch [perfmap]") == 1) t += c
			if (index(f[i], "jit_cold [perfmap]") == 1) k += c
			break
		} }
	END { print t + 0, k + 0 }' "$tmp/g-cpu-clock.txt")
echo "-g cpu-clock: fault stacks under jit_touch $stopped_touch, under jit_cold $stopped_cold"
[ "$stopped_touch" -ge 10 ] ||
	fail "-g cpu-clock: only $stopped_touch ticks in jit_touch's faults, too few to tell"
[ $((stopped_cold * 20)) -le "$stopped_touch" ] ||
	fail "-g cpu-clock: $stopped_cold fault stacks under jit_cold, which touches nothing (jit_touch $stopped_touch)"
echo "jit samples and stacks of each event named apart"
