# SPDX-License-Identifier: GPL-3.0-or-later
# Call graph report speed: on one recording with call chains of the known
# call tree (callchain), and one of node (fib.js, JIT frames named through
# its perf map), made by each recorder in this run, `opreport -c` against
# `perf report -g --stdio`, and `opreport --format=folded` against `perf
# script` (the first step of every flame graph pipeline): wall time and
# peak RSS.  Rows go to the report speed section.  Sourced by run.sh,
# after report_speed.sh.

# cg_record_node T: node under each recorder for about CG_SECONDS into
# T.sess and T.data; sets CG_NODE_OWHY and CG_NODE_PWHY
cg_record_node() {
	local t=$1 rounds
	local -a w
	CG_NODE_OWHY=$NODE_WHY CG_NODE_PWHY=$NODE_WHY
	[ -z "$NODE_WHY" ] || return 0
	rounds=$(awk -v r="$NODE_ROUNDS" -v s="$CG_SECONDS" \
		-v c="$COST_SECONDS" \
		'BEGIN { n = int(r * s / c); print n < 1 ? 1 : n }')
	w=(node --perf-basic-prof --interpreted-frames-native-stack
		"$BENCH_DIR/workloads/fib.js" "$rounds")
	if CG_NODE_OWHY=$(need_exe "$OPROFILED"); then
		"$OPROFILED" -g --session-dir="$t.sess" \
			--frequency="$REPORT_HZ" -- "${w[@]}" "$t.pid" \
			>/dev/null 2>"$t.err" ||
			CG_NODE_OWHY=$(failure "oprofiled -g" $? "$t.err")
	fi
	CG_NODE_PWHY=$PERF_WHY
	[ -z "$CG_NODE_PWHY" ] || return 0
	PERF_RECORD_CALLGRAPH=1 perf_record_data "$t.data" "$t.err" \
		"$t.pid2" "${w[@]}" "$t.pid2" ||
		CG_NODE_PWHY=$(failure "perf record -g" $? "$t.err")
}

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
	cg_record_node "$TMPD/cgnode"
	f1="callchain, $CG_SECONDS s with call chains: \`opreport -c\` vs"
	f1+=" \`perf report -g --stdio\`"
	f2="callchain, $CG_SECONDS s with call chains:"
	f2+=" \`opreport --format=folded\` vs \`perf script\`"
	f3="node, $CG_SECONDS s with call chains: \`opreport -c"
	f3+=" --anon-handler=perfmap\` vs \`perf report -g --stdio\`"
	f4="node, $CG_SECONDS s with call chains: \`opreport --format=folded"
	f4+=" --anon-handler=perfmap\` vs \`perf script\`"
	for ((rep = 0; rep < RUNS; rep++)); do
		speed_pair "$rep" "$f1" "$owhy" "$pwhy" \
			--session-dir="$t.sess" -c -- \
			report -i "$t.data" -g --stdio
		speed_pair "$rep" "$f2" "$owhy" "$pwhy" \
			--session-dir="$t.sess" --format=folded -- \
			script -i "$t.data"
		speed_pair "$rep" "$f3" "$CG_NODE_OWHY" "$CG_NODE_PWHY" \
			--session-dir="$TMPD/cgnode.sess" -c \
			--anon-handler=perfmap -- \
			report -i "$TMPD/cgnode.data" -g --stdio
		speed_pair "$rep" "$f4" "$CG_NODE_OWHY" "$CG_NODE_PWHY" \
			--session-dir="$TMPD/cgnode.sess" --format=folded \
			--anon-handler=perfmap -- \
			script -i "$TMPD/cgnode.data"
	done
	map_cleanup "$TMPD/cgnode.pid"
	map_cleanup "$TMPD/cgnode.pid2"
}
