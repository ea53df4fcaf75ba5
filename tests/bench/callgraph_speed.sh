# SPDX-License-Identifier: GPL-3.0-or-later
# Call graph report speed: on one recording with call chains of the known
# call tree (callchain), made by each recorder in this run, `opreport -c`
# against `perf report -g --stdio`, and `opreport --format=folded`
# against `perf script` (the first step of every flame graph pipeline):
# wall time and peak RSS.  Rows go to the report speed section.  Sourced
# by run.sh, after report_speed.sh.

bench_callgraph_speed() {
	local t=$TMPD/cg rep owhy pwhy f1 f2
	local wl=$BUILD/tests/workloads/callchain

	owhy=$(need_exe "$OPROFILED")
	[ -n "$owhy" ] || owhy=$(need_exe "$wl")
	if [ -z "$owhy" ]; then
		"$OPROFILED" -g --session-dir="$t.sess" \
			--frequency="$REPORT_HZ" -- "$wl" "$CG_SECONDS" \
			>/dev/null 2>"$t.err" ||
			owhy=$(failure "oprofiled -g" $? "$t.err")
	fi
	pwhy=$PERF_WHY
	[ -n "$pwhy" ] || pwhy=$(need_exe "$wl")
	if [ -z "$pwhy" ]; then
		PERF_RECORD_CALLGRAPH=1 perf_record_data "$t.data" "$t.err" \
			"$t.pid" "$wl" "$CG_SECONDS" ||
			pwhy=$(failure "perf record -g" $? "$t.err")
	fi
	f1="callchain, $CG_SECONDS s with call chains: \`opreport -c\` vs"
	f1+=" \`perf report -g --stdio\`"
	f2="callchain, $CG_SECONDS s with call chains:"
	f2+=" \`opreport --format=folded\` vs \`perf script\`"
	for ((rep = 0; rep < RUNS; rep++)); do
		speed_pair "$rep" "$f1" "$owhy" "$pwhy" \
			--session-dir="$t.sess" -c -- \
			report -i "$t.data" -g --stdio
		speed_pair "$rep" "$f2" "$owhy" "$pwhy" \
			--session-dir="$t.sess" --format=folded -- \
			script -i "$t.data"
	done
}
