#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The benchmark and accuracy suite: opjit beside Linux perf, on the same
# workloads in the same run, reported as ratios because absolute times on
# a shared machine mean little.  Builds what is missing, measures, prints
# one table and writes it as Markdown with the machine and versions.
#
# usage: run.sh [--smoke | --quick] [--runs N] [--build DIR]
#               [--sections LIST] [--out FILE]
#   --smoke  one run of tiny workloads at one frequency: proves the suite
#            works (every row has a figure or a reason); asserts no timing
#   --quick  one run of every section at small sizes, in a few minutes:
#            figures to look at while working, not for RESULTS.md
#   --runs   runs per figure (default 5, smoke and quick 1; growth 1
#            unless given); figures are medians
#   --build  build tree (default build/ in the source tree); built first
#            if something the suite runs is missing
#   --sections  comma list of what to run: cost,callgraph,report (with
#            the call graph reports),resolve,accuracy,steady,stacks,
#            growth,cggrowth; default all but growth and cggrowth;
#            --quick runs both, --smoke growth (and leaves out stacks)
#   --out    Markdown output (default tests/bench/RESULTS.md)
set -uo pipefail # no -e: a failed measurement becomes a reason in the table

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$BENCH_DIR/../.." && pwd)
. "$BENCH_DIR/lib.sh"

die() { printf 'run.sh: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '/^# usage:/,/^# *--out/s/^# \{0,1\}//p' "$0" >&2; exit 2; }

SMOKE=0 QUICK=0 RUNS='' BUILD=$SRC/build OUT=$BENCH_DIR/RESULTS.md
SECTIONS=''
COMMAND_LINE="tests/bench/run.sh $*"
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) SMOKE=1 ;;
	--quick) QUICK=1 ;;
	--runs) [ $# -ge 2 ] || usage; RUNS=$2; shift ;;
	--runs=*) RUNS=${1#*=} ;;
	--build) [ $# -ge 2 ] || usage; BUILD=$2; shift ;;
	--build=*) BUILD=${1#*=} ;;
	--out) [ $# -ge 2 ] || usage; OUT=$2; shift ;;
	--out=*) OUT=${1#*=} ;;
	--sections) [ $# -ge 2 ] || usage; SECTIONS=$2; shift ;;
	--sections=*) SECTIONS=${1#*=} ;;
	-h | --help) usage ;;
	*) echo "run.sh: unknown option '$1'" >&2; usage ;;
	esac
	shift
done
case $RUNS in
'' | [1-9] | [1-9][0-9]) ;;
*) die "--runs: '$RUNS' is not a number from 1 to 99" ;;
esac
[ "$SMOKE" = 0 ] || [ "$QUICK" = 0 ] || die "--smoke or --quick, not both"
# growth at full size takes 17 to 19 minutes a run, which would take the
# default full run past half an hour: only when asked for, one run
# unless --runs says otherwise
GROWTH_RUNS=${RUNS:-1}
RUNS_GIVEN=$RUNS # stacks: 3 pairs unless --runs says otherwise
if [ -z "$SECTIONS" ]; then
	SECTIONS=cost,callgraph,report,resolve,accuracy,steady
	# stacks records tens of MB with perf's dwarf mode: not in smoke
	[ "$SMOKE" = 1 ] || SECTIONS+=,stacks
	[ "$SMOKE" = 0 ] && [ "$QUICK" = 0 ] || SECTIONS+=,growth
	# a 5 s pair beside perf: --quick, not the smoke test.sh runs
	[ "$QUICK" = 0 ] || SECTIONS+=,cggrowth
fi
if ! command -v python3 >/dev/null; then
	# 77: ctest's loud skip; nothing can be summed up without it
	echo "run.sh: skipped: python3 is needed for the statistics" >&2
	exit 77
fi
mkdir -p "$BUILD" || die "cannot create the build directory $BUILD"
BUILD=$(cd "$BUILD" && pwd)
OUT=$(realpath -m "$OUT")

GROWTH_REF_REPORT_TIMEOUT='' # perf's, when not GROWTH_REPORT_TIMEOUT
ACC_NATIVE_SECONDS='' # threetoone's and jitdemo's, when not ACC_SECONDS
if [ "$SMOKE" = 1 ]; then
	# workloads of a fraction of a second where they can be: the
	# start-up of the recorders, runtimes and reports is most of the
	# work.  Accuracy's JVM workloads keep a second: in half a second
	# the JVM has not yet compiled the inlined Hot.alpha that opjit must
	# name; threetoone and jitdemo need no warming up, and at 1 kHz 0.3
	# s still gives each of their functions tens of samples.  A growth
	# report of perf's still running after 2 s is stopped: its source
	# lines of node take longer at any size, and each second it runs on
	# is a second of the smoke test's CPU.  opreport's take a second
	# or two, more on a busy machine: stopped at 5 s too, they failed
	# the smoke test by the clock; stopped after 60 s, a hang still does.
	RUNS=${RUNS:-1} FREQS=(1000) REPORT_HZ=1000 MAP_SIZES=(10000)
	RESOLVE_SAMPLES=100000 SPEED_SCALE=1 ANON_SIZES=(50000 200000)
	COST_SECONDS=0.3 ACC_SECONDS=1 ACC_NATIVE_SECONDS=0.3 CG_SECONDS=0.3
	GROWTH_C_SECONDS=(0.3) GROWTH_NODE_SAMPLES=(300)
	GROWTH_MAP_FUNCTIONS=(300) GROWTH_MAP_SECONDS=0.3
	GROWTH_IDLE_SECONDS=(0.3) GROWTH_REPORT_TIMEOUT=60
	GROWTH_REF_REPORT_TIMEOUT=2
	STEADY_SKIP=0.5 STEADY_SECONDS=0.5
	STACKS_PAIRS=1 STACKS_SECONDS=1 STACKS_TIMEOUT=30
elif [ "$QUICK" = 1 ]; then
	RUNS=${RUNS:-1} FREQS=(1000 4000) REPORT_HZ=4000
	MAP_SIZES=(10000 100000) RESOLVE_SAMPLES=1000000
	ANON_SIZES=(250000 1000000)
	COST_SECONDS=1 ACC_SECONDS=1 SPEED_SCALE=2 CG_SECONDS=5
	GROWTH_C_SECONDS=(2 6) GROWTH_NODE_SAMPLES=(8000 24000)
	GROWTH_MAP_FUNCTIONS=(10000) GROWTH_MAP_SECONDS=3
	GROWTH_IDLE_SECONDS=(2) GROWTH_REPORT_TIMEOUT=20
	STEADY_SKIP=2 STEADY_SECONDS=4
	STACKS_PAIRS=1 STACKS_SECONDS=1 STACKS_TIMEOUT=60
else
	RUNS=${RUNS:-5} FREQS=(1000 4000 10000) REPORT_HZ=4000
	MAP_SIZES=(10000 100000 1000000) RESOLVE_SAMPLES=10000000
	ANON_SIZES=(1000000 4000000)
	COST_SECONDS=2 ACC_SECONDS=3 SPEED_SCALE=5 CG_SECONDS=30
	GROWTH_C_SECONDS=(5 30 120) GROWTH_NODE_SAMPLES=(20000 120000 500000)
	GROWTH_MAP_FUNCTIONS=(10000 100000) GROWTH_MAP_SECONDS=10
	GROWTH_IDLE_SECONDS=(5 30) GROWTH_REPORT_TIMEOUT=60
	STEADY_SKIP=3 STEADY_SECONDS=10
	STACKS_PAIRS=${RUNS_GIVEN:-3} STACKS_SECONDS=3 STACKS_TIMEOUT=60
fi
GROWTH_HZ=$REPORT_HZ
ACC_NATIVE_SECONDS=${ACC_NATIVE_SECONDS:-$ACC_SECONDS}
[ -n "$GROWTH_REF_REPORT_TIMEOUT" ] ||
	GROWTH_REF_REPORT_TIMEOUT=$GROWTH_REPORT_TIMEOUT

TMPD=$(mktemp -d /tmp/opjit-bench.XXXXXX) ||
	die "cannot create a temporary directory"
# on any exit, also remove the JIT maps of workloads cut short
bench_cleanup() {
	local p
	for p in "$TMPD"/*.pid "$TMPD"/*.pid2; do
		[ ! -f "$p" ] || map_cleanup "$p"
	done
	rm -rf "$TMPD"
}
trap bench_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
RAW=$TMPD/raw.tsv
LOGDIR=$BUILD/tests/bench/logs
mkdir -p "$LOGDIR" || die "cannot create $LOGDIR"
: >"$RAW"

RUSAGE=$BUILD/tests/bench/bench_rusage
SPIN=$BUILD/tests/bench/bench_spin
OPROFILED=$BUILD/daemon/oprofiled
OPREPORT=$BUILD/opreport/opreport
THREETOONE=$BUILD/tests/workloads/threetoone
JITDEMO=$BUILD/tests/workloads/jitdemo
RESOLVE=$BUILD/tests/handlers/bench_perfmap_resolve
ANON_SESSION=$BUILD/tests/bench/bench_anon_session
AGENT=$BUILD/lib/opjit/libjavamap-agent.so
CLASSES=$BUILD/tests/bench/classes
export OPJIT_HANDLER_PATH=${OPJIT_HANDLER_PATH:-$BUILD/lib/opjit/handlers}

. "$BENCH_DIR/build.sh"
. "$BENCH_DIR/cost.sh"
. "$BENCH_DIR/report_speed.sh"
. "$BENCH_DIR/callgraph_speed.sh"
. "$BENCH_DIR/resolve.sh"
. "$BENCH_DIR/accuracy.sh"
. "$BENCH_DIR/accuracy_jit.sh"
. "$BENCH_DIR/accuracy_rejit.sh"
. "$BENCH_DIR/growth.sh"
. "$BENCH_DIR/steady.sh"
. "$BENCH_DIR/stacks.sh"
. "$BENCH_DIR/cg_growth_run.sh"

bench_build
bench_meta
bench_perf_check
# node --perf-basic-prof leaves V8 logs in its working directory: run the
# workloads where the suite cleans up
cd "$TMPD" || die "cannot enter $TMPD"
# section NAME: whether --sections asks for NAME
section() { [[ ",$SECTIONS," == *",$1,"* ]]; }
# cpu_spent VAR: set VAR to this shell's and its reaped children's CPU
# seconds so far (`times` here, not in a subshell, which would count
# only its own)
cpu_spent() {
	times >"$TMPD/times"
	printf -v "$1" '%s' "$(awk '{ for (i = 1; i <= NF; i++) {
		split($i, t, /[ms]/); n += 60 * t[1] + t[2] } }
		END { printf "%.1f", n }' "$TMPD/times")"
}
# timed NAME FN: run section FN if asked for, saying on stderr how long it
# took, by the clock and in CPU time (where a smoke run's minutes go: on
# a shared machine the clock says little)
timed() {
	section "$1" || return 0
	local t0=$SECONDS c0 c1
	cpu_spent c0
	"$2"
	cpu_spent c1
	printf 'run.sh: %s took %d s, %.1f s of CPU\n' "$2" \
		$((SECONDS - t0)) "$(sub "$c1" "$c0")" >&2
}
timed cost bench_cost
# the report speed and accuracy workloads are sized by the cost
# section's calibration
if ! section cost && { section report || section accuracy; }; then
	bench_calibrate
fi
timed callgraph bench_cost_callgraph
timed report bench_report_speed
timed report bench_callgraph_speed
timed resolve bench_resolve
timed accuracy bench_accuracy
timed steady bench_steady
timed stacks bench_stacks
timed growth bench_growth
timed cggrowth bench_cg_growth

if [ -s "$TMPD/perf-crashes" ]; then
	rec_meta "perf crashes" "perf record crashed" \
		"$(wc -l <"$TMPD/perf-crashes") time(s) recording data for" \
		"reports, and was run again (a third try with --no-buildid):" \
		"$(sort -u "$TMPD/perf-crashes" | head -n 1)"
fi
# A part that is not built yet, a tool this machine lacks, or perf itself
# crashing or running past growth's time limit (its bug, not ours, and
# the table says so) is a reason, and so is a JIT map that something
# else on this shared machine removed from /tmp; any other command that
# ran and broke fails the smoke test, and is reported by a full run.
# They are said before the table, which is long, so that they head the
# output of a failing test.
ok='^(not built:|perf is not installed|perf record does not work here'
ok+='|node is not installed|no JDK|no jfr command|needs |undefined'
ok+='|perf (record|record -g|report) crashed|ptrace is not allowed'
ok+="|perf (report|script) did not finish within|node's /tmp/perf-PID.map was gone)"
broken=$(awk -F '\t' -v ok="$ok" '$1 == "w" && $5 !~ ok {
	print "  " $2 " / " $3 " (" $4 "): " $5 }' "$RAW" | sort -u)
[ -z "$broken" ] ||
	printf 'run.sh: these measurements broke:\n%s\n' "$broken" >&2
mkdir -p "$(dirname "$OUT")" || die "cannot create the directory of $OUT"
cp "$RAW" "$LOGDIR/raw.tsv"
python3 "$BENCH_DIR/stats.py" table "$RAW" "$OUT" --check ||
	die "the table is incomplete (see above); records in $LOGDIR/raw.tsv"
check_rows() {
	grep -q "^[vwn]	$1	" "$RAW" || die "section '$1' produced no rows"
}
section cost && check_rows "$COST"
section callgraph && check_rows "$COST_CG"
section report && check_rows "$SPEED"
section resolve && check_rows "$RESOLVE_SECTION"
section accuracy && check_rows "$ACC"
section steady && check_rows "$STEADY"
section stacks && check_rows "$STACKS"
section cggrowth && check_rows "$CG_GROWTH"
if section growth; then
	for g in "${GROWTH_SECTIONS[@]}"; do check_rows "$g"; done
fi
[ -z "$broken" ] || [ "$SMOKE" = 0 ] || exit 1
echo "run.sh: wrote $OUT"
