# SPDX-License-Identifier: GPL-3.0-or-later
# Report speed: opreport against perf report on recordings of the same
# workload made in this run, wall time and peak RSS through bench_rusage.
# Sourced by run.sh.

SPEED="Report speed"

# speed_record WL: record workload WL once under each recorder at
# REPORT_HZ into $TMPD/speed.WL.{sess,data}; sets SPEED_OPJIT_WHY and
# SPEED_PERF_WHY.  The node runs' perf maps stay until the reports are
# done, each run with its own pid file.
speed_record() {
	local t=$TMPD/speed.$1 iters=$SPIN_ITERS rounds=$NODE_ROUNDS
	SPEED_OPJIT_WHY='' SPEED_PERF_WHY=$PERF_WHY
	# a longer run than the cost runs: reports are slow on big profiles
	SPIN_ITERS=$((iters * SPEED_SCALE))
	NODE_ROUNDS=$((${rounds:-0} * SPEED_SCALE))
	workload_cmd "$1" "$t.pid"
	if SPEED_OPJIT_WHY=$(need_exe "$OPROFILED"); then
		"$OPROFILED" --session-dir="$t.sess" \
			--frequency="$REPORT_HZ" -- "${W[@]}" \
			>/dev/null 2>"$t.err" ||
			SPEED_OPJIT_WHY=$(failure oprofiled $? "$t.err")
	fi
	workload_cmd "$1" "$t.pid2"
	SPIN_ITERS=$iters NODE_ROUNDS=$rounds
	[ -z "$SPEED_PERF_WHY" ] || return 0
	perf_record_data "$t.data" "$t.err" "$t.pid2" "${W[@]}" ||
		SPEED_PERF_WHY=$(failure "perf record" $? "$t.err")
}

# speed_time FIGURE COLUMN CMD...: time one report; set T_WALL T_RSS and
# record them, or record why not.  SPEED_TIMEOUT, when set, is how many
# seconds a report may take before it is stopped (growth.sh: perf's
# source lines of JIT code can take hours), and SPEED_REF_TIMEOUT, when
# set, the reference's (column ref) instead.
speed_time() {
	local fig=$1 col=$2 status name why secs=${SPEED_TIMEOUT:-}
	local -a limit=()
	shift 2
	name=${1##*/}
	[ "$name" != perf ] || name="perf report"
	[ "$col" != ref ] || secs=${SPEED_REF_TIMEOUT:-$secs}
	[ -z "$secs" ] || limit=(timeout "$secs")
	T_WALL='' T_RSS=''
	"$RUSAGE" -o "$TMPD/speed.ru" -- "${limit[@]}" "$@" >/dev/null \
		2>"$TMPD/speed.err"
	status=$?
	if [ "$status" = 124 ] && [ "${#limit[@]}" -gt 0 ]; then
		why="$name did not finish within $secs s (stopped)"
		rec_why "$SPEED" "$fig: wall time" "$col" "$why"
		rec_why "$SPEED" "$fig: peak RSS" "$col" "$why"
		return
	fi
	if [ "$status" = 0 ] && ru_read "$TMPD/speed.ru"; then
		T_WALL=$RU_WALL T_RSS=$RU_RSS
		rec_val "$SPEED" "$fig: wall time" "$col" "$T_WALL" s
		rec_val "$SPEED" "$fig: peak RSS" "$col" "$T_RSS" KB
		return
	fi
	why=$(failure "$name" "$status" "$TMPD/speed.err")
	rec_why "$SPEED" "$fig: wall time" "$col" "$why"
	rec_why "$SPEED" "$fig: peak RSS" "$col" "$why"
}

# speed_skip FIGURE COLUMN REASON
speed_skip() {
	rec_why "$SPEED" "$1: wall time" "$2" "$3"
	rec_why "$SPEED" "$1: peak RSS" "$2" "$3"
}

# speed_pair REP FIGURE OPJIT-WHY PERF-WHY OPREPORT-ARGS -- PERF-ARGS
speed_pair() {
	local rep=$1 fig=$2 owhy=$3 pwhy=$4 side
	local o_wall='' o_rss='' p_wall='' p_rss=''
	local -a oargs=() pargs=() order=(opjit perf)
	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do oargs+=("$1"); shift; done
	shift
	pargs=("$@")
	[ -n "$owhy" ] || owhy=$(need_exe "$OPREPORT")
	# alternate which side reads its files first
	[ $((rep % 2)) = 0 ] || order=(perf opjit)
	for side in "${order[@]}"; do
		if [ "$side" = opjit ] && [ -n "$owhy" ]; then
			speed_skip "$fig" opjit "$owhy"
		elif [ "$side" = opjit ]; then
			speed_time "$fig" opjit "$OPREPORT" "${oargs[@]}"
			o_wall=$T_WALL o_rss=$T_RSS
		elif [ -n "$pwhy" ]; then
			speed_skip "$fig" ref "$pwhy"
		else
			speed_time "$fig" ref perf "${pargs[@]}"
			p_wall=$T_WALL p_rss=$T_RSS
		fi
	done
	if [ -z "$o_wall" ] || [ -z "$p_wall" ]; then
		speed_skip "$fig" cmp "needs both figures of the run"
		return
	fi
	rec_val "$SPEED" "$fig: wall time" cmp "$(ratio "$o_wall" "$p_wall")" x
	rec_val "$SPEED" "$fig: peak RSS" cmp "$(ratio "$o_rss" "$p_rss")" x
}

# speed_isolation REP FIGURE WHY OPREPORT-ARGS...: opreport with its
# handlers in helper processes (opjit column) against the same report
# with --handler-isolation=none (ref column): what isolation costs
speed_isolation() {
	local rep=$1 fig=$2 why=$3 side i_wall='' i_rss='' n_wall='' n_rss=''
	local -a order=(iso none)
	shift 3
	[ -n "$why" ] || why=$(need_exe "$OPREPORT")
	if [ -n "$why" ]; then
		speed_skip "$fig" opjit "$why"
		speed_skip "$fig" ref "$why"
		speed_skip "$fig" cmp "$why"
		return
	fi
	[ $((rep % 2)) = 0 ] || order=(none iso)
	for side in "${order[@]}"; do
		if [ "$side" = iso ]; then
			speed_time "$fig" opjit "$OPREPORT" "$@"
			i_wall=$T_WALL i_rss=$T_RSS
		else
			speed_time "$fig" ref "$OPREPORT" "$@" \
				--handler-isolation=none
			n_wall=$T_WALL n_rss=$T_RSS
		fi
	done
	if [ -z "$i_wall" ] || [ -z "$n_wall" ]; then
		speed_skip "$fig" cmp "needs both figures of the run"
		return
	fi
	rec_val "$SPEED" "$fig: wall time" cmp "$(ratio "$i_wall" "$n_wall")" x
	rec_val "$SPEED" "$fig: peak RSS" cmp "$(ratio "$i_rss" "$n_rss")" x
}

bench_report_speed() {
	local rep c=$TMPD/speed.C n=$TMPD/speed.node
	local c_owhy c_pwhy n_owhy n_pwhy f1 f2 f3 secs
	secs=$(awk -v s="$COST_SECONDS" -v k="$SPEED_SCALE" \
		'BEGIN { printf "%g", s * k }')
	rec_section "$SPEED" "One recording at $(khz "$REPORT_HZ") of each" \
"workload, about $secs s long," \
"made by each recorder in this run; each report runs $RUNS" \
"time(s), alternating which goes first. Reference: \`perf report\` on" \
"perf's recording of the same workload. \"opjit vs reference\" is a" \
"ratio: below 1 means opjit is faster or smaller."
	speed_record C
	c_owhy=$SPEED_OPJIT_WHY c_pwhy=$SPEED_PERF_WHY
	n_owhy=$NODE_WHY n_pwhy=$NODE_WHY
	if [ -z "$NODE_WHY" ]; then
		speed_record node
		n_owhy=$SPEED_OPJIT_WHY n_pwhy=$SPEED_PERF_WHY
	fi
	f1="C: \`opreport -l\` vs \`perf report --stdio\`"
	f2="C: \`opreport -l -g\` vs"
	f2+=" \`perf report --stdio --sort sym,srcline\`"
	f3="node: \`opreport -l --anon-handler=perfmap\`"
	f3+=" vs \`perf report --stdio\`"
	f4="node: handlers isolated (opjit column) vs"
	f4+=" \`--handler-isolation=none\` (reference column)"
	for ((rep = 0; rep < RUNS; rep++)); do
		speed_pair "$rep" "$f1" "$c_owhy" "$c_pwhy" \
			--session-dir="$c.sess" -l -- \
			report -i "$c.data" --stdio
		speed_pair "$rep" "$f2" "$c_owhy" "$c_pwhy" \
			--session-dir="$c.sess" -l -g -- \
			report -i "$c.data" --stdio --sort sym,srcline
		speed_pair "$rep" "$f3" "$n_owhy" "$n_pwhy" \
			--session-dir="$n.sess" -l --anon-handler=perfmap -- \
			report -i "$n.data" --stdio
		speed_isolation "$rep" "$f4" "$n_owhy" \
			--session-dir="$n.sess" -l --anon-handler=perfmap
	done
	map_cleanup "$n.pid"
	map_cleanup "$n.pid2"
}
