# SPDX-License-Identifier: GPL-3.0-or-later
# Report speed: opreport against perf report on recordings of the same
# workload made in this run, wall time and peak RSS through bench_rusage.
# Sourced by run.sh.

SPEED="Report speed"

# speed_record WL: record workload WL once under each recorder at
# REPORT_HZ into $TMPD/speed.WL.{sess,data}; the node run's perf map is
# kept until the reports are done
speed_record() {
	local t=$TMPD/speed.$1
	workload_cmd "$1" "$t.pid"
	SPEED_OPJIT_WHY='' SPEED_PERF_WHY=''
	if SPEED_OPJIT_WHY=$(need_exe "$OPROFILED"); then
		"$OPROFILED" --session-dir="$t.sess" --frequency="$REPORT_HZ" -- \
			"${W[@]}" >/dev/null 2>"$t.err" ||
			SPEED_OPJIT_WHY=$(failure oprofiled $? "$t.err")
	fi
	# a second pid file: both runs' maps must outlive the recordings
	workload_cmd "$1" "$t.pid2"
	if [ -n "$PERF_WHY" ]; then
		SPEED_PERF_WHY=$PERF_WHY
	else
		perf record -q -e cpu-clock -F "$REPORT_HZ" -o "$t.data" -- \
			"${W[@]}" >/dev/null 2>"$t.err" ||
			SPEED_PERF_WHY=$(failure "perf record" $? "$t.err")
	fi
}

# speed_time FIGURE COLUMN CMD...: time one report; set T_WALL T_RSS or
# record why not
speed_time() {
	local fig=$1 col=$2
	shift 2
	T_WALL='' T_RSS=''
	local status name=${1##*/}
	[ "$name" != perf ] || name="perf report"
	"$RUSAGE" -o "$TMPD/speed.ru" -- "$@" >/dev/null 2>"$TMPD/speed.err"
	status=$?
	if [ "$status" = 0 ] && ru_read "$TMPD/speed.ru"; then
		T_WALL=$RU_WALL T_RSS=$RU_RSS
		rec_val "$SPEED" "$fig: wall time" "$col" "$T_WALL" s
		rec_val "$SPEED" "$fig: peak RSS" "$col" "$T_RSS" KB
	else
		local why
		why=$(failure "$name" "$status" "$TMPD/speed.err")
		rec_why "$SPEED" "$fig: wall time" "$col" "$why"
		rec_why "$SPEED" "$fig: peak RSS" "$col" "$why"
	fi
}

# speed_pair REP FIGURE OPJIT-WHY PERF-WHY OPREPORT-ARGS -- PERF-ARGS
speed_pair() {
	local rep=$1 fig=$2 owhy=$3 pwhy=$4 side
	shift 4
	local -a oargs=() pargs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do oargs+=("$1"); shift; done
	shift
	pargs=("$@")
	local o_wall='' o_rss='' p_wall='' p_rss=''
	# alternate which side reads the files first
	local -a order=(opjit perf)
	[ $((rep % 2)) = 0 ] || order=(perf opjit)
	for side in "${order[@]}"; do
		if [ "$side" = opjit ]; then
			[ -n "$owhy" ] || owhy=$(need_exe "$OPREPORT") || true
			if [ -n "$owhy" ]; then
				rec_why "$SPEED" "$fig: wall time" opjit "$owhy"
				rec_why "$SPEED" "$fig: peak RSS" opjit "$owhy"
				continue
			fi
			speed_time "$fig" opjit "$OPREPORT" "${oargs[@]}"
			o_wall=$T_WALL o_rss=$T_RSS
		else
			if [ -n "$pwhy" ]; then
				rec_why "$SPEED" "$fig: wall time" ref "$pwhy"
				rec_why "$SPEED" "$fig: peak RSS" ref "$pwhy"
				continue
			fi
			speed_time "$fig" ref perf "${pargs[@]}"
			p_wall=$T_WALL p_rss=$T_RSS
		fi
	done
	if [ -n "$o_wall" ] && [ -n "$p_wall" ]; then
		rec_val "$SPEED" "$fig: wall time" cmp "$(ratio "$o_wall" "$p_wall")" x
		rec_val "$SPEED" "$fig: peak RSS" cmp "$(ratio "$o_rss" "$p_rss")" x
	else
		rec_why "$SPEED" "$fig: wall time" cmp "needs both figures of the run"
		rec_why "$SPEED" "$fig: peak RSS" cmp "needs both figures of the run"
	fi
}

bench_report_speed() {
	local rep c=$TMPD/speed.C n=$TMPD/speed.node
	local c_owhy c_pwhy n_owhy n_pwhy
	rec_section "$SPEED" "One recording at $(khz "$REPORT_HZ") of each workload, made by each recorder in this run; each report runs $RUNS time(s), alternating which goes first. Reference: \`perf report\` on perf's recording of the same workload. \"opjit vs reference\" is a ratio: below 1 means opjit is faster or smaller."
	speed_record C
	c_owhy=$SPEED_OPJIT_WHY c_pwhy=$SPEED_PERF_WHY
	if [ -n "$NODE_WHY" ]; then
		n_owhy=$NODE_WHY n_pwhy=$NODE_WHY
	else
		speed_record node
		n_owhy=$SPEED_OPJIT_WHY n_pwhy=$SPEED_PERF_WHY
	fi
	for ((rep = 0; rep < RUNS; rep++)); do
		speed_pair "$rep" "C: \`opreport -l\` vs \`perf report --stdio\`" \
			"$c_owhy" "$c_pwhy" --session-dir="$c.sess" -l -- \
			report -i "$c.data" --stdio
		speed_pair "$rep" "C: \`opreport -l -g\` vs \`perf report --stdio --sort sym,srcline\`" \
			"$c_owhy" "$c_pwhy" --session-dir="$c.sess" -l -g -- \
			report -i "$c.data" --stdio --sort sym,srcline
		speed_pair "$rep" "node: \`opreport -l --anon-handler=perfmap\` vs \`perf report --stdio\`" \
			"$n_owhy" "$n_pwhy" --session-dir="$n.sess" -l \
			--anon-handler=perfmap -- report -i "$n.data" --stdio
	done
	map_cleanup "$n.pid"
	map_cleanup "$n.pid2"
}
