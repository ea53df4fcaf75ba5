# SPDX-License-Identifier: GPL-3.0-or-later
# Complete stacks beside perf (section `stacks`).  Sourced by run.sh.
#
# 1. The share of the hot work's samples whose whole stack is right (the
#    true caller chain from the program's entry: stacks.py says what that
#    is for each workload), on tests/workloads/frameless (C, -O2, no frame
#    pointers, the time in glibc's memcpy), tests/opreport's
#    native_leaf.js (node, a JS function whose time is in memcpy) and
#    tests/javamap's Deep (HotSpot with -XX:+PreserveFramePointer,
#    interpreted callers above a compiled leaf; opjit with the javamap
#    agent, perf with the map HotSpot writes at exit):
#    `oprofiled -g` against `perf record -g`, and `oprofiled
#    --callgraph=dwarf` against `perf record --call-graph=dwarf`.  Also
#    path A's share of the complete stacks against the workload's own
#    clock, and each recorder's own CPU time.
# 2. Recording bench_copies (frameless's call tree doing a fixed amount
#    of work) with `-g`, `--callgraph=fp` and `--callgraph=dwarf` against
#    `perf record --call-graph=dwarf`: bytes on disk, the recorder's own
#    CPU time (bench_rusage around the recorder minus bench_rusage around
#    its workload, the kernel's accounting), the workload's slowdown,
#    lost samples.
# 3. On the dwarf recordings of 1: `opreport -c` against `perf report -g
#    --stdio`, `opreport --format=folded` against `perf script`.
# Each comparison is made in STACKS_PAIRS interleaved pairs (which side
# goes first alternates); the cmp column is the per-pair ratio (or
# difference in points), summed up by stats.py as median and range.
# The issue's goals get a row each that says met or MISSED.
# STACKS_WORKLOADS (environment) narrows what runs, e.g. "jvm": a list of
# frameless, node, jvm and copies (the cost of 2), all by default.

STACKS="Complete stacks beside perf"
# perf script resolves inline frames with addr2line, which on node's
# 100 MB binary runs for many minutes; the folding for the shares asks
# for none (--no-inline), the timed `perf script` is the default one,
# stopped after STACKS_TIMEOUT seconds
STACKS_NOINLINE=--no-inline

# stk_record MODE OUT CMD...: record CMD with MODE into OUT.sess (opjit)
# or OUT.data (perf), through bench_rusage: OUT.outer around the
# recorder, OUT.inner around CMD; stdout to OUT.out, stderr to OUT.err.
# MODE: og oprofiled -g, of --callgraph=fp, od --callgraph=dwarf,
# pg perf record -g, pd perf record --call-graph=dwarf.  A perf crash
# (perf 6.1's build-id step on a shared machine) is tried again twice.
stk_record() {
	local mode=$1 out=$2 try status
	local -a rec
	shift 2
	rm -rf "$out.sess" "$out.data" "$out.outer" "$out.inner"
	case $mode in
	og) rec=("$OPROFILED" -g) ;;
	of) rec=("$OPROFILED" --callgraph=fp) ;;
	od) rec=("$OPROFILED" --callgraph=dwarf) ;;
	pg) rec=(perf record -q -e cpu-clock -g) ;;
	pd) rec=(perf record -q -e cpu-clock --call-graph=dwarf) ;;
	esac
	case $mode in
	o?) rec+=(--session-dir="$out.sess" --frequency="$STACKS_HZ") ;;
	*) rec+=(-F "$STACKS_HZ" -o "$out.data") ;;
	esac
	for try in 1 2 3; do
		"$RUSAGE" -o "$out.outer" -- "${rec[@]}" -- \
			"$RUSAGE" -o "$out.inner" -- "$@" \
			>"$out.out" 2>"$out.err"
		status=$?
		case $mode in p?) ;; *) break ;; esac
		[ "$status" -gt 128 ] && [ "$status" -lt 160 ] || break
		echo "$(first_error "$out.err")" >>"$TMPD/perf-crashes"
		rm -rf "$out.data"
		# the crashed run's JIT map, which the next run's pid will
		# not name
		map_cleanup "$out.pid"
	done
	return "$status"
}

stk_mode_name() {
	case $1 in
	og) echo "oprofiled -g" ;;
	of) echo "oprofiled --callgraph=fp" ;;
	od) echo "oprofiled --callgraph=dwarf" ;;
	pg) echo "perf record -g" ;;
	pd) echo "perf record --call-graph=dwarf" ;;
	esac
}

# stk_why MODE: why MODE cannot run here, or nothing
stk_why() {
	case $1 in
	o?) need_exe "$OPROFILED" ;;
	*) echo "$PERF_WHY" ;;
	esac
}

# Deep's callers stay interpreted (excluded from compilation) and out of
# line, as in tests/javamap's e2e_javamap_interp_callgraph
STACKS_JVM_OPTS=(-XX:+PreserveFramePointer -XX:CompileCommand=quiet
	"-XX:CompileCommand=exclude,Deep::left"
	"-XX:CompileCommand=exclude,Deep::right"
	"-XX:CompileCommand=dontinline,Deep::*")

# stk_workload W PIDFILE [SIDE]: set SW to workload W's command line
# (for SIDE, opjit or ref: the JVM's way of naming its code differs), or
# SW_WHY to why it cannot run
stk_workload() {
	SW=() SW_WHY=''
	case $1 in
	frameless)
		SW_WHY=$(need_exe "$BUILD/tests/workloads/frameless") &&
			SW=("$BUILD/tests/workloads/frameless" "$STACKS_SECONDS")
		;;
	node)
		if ! command -v node >/dev/null; then
			SW_WHY="node is not installed"
			return
		fi
		SW=("${PID_EXEC[@]}" "$2" node --perf-basic-prof
			--interpreted-frames-native-stack --no-turbo-inlining
			"$SRC/tests/opreport/native_leaf.js" "$STACKS_SECONDS")
		;;
	jvm)
		SW_WHY=$STACKS_DEEP_WHY
		[ -z "$SW_WHY" ] || return
		SW=("${PID_EXEC[@]}" "$2" java "${STACKS_JVM_OPTS[@]}")
		if [ "${3:-}" = ref ]; then
			SW+=(-XX:+UnlockDiagnosticVMOptions
				-XX:+DumpPerfMapAtExit)
		elif [ -f "$AGENT" ]; then
			SW+=("-agentpath:$AGENT")
		else
			SW=() SW_WHY="not built: ${AGENT#"$BUILD"/}"
			return
		fi
		SW+=(-cp "$STACKS_DEEP_CLASSES" Deep "$STACKS_SECONDS")
		;;
	copies)
		SW_WHY=$(need_exe "$STACKS_COPIES") &&
			SW=("$STACKS_COPIES" "$STACKS_ROUNDS")
		;;
	esac
}

# stk_handler W: opreport's handler option for workload W's JIT code
stk_handler() {
	case $1 in
	node) echo --anon-handler=perfmap ;;
	jvm) echo --anon-handler=javamap ;;
	esac
}

# stk_fold MODE W OUT: "CORRECT TOTAL A B" of recording OUT (stacks.py)
stk_fold() {
	local mode=$1 w=$2 out=$3
	local -a h=()
	read -ra h <<<"$(stk_handler "$w")"
	case $mode in
	o?)
		"$OPREPORT" --session-dir="$out.sess" --format=folded \
			"${h[@]}" >"$out.folded" 2>"$out.ferr" || return 1
		python3 "$BENCH_DIR/stacks.py" opjit "$w" "$out.folded"
		;;
	*)
		perf script $STACKS_NOINLINE -i "$out.data" \
			-F comm,ip,sym,dso >"$out.script" 2>"$out.ferr" ||
			return 1
		python3 "$BENCH_DIR/stacks.py" perf "$w" "$out.script"
		;;
	esac
}

# stk_truth W OUT: path A's share (%) of the workload's own CPU time in
# its two paths, from what it printed (Deep: "deep left_ns=L right_ns=R")
stk_truth() {
	awk '$1 == "path_a" || $1 == "a" { a = $2 }
		$1 == "path_b" || $1 == "b" { b = $2 }
		$1 == "deep" {
			for (i = 2; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] == "left_ns") a = kv[2]
				if (kv[1] == "right_ns") b = kv[2]
			}
		}
		END { if (a + b > 0) printf "%.6f", 100 * a / (a + b) }' "$2.out"
}

# stk_time FIGURE COLUMN OUTVAR NAME CMD...: time CMD (wall and CPU,
# bench_rusage) under STACKS_TIMEOUT; the wall time goes to OUTVAR and
# the CPU time (its children's too) to OUTVAR_cpu, or the reason to the
# cells of FIGURE and of its CPU figure (FIGURE with ", CPU time" for
# ", wall time")
stk_time() {
	local fig=$1 col=$2 var=$3 name=$4 status fig_cpu
	shift 4
	fig_cpu="${fig%, wall time}, CPU time"
	printf -v "$var" '%s' ''
	printf -v "${var}_cpu" '%s' ''
	"$RUSAGE" -o "$TMPD/stk.time" -- timeout "$STACKS_TIMEOUT" "$@" \
		>/dev/null 2>"$TMPD/stk.time.err"
	status=$?
	if ! ru_read "$TMPD/stk.time"; then
		rec_why "$STACKS" "$fig" "$col" "bench_rusage failed"
		rec_why "$STACKS" "$fig_cpu" "$col" "bench_rusage failed"
		return
	fi
	if [ "$RU_STATUS" = 124 ]; then
		rec_why "$STACKS" "$fig" "$col" "$name did not finish" \
			"within $STACKS_TIMEOUT s"
		rec_why "$STACKS" "$fig_cpu" "$col" "$name did not finish" \
			"within $STACKS_TIMEOUT s (${RU_CPU} s CPU by then)"
		printf -v "$var" '>%s' "$STACKS_TIMEOUT"
		printf -v "${var}_cpu" '>%s' "$RU_CPU"
		return
	fi
	if [ "$status" -ne 0 ] || [ "$RU_STATUS" != 0 ]; then
		rec_why "$STACKS" "$fig" "$col" \
			"$(failure "$name" "$RU_STATUS" "$TMPD/stk.time.err")"
		rec_why "$STACKS" "$fig_cpu" "$col" "failed (see above)"
		return
	fi
	printf -v "$var" '%s' "$RU_WALL"
	printf -v "${var}_cpu" '%s' "$RU_CPU"
	rec_val "$STACKS" "$fig" "$col" "$RU_WALL" s
	rec_val "$STACKS" "$fig_cpu" "$col" "$RU_CPU" cpu
}

# stk_speed W OUT-OPJIT OUT-PERF REP: the report times on one pair of
# dwarf recordings
stk_speed() {
	local w=$1 o=$2 p=$3 rep=$4 f f1 f2 ow pw ow_cpu pw_cpu side key fc
	local -a h=()
	read -ra h <<<"$(stk_handler "$w")"
	f1="$w, dwarf recordings: \`opreport -c\` vs \`perf report -g"
	f1+=" --stdio\`, wall time"
	f2="$w, dwarf recordings: \`opreport --format=folded\` vs"
	f2+=" \`perf script\`, wall time"
	for f in "$f1" "$f2"; do
		ow='' pw='' ow_cpu='' pw_cpu=''
		key=$([ "$f" = "$f1" ] && echo c || echo folded)
		fc="${f%, wall time}, CPU time"
		for side in opjit perf; do
			[ $((rep % 2)) = 0 ] || side=$([ "$side" = opjit ] &&
				echo perf || echo opjit)
			if [ "$side" = opjit ] && [ ! -d "$o.sess" ]; then
				rec_why "$STACKS" "$f" opjit "no recording (see above)"
			elif [ "$side" = opjit ] && [ "$f" = "$f1" ]; then
				stk_time "$f" opjit ow "opreport -c" \
					"$OPREPORT" --session-dir="$o.sess" -c \
					"${h[@]}"
			elif [ "$side" = opjit ]; then
				stk_time "$f" opjit ow "opreport --format=folded" \
					"$OPREPORT" --session-dir="$o.sess" \
					--format=folded "${h[@]}"
			elif [ ! -f "$p.data" ]; then
				rec_why "$STACKS" "$f" ref "no recording (see above)"
			elif [ "$f" = "$f1" ]; then
				stk_time "$f" ref pw "perf report" perf report \
					-i "$p.data" -g --stdio
			else
				stk_time "$f" ref pw "perf script" perf script \
					-i "$p.data"
			fi
		done
		if [ -z "$ow" ] || [ -z "$pw" ]; then
			rec_why "$STACKS" "$f" cmp "needs both figures of the run"
		elif [ "${pw#>}" != "$pw" ]; then
			# perf stopped at the limit: the ratio is a bound
			rec_note "$STACKS" "$f" cmp "under" \
				"$(ratio "$ow" "${pw#>}")x (perf stopped)"
			ratio "$ow" "${pw#>}" >>"$TMPD/stk.goal.speed.$w.$key"
			echo >>"$TMPD/stk.goal.speed.$w.$key"
		else
			rec_val "$STACKS" "$f" cmp "$(ratio "$ow" "$pw")" x
			ratio "$ow" "$pw" >>"$TMPD/stk.goal.speed.$w.$key"
			echo >>"$TMPD/stk.goal.speed.$w.$key"
		fi
		# CPU, steadier than wall time on a shared machine.  Of perf
		# stopped at the limit, the CPU it took by then is no bound:
		# on node's recordings it had taken 1.5 s in 60 s, waiting on
		# helpers that the stop leaves unreaped, so unaccounted
		if [ -z "$ow_cpu" ] || [ -z "$pw_cpu" ] ||
			[ "${ow_cpu#>}" != "$ow_cpu" ]; then
			rec_why "$STACKS" "$fc" cmp "needs both figures of the run"
		elif [ "${pw_cpu#>}" != "$pw_cpu" ]; then
			rec_why "$STACKS" "$fc" cmp "perf stopped at the limit:" \
				"its CPU time is not known"
		else
			rec_val "$STACKS" "$fc" cmp "$(ratio "$ow_cpu" "$pw_cpu")" x
			ratio "$ow_cpu" "$pw_cpu" \
				>>"$TMPD/stk.goal.speed.$w.$key.cpu"
			echo >>"$TMPD/stk.goal.speed.$w.$key.cpu"
		fi
	done
}

# stk_share_pair W KIND REP: one pair of recordings of workload W, opjit
# and perf (KIND g: -g both; d: dwarf both), and their shares
stk_share_pair() {
	local w=$1 kind=$2 rep=$3 side mode out why r c t a b truth
	local fig fig_err fig_bytes fig_cpu wcpu
	local -A share=() err=() bytes=() cpu=()
	local -a order=(opjit ref)
	[ $((rep % 2)) = 0 ] || order=(ref opjit)
	if [ "$kind" = g ]; then
		fig="$w: complete stacks, \`oprofiled -g\` vs \`perf record -g\`"
	else
		fig="$w: complete stacks, \`oprofiled --callgraph=dwarf\` vs"
		fig+=" \`perf record --call-graph=dwarf\`"
	fi
	fig_err="$w: path A's share of the complete stacks minus the"
	fig_err+=" workload's clock, ${fig#*complete stacks, }"
	# the same recordings' size: a workload less regular than
	# bench_copies, whose identical stacks are the best case for
	# deduplicated copies
	fig_bytes="$w: bytes on disk, ${fig#*complete stacks, }"
	# bench_rusage around the recorder minus bench_rusage around the
	# workload, as for bench_copies below
	fig_cpu="$w: recorder's own CPU time, ${fig#*complete stacks, }"
	for side in "${order[@]}"; do
		mode=$([ "$side" = opjit ] && echo o || echo p)$kind
		out=$TMPD/stk.$w.$mode
		why=$(stk_why "$mode")
		[ -n "$why" ] ||
			{ stk_workload "$w" "$out.pid" "$side"; why=$SW_WHY; }
		if [ -z "$why" ] && ! stk_record "$mode" "$out" "${SW[@]}"; then
			why=$(failure "$(stk_mode_name "$mode")" $? "$out.err")
		fi
		if [ -z "$why" ] && ! r=$(stk_fold "$mode" "$w" "$out"); then
			why="the report of the recording failed:"
			why+=" $(first_error "$out.ferr")"
		fi
		if [ -n "$why" ]; then
			rec_why "$STACKS" "$fig" "$side" "$why"
			rec_why "$STACKS" "$fig_err" "$side" "$why"
			rec_why "$STACKS" "$fig_bytes" "$side" "$why"
			rec_why "$STACKS" "$fig_cpu" "$side" "$why"
			continue
		fi
		if [ "$side" = opjit ]; then
			bytes[$side]=$(file_bytes "$out.sess")
		else
			bytes[$side]=$(stat -c %s "$out.data" 2>/dev/null)
		fi
		rec_val "$STACKS" "$fig_bytes" "$side" "${bytes[$side]}" B
		if ru_read "$out.inner" && wcpu=$RU_CPU &&
			ru_read "$out.outer"; then
			cpu[$side]=$(sub "$RU_CPU" "$wcpu")
			rec_val "$STACKS" "$fig_cpu" "$side" "${cpu[$side]}" cpu
		else
			rec_why "$STACKS" "$fig_cpu" "$side" "bench_rusage failed"
		fi
		read -r c t a b <<<"$r"
		# the first pair's stacks, to see what was judged
		if [ "$rep" = 0 ] && [ -n "${LOGDIR:-}" ]; then
			head -c 4M "$out.folded" "$out.script" 2>/dev/null \
				>"$LOGDIR/stacks.$w.$mode.txt"
		fi
		truth=$(stk_truth "$w" "$out")
		if ! is_count "$t" || [ "$t" -lt 100 ]; then
			rec_why "$STACKS" "$fig" "$side" "only ${t:-no}" \
				"samples of the hot work: the workload did not run"
			rec_why "$STACKS" "$fig_err" "$side" "no samples"
			continue
		fi
		share[$side]=$(pct "$c" "$t")
		rec_val "$STACKS" "$fig" "$side" "${share[$side]}" pct
		if [ "$c" -lt 100 ]; then
			# a result, not a failure: nothing to share out
			rec_note "$STACKS" "$fig_err" "$side" "only $c complete" \
				"stacks, too few for a share"
		elif [ -z "$truth" ]; then
			rec_why "$STACKS" "$fig_err" "$side" "the workload" \
				"printed no CPU times: $(first_error "$out.err")"
		else
			err[$side]=$(sub "$(pct "$a" "$((a + b))")" "$truth")
			rec_val "$STACKS" "$fig_err" "$side" "${err[$side]}" pt
		fi
	done
	if [ -n "${share[opjit]:-}" ] && [ -n "${share[ref]:-}" ]; then
		rec_val "$STACKS" "$fig" cmp \
			"$(sub "${share[opjit]}" "${share[ref]}")" pt
	else
		rec_why "$STACKS" "$fig" cmp "needs both figures of the run"
	fi
	rec_note "$STACKS" "$fig_err" cmp "-"
	if [ -n "${bytes[opjit]:-}" ] && [ -n "${bytes[ref]:-}" ]; then
		rec_val "$STACKS" "$fig_bytes" cmp \
			"$(ratio "${bytes[opjit]}" "${bytes[ref]}")" x
	else
		rec_why "$STACKS" "$fig_bytes" cmp "needs both figures of the run"
	fi
	if [ -n "${cpu[opjit]:-}" ] && [ -n "${cpu[ref]:-}" ]; then
		rec_val "$STACKS" "$fig_cpu" cmp \
			"$(ratio "${cpu[opjit]}" "${cpu[ref]}")" x
	else
		rec_why "$STACKS" "$fig_cpu" cmp "needs both figures of the run"
	fi
	# the dwarf pair's report times, then the recordings go (perf's
	# dwarf data is tens of MB)
	[ "$kind" != d ] ||
		stk_speed "$w" "$TMPD/stk.$w.od" "$TMPD/stk.$w.pd" "$rep"
	for mode in o$kind p$kind; do
		map_cleanup "$TMPD/stk.$w.$mode.pid"
		rm -rf "$TMPD/stk.$w.$mode".{sess,data,folded,script}
	done
}

# stk_cost_one MODE: one run of bench_copies under MODE (or alone):
# sets SC[MODE.wall wcpu cpu bytes samples lost why]
declare -A SC
stk_cost_one() {
	local mode=$1 out=$TMPD/stk.cost.$1 f status
	for f in wall wcpu cpu bytes samples lost why; do SC[$mode.$f]=''; done
	stk_workload copies
	if [ -n "$SW_WHY" ]; then
		SC[$mode.why]=$SW_WHY
		return
	fi
	if [ "$mode" = alone ]; then
		if "$RUSAGE" -o "$out.inner" -- "${SW[@]}" >/dev/null \
			2>"$out.err" && ru_read "$out.inner"; then
			SC[$mode.wall]=$RU_WALL SC[$mode.wcpu]=$RU_CPU
		else
			SC[$mode.why]="bench_copies fails alone:"
			SC[$mode.why]+=" $(first_error "$out.err")"
		fi
		return
	fi
	SC[$mode.why]=$(stk_why "$mode")
	[ -z "${SC[$mode.why]}" ] || return
	stk_record "$mode" "$out" "${SW[@]}"
	status=$?
	if [ "$status" -ne 0 ] || ! ru_read "$out.inner"; then
		SC[$mode.why]=$(failure "$(stk_mode_name "$mode")" "$status" \
			"$out.err")
		return
	fi
	SC[$mode.wall]=$RU_WALL SC[$mode.wcpu]=$RU_CPU
	ru_read "$out.outer" && SC[$mode.cpu]=$(sub "$RU_CPU" "${SC[$mode.wcpu]}")
	case $mode in
	o?)
		SC[$mode.bytes]=$(file_bytes "$out.sess")
		read -r SC[$mode.samples] SC[$mode.lost] \
			<<<"$(oprofiled_summary "$out.err")"
		;;
	*)
		SC[$mode.bytes]=$(stat -c %s "$out.data" 2>/dev/null)
		perf report -i "$out.data" --stdio -n --sort comm -g none \
			--no-children >"$out.report" 2>/dev/null
		SC[$mode.lost]=$(sed -n \
			's/^# Total Lost Samples: \([0-9]*\).*/\1/p' "$out.report")
		SC[$mode.samples]=$(awk '$1 ~ /%$/ && $2 ~ /^[0-9]+$/ \
			{ n += $2 } END { if (NR) print n }' "$out.report")
		;;
	esac
	rm -rf "$out.sess" "$out.data"
}

# stk_cost_cmp FIGURE A B FIELD FORMAT-OF-VALUES: one row, mode A in the
# opjit column against mode B in the reference column, cmp their ratio
stk_cost_cmp() {
	local fig=$1 a=$2 b=$3 field=$4 fmt=$5 va vb m
	v_opjit='' v_ref=''
	for m in "$a" "$b"; do
		local col=opjit
		[ "$m" = "$a" ] || col=ref
		if [ -n "${SC[$m.why]}" ]; then
			rec_why "$STACKS" "$fig" "$col" "${SC[$m.why]}"
			continue
		fi
		case $field in
		slowdown) va=$(ratio "${SC[$m.wall]}" "${SC[alone.wall]}") ;;
		lost) is_count "${SC[$m.lost]}" && is_count "${SC[$m.samples]}" &&
			va=$(pct "${SC[$m.lost]}" \
				"$(add "${SC[$m.samples]}" "${SC[$m.lost]}")") ||
			va='' ;;
		*) va=${SC[$m.$field]} ;;
		esac
		rec_val "$STACKS" "$fig" "$col" "$va" "$fmt"
		printf -v "v_$col" '%s' "$va"
	done
	if [ -n "${SC[$a.why]}${SC[$b.why]}" ]; then
		rec_why "$STACKS" "$fig" cmp "needs both figures of the run"
	elif [ "$field" = lost ]; then
		rec_val "$STACKS" "$fig" cmp "$(sub "$v_opjit" "$v_ref")" pt
	else
		vb=$(ratio "$v_opjit" "$v_ref")
		rec_val "$STACKS" "$fig" cmp "$vb" x
		echo "$vb" >>"$TMPD/stk.goal.cost.$a.$b.$field"
	fi
}

stk_cost_pair() {
	local rep=$1 mode k="bench_copies @ $(khz "$STACKS_HZ")"
	local -a order=(alone og of od pd)
	order=("${order[@]:rep % 5}" "${order[@]:0:rep % 5}")
	for mode in "${order[@]}"; do stk_cost_one "$mode"; done
	local g='`-g`' f='`--callgraph=fp`' d='`--callgraph=dwarf`'
	local p='`perf record --call-graph=dwarf`'
	stk_cost_cmp "$k: bytes on disk, $g vs $f" og of bytes B
	stk_cost_cmp "$k: bytes on disk, $d vs $p" od pd bytes B
	stk_cost_cmp "$k: bytes on disk, $g vs $p" og pd bytes B
	stk_cost_cmp "$k: recorder's own CPU time, $d vs $p" od pd cpu cpu
	stk_cost_cmp "$k: recorder's own CPU time, $g vs $p" og pd cpu cpu
	stk_cost_cmp "$k: slowdown of the workload (wall), $d vs $p" \
		od pd slowdown x
	stk_cost_cmp "$k: slowdown of the workload (wall), $g vs $p" \
		og pd slowdown x
	stk_cost_cmp "$k: samples recorded, $d vs $p" od pd samples n
	stk_cost_cmp "$k: lost samples (% of samples), $d vs $p" od pd lost pct
	stk_cost_cmp "$k: lost samples (% of samples), $g vs $p" og pd lost pct
}

# stk_goal FIGURE FILE LIMIT: a row saying whether the median of the
# ratios in FILE is at most LIMIT
stk_goal() {
	local fig=$1 file=$2 limit=$3 med verdict
	med=''
	if [ -s "$file" ]; then
		# mawk takes no line break inside ?:
		med=$(awk 'NF { print $1 }' "$file" | sort -g | awk '
			{ v[NR] = $1 }
			END {
				if (!NR) exit
				m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				printf "%.3f", m
			}')
	fi
	if [ -z "$med" ]; then
		rec_why "$STACKS" "goal: $fig" opjit "needs the figures above," \
			"which were not measured"
	elif awk -v m="$med" -v l="$limit" 'BEGIN { exit !(m <= l) }'; then
		rec_note "$STACKS" "goal: $fig" opjit \
			"met: ${med}x (median), goal at most ${limit}x"
	else
		verdict="MISSED: ${med}x (median), goal at most ${limit}x"
		echo "run.sh: stacks: goal missed: $fig: $verdict" >&2
		rec_note "$STACKS" "goal: $fig" opjit "$verdict"
	fi
	rec_note "$STACKS" "goal: $fig" ref "-"
	rec_note "$STACKS" "goal: $fig" cmp "-"
}

# stk_calibrate: bench_copies rounds for about STACKS_SECONDS alone
stk_calibrate() {
	STACKS_ROUNDS=''
	[ -x "$STACKS_COPIES" ] || return 0
	"$RUSAGE" -o "$TMPD/stk.cal" -- "$STACKS_COPIES" 2000 >/dev/null \
		2>&1 && ru_read "$TMPD/stk.cal" &&
		STACKS_ROUNDS=$(awk -v w="$RU_WALL" -v s="$STACKS_SECONDS" \
			'BEGIN { n = int(2000 * s / w); print n < 1 ? 1 : n }')
	[ -n "$STACKS_ROUNDS" ] || die "$STACKS_COPIES does not run"
}

# stk_deep_build: Deep compiled for the jvm workload, or
# STACKS_DEEP_WHY saying why not; here rather than in build.sh, so that
# runs without this section do not wait for javac
stk_deep_build() {
	STACKS_DEEP_CLASSES=$BUILD/tests/bench/deep-classes
	STACKS_DEEP_WHY=$JAVA_WHY
	[ -n "$STACKS_DEEP_WHY" ] ||
		STACKS_DEEP_WHY=$(javac_into "$STACKS_DEEP_CLASSES" \
			"$SRC/tests/javamap/java/Deep.java")
}

bench_stacks() {
	local w kind rep f list
	local -a shared=()
	list=" ${STACKS_WORKLOADS:-frameless node jvm copies} "
	for w in frameless node jvm; do
		[[ "$list" != *" $w "* ]] || shared+=("$w")
	done
	STACKS_COPIES=$BUILD/tests/bench/bench_copies
	STACKS_HZ=$REPORT_HZ
	rec_section "$STACKS" "The share of the hot work's samples whose" \
"whole stack is the true caller chain from the program's entry" \
"(tests/bench/stacks.py says what that is), on tests/workloads/frameless" \
"(C, -O2, no frame pointers, the time in glibc's memcpy, reached through" \
"path_a and path_b 3:1), tests/opreport/native_leaf.js (node, a JS" \
"function whose time is in memcpy, through a and b 3:1) and" \
"tests/javamap/java/Deep.java (jvm: HotSpot with" \
"-XX:+PreserveFramePointer, Deep.left and Deep.right kept interpreted" \
"and calling the compiled Deep.leaf 3:1; the true chain is Deep.main," \
"left or right, leaf; opjit with the javamap agent, perf with the map" \
"-XX:+DumpPerfMapAtExit writes), $STACKS_SECONDS s" \
"at $(khz "$STACKS_HZ"), opjit (opreport --format=folded) against perf" \
"(perf script --no-inline, folded by stacks.py); path A's share of the" \
"complete stacks against the workload's own CPU clock; each recorder's" \
"own CPU time (around the recorder minus around the workload), and the" \
"bytes it wrote. Then the cost of" \
"recording bench_copies (frameless's tree, fixed work, about" \
"$STACKS_SECONDS s alone), and the report times on the dwarf" \
"recordings (perf stopped after $STACKS_TIMEOUT s). $STACKS_PAIRS" \
"interleaved pairs a figure; \"opjit vs reference\" is per pair: a" \
"ratio, or a difference in points for shares and lost samples."
	[[ "$list" != *" jvm "* ]] || stk_deep_build
	[[ "$list" != *" copies "* ]] || stk_calibrate
	for w in "${shared[@]}"; do
		for kind in g d; do
			for ((rep = 0; rep < STACKS_PAIRS; rep++)); do
				stk_share_pair "$w" "$kind" "$rep"
			done
		done
	done
	if [[ "$list" == *" copies "* ]]; then
		for ((rep = 0; rep < STACKS_PAIRS; rep++)); do
			stk_cost_pair "$rep"
		done
		stk_goal "bytes, \`-g\` vs \`--callgraph=fp\`" \
			"$TMPD/stk.goal.cost.og.of.bytes" 2
		stk_goal "bytes, \`--callgraph=dwarf\` vs perf's dwarf" \
			"$TMPD/stk.goal.cost.od.pd.bytes" 0.25
		stk_goal "recorder CPU, \`--callgraph=dwarf\` vs perf's dwarf" \
			"$TMPD/stk.goal.cost.od.pd.cpu" 0.5
	fi
	for w in "${shared[@]}"; do
		stk_goal "$w, \`opreport -c\` vs \`perf report -g\`, time" \
			"$TMPD/stk.goal.speed.$w.c" 0.1
		stk_goal "$w, \`--format=folded\` vs \`perf script\`, time" \
			"$TMPD/stk.goal.speed.$w.folded" 0.1
		stk_goal "$w, \`opreport -c\` vs \`perf report -g\`, CPU" \
			"$TMPD/stk.goal.speed.$w.c.cpu" 0.1
		stk_goal "$w, \`--format=folded\` vs \`perf script\`, CPU" \
			"$TMPD/stk.goal.speed.$w.folded.cpu" 0.1
	done
}
