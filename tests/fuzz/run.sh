#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# run.sh TARGET FLOOR SECONDS CORPUS SEEDS [LIBFUZZER ARGS...]: run a fuzz
# target for SECONDS over CORPUS (kept) and the SEEDS directory; fail on
# a crash, and when libFuzzer's final coverage is under FLOOR (a target
# that no longer reaches the code it was written for).
set -uo pipefail
target=$1 floor=$2 seconds=$3 corpus=$4 seeds=$5
shift 5
name=${target##*/}
mkdir -p "$corpus" || exit 1
log=$corpus.log
# shellcheck disable=SC2086
"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 "$@" "$corpus" $seeds >"$log" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
	tail -n 60 "$log"
	echo "FAIL: $name exited $rc (log: $log)"
	exit 1
fi
cov=$(grep -oE '(DONE|INITED|pulse|NEW|REDUCE) +cov: [0-9]+' "$log" |
	tail -n 1 | grep -oE '[0-9]+$')
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
if [ -z "$cov" ]; then
	tail -n 20 "$log"
	echo "FAIL: $name printed no coverage figure (log: $log)"
	exit 1
fi
if [ "$cov" -lt "$floor" ]; then
	tail -n 20 "$log"
	echo "FAIL: $name reached cov $cov, under its floor of $floor, in ${runs:-?} runs"
	exit 1
fi
echo "PASS: $name cov $cov (floor $floor) in ${runs:-?} runs"
