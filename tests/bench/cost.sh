# SPDX-License-Identifier: GPL-3.0-or-later
# Recording cost: each workload alone, under oprofiled and under perf
# record, interleaved in the same run with the order rotated each
# repetition.  Sourced by run.sh.
#
# A recorder runs as bench_rusage -- RECORDER -- bench_rusage -- WORKLOAD:
# the inner helper gives the workload's own wall and CPU time, the outer
# one the recorder's plus the workload's, so the recorder's own CPU time
# is the difference.  The workloads do a fixed amount of work, so the
# recorder's cost shows as a longer run.

COST="Recording cost"
DATA_FIG="bytes written, leaving out opjit's copy of /proc/kallsyms"
# on a shared machine the workload's CPU time is steadier than its wall
# time, and it includes the kernel's work of taking the samples
WCPU_FIG="slowdown of the workload, by its CPU time"
COST_FIGS=("slowdown of the workload" "$WCPU_FIG" "recorder's own CPU time"
	"bytes written" "$DATA_FIG" "samples recorded"
	"lost samples (% of samples)")

# workload_cmd NAME PIDFILE: set W to the command line of workload NAME
workload_cmd() {
	case $1 in
	C) W=("$SPIN" "$SPIN_ITERS") ;;
	node) W=(node --perf-basic-prof "$BENCH_DIR/workloads/fib.js" "$NODE_ROUNDS" "$2") ;;
	esac
}

# bench_calibrate: size the fixed-work workloads to about COST_SECONDS
bench_calibrate() {
	local probe=100000000
	SPIN_ITERS='' NODE_ROUNDS='' NODE_WHY=''
	"$RUSAGE" -o "$TMPD/cal" -- "$SPIN" "$probe" >/dev/null 2>&1 &&
		ru_read "$TMPD/cal" &&
		SPIN_ITERS=$(awk -v w="$RU_WALL" -v p="$probe" -v s="$COST_SECONDS" \
			'BEGIN { n = int(p * s / w); print n < 1 ? 1 : n }')
	[ -n "$SPIN_ITERS" ] || die "the C workload $SPIN does not run"
	if ! command -v node >/dev/null; then
		NODE_WHY="node is not installed"
		return
	fi
	probe=100
	if "$RUSAGE" -o "$TMPD/cal" -- node "$BENCH_DIR/workloads/fib.js" "$probe" \
		>/dev/null 2>"$TMPD/cal.err" && ru_read "$TMPD/cal"; then
		NODE_ROUNDS=$(awk -v w="$RU_WALL" -v p="$probe" -v s="$COST_SECONDS" \
			'BEGIN { n = int(p * s / w); print n < 1 ? 1 : n }')
	else
		NODE_WHY="node fails on fib.js: $(first_error "$TMPD/cal.err")"
	fi
}

khz() { awk -v f="$1" 'BEGIN { printf "%g kHz", f / 1000 }'; }

# cost_cmp FIGURE OPJIT REF HOW FORMAT: the comparison cell of one run
cost_cmp() {
	local v
	if [ -z "$2" ] || [ -z "$3" ]; then
		rec_why "$COST" "$1" cmp "needs both figures of the run"
		return
	fi
	v=$($4 "$2" "$3")
	rec_val "$COST" "$1" cmp "$v" "$5"
}

# cost_side SIDE HZ: run the workload under recorder SIDE (opjit, perf),
# set S_WALL S_WCPU S_CPU S_BYTES S_DATA S_SAMPLES S_LOST, or S_WHY
cost_side() {
	local side=$1 hz=$2 t=$TMPD/cost.$1 status
	S_WALL='' S_WCPU='' S_CPU='' S_BYTES='' S_DATA='' S_SAMPLES='' S_LOST=''
	S_WHY=''
	rm -rf "$t.sess" "$t.data" "$t.outer" "$t.inner" "$t.pid"
	workload_cmd "$WL" "$t.pid"
	if [ "$side" = opjit ]; then
		S_WHY=$(need_exe "$OPROFILED") || return
		"$RUSAGE" -o "$t.outer" -- "$OPROFILED" --session-dir="$t.sess" \
			--frequency="$hz" -- "$RUSAGE" -o "$t.inner" -- "${W[@]}" \
			>/dev/null 2>"$t.err"
	else
		[ -z "$PERF_WHY" ] || { S_WHY=$PERF_WHY; return; }
		"$RUSAGE" -o "$t.outer" -- perf record -q -e cpu-clock -F "$hz" \
			-o "$t.data" -- "$RUSAGE" -o "$t.inner" -- "${W[@]}" \
			>/dev/null 2>"$t.err"
	fi
	status=$?
	map_cleanup "$t.pid"
	if [ "$status" -ne 0 ] || ! ru_read "$t.inner"; then
		S_WHY=$(failure "$([ "$side" = opjit ] && echo oprofiled || echo perf record)" "$status" "$t.err")
		return
	fi
	S_WALL=$RU_WALL S_WCPU=$RU_CPU
	ru_read "$t.outer" && S_CPU=$(sub "$RU_CPU" "$S_WCPU")
	if [ "$side" = opjit ]; then
		S_BYTES=$(du -sb "$t.sess" 2>/dev/null | cut -f1)
		# perf keeps its kallsyms copy in ~/.debug, once per kernel, so
		# the sample data alone is also compared
		S_DATA=$(sub "$S_BYTES" "$(stat -c %s "$t.sess/kallsyms" 2>/dev/null || echo 0)")
		read -r S_SAMPLES S_LOST <<<"$(oprofiled_summary "$t.err")"
		[ -n "$S_SAMPLES" ] || S_LOST="oprofiled printed no summary line"
	else
		S_BYTES=$(stat -c %s "$t.data" 2>/dev/null)
		S_DATA=$S_BYTES
		read -r S_SAMPLES S_LOST <<<"$(perf_counts "$t.data")"
		[ -n "$S_SAMPLES" ] || S_LOST="perf report cannot read the recording"
	fi
}

# cost_record SIDE FIGURE-PREFIX: the run's figures of one recorder
cost_record() {
	local col=$1 f=$2 what
	if [ -n "$S_WHY" ]; then
		for what in "${COST_FIGS[@]}"; do
			rec_why "$COST" "$f: $what" "$col" "$S_WHY"
		done
		return
	fi
	rec_val "$COST" "$f: slowdown of the workload" "$col" "$(ratio "$S_WALL" "$A_WALL")" x
	rec_val "$COST" "$f: $WCPU_FIG" "$col" "$(ratio "$S_WCPU" "$A_CPU")" x
	rec_val "$COST" "$f: recorder's own CPU time" "$col" "$S_CPU" cpu
	rec_val "$COST" "$f: bytes written" "$col" "$S_BYTES" B
	rec_val "$COST" "$f: $DATA_FIG" "$col" "$S_DATA" B
	case $S_SAMPLES in
	'') rec_why "$COST" "$f: samples recorded" "$col" "$S_LOST"
	    rec_why "$COST" "$f: lost samples (% of samples)" "$col" "$S_LOST" ;;
	*) rec_val "$COST" "$f: samples recorded" "$col" "$S_SAMPLES" n
	   case $S_LOST in
	   '' | -1) rec_why "$COST" "$f: lost samples (% of samples)" "$col" "the recorder does not say" ;;
	   *) rec_val "$COST" "$f: lost samples (% of samples)" "$col" \
		"$(pct "$S_LOST" "$(add "$S_SAMPLES" "$S_LOST")")" pct ;;
	   esac ;;
	esac
}

# cost_run HZ REP: one repetition of workload $WL at HZ
cost_run() {
	local hz=$1 rep=$2 f mode
	local -a order=(alone opjit perf)
	f="$WL @ $(khz "$hz")"
	# rotate so that no mode always runs first, on a cold cache
	order=("${order[@]:rep % 3}" "${order[@]:0:rep % 3}")
	A_WALL='' A_CPU='' A_WHY=''
	local o_wcpu='' p_wcpu=''
	local o_wall='' o_cpu='' o_bytes='' o_data='' o_samples='' o_lost='' o_why=''
	local p_wall='' p_cpu='' p_bytes='' p_data='' p_samples='' p_lost='' p_why=''
	for mode in "${order[@]}"; do
		case $mode in
		alone)
			workload_cmd "$WL" "$TMPD/alone.pid"
			if "$RUSAGE" -o "$TMPD/alone" -- "${W[@]}" >/dev/null \
				2>"$TMPD/alone.err" && ru_read "$TMPD/alone"; then
				A_WALL=$RU_WALL A_CPU=$RU_CPU
			else
				A_WHY="the workload fails alone: $(first_error "$TMPD/alone.err")"
			fi
			map_cleanup "$TMPD/alone.pid" ;;
		opjit)
			cost_side opjit "$hz"
			o_wall=$S_WALL o_wcpu=$S_WCPU o_cpu=$S_CPU o_bytes=$S_BYTES o_data=$S_DATA
			o_samples=$S_SAMPLES o_lost=$S_LOST o_why=$S_WHY ;;
		perf)
			cost_side perf "$hz"
			p_wall=$S_WALL p_wcpu=$S_WCPU p_cpu=$S_CPU p_bytes=$S_BYTES p_data=$S_DATA
			p_samples=$S_SAMPLES p_lost=$S_LOST p_why=$S_WHY ;;
		esac
	done
	if [ -n "$A_WHY" ]; then
		o_why=$A_WHY p_why=$A_WHY
		o_wall='' o_wcpu='' o_cpu='' o_bytes='' o_data='' o_samples='' o_lost=''
		p_wall='' p_wcpu='' p_cpu='' p_bytes='' p_data='' p_samples='' p_lost=''
	fi
	S_WALL=$o_wall S_WCPU=$o_wcpu S_CPU=$o_cpu S_BYTES=$o_bytes S_DATA=$o_data
	S_SAMPLES=$o_samples
	S_LOST=$o_lost S_WHY=$o_why
	cost_record opjit "$f"
	S_WALL=$p_wall S_WCPU=$p_wcpu S_CPU=$p_cpu S_BYTES=$p_bytes S_DATA=$p_data
	S_SAMPLES=$p_samples
	S_LOST=$p_lost S_WHY=$p_why
	cost_record ref "$f"
	cost_cmp "$f: slowdown of the workload" "$o_wall" "$p_wall" ratio x
	cost_cmp "$f: $WCPU_FIG" "$o_wcpu" "$p_wcpu" ratio x
	cost_cmp "$f: recorder's own CPU time" "$o_cpu" "$p_cpu" ratio x
	cost_cmp "$f: bytes written" "$o_bytes" "$p_bytes" ratio x
	cost_cmp "$f: $DATA_FIG" "$o_data" "$p_data" ratio x
	cost_cmp "$f: samples recorded" "$o_samples" "$p_samples" ratio x
	is_count "$o_lost" || o_lost='' o_samples=''
	is_count "$p_lost" || p_lost='' p_samples=''
	cost_cmp "$f: lost samples (% of samples)" \
		"$(pct "$o_lost" "$(add "$o_samples" "$o_lost")")" \
		"$(pct "$p_lost" "$(add "$p_samples" "$p_lost")")" sub pt
	if [ -n "$A_WALL" ]; then
		rec_val "$COST" "$WL alone: wall time (the baseline)" opjit "$A_WALL" s
		rec_note "$COST" "$WL alone: wall time (the baseline)" ref "the same baseline serves both"
		rec_note "$COST" "$WL alone: wall time (the baseline)" cmp "-"
	else
		rec_why_row "$COST" "$WL alone: wall time (the baseline)" "$A_WHY"
	fi
}

bench_cost() {
	local hz rep what
	rec_section "$COST" "Each workload alone, under \`oprofiled --frequency=HZ\` and under \`perf record -e cpu-clock -F HZ\`, interleaved, order rotated each run. Reference: Linux perf. C is tests/bench/workloads/spin.c and node is fib.js under --perf-basic-prof, both a fixed amount of work. Slowdown is the workload's own wall time over its time alone; the recorder's CPU time excludes the workload's; \"opjit vs reference\" is a ratio, or a difference in points for lost samples."
	bench_calibrate
	for WL in C node; do
		for hz in "${FREQS[@]}"; do
			if [ "$WL" = node ] && [ -n "$NODE_WHY" ]; then
				for what in "${COST_FIGS[@]}"; do
					rec_why_row "$COST" "$WL @ $(khz "$hz"): $what" "$NODE_WHY"
				done
				rec_why_row "$COST" "$WL alone: wall time (the baseline)" "$NODE_WHY"
				continue
			fi
			for ((rep = 0; rep < RUNS; rep++)); do
				cost_run "$hz" "$rep"
			done
		done
	done
}
