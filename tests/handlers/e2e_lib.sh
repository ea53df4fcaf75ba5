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
trap 'e2e_forget_jit_maps "${recorded[@]}"; rm -rf "$tmp"; e2e_rm_maps "${cleanup[@]}"' EXIT

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

# perf_share REPORT.txt REGEX: the percent and the samples of perf's rows
# matching REGEX (a report of perf report -n)
perf_share() {
	python3 - "$1" "$2" <<'PY'
import re, sys
pat, pct, n = re.compile(sys.argv[2]), 0.0, 0
for line in open(sys.argv[1]):
    m = re.match(r"\s*([\d.]+)%\s+(\d+)\s+\[\.\]\s+(.*?)\s*$", line)
    if m and pat.search(m.group(3)):
        pct += float(m.group(1))
        n += int(m.group(2))
print(f"{pct:.2f} {n}")
PY
}

# compare_with_perf WHAT REGEX CMD...: profile one run of CMD with opjit
# (perfmap handler) and with perf at once, at the same rate; the samples
# of the rows named REGEX must agree within 10% (the two timers drift
# apart by a few percent on a busy machine), and their shares within 5
# points.  One run for both, so that what a busy machine does to the
# runtime (its compiler's and collector's threads against the workload's)
# is the same in both, and the same CPU time is sampled.
compare_with_perf() {
	local what=$1 re=$2 op_n op_total op_pct perf_pct perf_n pids; shift 2

	# The workload stops itself before its exec, perf attaches to it
	# (perf cannot read a recording of oprofiled itself) and says when
	# its events are on, and only then does the workload go on: both see
	# its whole life from the exec.
	"$oprofiled" --session-dir="$tmp/s" -- \
		sh -c 'kill -STOP $$; exec "$@"' sh "$@" >"$tmp/op.out" 2>&1 &
	local op=$! child="" perf i ack=""
	for i in $(seq 200); do
		child=$(pgrep -P "$op" || true)
		[ -n "$child" ] &&
			[ "$(awk '{ print $3 }' "/proc/$child/stat" 2>/dev/null)" = T ] &&
			break
		child=""
		sleep 0.05
	done
	[ -n "$child" ] || {
		kill "$op"
		show_fail "$tmp/op.out" "the workload did not start"
	}
	mkfifo "$tmp/perf.ctl" "$tmp/perf.ack"
	perf record -q --control="fifo:$tmp/perf.ctl,$tmp/perf.ack" \
		--no-buildid --no-buildid-cache -e cpu-clock -F 4000 \
		-o "$tmp/perf.data" -p "$child" >"$tmp/perf.out" 2>&1 &
	perf=$!
	# perf answers a ping once its events are on; a perf that died opens
	# neither fifo, and the timeouts keep us from waiting on it for ever.
	# (Not -D -1 and "enable": perf 6.1 then cannot read a JVM's
	# recording back.)
	timeout 60 sh -c 'echo ping >"$1"' sh "$tmp/perf.ctl" || true
	ack=$(timeout 60 head -c 3 "$tmp/perf.ack" || true)
	kill -CONT "$child"
	[ "$ack" = ack ] || show_fail "$tmp/perf.out" "perf did not answer its ping"
	wait "$op" || show_fail "$tmp/op.out" "oprofiled failed"
	wait "$perf" || show_fail "$tmp/perf.out" "perf record failed"
	[ -s "$tmp/perf.data" ] || show_fail "$tmp/perf.out" "perf recorded nothing"
	"$opreport" --session-dir="$tmp/s" -l --format=json \
		--anon-handler=perfmap >"$tmp/op.json" 2>"$tmp/op.err" ||
		show_fail "$tmp/op.err" "opreport failed"
	pids=$(report_pids "$tmp/op.json" | paste -sd, -)
	[ -n "$pids" ] || show_fail "$tmp/op.err" "opreport named no process"
	forget_maps_of ${pids//,/ }
	read -r op_n op_total op_pct < <(python3 "$here/report_shares.py" \
		"$tmp/op.json" "$re" --handler perfmap)

	perf_reads "$tmp/perf.txt" "$tmp/perf.err" perf report \
		-i "$tmp/perf.data" --stdio -n --sort sym --no-children \
		--pid="$pids" --percentage=relative
	read -r perf_pct perf_n < <(perf_share "$tmp/perf.txt" "$re")

	echo "$what: opjit $op_n samples ($op_pct% of $op_total)," \
		"perf $perf_n ($perf_pct%), the same run"
	[ "$op_n" -gt 0 ] || show_fail "$tmp/op.err" \
		"opreport named no $what rows"
	python3 - "$what" "$op_n" "$perf_n" "$op_pct" "$perf_pct" <<'PY'
import sys
what, op, pf = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
op_pct, pf_pct = float(sys.argv[4]), float(sys.argv[5])
if pf < 200:
    sys.exit(f"FAIL: perf gives {what} only {pf} samples: "
             "the workload is not hot enough to compare")
if abs(op - pf) > 0.10 * pf:
    sys.exit(f"FAIL: opjit gives {what} {op} samples, perf {pf}: "
             "more than 10% apart")
if abs(op_pct - pf_pct) > 5.0:
    sys.exit(f"FAIL: opjit gives {what} {op_pct:.1f}%, perf {pf_pct:.1f}%: "
             "more than 5 points apart")
PY
	echo "$what: opjit and perf agree within 10% of the samples and 5 points"
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
