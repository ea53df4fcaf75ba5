# SPDX-License-Identifier: GPL-3.0-or-later
# The recorders' steady cost a second, busy and idle: each records its own
# run of a workload, and its CPU time (the run time /proc/PID/schedstat
# gives, in ns) is read STEADY_SKIP seconds in and again STEADY_SECONDS
# later, so that neither its start nor its stop is in the figure.  Busy:
# threetoone, a CPU flat out, at REPORT_HZ; idle: sleep, which gives the
# recorders (almost) nothing to record.  Sourced by run.sh.

STEADY="Steady cost a second"

# steady_one SIDE CMD...: the recorder of SIDE (opjit: oprofiled, ref:
# perf record) on CMD; sets S_US, its CPU microseconds a second, or S_WHY
steady_one() {
	local side=$1 name=oprofiled pid a b status
	shift
	S_US='' S_WHY=''
	rm -rf "$TMPD/steady.sess" "$TMPD/steady.data"
	if [ "$side" = opjit ]; then
		S_WHY=$(need_exe "$OPROFILED") || return 0
		"$OPROFILED" --session-dir="$TMPD/steady.sess" \
			--frequency="$REPORT_HZ" -- "$@" \
			>/dev/null 2>"$TMPD/steady.err" &
	else
		name="perf record"
		S_WHY=$PERF_WHY
		[ -z "$S_WHY" ] || return 0
		perf record -q -e cpu-clock -F "$REPORT_HZ" \
			-o "$TMPD/steady.data" -- "$@" \
			>/dev/null 2>"$TMPD/steady.err" &
	fi
	pid=$!
	sleep "$STEADY_SKIP"
	a=$(cut -d' ' -f1 "/proc/$pid/schedstat" 2>/dev/null)
	sleep "$STEADY_SECONDS"
	b=$(cut -d' ' -f1 "/proc/$pid/schedstat" 2>/dev/null)
	wait "$pid"
	status=$?
	if [ "$status" != 0 ]; then
		S_WHY=$(failure "$name" "$status" "$TMPD/steady.err")
	elif ! is_count "$a" || ! is_count "$b"; then
		S_WHY="$name ended before its $STEADY_SECONDS s were measured"
	else
		S_US=$(awk -v a="$a" -v b="$b" -v s="$STEADY_SECONDS" \
			'BEGIN { printf "%.3f", (b - a) / 1000 / s }')
	fi
}

# steady_row FIGURE HOW CMD...: one run of both recorders on CMD, the
# one going first alternating with REP; HOW compares them (ratio, or sub
# where perf's figure is about zero)
steady_row() {
	local rep=$1 fig=$2 how=$3 side o='' p=''
	local -a order=(opjit ref)
	shift 3
	[ $((rep % 2)) = 0 ] || order=(ref opjit)
	for side in "${order[@]}"; do
		steady_one "$side" "$@"
		if [ -n "$S_US" ]; then
			rec_val "$STEADY" "$fig" "$side" "$S_US" us/s
		else
			rec_why "$STEADY" "$fig" "$side" "$S_WHY"
		fi
		[ "$side" = opjit ] && o=$S_US || p=$S_US
	done
	if [ -z "$o" ] || [ -z "$p" ]; then
		rec_why "$STEADY" "$fig" cmp "needs both figures of the run"
	elif [ "$how" = ratio ]; then
		rec_val "$STEADY" "$fig" cmp "$(ratio "$o" "$p")" x
	else
		rec_val "$STEADY" "$fig" cmp "$(sub "$o" "$p")" us/s
	fi
}

bench_steady() {
	# each run is two workloads under two recorders for the whole
	# measure: three runs give a median and a range
	local rep runs=$((RUNS < 3 ? RUNS : 3))
	local n
	# a second more than is measured (the seconds may be fractions)
	n=$(awk -v a="$STEADY_SKIP" -v b="$STEADY_SECONDS" \
		'BEGIN { printf "%g", a + b + 1 }')
	local busy="busy (threetoone, a CPU flat out) at $(khz "$REPORT_HZ"):"
	local idle="idle (sleep):"
	busy+=" the recorder's CPU time a second"
	idle+=" the recorder's CPU time a second (opjit's minus perf's)"
	rec_section "$STEADY" "Each recorder starts its own run of the" \
"workload; its CPU time (/proc/PID/schedstat) is read $STEADY_SKIP s in" \
"and again $STEADY_SECONDS s later, which leaves its start and stop" \
"out. $runs run(s), the recorder going first alternating. opjit flushes" \
"the session two seconds after records arrive and sleeps while none" \
"do; perf record writes when a buffer is half full."
	for ((rep = 0; rep < runs; rep++)); do
		steady_row "$rep" "$busy" ratio "$THREETOONE" "$n"
		steady_row "$rep" "$idle" sub sleep "$n"
	done
}
