# SPDX-License-Identifier: GPL-3.0-or-later
# What the handler e2e tests share.  Sourced, not run.
. "${BASH_SOURCE[0]%/*}/../lib/e2e.sh"
: "${OPJIT_BUILD:?}" "${OPJIT_SOURCE:?}"

oprofiled=$OPJIT_BUILD/daemon/oprofiled
here=$OPJIT_SOURCE/tests/handlers
# a script that runs neither command sets e2e_no_commands=1 before
# sourcing this, so that a tree built for it alone (scripts/tsan_check.sh)
# need not hold them
[ -n "${e2e_no_commands:-}" ] ||
	for f in "$oprofiled" "$OPJIT_BUILD/opreport/opreport"; do
		[ -x "$f" ] || fail "$f is not built"
	done
# every report runs with handlers isolated and in-process, and must come
# out the same both ways (opreport_both.sh)
export OPJIT_OPREPORT=$OPJIT_BUILD/opreport/opreport
opreport=$here/opreport_both.sh

tmp=$(mktemp -d)
# files in /tmp our own workloads left behind (their maps), and sessions
# of our workloads whose archived maps name more of them
cleanup=()
recorded=()
trap 'e2e_forget_jit_maps "${recorded[@]}"; rm -rf "$tmp"; rm -f "${cleanup[@]}"' EXIT

# forget_maps_of PID...: the runtimes' maps are ours to remove
forget_maps_of() {
	local pid
	for pid in "$@"; do
		cleanup+=("/tmp/perf-$pid.map" "/tmp/anon.$pid")
	done
}

# forget_maps_recorded_in SESSION...: the maps these sessions (recorded
# from our own workloads, not made up) archive are ours to remove at
# exit, when no report needs them any more: for a run no JSON report
# names the pids of
forget_maps_recorded_in() {
	recorded+=("$@")
}

# report_pids JSON: the tgids in a report's JIT image names
report_pids() {
	grep -o 'tgid:[0-9]*' "$1" | cut -d: -f2 | sort -u
}

# perf_share REPORT.txt REGEX: percent of perf's rows matching REGEX
perf_share() {
	python3 - "$1" "$2" <<'PY'
import re, sys
pat, total = re.compile(sys.argv[2]), 0.0
for line in open(sys.argv[1]):
    m = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(.*?)\s*$", line)
    if m and pat.search(m.group(2)):
        total += float(m.group(1))
print(f"{total:.2f}")
PY
}

# compare_with_perf WHAT REGEX CMD...: profile CMD with opjit (perfmap
# handler) and with perf at the same rate; the share of the rows named
# REGEX must agree within 5 points.
compare_with_perf() {
	local what=$1 re=$2 op_n op_total op_pct perf_pct; shift 2

	"$oprofiled" --session-dir="$tmp/s" -- "$@" >"$tmp/op.out" 2>&1 ||
		show_fail "$tmp/op.out" "oprofiled failed"
	"$opreport" --session-dir="$tmp/s" -l --format=json \
		--anon-handler=perfmap >"$tmp/op.json" 2>"$tmp/op.err" ||
		show_fail "$tmp/op.err" "opreport failed"
	forget_maps_of $(report_pids "$tmp/op.json")
	read -r op_n op_total op_pct < <(python3 "$here/report_shares.py" \
		"$tmp/op.json" "$re" --handler perfmap)

	perf record -q --no-buildid --no-buildid-cache -e cpu-clock -F 4000 -o "$tmp/perf.data" -- "$@" \
		>"$tmp/perf.out" 2>&1 || show_fail "$tmp/perf.out" \
		"perf record failed"
	perf report -i "$tmp/perf.data" --stdio --sort sym --no-children \
		>"$tmp/perf.txt" 2>/dev/null || fail "perf report failed"
	forget_maps_of $(perf report -i "$tmp/perf.data" --stdio --sort pid \
		2>/dev/null | sed -n 's/.*[[:space:]]\([0-9][0-9]*\):.*/\1/p')
	perf_pct=$(perf_share "$tmp/perf.txt" "$re")

	echo "$what share: opjit $op_pct% ($op_n of $op_total samples)," \
		"perf $perf_pct%"
	[ "$op_n" -gt 0 ] || show_fail "$tmp/op.err" \
		"opreport named no $what rows"
	python3 - "$what" "$op_pct" "$perf_pct" <<'PY'
import sys
what, op, pf = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
if pf < 20.0:
    sys.exit(f"FAIL: perf gives {what} only {pf:.1f}%: "
             "the workload is not hot enough to compare")
if abs(op - pf) > 5.0:
    sys.exit(f"FAIL: opjit gives {what} {op:.1f}%, perf {pf:.1f}%: "
             "more than 5 points apart")
PY
	echo "$what: opjit and perf agree within 5 points"
}

# check_jitdemo_share WHAT HOT COLD HOT_NS COLD_NS: jit_hot's share of the
# named samples within 3 points of its share of jitdemo's own CPU time in
# the two (the iterations are 3:1, but a busy machine bends the time)
check_jitdemo_share() {
	python3 - "$@" <<'PY'
import sys
what = sys.argv[1]
hot, cold, hot_ns, cold_ns = map(int, sys.argv[2:])
if hot_ns + cold_ns <= 0:
    sys.exit(f"FAIL: {what}: jitdemo reported no CPU time in its functions")
pct = 100.0 * hot / (hot + cold)
truth = 100.0 * hot_ns / (hot_ns + cold_ns)
print(f"{what}: jit_hot {pct:.1f}% of the JIT samples, "
      f"{truth:.1f}% of the workload's own clock")
if abs(pct - truth) > 3.0:
    sys.exit(f"FAIL: {what}: jit_hot at {pct:.1f}%, not within 3 points "
             f"of {truth:.1f}%")
PY
}

# jitdemo_cpu OUT: the "cpu jit_hot NS" and "cpu jit_cold NS" jitdemo
# printed at exit into OUT, as "HOT_NS COLD_NS"
jitdemo_cpu() {
	awk '$1 == "cpu" && $2 == "jit_hot" { h = $3 }
	     $1 == "cpu" && $2 == "jit_cold" { c = $3 }
	     END { if (h == "" || c == "") exit 1; print h, c }' "$1" ||
		show_fail "$1" "jitdemo printed no cpu lines"
}

# jitdemo_so_far PID OUT: ask a running jitdemo (SIGUSR1) for its CPU time
# in each function so far; prints "HOT_NS COLD_NS" once it answered in OUT
jitdemo_so_far() {
	local before n
	before=$(grep -c '^cpu-so-far ' "$2" || true)
	kill -USR1 "$1" || fail "cannot signal jitdemo $1"
	for _ in $(seq 100); do
		n=$(grep -c '^cpu-so-far ' "$2" || true)
		[ "$n" -gt "$before" ] && break
		sleep 0.05
	done
	[ "$n" -gt "$before" ] || show_fail "$2" "jitdemo did not answer SIGUSR1"
	awk '$1 == "cpu-so-far" { l = $2 " " $3 } END { print l }' "$2"
}
