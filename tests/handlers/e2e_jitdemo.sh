#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The bundled JIT demo through oprofiled, opreport and the perfmap handler:
# jit_hot/jit_cold must come out as the demo's own clock splits them
# (75/25 on an idle machine) within 3 points, with
# the map in either file name, from the session's copy once /tmp is
# cleaned, and never from a map that fails the trust rules.
. "$(dirname "$0")/e2e_lib.sh"
jitdemo=$OPJIT_BUILD/tests/workloads/jitdemo
[ -x "$jitdemo" ] || fail "$jitdemo is not built"

# record NAME MAPFILE [SECONDS]: profile the demo (3 s of its CPU, or
# SECONDS) into session $tmp/NAME
record() {
	"$oprofiled" --session-dir="$tmp/$1" -- "$jitdemo" --seconds "${3:-3}" \
		--threads 1 --map-file "$2" >"$tmp/$1.out" 2>&1 ||
		show_fail "$tmp/$1.out" "oprofiled failed ($2 map)"
}

# report NAME [OPTIONS...]: JSON report into $tmp/NAME.json, stderr kept
report() {
	local name=$1; shift
	"$opreport" --session-dir="$tmp/$name" -l --format=json "$@" \
		>"$tmp/$name.json" 2>"$tmp/$name.err" ||
		show_fail "$tmp/$name.err" "opreport failed on $name"
}

# named NAME REGEX: how many samples perfmap named REGEX
named() {
	local n
	read -r n _ _ < <(python3 "$here/report_shares.py" "$tmp/$1.json" \
		"$2" --handler perfmap)
	echo "$n"
}

# check_truth NAME: jit_hot/jit_cold as the demo's own clock split them
# (75/25 on an idle machine) within 3 points
check_truth() {
	local hot cold cpu
	hot=$(named "$1" '^jit_hot$')
	cold=$(named "$1" '^jit_cold$')
	[ "$hot" -gt 0 ] && [ "$cold" -gt 0 ] ||
		fail "$1: jit_hot ($hot) and jit_cold ($cold) not both named"
	cpu=$(jitdemo_cpu "$tmp/$1.out")
	check_jitdemo_share "$1" "$hot" "$cold" $cpu
}

# one_line NAME PATTERN WHAT: NAME's stderr is exactly one line, PATTERN,
# besides the summary of unnamed samples (see unnamed_line)
one_line() {
	grep -v ' JIT samples unnamed: ' "$tmp/$1.err" >"$tmp/$1.err1" || true
	grep -qx -- "$2" "$tmp/$1.err1" || show_fail "$tmp/$1.err" "no line $3"
	[ "$(wc -l <"$tmp/$1.err1")" -eq 1 ] ||
		show_fail "$tmp/$1.err" "more than one line $3"
}

# unnamed_line NAME PID REASON: the one summary line for PID says all its
# unnamed samples were left so for REASON; prints how many
unnamed_line() {
	local line n
	line=$(grep -E "^opreport: tgid $2 \(jitdemo\): [0-9]+ of [0-9]+ JIT \
samples unnamed: [0-9]+ $3\$" "$tmp/$1.err") ||
		show_fail "$tmp/$1.err" "$1: no summary '... unnamed: N $3'"
	n=${line##*unnamed: }
	echo "${n%% *}"
}

for kind in anon perf; do
	record "$kind" "$kind"
	report "$kind" --anon-handler=perfmap
	pids=$(report_pids "$tmp/$kind.json")
	[ -n "$pids" ] || fail "$kind: no JIT rows in the report"
	forget_maps_of $pids
	check_truth "$kind"
	[ ! -s "$tmp/$kind.err" ] ||
		show_fail "$tmp/$kind.err" "$kind: warnings about a clean run"
done

# the session keeps a copy: the report still names the code once the
# map in /tmp is gone (the one our own demo wrote)
rm -f "/tmp/anon.$(report_pids "$tmp/anon.json" | head -n 1)"
report anon --anon-handler=perfmap
check_truth anon

# trust: a world-writable map, and one older than the process, are
# refused with one line each and leave the samples as buckets
# A map left in /tmp by an earlier process that had the demo's pid (pids
# wrap at 32768 within one CI run) is not ours to remove: the demo runs
# again, under a new pid, up to three times.
# Its checks compare counts of the same session's samples, so a second
# of the demo (two thousand samples of each half) is enough.
for try in 1 2 3; do
	record none none 1
	report none --anon-samples
	pid=$(report_pids "$tmp/none.json" | head -n 1)
	[ -n "$pid" ] || fail "no anonymous bucket for the demo without a map"
	map=/tmp/perf-$pid.map
	in_way=
	for f in "$map" "/tmp/anon.$pid"; do
		[ ! -e "$f" ] || in_way=$f
	done
	[ -n "$in_way" ] || break
	echo "e2e_jitdemo: $in_way, left by an earlier process with the" \
		"demo's pid $pid, is in the way (try $try of 3)"
done
[ -z "$in_way" ] || fail "$in_way, left by an earlier process with the" \
	"demo's pid, is in the way three times; remove it and run again"
forget_maps_of "$pid"
printf '0 ffffffffffff0000 planted_name\n' >"$map"
chmod 0666 "$map"
report none --anon-handler=perfmap
one_line none "opreport: perfmap: $map: writable by group or others \
(trust rule: mode)" "refusing the world-writable $map"
unnamed_line none "$pid" "map refused" >/dev/null
[ "$(named none planted_name)" -eq 0 ] ||
	fail "samples were named from the world-writable $map"

chmod 0644 "$map"
touch -d '2 hours ago' "$map"
report none --anon-handler=perfmap
one_line none "opreport: perfmap: $map: last modified before the process \
started, pid reused? (trust rule: map older than the process)" \
	"refusing the stale $map"
unnamed_line none "$pid" "map refused" >/dev/null
[ "$(named none planted_name)" -eq 0 ] ||
	fail "samples were named from the stale $map"
# nobody claimed the process: its samples stay an anonymous bucket
read -r n total _ < <(python3 "$here/report_shares.py" "$tmp/none.json" \
	'' --kind anon)
[ "$((n * 100))" -ge "$((total * 90))" ] ||
	fail "unclaimed process: only $n of $total samples in anon buckets"

# a trusted map that names only the first half of the code (jit_hot's
# slot): the rest of the process's JIT samples stay in its (unknown) row,
# exactly as many as a full map of the same session names jit_cold
read -r _ start end < <(grep -m1 '^jit-range ' "$tmp/none.out")
[ -n "$end" ] || show_fail "$tmp/none.out" "the demo printed no jit-range"
slot=$(((end - start) / 2))
printf '%x %x jit_hot\n%x %x jit_cold\n' "$((start))" "$slot" \
	"$((start + slot))" "$slot" >"$map"
report none --anon-handler=perfmap
hot=$(named none '^jit_hot$')
cold=$(named none '^jit_cold$')
printf '%x %x half_named\n' "$((start))" "$slot" >"$map"
report none --anon-handler=perfmap
# no warning, only the summary: every unnamed sample had no map entry
no_entry=$(unnamed_line none "$pid" "no entry")
[ "$(wc -l <"$tmp/none.err")" -eq 1 ] ||
	show_fail "$tmp/none.err" "warnings about a trusted map"
half=$(named none '^half_named$')
unknown=$(named none '^\(unknown\)$')
[ "$half" -gt 0 ] && [ "$unknown" -gt 0 ] ||
	fail "half map: half_named ($half), (unknown) ($unknown)"
[ "$no_entry" -eq "$unknown" ] ||
	fail "half map: summary says $no_entry without an entry, report $unknown"
echo "half map: half_named $half, (unknown) $unknown; full map: jit_hot $hot, jit_cold $cold"
[ "$half" -eq "$hot" ] && [ "$unknown" -eq "$cold" ] ||
	fail "half map: half_named $half and (unknown) $unknown, not the full map's $hot and $cold"

# a handler name the search path does not hold (a typing mistake): one
# line that lists the names it does, and exit status 1
if "$opreport" --session-dir="$tmp/perf" -l --anon-handler=nosuch,perfmap \
	>"$tmp/nosuch.out" 2>"$tmp/nosuch.err"; then
	show_fail "$tmp/nosuch.err" "a missing handler exited 0"
fi
one_line nosuch "opreport: unknown handler 'nosuch': expected one of auto, .*perfmap.*" \
	"for the missing handler"

# a bad name is refused in one line naming it, before any lookup (opreport
# may treat it as an option error and stop, or skip it and go on)
"$opreport" --session-dir="$tmp/perf" -l --anon-handler=../x \
	>"$tmp/bad.out" 2>"$tmp/bad.err" || true
one_line bad "opreport: invalid handler name '\.\./x': .*" \
	"for the bad handler name ../x"
echo "jitdemo: its own clock's split within 3 points, from /tmp and the session;" \
	"untrusted maps refused"
