#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Call-graph recording cost by length: `oprofiled -g` beside
# `perf record -g` on the same workload in the same run, in interleaved
# pairs (which goes first alternates), the recorder's own CPU time from
# the kernel's accounting (bench_rusage around the recorder minus
# bench_rusage around its workload), and the per-pair ratio's median and
# range.  Then each recording is reported, and the peak RSS of opreport
# -c, --format=folded, pprof and html (/usr/bin/time's %M) is set beside
# that of `perf report -g --stdio` and of `perf script` on perf's
# recording of the pair.  Prints two markdown tables; not run by test.sh.
#
# usage: cg_growth.sh [--quick] [--build DIR] [--oprofiled PATH]
#                     [--pairs N] [--seconds "10 60"] [--hz HZ]
#                     [--kinds "C node jitdump dwarf"] [--no-perf-report]
#   --quick      1 pair at 5 s, C, node with a perf map and with jitdump
#   --kinds      the workloads measured, of C, node (a perf map), jitdump
#                and dwarf (C with stack copies: --callgraph=dwarf
#                against --call-graph=dwarf; the recorders' CPU only)
#   --no-perf-report  leave perf report -g out: on a 300 s node
#                recording it took 10 GiB and 12 minutes, of each pair
#   --oprofiled  another recorder to measure (an older build, say)
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$BENCH_DIR/../.." && pwd)
BUILD=$SRC/build OPROFILED='' PAIRS=3 SECONDS_LIST="10 60" HZ=4000
WANT_KINDS="C node jitdump" PERF_REPORT=1
while [ $# -gt 0 ]; do
	case $1 in
	--quick) PAIRS=1 SECONDS_LIST=5 ;;
	--build) BUILD=$2; shift ;;
	--oprofiled) OPROFILED=$2; shift ;;
	--pairs) PAIRS=$2; shift ;;
	--seconds) SECONDS_LIST=$2; shift ;;
	--hz) HZ=$2; shift ;;
	--kinds) WANT_KINDS=$2; shift ;;
	--no-perf-report) PERF_REPORT=0 ;;
	*) echo "cg_growth.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
OPROFILED=${OPROFILED:-$BUILD/daemon/oprofiled}
OPREPORT=${OPREPORT:-$BUILD/opreport/opreport}
RUSAGE=$BUILD/tests/bench/bench_rusage
SPIN=$BUILD/tests/bench/bench_spin
[ -x /usr/bin/time ] || { echo "cg_growth.sh: no /usr/bin/time" >&2; exit 2; }
for x in "$OPROFILED" "$OPREPORT" "$RUSAGE" "$SPIN"; do
	[ -x "$x" ] || { echo "cg_growth.sh: $x: not built" >&2; exit 2; }
done
# absolute: the runs are made in a directory of their own
OPROFILED=$(realpath "$OPROFILED") OPREPORT=$(realpath "$OPREPORT")
RUSAGE=$(realpath "$RUSAGE") SPIN=$(realpath "$SPIN")
command -v perf >/dev/null || { echo "cg_growth.sh: no perf" >&2; exit 2; }
HAVE_NODE=1
command -v node >/dev/null || HAVE_NODE=0
T=$(mktemp -d /tmp/cg_growth.XXXXXX)
trap 'rm -rf "$T"' EXIT
# node --perf-prof writes its jit-PID.dump where it runs
cd "$T" || exit 2

# calibrate: the work that takes a workload about a second alone
spin_per_s() {
	local n=20000000 w
	"$RUSAGE" -o "$T/cal" -- "$SPIN" "$n" >/dev/null
	read -r w _ <"$T/cal"
	awk -v n=$n -v w="$w" 'BEGIN { printf "%d", n / w }'
}
# node's rounds a second once started: from two runs, 500 and 2500
# rounds, so that its start and warm-up (about 0.3 s) are not taken for
# work (from one run of 500 they were, and the row named 300 s ran about
# 215 s).  A round's time still varies with the run's length: the rows
# named 10 and 60 s run about 7 to 9 and 38 to 46 s of node's CPU, that
# of 300 s 285 to 360 s; the samples column says what each ran
fib_per_s() {
	local w1 w2
	"$RUSAGE" -o "$T/cal" -- node "$BENCH_DIR/workloads/fib.js" 500 >/dev/null
	read -r w1 _ <"$T/cal"
	"$RUSAGE" -o "$T/cal" -- node "$BENCH_DIR/workloads/fib.js" 2500 >/dev/null
	read -r w2 _ <"$T/cal"
	awk -v a="$w1" -v b="$w2" 'BEGIN { printf "%d", 2000 / (b - a) }'
}

# The report forms whose peak RSS is measured, and perf's two.
FORMS="-c folded pprof html"
PERF_FORMS="report script"

# peak_kib OUT CMD...: CMD's peak RSS in KiB into OUT ("?" when it
# failed), its output thrown away
peak_kib() {
	local out=$1
	shift
	/usr/bin/time -f %M -o "$T/peak" "$@" >/dev/null 2>"$T/rerr" &&
		tail -n 1 "$T/peak" >"$out" || echo '?' >"$out"
}

# report_peaks SIDE KIND: each report of the recording just made, its
# peak RSS in $T/rss.SIDE.FORM
report_peaks() {
	local s=$1 kind=$2 f h=()
	[ "$kind" = node ] && h=(--anon-handler=perfmap)
	[ "$kind" = jitdump ] && h=(--anon-handler=jitdump)
	if [ "$s" = opjit ]; then
		for f in $FORMS; do
			case $f in
			-c) peak_kib "$T/rss.opjit.$f" "$OPREPORT" \
				--session-dir="$T/sess" -c "${h[@]}" ;;
			*) peak_kib "$T/rss.opjit.$f" "$OPREPORT" \
				--session-dir="$T/sess" --format="$f" \
				-o "$T/report.out" --force "${h[@]}" ;;
			esac
		done
	else
		if [ "$PERF_REPORT" = 1 ]; then
			peak_kib "$T/rss.perf.report" perf report \
				-i "$T/data" -g --stdio
		else
			echo - >"$T/rss.perf.report"
		fi
		peak_kib "$T/rss.perf.script" perf script -i "$T/data"
	fi
}

# one_side SIDE KIND SECONDS: prints "cpu_s samples", the reports' peaks
# left in $T/rss.SIDE.*
one_side() {
	local s=$1 kind=$2 secs=$3 w=() wu ws ou os n
	case $kind in
	C | dwarf) w=("$SPIN" $((SPIN_PER_S * secs))) ;;
	node) w=(node --perf-basic-prof "$BENCH_DIR/workloads/fib.js"
		$((FIB_PER_S * secs)) "$T/pid") ;;
	jitdump) w=(node --perf-prof "$BENCH_DIR/workloads/fib.js"
		$((FIB_PER_S * secs)) "$T/pid") ;;
	esac
	rm -rf "$T/sess" "$T/data" "$T/pid"
	local og=-g pg=-g
	[ "$kind" != dwarf ] || og=--callgraph=dwarf pg=--call-graph=dwarf
	if [ "$s" = opjit ]; then
		"$RUSAGE" -o "$T/outer" -- "$OPROFILED" "$og" \
			--session-dir="$T/sess" --frequency="$HZ" -- \
			"$RUSAGE" -o "$T/inner" -- "${w[@]}" >/dev/null 2>"$T/err"
		n=$(grep -o '[0-9]* samples' "$T/err" | cut -d' ' -f1)
	else
		"$RUSAGE" -o "$T/outer" -- perf record -q "$pg" -e cpu-clock \
			-F "$HZ" -o "$T/data" -- \
			"$RUSAGE" -o "$T/inner" -- "${w[@]}" >/dev/null 2>"$T/err"
		# the record counts alone: no unwinding of GBs of copies
		n=$(perf report -i "$T/data" --stats 2>/dev/null |
			awk '/SAMPLE events:/ { print $3; exit }')
	fi
	read -r _ ou os _ <"$T/outer"
	read -r _ wu ws _ <"$T/inner"
	# perf report names node's frames from its map: before it goes;
	# perf's dwarf recordings are GBs, their reports are not waited for
	[ "$kind" = dwarf ] || report_peaks "$s" "$kind"
	rm -rf "$T/data"
	# node's own map and dump only: /tmp is shared
	[ ! -s "$T/pid" ] || rm -f "/tmp/perf-$(cat "$T/pid").map" \
		"$T/jit-$(cat "$T/pid").dump"
	awk -v a="$ou" -v b="$os" -v c="$wu" -v d="$ws" -v n="${n:-?}" \
		'BEGIN { printf "%.3f %s\n", a + b - c - d, n }'
}

# stats of the ratios on stdin: median [min, max]
stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2fx [%.2f, %.2f]", m, v[1], v[NR] }'
}

for k in $WANT_KINDS; do
	case $k in
	C | node | jitdump | dwarf) ;;
	*) echo "cg_growth.sh: unknown kind '$k' (C, node, jitdump or dwarf)" >&2
		exit 2 ;;
	esac
done
SPIN_PER_S=$(spin_per_s)
KINDS=
for k in $WANT_KINDS; do
	if [ "$k" != C ] && [ "$k" != dwarf ] && [ "$HAVE_NODE" = 0 ]; then
		echo "cg_growth.sh: no node: the $k rows are left out" >&2
		continue
	fi
	KINDS="$KINDS $k"
done
case " $KINDS " in
*" node "* | *" jitdump "*) FIB_PER_S=$(fib_per_s) ;;
esac
# median of the numbers on stdin
median() {
	sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
# median of the numbers on stdin to 2 places, "?" when there are none
# (a recorder whose samples were not counted)
median2() {
	median | awk 'NF { printf "%.2f", $1; done = 1 } END { if (!done) printf "?" }'
}
# "min to max" of the numbers on stdin
span() {
	sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s to %s", lo, hi }'
}
# Beside each recorder's CPU, its samples and its CPU a sample: at 300
# s the ratio is the ratio of the per-sample costs, and perf's moves with
# the machine (RESULTS.md, "The node rows at their true lengths").
echo "| workload, length | oprofiled -g CPU (median) | opjit samples | perf record -g CPU (median) | us a sample, opjit / perf (medians) | per-pair ratio, median [range] |"
echo "| --- | --- | --- | --- | --- | --- |"
: >"$T/rss_rows"
turn=0
for secs in $SECONDS_LIST; do
	for kind in $KINDS; do
		: >"$T/ratios" && : >"$T/ocpu" && : >"$T/pcpu" &&
			: >"$T/osmp" && : >"$T/ous" && : >"$T/pus"
		kforms=$FORMS
		[ "$kind" != dwarf ] || kforms=
		for ((p = 0; p < PAIRS; p++)); do
			if [ $((turn++ % 2)) = 0 ]; then
				read -r oc on <<<"$(one_side opjit "$kind" "$secs")"
				read -r pc pn <<<"$(one_side perf "$kind" "$secs")"
			else
				read -r pc pn <<<"$(one_side perf "$kind" "$secs")"
				read -r oc on <<<"$(one_side opjit "$kind" "$secs")"
			fi
			echo "$oc" >>"$T/ocpu"
			echo "$pc" >>"$T/pcpu"
			echo "$on" >>"$T/osmp"
			awk -v c="$oc" -v n="$on" 'BEGIN { if (n > 0) print 1e6 * c / n }' >>"$T/ous"
			awk -v c="$pc" -v n="$pn" 'BEGIN { if (n > 0) print 1e6 * c / n }' >>"$T/pus"
			awk -v o="$oc" -v p="$pc" 'BEGIN { print o / p }' \
				>>"$T/ratios"
			echo "cg_growth.sh: $kind ${secs}s pair $p: opjit" \
				"${oc}s ($on samples), perf ${pc}s ($pn)" >&2
			# one line a form: kind secs opjit_kib report script
			for f in $kforms; do
				echo "$kind $secs $f $(cat "$T/rss.opjit.$f")" \
					"$(cat "$T/rss.perf.report")" \
					"$(cat "$T/rss.perf.script")" >>"$T/rss_rows"
			done
		done
		printf '| %s, %s s | %s s | %s | %s s | %s / %s | %s |\n' \
			"$kind" "$secs" "$(median <"$T/ocpu")" \
			"$(span <"$T/osmp")" "$(median <"$T/pcpu")" \
			"$(median2 <"$T/ous")" "$(median2 <"$T/pus")" \
			"$(stats <"$T/ratios")"
	done
done

# the reports' peak RSS, per pair: each form of opreport against perf
# report -g --stdio and against perf script on the pair's recordings
echo
echo "| workload, length | opreport form | opreport peak RSS (median) | perf report -g --stdio (median) | perf script (median) | ratio to perf report, median [range] | ratio to perf script, median [range] |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for secs in $SECONDS_LIST; do
	for kind in $KINDS; do
		for f in $FORMS; do
			awk -v k="$kind" -v s="$secs" -v f="$f" \
				'$1 == k && $2 == s && $3 == f && $4 != "?" &&
				 $5 != "?" && $6 != "?"' "$T/rss_rows" >"$T/rr"
			[ -s "$T/rr" ] || continue
			if grep -q ' - ' "$T/rr"; then
				rep_mib="not run" rep_ratio="not run"
			else
				rep_mib=$(awk '{ print $5 / 1024 }' "$T/rr" |
					median | awk '{ printf "%.1f MiB", $1 }')
				rep_ratio=$(awk '{ print $4 / $5 }' "$T/rr" |
					stats)
			fi
			printf '| %s, %s s | %s | %.1f MiB | %s | %.1f MiB | %s | %s |\n' \
				"$kind" "$secs" "$f" \
				"$(awk '{ print $4 / 1024 }' "$T/rr" | median)" \
				"$rep_mib" \
				"$(awk '{ print $6 / 1024 }' "$T/rr" | median)" \
				"$rep_ratio" \
				"$(awk '{ print $4 / $6 }' "$T/rr" | stats)"
		done
	done
done
