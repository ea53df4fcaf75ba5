# SPDX-License-Identifier: GPL-3.0-or-later
# Accuracy: the shares each profiler gives known functions, against the
# truth the workload was built with and against the reference profiler.
# Sourced by run.sh; the JIT workloads are in accuracy_jit.sh.

ACC=Accuracy
TRUTH=75
# a workload run writes its pid here when its JIT map must be removed
# after the report
ACC_PIDFILE=$TMPD/acc.pid
# more opreport options for acc_opjit, e.g. -d
ACC_OPREPORT_ARGS=()

# opreport's machine-readable output when it has one, its text otherwise
acc_opreport_format() {
	OPREPORT_FMT=() OPREPORT_KIND=opreport
	[ -x "$OPREPORT" ] || return 0
	# read whole: grep -q leaving at its match would end opreport's
	# later writes with SIGPIPE, which pipefail takes for no --format,
	# and the text report then parsed named no JIT rows
	if [[ $("$OPREPORT" --help 2>&1) == *--format* ]]; then
		OPREPORT_FMT=(--format=json) OPREPORT_KIND=opreport-json
	fi
}

# acc_counts KIND FILE PATTERN...: shares.py's line, or fail with why
acc_counts() {
	python3 "$BENCH_DIR/shares.py" "$@" 2>"$TMPD/acc.shares.err" ||
		{ first_error "$TMPD/acc.shares.err"; return 1; }
}

# acc_opjit HANDLER PATTERN... -- CMD...: record CMD under oprofiled,
# report with HANDLER (may be empty); set O_COUNTS (shares.py's line) or
# O_WHY.  CMD's output is kept in $TMPD/acc.opjit.stdout, the report in
# $TMPD/acc.opjit.out.
acc_opjit() {
	local t=$TMPD/acc.opjit handler=$1
	local -a pats=()
	shift
	while [ "$1" != -- ]; do pats+=("$1"); shift; done
	shift
	O_COUNTS='' O_WHY=''
	O_WHY=$(need_exe "$OPROFILED") || return
	O_WHY=$(need_exe "$OPREPORT") || return
	rm -rf "$t.sess"
	"$OPROFILED" --session-dir="$t.sess" --frequency="$REPORT_HZ" -- \
		"$@" >"$t.stdout" 2>"$t.err" ||
		O_WHY=$(failure oprofiled $? "$t.err")
	if [ -z "$O_WHY" ]; then
		"$OPREPORT" --session-dir="$t.sess" -l \
			${handler:+"--anon-handler=$handler"} \
			"${OPREPORT_FMT[@]}" "${ACC_OPREPORT_ARGS[@]}" \
			>"$t.out" 2>"$t.err" ||
			O_WHY=$(failure opreport $? "$t.err")
	fi
	map_cleanup "$ACC_PIDFILE"
	[ -z "$O_WHY" ] || return 0
	O_COUNTS=$(acc_counts "$OPREPORT_KIND" "$t.out" "${pats[@]}") ||
		{ O_WHY=$O_COUNTS; O_COUNTS=''; }
}

# acc_perf PATTERN... -- CMD...: the same under perf; sets P_COUNTS or
# P_WHY
acc_perf() {
	local t=$TMPD/acc.perf
	local -a pats=()
	while [ "$1" != -- ]; do pats+=("$1"); shift; done
	shift
	P_COUNTS='' P_WHY=$PERF_WHY
	[ -z "$P_WHY" ] || return 0
	rm -f "$t.data"
	perf_record_data "$t.data" "$t.err" "$ACC_PIDFILE" "$@" ||
		P_WHY=$(failure "perf record" $? "$t.err")
	if [ -z "$P_WHY" ]; then
		perf report -i "$t.data" --stdio --sort sym -n \
			>"$t.out" 2>"$t.err" ||
			P_WHY=$(failure "perf report" $? "$t.err")
	fi
	map_cleanup "$ACC_PIDFILE"
	[ -z "$P_WHY" ] || return 0
	P_COUNTS=$(acc_counts perf "$t.out" "${pats[@]}") ||
		{ P_WHY=$P_COUNTS; P_COUNTS=''; }
}

# acc_both REP HANDLER PATTERN... -- CMD...: both profilers, in an order
# that alternates with REP
acc_both() {
	local rep=$1
	shift
	if [ $((rep % 2)) = 0 ]; then
		acc_opjit "$@"
		acc_perf "${@:2}"
	else
		acc_perf "${@:2}"
		acc_opjit "$@"
	fi
}

# share_of COUNTS WHICH: from shares.py's line (one count per pattern,
# the total, the lost), the first pattern's share of the first two
# (WHICH=pair) or of every sample (WHICH=all); empty when undefined
share_of() {
	local -a f
	read -r -a f <<<"$1"
	[ "${#f[@]}" -ge 3 ] || return 0
	pct "${f[0]}" "$(samples_of "$1" "$2")"
}

# acc_cell FIGURE COLUMN VALUE WHY FORMAT
acc_cell() {
	if [ -n "$3" ]; then
		rec_val "$ACC" "$1" "$2" "$3" "$5"
	else
		rec_why "$ACC" "$1" "$2" "$4"
	fi
}

# samples_of COUNTS WHICH: the samples a share is taken of (the two
# functions' for a pair, the total for all); empty without counts
samples_of() {
	local -a f
	read -r -a f <<<"$1"
	[ "${#f[@]}" -ge 3 ] || return 0
	if [ "$2" = pair ]; then
		add "${f[0]}" "${f[1]}"
	else
		echo "${f[${#f[@]} - 2]}"
	fi
}

# acc_record FIGURE WHICH [TRUTH]: this run's shares from O_COUNTS and
# P_COUNTS (or O_WHY, P_WHY), and the samples each share is of; with a
# TRUTH, each one's distance from it
acc_record() {
	local fig=$1 which=$2 truth=${3:-} o='' p='' od='' pd='' dfig
	local none="the report names none of the functions"
	local both="needs both figures of the run"
	local on pn nfig="${fig% (truth*}: samples the share is of"
	if [ -z "$O_WHY" ]; then
		o=$(share_of "$O_COUNTS" "$which")
		[ -n "$o" ] || O_WHY=$none
	fi
	if [ -z "$P_WHY" ]; then
		p=$(share_of "$P_COUNTS" "$which")
		[ -n "$p" ] || P_WHY=$none
	fi
	acc_cell "$fig" opjit "$o" "$O_WHY" pct
	acc_cell "$fig" ref "$p" "$P_WHY" pct
	acc_cell "$fig" cmp "$(sub "$o" "$p")" "$both" pt
	on=$(samples_of "$O_COUNTS" "$which")
	pn=$(samples_of "$P_COUNTS" "$which")
	acc_cell "$nfig" opjit "$on" "$O_WHY" n
	acc_cell "$nfig" ref "$pn" "$P_WHY" n
	acc_cell "$nfig" cmp "$(ratio "$on" "$pn")" "$both" x
	[ -n "$truth" ] || return 0
	dfig="${fig% (truth*}: distance from the truth"
	od=$(absdiff "$o" "$truth") pd=$(absdiff "$p" "$truth")
	acc_cell "$dfig" opjit "$od" "$O_WHY" dist
	acc_cell "$dfig" ref "$pd" "$P_WHY" dist
	acc_cell "$dfig" cmp "$(sub "$od" "$pd")" "$both" pt
}

acc_threetoone() {
	local rep fig="C threetoone: heavy_work share of heavy_work +"
	fig+=" light_work (truth $TRUTH%)"
	for ((rep = 0; rep < RUNS; rep++)); do
		if O_WHY=$(need_exe "$THREETOONE"); then
			acc_both "$rep" "" heavy_work light_work -- \
				"$THREETOONE" "$ACC_NATIVE_SECONDS"
		else
			P_WHY=$O_WHY
		fi
		acc_record "$fig" pair "$TRUTH"
	done
}

acc_node() {
	local rep fig="node fib.js: benchFibHot share of all samples"
	for ((rep = 0; rep < RUNS; rep++)); do
		if [ -n "$NODE_WHY" ]; then
			O_WHY=$NODE_WHY P_WHY=$NODE_WHY
		else
			workload_cmd node "$ACC_PIDFILE"
			acc_both "$rep" perfmap benchFibHot -- "${W[@]}"
		fi
		acc_record "$fig" all
	done
}

bench_accuracy() {
	rec_section "$ACC" "Shares of known functions at" \
"$(khz "$REPORT_HZ"), each profiler recording its own run of the" \
"workload, $RUNS run(s). Reference: Linux perf" \
"(\`perf report --sort sym\`), except for Java, where it is JDK Flight" \
"Recorder. \"opjit vs reference\" is a difference in points; for a" \
"distance from the truth, below 0 means opjit is closer."
	acc_opreport_format
	acc_threetoone
	acc_jitdemo
	acc_node
	acc_java
	acc_javamap_hot
	acc_rejit
}
