#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Time in reports: jitdemo --phases 1 runs jit_hot alone, then jit_cold
# alone, and prints when it switched.
#  - --time windows of 5% of the session each place the switch (where
#    jit_hot's share of the two crosses a half) within 5% of the
#    session's length of the time the workload printed;
#  - --time from the start to the switch gives jit_hot above 95% of the
#    two loops' samples, --time from the switch to the end jit_cold above
#    95% (of the loops': the kernel's share of the process grows on a
#    busy machine);
#  - the call graph (-g: stack counts by slice, stack samples by time)
#    and the timeline hold as many samples as the flat report in a range,
#    in each 5% window too (edges anywhere in a slice);
#  - timeline-csv adds up to the report's samples, and holds the
#    process's samples in the buckets up to the switch and after it;
#  - a bad --time value is one line; a session written before time
#    slices keeps its counted samples out of a --time report, said once.
. "$(dirname "$0")/lib.sh"
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
export OPJIT_HANDLER_PATH=$HP
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
JIT=$OPJIT_BUILD/tests/workloads/jitdemo
[ "$(uname -m)" = x86_64 ] || { echo "SKIP: jitdemo writes x86-64 code"; exit 77; }
[ -x "$OPROFILED" ] && [ -x "$JIT" ] || fail "oprofiled or jitdemo is not built"

# jitdemo's maps, by the pids its sessions archived: no other test's
cleanup_maps() {
	e2e_forget_jit_maps "$TMP/s"
	rm -rf "$TMP"
}
trap cleanup_maps EXIT

S=$TMP/s
timeout 60 "$OPROFILED" -g --session-dir="$S" -- "$JIT" --seconds 3 --phases 1 \
	>"$TMP/jit.out" 2>"$TMP/jit.err" || { cat "$TMP/jit.err"; fail "oprofiled failed"; }
switch=$(awk '$1 == "phase-switch" { print $2 }' "$TMP/jit.out")
start=$(awk '$1 == "start_ns" { print $2 }' "$S/session.meta")
stop=$(awk '$1 == "stop_ns" { print $2 }' "$S/session.meta")
[ -n "$switch" ] && [ -n "$start" ] && [ "${stop:-0}" -gt "$start" ] ||
	fail "no phase-switch line or no session times"
# (awk, as below, rather than python3: a python3 start costs a tenth of
# a second of CPU, and this test made thirty of them)
sw=$(awk -v d=$((switch - start)) 'BEGIN { printf "%.3f", d / 1e9 }')
len=$(awk -v d=$((stop - start)) 'BEGIN { printf "%.3f", d / 1e9 }')
echo "session ${len} s, switch at ${sw} s"

# report ARGS...: jit_hot and jit_cold samples and all samples, one line
report() {
	"$OPREPORT" --session-dir="$S" --anon-handler=perfmap -l --format=csv \
		"$@" >"$TMP/r.csv" 2>"$TMP/r.err" || { cat "$TMP/r.err"; fail "opreport $* failed"; }
	# opreport quotes a field only when it holds a comma, a quote or a
	# line break, which jit_hot, jit_cold and the counts never do
	awk -F, '$1 == "symbol" { n = $2 + 0; total += n
			if ($NF == "jit_hot") hot += n; if ($NF == "jit_cold") cold += n }
		END { print hot + 0, cold + 0, total + 0 }' "$TMP/r.csv"
}
# the symbol rows' columns: the name is the last
# (the whole output first: grep -q leaving a pipe early fails it under pipefail)
csv=$("$OPREPORT" --session-dir="$S" --anon-handler=perfmap -l --format=csv 2>/dev/null)
grep -q '^symbol,.*,jit_hot$' <<<"$csv" || fail "csv rows do not end in the symbol name"

# folded ARGS...: the samples of the folded stacks
folded() {
	"$OPREPORT" --session-dir="$S" --anon-handler=perfmap --format=folded "$@" 2>/dev/null |
		awk '{ n += $NF } END { print n + 0 }'
}

# the switch from 5% windows: where jit_hot's share of the two crosses 1/2
est=
for i in $(seq 0 19); do
	w=--time=$((5 * i))%-$((5 * i + 5))%
	read -r hot cold total < <(report "$w")
	f=$(folded "$w")
	echo "window $((5 * i))%-$((5 * i + 5))%: jit_hot $hot, jit_cold $cold, all $total, folded $f"
	[ "$f" = "$total" ] || fail "$w: folded $f, flat $total samples"
	if [ -z "$est" ] && [ $((hot + cold)) -gt 0 ] && [ "$cold" -gt "$hot" ]; then
		# within the window, the switch is after jit_hot's part of it
		est=$(awk "BEGIN { printf \"%.3f\", $len * (0.05 * $i + 0.05 * $hot / ($hot + $cold)) }")
	fi
done
[ -n "$est" ] || fail "no window where jit_cold leads"
awk "BEGIN { d = $est - $sw; exit (d < 0 ? -d : d) > 0.05 * $len }" ||
	fail "the timeline switches at $est s, the workload at $sw s (more than 5% of $len s apart)"
echo "ok: the timeline switches at $est s, the workload at $sw s"

read -r hot cold total < <(report --time=0,"$sw")
awk "BEGIN { exit !($hot > 0.95 * ($hot + $cold)) }" ||
	fail "--time=0,$sw: jit_hot $hot of $((hot + cold)) samples in the loops ($total in all)"
echo "ok: --time=0,$sw: jit_hot $hot of $((hot + cold)) samples in the loops ($total in all)"
folded=$(folded --time=0,"$sw")
timeline=$("$OPREPORT" --session-dir="$S" --format=timeline-csv --time=0,"$sw" 2>/dev/null |
	awk -F, 'NR > 1 { n += $4 } END { print n + 0 }')
# a sample's stack is in its flat count's slice, and a range takes both
# or neither, whatever the range's edge cuts
[ "$folded" = "$total" ] && [ "$timeline" = "$total" ] ||
	fail "--time=0,$sw: folded $folded, timeline $timeline, flat $total samples"
echo "ok: --time=0,$sw: folded $folded, timeline $timeline, flat $total samples"
read -r hot cold total < <(report --time="$sw",)
awk "BEGIN { exit !($cold > 0.95 * ($hot + $cold)) }" ||
	fail "--time=$sw,: jit_cold $cold of $((hot + cold)) samples in the loops ($total in all)"
echo "ok: --time=$sw,: jit_cold $cold of $((hot + cold)) samples in the loops ($total in all)"

# the timeline export: all samples, JIT process before and after the switch
"$OPREPORT" --session-dir="$S" --format=timeline-csv >"$TMP/tl.csv" 2>"$TMP/tl.err" ||
	{ cat "$TMP/tl.err"; fail "timeline-csv failed"; }
"$OPREPORT" --session-dir="$S" --format=timeline-json >"$TMP/tl.json" 2>"$TMP/tl.err" ||
	{ cat "$TMP/tl.err"; fail "timeline-json failed"; }
read -r _ _ total < <(report)
python3 - "$TMP/tl.csv" "$TMP/tl.json" "$total" "$sw" <<'EOP' || fail "the timeline export is wrong"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
j = json.load(open(sys.argv[2]))
total, sw = int(sys.argv[3]), float(sys.argv[4])
s = sum(int(r["samples"]) for r in rows)
sj = sum(b[2] for b in j["buckets"])
jit = [r for r in rows if r["process"] == "jitdemo"]
before = sum(int(r["samples"]) for r in jit if float(r["time_s"]) + 0.1 <= sw)
after = sum(int(r["samples"]) for r in jit if float(r["time_s"]) >= sw)
ok = s == total and sj == total and before > 0 and after > 0 and j["bucket_s"] == 0.1
print("%s: timeline %d (csv) %d (json) samples, report %d; jitdemo %d before, %d after the switch"
      % ("ok" if ok else "FAIL", s, sj, total, before, after))
sys.exit(not ok)
EOP

# bad values: one line each, nothing else
for bad in 5,1 abc 10%-200% 1,2,3 -1,2 10%-5% , 1e3,2; do
	if "$OPREPORT" --session-dir="$S" --time="$bad" >"$TMP/out" 2>"$TMP/err"; then
		fail "--time=$bad was taken"
	fi
	[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "^opreport: invalid --time '$bad': " "$TMP/err" ||
		{ cat "$TMP/err"; fail "--time=$bad: not one line"; }
	[ ! -s "$TMP/out" ] || fail "--time=$bad wrote a report"
done
echo "ok: bad --time values: one line each ($(cat "$TMP/err"))"

# a session written before time slices: counted samples left out, said once
O=$TMP/old
"$MKSESSION" "$O" <<'EOS'
image app file /usr/bin/app
ctx c app app
hist c 0x10 7
stop_ns 2000000000
EOS
"$OPREPORT" --session-dir="$O" --time=0,1 >"$TMP/out" 2>"$TMP/said" || { cat "$TMP/said"; fail "old session with --time failed"; }
[ "$(grep -c 'without a time' "$TMP/said")" = 1 ] || { cat "$TMP/said"; fail "old session: not said once"; }
grep -q 'app' "$TMP/out" && fail "old session: untimed samples counted in a --time report"
"$OPREPORT" --session-dir="$O" >"$TMP/out" 2>"$TMP/err" || fail "old session without --time failed"
grep -q '7 .*app' "$TMP/out" || { cat "$TMP/out"; fail "old session: its samples are gone without --time"; }
echo "ok: a session without time slices: $(cat "$TMP/said")"
