#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# oprofiled --separate=thread: two threads running native functions of
# their own.  Each thread's rows (opreport --separate=thread) hold its
# own function and not the other's, under its name; each thread's
# samples agree with its own CPU time (CLOCK_THREAD_CPUTIME_ID, which
# the workload prints), and tid:N selects exactly its rows.  A session
# recorded without the option reads as before: native rows without a
# thread, and one line that says so.
. "$(dirname "$0")/lib.sh"

OPREPORT=$OPJIT_BUILD/opreport/opreport
bin=$WORKLOADS/twothreads
[ -x "$bin" ] || fail "$bin is not built"
[ -x "$OPREPORT" ] || fail "$OPREPORT is not built"
cd "$WORK"

"$OPROFILED" --separate=thread --session-dir=s -- "$bin" 2 >out.txt 2>err.txt ||
	fail "oprofiled --separate=thread exited $?: $(cat err.txt)"
check_summary err.txt
# thread TID NAME FUNCTION CPU_NS, one line a worker
read -r _ atid aname afn acpu < <(grep '^thread [0-9]* tt-alpha ' out.txt)
read -r _ btid bname bfn bcpu < <(grep '^thread [0-9]* tt-beta ' out.txt)
[ -n "$atid" ] && [ -n "$btid" ] || fail "the workload printed no threads: $(cat out.txt)"

dump s >d.txt
[ "$(info d.txt separate)" = 5 ] || fail "session.meta separate is $(info d.txt separate), not process|thread (5)"
grep -qx "thread [0-9]* $atid tt-alpha" d.txt || fail "no name tt-alpha for thread $atid in the session"
grep -qx "thread [0-9]* $btid tt-beta" d.txt || fail "no name tt-beta for thread $btid in the session"

"$OPREPORT" --session-dir=s -l --separate=thread --format=csv >l.csv 2>l.err ||
	fail "opreport -l --separate=thread failed: $(cat l.err)"
[ -s l.err ] && fail "opreport -l --separate=thread said: $(cat l.err)"
head -1 l.csv | grep -q ',tid,thread,' || fail "no tid and thread columns: $(head -1 l.csv)"
# sum FIELD-MATCHES: samples of the symbol rows of thread TID [in SYMBOL],
# and the names shown for TID
col() { head -1 l.csv | tr , '\n' | grep -nx "$1" | cut -d: -f1; }
ct=$(col tid) cn=$(col thread) cs=$(col symbol) cc=$(col samples)
rows() { # TID [SYMBOL]
	awk -F, -v t="$1" -v s="${2-}" -v ct="$ct" -v cs="$cs" -v cc="$cc" \
		'NR > 1 && $ct == t && (s == "" || $cs == s) { n += $cc } END { print n + 0 }' l.csv
}
names() { awk -F, -v t="$1" -v ct="$ct" -v cn="$cn" 'NR > 1 && $ct == t { print $cn }' l.csv | sort -u; }
a_all=$(rows "$atid") b_all=$(rows "$btid")
a_own=$(rows "$atid" alpha_work) b_own=$(rows "$btid" beta_work)
a_other=$(rows "$atid" beta_work) b_other=$(rows "$btid" alpha_work)
echo "tt-alpha ($atid): $a_all samples, $a_own in alpha_work, $a_other in beta_work; CPU $acpu ns"
echo "tt-beta ($btid): $b_all samples, $b_own in beta_work, $b_other in alpha_work; CPU $bcpu ns"
[ "$(names "$atid")" = tt-alpha ] || fail "thread $atid shown as '$(names "$atid")', not tt-alpha"
[ "$(names "$btid")" = tt-beta ] || fail "thread $btid shown as '$(names "$btid")', not tt-beta"
[ "$a_other" = 0 ] && [ "$b_other" = 0 ] ||
	fail "a thread's rows hold the other's function ($a_other, $b_other)"
# most of a worker's samples are in its function (the rest: the kernel,
# the vdso's clock_gettime)
[ $((a_own * 100)) -ge $((a_all * 80)) ] || fail "tt-alpha has $a_own of $a_all samples in alpha_work"
[ $((b_own * 100)) -ge $((b_all * 80)) ] || fail "tt-beta has $b_own of $b_all samples in beta_work"
# 4000 Hz of each thread's own CPU time: cpu-clock counts the task's
# time, so busy neighbours do not change it; 15% below for samples the
# kernel throttled or lost, 5% above for the few after the clock read
for w in a b; do
	eval "all=\$${w}_all cpu=\$${w}cpu"
	want=$((cpu * 4000 / 1000000000))
	[ $((all * 100)) -ge $((want * 85)) ] && [ $((all * 100)) -le $((want * 105)) ] ||
		fail "thread $w: $all samples for $want expected of its CPU time"
done

# tid:N selects exactly that thread's rows, native ones included
"$OPREPORT" --session-dir=s -l --format=csv "tid:$atid" >t.csv 2>t.err ||
	fail "opreport tid:$atid failed: $(cat t.err)"
[ -s t.err ] && fail "opreport tid:$atid said: $(cat t.err)"
tsum=$(awk -F, -v cc="$cc" 'NR > 1 { n += $cc } END { print n + 0 }' t.csv)
[ "$tsum" = "$a_all" ] || fail "tid:$atid selects $tsum samples, its rows hold $a_all"
grep -q ',beta_work$' t.csv && fail "tid:$atid holds beta_work"
# the summary names each thread after its image
"$OPREPORT" --session-dir=s --separate=thread >sum.txt 2>&1 || fail "opreport --separate=thread failed"
grep -q "twothreads (tid:$atid tt-alpha)" sum.txt || fail "no '(tid:$atid tt-alpha)' in the summary: $(cat sum.txt)"
# without the option, one row a symbol, as a session separated by process
"$OPREPORT" --session-dir=s -l --format=csv >m.csv 2>/dev/null || fail "opreport -l failed"
[ "$(grep -c ',alpha_work$' m.csv)" = 1 ] || fail "alpha_work is not one row without --separate=thread"

# --pid: threads that ran before the recording are named from /proc
"$bin" 3 >pidout.txt &
wpid=$!
cleanup_pids+=("$wpid")
for _ in $(seq 100); do
	grep -qx tt-beta /proc/"$wpid"/task/*/comm 2>/dev/null && break
	sleep 0.05
done
grep -qx tt-beta /proc/"$wpid"/task/*/comm 2>/dev/null || fail "the workload's threads never took their names"
"$OPROFILED" --separate=thread --pid "$wpid" --duration=0.5 --session-dir=a 2>aerr.txt ||
	fail "oprofiled --pid --separate=thread exited $?: $(cat aerr.txt)"
wait "$wpid" || fail "the workload failed"
read -r _ patid _ < <(grep '^thread [0-9]* tt-alpha ' pidout.txt)
dump a >ad.txt
grep -qx "thread $wpid $patid tt-alpha" ad.txt ||
	fail "--pid: no name tt-alpha for thread $patid: $(grep '^thread' ad.txt)"

# a session recorded without it: native rows have no thread, as before
"$OPROFILED" --separate=process --session-dir=p -- "$bin" 0.5 >/dev/null 2>perr.txt ||
	fail "oprofiled --separate=process exited $?: $(cat perr.txt)"
dump p >pd.txt
grep -q '^thread ' pd.txt && fail "a session without --separate=thread holds thread names"
awk '$1 == "context" && $7 != 0 { bad = 1 } END { exit bad }' pd.txt ||
	fail "a session without --separate=thread has contexts of a thread"
"$OPREPORT" --session-dir=p -l --separate=thread --format=csv >p.csv 2>p.err ||
	fail "opreport on the old-style session failed: $(cat p.err)"
grep -qxF "opreport: note: native samples are not kept per thread: --separate=thread splits only JIT (anonymous) rows, and native rows show no thread (tid -); record with oprofiled --separate=thread" p.err ||
	fail "no note that native rows have no thread: $(cat p.err)"
head -1 p.csv | grep -q ',thread,' && fail "a thread column for a session without names"
awk -F, -v ct="$ct" 'NR > 1 && $ct != "" { bad = 1 } END { exit bad }' p.csv ||
	fail "a native row with a thread in a session without them"
echo "pass"
