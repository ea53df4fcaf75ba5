# SPDX-License-Identifier: GPL-3.0-or-later
# Growth: how the recorders' and the reports' costs grow with the length
# of a recording, its number of samples and the size of a JIT's map,
# opjit beside perf on the same workloads in the same run.  Sourced by
# run.sh, after report_speed.sh (whose speed_pair times the reports).
#
# Each recorder starts its workload, as in cost.sh, and its own CPU time
# is taken the same way: bench_rusage -- RECORDER -- bench_rusage --
# WORKLOAD, the difference of the two.  Its peak RSS cannot be: getrusage
# gives the largest resident set of a process and of every child it
# reaped, node's among them.  peak_rss.py reads the recorder's own as it
# exits.  (Attaching instead, with oprofiled --pid and perf record -p,
# would keep the workload out of the recorder's rusage, but each recorder
# takes its own time to attach and perf -p does not follow the threads
# node starts, so the two would not record the same thing.)

GROWTH_C="Growth: C by recording length"
GROWTH_NODE="Growth: node, JIT-hot, by samples"
GROWTH_MAP="Growth: node by the size of its JIT map"
GROWTH_IDLE="Growth: an idle recording"
GROWTH_SECTIONS=("$GROWTH_C" "$GROWTH_NODE" "$GROWTH_MAP" "$GROWTH_IDLE")

G_WALL="recorder's wall time"
G_SAMPLES="samples recorded"
G_CPU="recorder's own CPU time"
G_RSS="recorder's peak RSS"
# C and sleep leave no JIT map, so one row says all about their bytes
G_BYTES="bytes written (no JIT map: none archived, none needed)"
G_NOMAP="bytes: session without its archived maps vs perf.data"
G_WITHMAP="bytes: session with its archived maps vs perf.data"
G_SELF="bytes: session with its archived maps vs perf.data +"
G_SELF+=" the /tmp/perf-PID.map perf reads"
G_MAPLINES="lines in node's /tmp/perf-PID.map"
G_FULL="\`opreport -l -g -d\` vs \`perf report --stdio --sort sym,srcline\`"
G_FLAT="\`opreport -l\` vs \`perf report --stdio\`"

# this size's results: G[SIDE.FIELD], SIDE opjit or ref, FIELD wall cpu
# rss samples bytes nomap mapbytes maplines, why (no figures at all) and
# mapwhy (none that need the JIT map)
declare -A G
# sizes recorded so far: which recorder goes first alternates with it
G_TURN=0

# growth_perf_samples DATA: perf's sample count, 0 for a recording that
# has none (perf report then prints no table, only a complaint)
growth_perf_samples() {
	local out
	if out=$(perf_counts "$1") && [ -n "$out" ]; then
		echo "${out% *}"
		return
	fi
	perf report -i "$1" --stdio 2>&1 >/dev/null |
		grep -q 'has no samples' && echo 0
}

# growth_reset SIDE WHY: no figures yet for SIDE, and WHY (may be empty)
growth_reset() {
	local f
	for f in wall cpu rss samples bytes nomap mapbytes maplines mapwhy
	do
		G[$1.$f]=''
	done
	G[$1.why]=$2
}

# growth_cmd KIND SIZE PIDFILE: set W to the command line of workload
# KIND (C, node, map or idle) at SIZE (iterations, rounds, functions,
# seconds); a node workload writes its pid to PIDFILE, for its map
growth_cmd() {
	case $1 in
	C) W=("$SPIN" "$2") ;;
	node) W=(node --perf-basic-prof "$BENCH_DIR/workloads/fib.js" "$2"
		"$3") ;;
	map) W=(node --perf-basic-prof "$BENCH_DIR/workloads/manyfuncs.js"
		"$2" "$GROWTH_MAP_SECONDS" "$3") ;;
	idle) W=(sleep "$2") ;;
	esac
}

# growth_keep_map PIDFILE LINK: once node has written its pid to
# PIDFILE, link its map to LINK.  /tmp is shared, and a test elsewhere
# may remove every perf map in it while we record: our link keeps the
# file, which node goes on writing, until the reports are done.
growth_keep_map() {
	local pid i
	for ((i = 0; i < 1200; i++)); do
		pid=$(cat "$1" 2>/dev/null)
		[ -z "$pid" ] || ! ln "/tmp/perf-$pid.map" "$2" 2>/dev/null ||
			return 0
		sleep 0.05
	done
}

# "${TRACED_EXEC[@]}" PIDFILE CMD...: as PID_EXEC (lib.sh), but CMD
# starts only once peak_rss.py has its trace in place (PIDFILE.traced),
# or 30 s on without it
TRACED_EXEC=(bash -c 'echo $$ >"$0" || exit 1
	for ((i = 0; i < 3000; i++)); do
		[ ! -e "$0.traced" ] || break
		sleep 0.01
	done
	exec "$@"')

# growth_side SIDE KIND SIZE: run workload KIND at SIZE under SIDE's
# recorder (opjit: oprofiled, ref: perf record), fill G[SIDE.*]; the
# session or perf.data stays for the reports, the JIT map too
growth_side() {
	local s=$1 t=$TMPD/growth.$1 status name=oprofiled tracer pid hwm
	local keeper=''
	growth_reset "$s" ''
	rm -rf "$t.sess" "$t.data" "$t.data.report" "$t.outer" "$t.inner" \
		"$t.rpid" "$t.rpid.traced" "$t.hwm" "$t.pid" "$t.map"
	growth_cmd "$2" "$3" "$t.pid"
	if [ "$s" = opjit ]; then
		G[$s.why]=$(need_exe "$OPROFILED") || return
	else
		name="perf record"
		G[$s.why]=$PERF_WHY
		[ -z "$PERF_WHY" ] || return
	fi
	python3 "$BENCH_DIR/peak_rss.py" "$t.rpid" "$t.hwm" 2>/dev/null &
	tracer=$!
	case $2 in
	node | map) growth_keep_map "$t.pid" "$t.map" & keeper=$! ;;
	esac
	if [ "$s" = opjit ]; then
		"$RUSAGE" -o "$t.outer" -- "${TRACED_EXEC[@]}" "$t.rpid" \
			"$OPROFILED" --session-dir="$t.sess" \
			--frequency="$GROWTH_HZ" -- \
			"$RUSAGE" -o "$t.inner" -- "${W[@]}" \
			>/dev/null 2>"$t.err"
	else
		"$RUSAGE" -o "$t.outer" -- "${TRACED_EXEC[@]}" "$t.rpid" \
			perf record -q -e cpu-clock -F "$GROWTH_HZ" \
			-o "$t.data" -- \
			"$RUSAGE" -o "$t.inner" -- "${W[@]}" \
			>/dev/null 2>"$t.err"
	fi
	status=$?
	# ours, and done with: it links the map in node's first moments
	[ -z "$keeper" ] || { kill "$keeper" 2>/dev/null; wait "$keeper"; }
	pid=$(cat "$t.pid" 2>/dev/null)
	wait "$tracer"
	if [ "$status" -ne 0 ] || ! ru_read "$t.inner"; then
		G[$s.why]=$(failure "$name" "$status" "$t.err")
		return
	fi
	local wcpu=$RU_CPU
	ru_read "$t.outer"
	G[$s.wall]=$RU_WALL G[$s.cpu]=$(sub "$RU_CPU" "$wcpu")
	case ${G[$s.cpu]} in
	-*) G[$s.cpu]="the recorder did not reap its workload, so the"
		G[$s.cpu]+=" workload's CPU time is not in the recorder's" ;;
	esac
	read -r hwm <"$t.hwm" 2>/dev/null
	case $hwm in
	why:*) G[$s.rss]=${hwm#why: } ;;
	*) G[$s.rss]=${hwm:-"peak_rss.py wrote nothing"} ;;
	esac
	G[$s.mapbytes]=0 G[$s.maplines]=0
	if [ -f "$t.map" ]; then
		G[$s.mapbytes]=$(stat -c %s "$t.map")
		G[$s.maplines]=$(wc -l <"$t.map")
	elif [ -n "$pid" ]; then
		G[$s.mapwhy]="node's /tmp/perf-PID.map was gone before it"
		G[$s.mapwhy]+=" could be kept: something else removed it"
		G[$s.mapwhy]+=" (/tmp is shared)"
	fi
	if [ "$s" = opjit ]; then
		G[$s.bytes]=$(file_bytes "$t.sess")
		G[$s.nomap]=$(sub "${G[$s.bytes]}" \
			"$(file_bytes "$t.sess/maps")")
		read -r G[$s.samples] _ <<<"$(oprofiled_summary "$t.err")"
		[ -n "${G[$s.samples]}" ] ||
			G[$s.samples]="oprofiled printed no summary line"
	else
		G[$s.bytes]=$(stat -c %s "$t.data" 2>/dev/null)
		G[$s.nomap]=${G[$s.bytes]}
		G[$s.samples]=$(growth_perf_samples "$t.data")
		[ -n "${G[$s.samples]}" ] ||
			G[$s.samples]="perf report cannot read the recording"
	fi
}

# growth_cell SECTION FIGURE SIDE VALUE FORMAT: one recorder's cell;
# VALUE is a number, or why there is none.  Succeed when it was a number.
growth_cell() {
	if [ -n "${G[$3.why]}" ]; then
		rec_why "$1" "$2" "$3" "${G[$3.why]}"
		return 1
	fi
	case $4 in
	*[!0-9.]*) rec_why "$1" "$2" "$3" "$4"; return 1 ;;
	esac
	# an empty VALUE is recorded as undefined
	rec_val "$1" "$2" "$3" "$4" "$5"
	[ -n "$4" ]
}

# growth_row SECTION FIGURE FORMAT OPJIT REF: one row of both recorders'
# figures of this run and their ratio
growth_row() {
	local o=$4 r=$5
	growth_cell "$1" "$2" opjit "$o" "$3" || o=''
	growth_cell "$1" "$2" ref "$r" "$3" || r=''
	if [ -z "$o" ] || [ -z "$r" ]; then
		rec_why "$1" "$2" cmp "needs both figures of the run"
		return
	fi
	rec_val "$1" "$2" cmp "$(ratio "$o" "$r")" x
}

# growth_record SECTION LABEL JIT: the recorders' rows of one size
growth_record() {
	local sec=$1 l=$2 jit=$3
	growth_row "$sec" "$l: $G_WALL" s "${G[opjit.wall]}" "${G[ref.wall]}"
	growth_row "$sec" "$l: $G_SAMPLES" n "${G[opjit.samples]}" \
		"${G[ref.samples]}"
	growth_row "$sec" "$l: $G_CPU" cpu "${G[opjit.cpu]}" "${G[ref.cpu]}"
	growth_row "$sec" "$l: $G_RSS" KB "${G[opjit.rss]}" "${G[ref.rss]}"
	if [ -z "$jit" ]; then
		growth_row "$sec" "$l: $G_BYTES" B "${G[opjit.bytes]}" \
			"${G[ref.bytes]}"
		return
	fi
	growth_row "$sec" "$l: $G_NOMAP" B "${G[opjit.nomap]}" \
		"${G[ref.bytes]}"
	growth_row "$sec" "$l: $G_WITHMAP" B \
		"${G[opjit.mapwhy]:-${G[opjit.bytes]}}" "${G[ref.bytes]}"
	local self
	self=$(add "${G[ref.bytes]}" "${G[ref.mapbytes]}")
	growth_row "$sec" "$l: $G_SELF" B \
		"${G[opjit.mapwhy]:-${G[opjit.bytes]}}" \
		"${G[ref.mapwhy]:-$self}"
	# each recorder's run wrote its own map; they should be alike
	growth_row "$sec" "$l: $G_MAPLINES" n \
		"${G[opjit.mapwhy]:-${G[opjit.maplines]}}" \
		"${G[ref.mapwhy]:-${G[ref.maplines]}}"
}

# growth_map_back SIDE: put back in /tmp the JIT map of SIDE's run if
# something removed it after the recording, from our second link
growth_map_back() {
	local t=$TMPD/growth.$1 pid
	pid=$(cat "$t.pid" 2>/dev/null) || return 0
	[ -f "$t.map" ] && [ ! -e "/tmp/perf-$pid.map" ] || return 0
	ln "$t.map" "/tmp/perf-$pid.map" 2>/dev/null
}

# growth_size SECTION LABEL WHY KIND SIZE: record workload KIND at SIZE
# with both recorders, in an order that alternates from one size (or run
# of it) to the next, then time both pairs of reports on those
# recordings; WHY, when set, is why none of it can run
growth_size() {
	local sec=$1 l=$2 why=$3 kind=$4 size=$5 side owhy pwhy jit=''
	local turn=$G_TURN
	local o=$TMPD/growth.opjit r=$TMPD/growth.ref SPEED=$1
	# perf's source lines of JIT code cost it tens of ms an address
	local SPEED_TIMEOUT=$GROWTH_REPORT_TIMEOUT
	local SPEED_REF_TIMEOUT=$GROWTH_REF_REPORT_TIMEOUT
	local -a order=(opjit ref) handler=()
	case $kind in
	node | map) jit=1 handler=(--anon-handler=perfmap) ;;
	esac
	G_TURN=$((G_TURN + 1))
	[ $((turn % 2)) = 0 ] || order=(ref opjit)
	if [ -n "$why" ]; then
		growth_reset opjit "$why"
		growth_reset ref "$why"
	else
		for side in "${order[@]}"; do
			growth_side "$side" "$kind" "$size"
		done
	fi
	growth_record "$sec" "$l" "$jit"
	# a report of JIT code without its map would not do the same work
	owhy=${G[opjit.why]:-${G[opjit.mapwhy]}}
	pwhy=${G[ref.why]:-${G[ref.mapwhy]}}
	growth_map_back opjit
	growth_map_back ref
	# speed_pair records into $SPEED, here this section's
	speed_pair "$turn" "$l: $G_FULL" "$owhy" "$pwhy" \
		--session-dir="$o.sess" -l -g -d "${handler[@]}" -- \
		report -i "$r.data" --stdio --sort sym,srcline
	speed_pair "$turn" "$l: $G_FLAT" "$owhy" "$pwhy" \
		--session-dir="$o.sess" -l "${handler[@]}" -- \
		report -i "$r.data" --stdio
	map_cleanup "$o.pid"
	map_cleanup "$r.pid"
	rm -rf "$o.sess" "$o.map" "$r.data" "$r.data.report" "$r.map"
}

# growth_calibrate: set G_SPIN_RATE (iterations) and G_NODE_RATE (fib.js
# rounds) per second of the workload's CPU time, or G_NODE_WHY; and
# G_MAP_WHY.  CPU time, not wall time, since cpu-clock samples count it:
# a busy machine makes a run longer but gives it no more samples.
growth_calibrate() {
	local fib=$BENCH_DIR/workloads/fib.js n=500000000 cpu
	G_SPIN_RATE='' G_NODE_RATE='' G_NODE_WHY='' G_MAP_WHY=''
	[ "$SMOKE" = 0 ] || n=50000000
	"$RUSAGE" -o "$TMPD/gcal" -- "$SPIN" "$n" >/dev/null 2>&1 &&
		ru_read "$TMPD/gcal" && G_SPIN_RATE=$(ratio "$n" "$RU_CPU")
	[ -n "$G_SPIN_RATE" ] || die "the C workload $SPIN does not run"
	if ! command -v node >/dev/null; then
		G_NODE_WHY="node is not installed" G_MAP_WHY=$G_NODE_WHY
		return
	fi
	# two sizes, so that node's start-up, a good part of a small run,
	# drops out of the rate
	n=400
	[ "$SMOKE" = 0 ] || n=100
	if "$RUSAGE" -o "$TMPD/gcal" -- node "$fib" 20 >/dev/null \
		2>"$TMPD/gcal.err" && ru_read "$TMPD/gcal"; then
		cpu=$RU_CPU
		"$RUSAGE" -o "$TMPD/gcal" -- node "$fib" "$n" >/dev/null \
			2>"$TMPD/gcal.err" && ru_read "$TMPD/gcal" &&
			G_NODE_RATE=$(ratio $((n - 20)) \
				"$(sub "$RU_CPU" "$cpu")")
		# a difference lost in start-up's noise (smoke's small
		# sizes, a busy machine) would size a run at minutes: then
		# the whole run's rate, start-up included, which errs short
		if [ -n "$G_NODE_RATE" ] && awk -v d="$(sub "$RU_CPU" "$cpu")" \
			-v t="$RU_CPU" 'BEGIN { exit !(d < 0.2 * t) }'; then
			G_NODE_RATE=$(ratio "$n" "$RU_CPU")
		fi
	fi
	case $G_NODE_RATE in -*) G_NODE_RATE='' ;; esac
	if [ -z "$G_NODE_RATE" ]; then
		G_NODE_WHY="node fails on fib.js, or gives it no rate:"
		G_NODE_WHY+=" $(first_error "$TMPD/gcal.err")"
	fi
}

# count_for RATE SECONDS: the whole units that take about SECONDS
count_for() {
	# %.0f: mawk prints a large count as 8.4e+10 with print or %d
	awk -v r="$1" -v s="$2" \
		'BEGIN { n = int(r * s); printf "%.0f\n", n < 1 ? 1 : n }'
}

# growth_reorder FILE: append FILE's records to $RAW, each figure's
# sizes together (stats.py keeps rows in the order they first come, and
# they come a size at a time), so that a table reads as curves
growth_reorder() {
	awk -F '\t' '
	!($2 in sec) { sec[$2] = ++nsec }
	{
		key = 0
		if ($1 != "s") {
			m = $3
			sub(/^[^:]*: /, "", m)
			if (!(($2, m) in fig))
				fig[$2, m] = ++nfig[$2]
			key = fig[$2, m]
		}
		printf "%d\t%d\t%s\n", sec[$2], key, $0
	}' "$1" | sort -s -t "$(printf '\t')" -k1,1n -k2,2n | cut -f3- >>"$RAW"
}

# growth_measure: every size of every workload; the records go to
# $TMPD/growth.raw, for growth_reorder, through a RAW of our own (the
# rec_ functions write to whichever RAW is in scope)
growth_measure() {
	local secs n rep l hz RAW=$TMPD/growth.raw perf_limit=''
	[ "$GROWTH_REF_REPORT_TIMEOUT" = "$GROWTH_REPORT_TIMEOUT" ] ||
		perf_limit=" (perf's: $GROWTH_REF_REPORT_TIMEOUT s)"
	hz=$(khz "$GROWTH_HZ")
	: >"$RAW"
	rec_section "$GROWTH_C" "Each size recorded $GROWTH_RUNS time(s) by" \
"\`oprofiled --frequency=HZ\` and by \`perf record -e cpu-clock -F HZ\`" \
"at $hz, each starting its own run of the workload, which goes first" \
"alternating from one size to the next. The recorder's CPU time" \
"leaves out the workload's, as in the recording cost; its peak RSS" \
"is its own VmHWM as it exits (tests/bench/peak_rss.py), not the" \
"workload's. C is" \
"tests/bench/workloads/spin.c, sized by its CPU time alone. Both pairs" \
"of reports run on those recordings; \`opreport -l -g -d\` (source" \
"lines and instructions) does the work of" \
"\`perf report --sort sym,srcline\`. \"opjit vs reference\" is a" \
"ratio: below 1 means opjit is faster or smaller. A report still" \
"running after $GROWTH_REPORT_TIMEOUT s$perf_limit is stopped, and its" \
"cell says so. Bytes are the sizes of the session's files (not its" \
"directories) and of perf.data; perf's leave out its build-id cache in" \
"~/.debug, written once per binary."
	rec_section "$GROWTH_NODE" "node --perf-basic-prof fib.js (one hot" \
"JS function), sized so that each recorder should take about the" \
"number of samples named at $hz, by the CPU time of a run alone; the" \
"samples each took are a row of their own. opreport names JIT code" \
"with \`--anon-handler=perfmap\` in both pairs, perf from the same" \
"kind of map in /tmp. opjit's session archives node's map; perf" \
"needs /tmp/perf-PID.map at report time, so that row adds it to" \
"perf.data. Recorded and reported as above."
	rec_section "$GROWTH_MAP" "node --perf-basic-prof" \
"tests/bench/workloads/manyfuncs.js: that many distinct JS functions," \
"each called in turn for $GROWTH_MAP_SECONDS s of work, so that" \
"node's map holds about two lines for each and samples land all over" \
"it. Recorded and reported as above, with the perfmap handler."
	rec_section "$GROWTH_IDLE" "\`sleep\` for each length: what a" \
"recorder costs while its workload does nothing. Recorded and reported" \
"as above."
	for secs in "${GROWTH_C_SECONDS[@]}"; do
		l="C $secs s"
		n=$(count_for "$G_SPIN_RATE" "$secs")
		for ((rep = 0; rep < GROWTH_RUNS; rep++)); do
			growth_size "$GROWTH_C" "$l" "" C "$n"
		done
	done
	for n in "${GROWTH_NODE_SAMPLES[@]}"; do
		secs=$(awk -v n="$n" -v f="$GROWTH_HZ" \
			'BEGIN { printf "%g", n / f }')
		l="node $(size_name "$n") samples ($secs s)"
		[ -z "$G_NODE_RATE" ] ||
			n=$(count_for "$G_NODE_RATE" "$secs")
		for ((rep = 0; rep < GROWTH_RUNS; rep++)); do
			growth_size "$GROWTH_NODE" "$l" "$G_NODE_WHY" node \
				"$n"
		done
	done
	for n in "${GROWTH_MAP_FUNCTIONS[@]}"; do
		l="node $(size_name "$n") functions"
		for ((rep = 0; rep < GROWTH_RUNS; rep++)); do
			growth_size "$GROWTH_MAP" "$l" "$G_MAP_WHY" map \
				"$n"
		done
	done
	for secs in "${GROWTH_IDLE_SECONDS[@]}"; do
		for ((rep = 0; rep < GROWTH_RUNS; rep++)); do
			growth_size "$GROWTH_IDLE" "idle $secs s" "" idle \
				"$secs"
		done
	done
}

bench_growth() {
	growth_calibrate
	growth_measure
	growth_reorder "$TMPD/growth.raw"
}
