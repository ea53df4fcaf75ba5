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
COST_CG="Recording cost with call graphs"
# on a shared machine the workload's CPU time is steadier than its wall
# time, and it includes the kernel's work of taking the samples
WCPU_FIG="slowdown of the workload, by its CPU time"
# perf keeps its kallsyms copy in ~/.debug, once per kernel, and reads a
# JIT's map from /tmp at report time, so the sample data alone is
# compared too
DATA_FIG="bytes written, leaving out opjit's copies of kallsyms and JIT maps"
LOST_FIG="lost samples (% of samples)"
BASE_FIG="alone: wall time (the baseline)"
COST_FIGS=("slowdown of the workload" "$WCPU_FIG" "recorder's own CPU time"
	"bytes written" "$DATA_FIG" "samples recorded" "$LOST_FIG")

# -g for both recorders when set (bench_cost_callgraph)
CG=''

# this repetition's results: RUN[SIDE.FIELD], SIDE opjit or ref, FIELD
# wall wcpu cpu bytes data samples lost why
declare -A RUN

# workload_cmd NAME PIDFILE: set W to the command line of workload NAME
workload_cmd() {
	case $1 in
	C) W=("$SPIN" "$SPIN_ITERS") ;;
	node) W=(node --perf-basic-prof "$BENCH_DIR/workloads/fib.js"
		"$NODE_ROUNDS" "$2") ;;
	esac
}

# scale PROBE: the count that makes a run of PROBE units, which took
# RU_WALL seconds, last about COST_SECONDS
scale() {
	awk -v w="$RU_WALL" -v p="$1" -v s="$COST_SECONDS" \
		'BEGIN { n = int(p * s / w); print n < 1 ? 1 : n }'
}

# bench_calibrate: size the fixed-work workloads to about COST_SECONDS
bench_calibrate() {
	local fib=$BENCH_DIR/workloads/fib.js
	SPIN_ITERS='' NODE_ROUNDS='' NODE_WHY=''
	"$RUSAGE" -o "$TMPD/cal" -- "$SPIN" 100000000 >/dev/null 2>&1 &&
		ru_read "$TMPD/cal" && SPIN_ITERS=$(scale 100000000)
	[ -n "$SPIN_ITERS" ] || die "the C workload $SPIN does not run"
	if ! command -v node >/dev/null; then
		NODE_WHY="node is not installed"
		return
	fi
	if "$RUSAGE" -o "$TMPD/cal" -- node "$fib" 100 >/dev/null \
		2>"$TMPD/cal.err" && ru_read "$TMPD/cal"; then
		NODE_ROUNDS=$(scale 100)
	else
		NODE_WHY="node fails on fib.js: $(first_error "$TMPD/cal.err")"
	fi
}

khz() { awk -v f="$1" 'BEGIN { printf "%g kHz", f / 1000 }'; }

# cost_side SIDE HZ: run the workload under the recorder of SIDE (opjit:
# oprofiled, ref: perf record) and fill RUN[SIDE.*]
cost_side() {
	local s=$1 hz=$2 t=$TMPD/cost.$1 status name=oprofiled kallsyms maps
	local f
	for f in wall wcpu cpu bytes data samples lost why; do
		RUN[$s.$f]=''
	done
	rm -rf "$t.sess" "$t.data" "$t.outer" "$t.inner"
	workload_cmd "$WL" "$t.pid"
	if [ "$s" = opjit ]; then
		RUN[$s.why]=$(need_exe "$OPROFILED") || return
		"$RUSAGE" -o "$t.outer" -- "$OPROFILED" ${CG:+-g} \
			--session-dir="$t.sess" --frequency="$hz" -- \
			"$RUSAGE" -o "$t.inner" -- "${W[@]}" \
			>/dev/null 2>"$t.err"
	else
		name="perf record"
		RUN[$s.why]=$PERF_WHY
		[ -z "$PERF_WHY" ] || return
		"$RUSAGE" -o "$t.outer" -- perf record -q -e cpu-clock \
			${CG:+-g} -F "$hz" -o "$t.data" -- \
			"$RUSAGE" -o "$t.inner" -- \
			"${W[@]}" >/dev/null 2>"$t.err"
	fi
	status=$?
	map_cleanup "$t.pid"
	if [ "$status" -ne 0 ] || ! ru_read "$t.inner"; then
		RUN[$s.why]=$(failure "$name" "$status" "$t.err")
		return
	fi
	RUN[$s.wall]=$RU_WALL RUN[$s.wcpu]=$RU_CPU
	ru_read "$t.outer" && RUN[$s.cpu]=$(sub "$RU_CPU" "${RUN[$s.wcpu]}")
	if [ "$s" = opjit ]; then
		RUN[$s.bytes]=$(file_bytes "$t.sess")
		kallsyms=$(file_bytes "$t.sess/kallsyms")
		maps=$(file_bytes "$t.sess/maps")
		RUN[$s.data]=$(sub "$(sub "${RUN[$s.bytes]}" "$kallsyms")" \
			"${maps:-0}")
		read -r RUN[$s.samples] RUN[$s.lost] \
			<<<"$(oprofiled_summary "$t.err")"
		[ -n "${RUN[$s.samples]}" ] ||
			RUN[$s.lost]="oprofiled printed no summary line"
	else
		RUN[$s.bytes]=$(stat -c %s "$t.data" 2>/dev/null)
		RUN[$s.data]=${RUN[$s.bytes]}
		read -r RUN[$s.samples] RUN[$s.lost] \
			<<<"$(perf_counts "$t.data")"
		[ -n "${RUN[$s.samples]}" ] ||
			RUN[$s.lost]="perf report cannot read the recording"
	fi
}

# lost_pct SIDE: lost samples as a share of all, empty when unknown
lost_pct() {
	is_count "${RUN[$1.lost]}" || return 0
	pct "${RUN[$1.lost]}" "$(add "${RUN[$1.samples]}" "${RUN[$1.lost]}")"
}

# cost_record SIDE FIGURE-PREFIX: the run's figures of one recorder
cost_record() {
	local s=$1 f=$2 what
	if [ -n "${RUN[$s.why]}" ]; then
		for what in "${COST_FIGS[@]}"; do
			rec_why "$COST" "$f: $what" "$s" "${RUN[$s.why]}"
		done
		return
	fi
	rec_val "$COST" "$f: slowdown of the workload" "$s" \
		"$(ratio "${RUN[$s.wall]}" "$A_WALL")" x
	rec_val "$COST" "$f: $WCPU_FIG" "$s" \
		"$(ratio "${RUN[$s.wcpu]}" "$A_CPU")" x
	case ${RUN[$s.cpu]} in
	-*) rec_why "$COST" "$f: recorder's own CPU time" "$s" \
		"the recorder did not reap its workload, so the" \
		"workload's CPU time is not in the recorder's" ;;
	*) rec_val "$COST" "$f: recorder's own CPU time" "$s" \
		"${RUN[$s.cpu]}" cpu ;;
	esac
	rec_val "$COST" "$f: bytes written" "$s" "${RUN[$s.bytes]}" B
	rec_val "$COST" "$f: $DATA_FIG" "$s" "${RUN[$s.data]}" B
	if [ -z "${RUN[$s.samples]}" ]; then
		rec_why "$COST" "$f: samples recorded" "$s" "${RUN[$s.lost]}"
		rec_why "$COST" "$f: $LOST_FIG" "$s" "${RUN[$s.lost]}"
		return
	fi
	rec_val "$COST" "$f: samples recorded" "$s" "${RUN[$s.samples]}" n
	if is_count "${RUN[$s.lost]}"; then
		rec_val "$COST" "$f: $LOST_FIG" "$s" "$(lost_pct "$s")" pct
	else
		rec_why "$COST" "$f: $LOST_FIG" "$s" \
			"the recorder does not say"
	fi
}

# cost_cmp FIGURE OPJIT REF HOW FORMAT: the comparison cell of one run
cost_cmp() {
	if [ -z "$2" ] || [ -z "$3" ]; then
		rec_why "$COST" "$1" cmp "needs both figures of the run"
		return
	fi
	rec_val "$COST" "$1" cmp "$($4 "$2" "$3")" "$5"
}

cost_compare() {
	local f=$1
	cost_cmp "$f: slowdown of the workload" "${RUN[opjit.wall]}" \
		"${RUN[ref.wall]}" ratio x
	cost_cmp "$f: $WCPU_FIG" "${RUN[opjit.wcpu]}" "${RUN[ref.wcpu]}" \
		ratio x
	cost_cmp "$f: recorder's own CPU time" "${RUN[opjit.cpu]}" \
		"${RUN[ref.cpu]}" ratio x
	cost_cmp "$f: bytes written" "${RUN[opjit.bytes]}" \
		"${RUN[ref.bytes]}" ratio x
	cost_cmp "$f: $DATA_FIG" "${RUN[opjit.data]}" "${RUN[ref.data]}" \
		ratio x
	cost_cmp "$f: samples recorded" "${RUN[opjit.samples]}" \
		"${RUN[ref.samples]}" ratio x
	cost_cmp "$f: $LOST_FIG" "$(lost_pct opjit)" "$(lost_pct ref)" sub pt
}

# cost_alone: the workload alone; sets A_WALL A_CPU or A_WHY
cost_alone() {
	A_WALL='' A_CPU='' A_WHY=''
	workload_cmd "$WL" "$TMPD/alone.pid"
	if "$RUSAGE" -o "$TMPD/alone" -- "${W[@]}" >/dev/null \
		2>"$TMPD/alone.err" && ru_read "$TMPD/alone"; then
		A_WALL=$RU_WALL A_CPU=$RU_CPU
	else
		A_WHY="the workload fails alone:"
		A_WHY+=" $(first_error "$TMPD/alone.err")"
	fi
	map_cleanup "$TMPD/alone.pid"
}

# cost_run HZ REP: one repetition of workload $WL at HZ
cost_run() {
	local hz=$1 rep=$2 f mode base="$WL $BASE_FIG"
	local -a order=(alone opjit ref)
	f="$WL @ $(khz "$hz")"
	# rotate so that no mode always runs first, on a cold cache
	order=("${order[@]:rep % 3}" "${order[@]:0:rep % 3}")
	for mode in "${order[@]}"; do
		case $mode in
		alone) cost_alone ;;
		*) cost_side "$mode" "$hz" ;;
		esac
	done
	if [ -n "$A_WHY" ]; then
		RUN=([opjit.why]=$A_WHY [ref.why]=$A_WHY)
		rec_why_row "$COST" "$base" "$A_WHY"
	else
		rec_val "$COST" "$base" opjit "$A_WALL" s
		rec_note "$COST" "$base" ref "the same baseline serves both"
		rec_note "$COST" "$base" cmp "-"
	fi
	cost_record opjit "$f"
	cost_record ref "$f"
	cost_compare "$f"
}

bench_cost() {
	local hz rep what
	[ -z "$CG" ] || rec_section "$COST" "The same runs with call graphs:" \
"\`oprofiled -g\` beside \`perf record -g\` (frame pointers both), on" \
"the same workloads, so that node's stacks run through JIT code."
	[ -n "$CG" ] || rec_section "$COST" "Each workload alone, under" \
"\`oprofiled --frequency=HZ\` and under" \
"\`perf record -e cpu-clock -F HZ\`, interleaved, order rotated each" \
"run. Reference: Linux perf. C is tests/bench/workloads/spin.c and" \
"node is fib.js under --perf-basic-prof, both a fixed amount of work." \
"Slowdown is the workload's own time under the recorder over its time" \
"alone; the recorder's CPU time leaves out the workload's. Bytes are" \
"the sizes of the session's files (not its directories) and of" \
"perf.data." \
"\"opjit vs reference\" is a ratio, or a difference in points for lost" \
"samples."
	# once: the call graph runs time the same work as the flat ones
	[ -n "${SPIN_ITERS:-}" ] || bench_calibrate
	for WL in C node; do
		for hz in "${FREQS[@]}"; do
			if [ "$WL" = C ] || [ -z "$NODE_WHY" ]; then
				for ((rep = 0; rep < RUNS; rep++)); do
					cost_run "$hz" "$rep"
				done
				continue
			fi
			for what in "${COST_FIGS[@]}"; do
				rec_why_row "$COST" \
					"$WL @ $(khz "$hz"): $what" "$NODE_WHY"
			done
			rec_why_row "$COST" "$WL $BASE_FIG" "$NODE_WHY"
		done
	done
}

# bench_cost_callgraph: the recording cost again, with call graphs
bench_cost_callgraph() {
	local saved=$COST
	COST=$COST_CG CG=-g
	bench_cost
	COST=$saved CG=''
}
