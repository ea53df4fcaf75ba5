#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Pid reuse without an archived copy: the session recorded a process that
# started ten minutes ago, and its pid now belongs to a later, live
# process that wrote /tmp/perf-PID.map.  The live map is the later
# process's and must be refused, naming the rule; the session's own copy,
# taken while the recorded process ran, is still used.
. "$(dirname "$0")/e2e_lib.sh"
mksession=$OPJIT_BUILD/tests/opreport/mksession
[ -x "$mksession" ] || fail "$mksession is not built"

# the later process: alive, with a start time of now, and a pid no map
# in /tmp names yet (a map some other run left there would be a second
# refusal)
sleepers=
trap 'kill $sleepers 2>/dev/null; rm -rf "$tmp"; rm -f "${cleanup[@]}"' EXIT
for _ in $(seq 20); do
	sleep 60 &
	later=$!
	sleepers="$sleepers $later"
	[ -e "/tmp/perf-$later.map" ] || [ -e "/tmp/anon.$later" ] || break
done
map=/tmp/perf-$later.map
[ ! -e "$map" ] && [ ! -e "/tmp/anon.$later" ] ||
	fail "every pid tried has a map in /tmp; remove them and run again"
forget_maps_of "$later"
printf '7e0000000000 100 later_process_fn\n' >"$map"
chmod 0644 "$map"

# session S: the earlier holder of the pid, ten minutes ago
start=$(( ($(date +%s) - 600) * 1000000000 ))
session() {
	"$mksession" "$tmp/$1" <<EOS
process a $later $(id -u) oldjit /usr/bin/oldjit start_unix_ns $start range 0x7e0000000000-0x7e0000010000
anon a 1 0x7e0000000010 $later
anon a 2 0x7e0000000020 $later
$2
EOS
}

session plain ""
"$opreport" --session-dir="$tmp/plain" -l --anon-handler=perfmap \
	>"$tmp/plain.txt" 2>"$tmp/plain.err" ||
	show_fail "$tmp/plain.err" "opreport failed"
want="opreport: perfmap: $map: written after pid $later went to a later \
process (trust rule: map newer than the process)"
grep -qxF -- "$want" "$tmp/plain.err" ||
	show_fail "$tmp/plain.err" "no refusal of the later process's map"
grep -qxF -- "opreport: tgid $later (oldjit): 2 of 2 JIT samples unnamed: \
2 map refused" "$tmp/plain.err" ||
	show_fail "$tmp/plain.err" "no summary line for the refused map"
[ "$(wc -l <"$tmp/plain.err")" -eq 2 ] ||
	show_fail "$tmp/plain.err" "more lines than the refusal and summary"
if grep -q later_process_fn "$tmp/plain.txt"; then
	show_fail "$tmp/plain.txt" "samples named from the later process's map"
fi
echo "ok: $want"

# the session's copy of the map, taken while the process ran, is trusted
mkdir "$tmp/copy"
printf '7e0000000000 100 recorded_fn\n' >"$tmp/copy/perf-$later.map"
chmod 0644 "$tmp/copy/perf-$later.map"
session archived "archive a $tmp/copy/perf-$later.map"
"$opreport" --session-dir="$tmp/archived" -l --anon-handler=perfmap \
	>"$tmp/arch.txt" 2>"$tmp/arch.err" ||
	show_fail "$tmp/arch.err" "opreport failed"
grep -Eq "^2 .* recorded_fn$" "$tmp/arch.txt" ||
	show_fail "$tmp/arch.txt" "the session's copy did not name the samples"
[ ! -s "$tmp/arch.err" ] ||
	show_fail "$tmp/arch.err" "warnings with the session's own copy"
echo "ok: the session's copy names the samples"
