# SPDX-License-Identifier: GPL-3.0-or-later
# Measuring helpers for run.sh.  Sourced, not run.  Every figure goes to
# the record file $RAW (format: stats.py), one record per run, so that
# stats.py can take medians and spreads; a figure that cannot be had is
# recorded with the reason instead, never left out.

# --- records ------------------------------------------------------------

# one line, no tabs; a reason is also cut short to fit a table cell
rec_line() { tr '\t\n' '  ' <<<"$1" | sed 's/ *$//'; }
rec_clean() { rec_line "$1" | cut -c1-200; }

# rec_meta KEY TEXT..., rec_section SECTION TEXT...: the words of TEXT
# are joined with spaces, so that long text can be written over lines
rec_meta() { printf 'm\t%s\t%s\n' "$1" "$(rec_line "${*:2}")" >>"$RAW"; }
rec_section() {
	printf 's\t%s\t%s\n' "$1" "$(rec_line "${*:2}")" >>"$RAW"
}

# rec_val SECTION FIGURE COLUMN VALUE FORMAT; an empty VALUE means the
# arithmetic behind it was undefined, which is recorded as such
rec_val() {
	if [ -z "$4" ]; then
		rec_why "$1" "$2" "$3" "undefined (a zero or missing input)"
		return
	fi
	printf 'v\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$RAW"
}
# rec_why SECTION FIGURE COLUMN REASON..., rec_note ... TEXT...: the
# words are joined like rec_meta's
rec_why() {
	printf 'w\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" \
		"$(rec_clean "${*:4}")" >>"$RAW"
}
rec_note() {
	printf 'n\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" \
		"$(rec_clean "${*:4}")" >>"$RAW"
}
# rec_why_row SECTION FIGURE REASON: the whole row could not be measured
rec_why_row() {
	local c
	for c in opjit ref cmp; do rec_why "$1" "$2" "$c" "$3"; done
}

# --- arithmetic (awk: bash has no floating point) -----------------------

# calc OP A B: print A OP B, or nothing when it is undefined (an input
# missing, or a division by zero)
calc() {
	awk -v op="$1" -v a="$2" -v b="$3" 'BEGIN {
		if (a == "" || b == "") exit
		if ((op == "ratio" || op == "pct") && b + 0 == 0) exit
		if (op == "ratio") r = a / b
		else if (op == "pct") r = 100 * a / b
		else if (op == "add") r = a + b
		else if (op == "sub") r = a - b
		else if (op == "mul") r = a * b
		else r = a < b ? b - a : a - b
		printf "%.6f", r
	}'
}
ratio() { calc ratio "$@"; }
pct() { calc pct "$@"; }    # pct PART TOTAL
add() { calc add "$@"; }
sub() { calc sub "$@"; }
absdiff() { calc absdiff "$@"; }

# is_count WORD: WORD is a non-negative integer
is_count() { case $1 in '' | *[!0-9]*) return 1 ;; esac; }

# --- running things -----------------------------------------------------

# ru_read FILE: set RU_WALL RU_USER RU_SYS RU_RSS RU_STATUS from a
# bench_rusage result; RU_CPU is user + system
ru_read() {
	RU_WALL= RU_USER= RU_SYS= RU_RSS= RU_STATUS= RU_CPU=
	[ -s "$1" ] || return 1
	read -r RU_WALL RU_USER RU_SYS RU_RSS RU_STATUS <"$1" || return 1
	RU_CPU=$(add "$RU_USER" "$RU_SYS")
}

# first_error FILE: the line of a command's stderr that best says what
# went wrong, for a table cell
first_error() {
	local line
	local words='error|cannot|fail|not|usage|unknown|invalid'
	line=$(grep -iE "$words" "$1" 2>/dev/null | tail -n 1)
	[ -n "$line" ] || line=$(grep -v '^\s*$' "$1" 2>/dev/null | tail -n 1)
	[ -n "$line" ] || line="no message"
	rec_clean "$line"
}

# failure NAME STATUS ERRFILE: why a command failed; a signal is a crash,
# which for a tool we do not own is the tool's bug, not ours
failure() {
	if [ "$2" -gt 128 ] && [ "$2" -lt 160 ]; then
		echo "$1 crashed (signal $(($2 - 128))): $(first_error "$3")"
	else
		echo "$1 failed (exit $2): $(first_error "$3")"
	fi
}

# perf_record_data DATA ERRFILE PIDFILE CMD...: perf record CMD at
# REPORT_HZ into DATA, for a report rather than for its cost; perf 6.1
# sometimes aborts in its build-id step on a shared machine (a build-id
# longer than its 20-byte buffer, "assertion failed at build-id.c"), so
# a crash is retried twice, after removing the JIT map of the crashed
# run, the last time without that step (--no-buildid), which a report
# does without: it finds each file by its path
perf_record_data() {
	local data=$1 err=$2 pidfile=$3 try status nobid=
	shift 3
	for try in 1 2 3; do
		[ "$try" != 3 ] || nobid=--no-buildid
		perf record -q -e cpu-clock -F "$REPORT_HZ" $nobid \
			${PERF_RECORD_CALLGRAPH:+-g} -o "$data" -- \
			"$@" >/dev/null 2>"$err"
		status=$?
		[ "$status" -gt 128 ] && [ "$status" -lt 160 ] || break
		# counted, so that the results say how often perf crashed
		echo "$(first_error "$err")" >>"$TMPD/perf-crashes"
		[ "$try" = 3 ] || map_cleanup "$pidfile"
	done
	return "$status"
}

# file_bytes PATH: the bytes of the regular files at or under PATH (0 when
# there are none): what a recorder wrote, without the 4 KiB a directory
# takes in `du -b`, which would count the session's directories but not
# perf.data's inode
file_bytes() {
	find "$1" -type f -printf '%s\n' 2>/dev/null |
		awk '{ n += $1 } END { print n + 0 }'
}

# need_exe PATH: succeed when PATH is built; otherwise print the reason
need_exe() {
	[ -x "$1" ] && return 0
	echo "not built: ${1#"$BUILD"/}"
	return 1
}

# oprofiled_summary FILE: "SAMPLES LOST" from oprofiled's summary line
oprofiled_summary() {
	sed -nE 's/.*oprofiled: ([0-9]+) samples, ([0-9]+) lost.*/\1 \2/p' \
		"$1" | tail -n 1
}

# perf_counts FILE: "SAMPLES LOST" of a perf.data, from perf report
perf_counts() {
	# a call graph recording is counted flat, each sample once
	perf report -i "$1" --stdio --sort sym -n ${CG:+--no-children -g none} \
		2>/dev/null >"$1.report" ||
		return 1
	python3 "$BENCH_DIR/shares.py" perf "$1.report" |
		awk '{ print $(NF - 1), $NF }'
}

# "${PID_EXEC[@]}" PIDFILE CMD...: run CMD with its pid written to PIDFILE
# (the shell execs CMD, so the pid is CMD's), for map_cleanup; an array,
# not a function, so that a recorder can run it
PID_EXEC=(bash -c 'echo $$ >"$0" && exec "$@"')

# map_cleanup PIDFILE: remove the JIT maps our workload run wrote: ours,
# not an application's, since the benchmark made it write them.  Only
# the files of that one pid, so colleagues' runs keep theirs.
map_cleanup() {
	local pid
	pid=$(cat "$1" 2>/dev/null) || return 0
	case $pid in '' | *[!0-9]*) return 0 ;; esac
	rm -f "/tmp/perf-$pid.map" "/tmp/anon.$pid"
	rm -f "$1"
}
