#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Samples in JIT code land in the process's anonymous stream, at addresses
# inside the range the JIT printed and with the thread ids it printed; the
# JIT's map is archived unchanged (and not with --no-archive-maps).
. "$(dirname "$0")/lib.sh"

jit=$WORKLOADS/jitdemo
[ "$(uname -m)" = x86_64 ] || skip "jitdemo writes x86-64 code; this is $(uname -m)"
cd "$WORK"
"$OPROFILED" --session-dir=s -- "$jit" --seconds 2 --threads 2 >out.txt 2>err.txt ||
	fail "oprofiled exited $?: $(cat err.txt)"
check_summary err.txt
read -r _ lo hi <<<"$(grep '^jit-range ' out.txt)"
[ -n "$hi" ] || fail "jitdemo printed no range: $(cat out.txt)"
mapfile -t tids < <(awk '$1 == "thread" { print $2 }' out.txt)
[ "${#tids[@]}" -eq 2 ] || fail "jitdemo printed ${#tids[@]} threads, not 2"
dump s >d.txt

# the jitdemo process: the one whose exe is the workload
read -r proc tgid <<<"$(awk -v e="$jit" '$1 == "process" && $8 == e { print $2, $3; exit }' d.txt)"
[ -n "$proc" ] || fail "no process record for jitdemo"
map=/tmp/anon.$tgid
[ -f "$map" ] || fail "jitdemo left no $map"
trap 'rm -f "$map"; cleanup' EXIT

awk -v p="$proc" -v lo=$((lo)) -v hi=$((hi)) -v tids="${tids[*]}" '
	BEGIN { n = split(tids, t, " "); for (i = 1; i <= n; i++) ok[t[i]] = 1 }
	$1 == "anon" && $2 == p {
		a = $4 + 0; total++
		if (a < lo || a >= hi) bad_addr++
		if (!($5 in ok)) bad_tid++
		seen[$5]++
		if (a - lo < 64) hot++; else cold++
	}
	END {
		printf "%d anon samples, %d outside the range, %d of other threads\n", total, bad_addr, bad_tid
		if (total < 200) exit 1
		if (bad_addr || bad_tid) exit 1
		for (i = 1; i <= n; i++) if (seen[t[i]] < 20) { print "thread " t[i] " has " seen[t[i]] + 0 " samples"; exit 1 }
		share = hot * 1000 / (hot + cold)
		printf "jit_hot %.1f%%\n", share / 10
		if (share < 720 || share > 780) exit 1
	}' d.txt || fail "anonymous samples do not match what jitdemo printed"

# its start time: before its first sample, in both clocks
awk -v p="$proc" '
	$1 == "info" && $2 == "start_ns" { s0 = $3 }
	$1 == "process" && $2 == p { mono = $10; wall = $11 }
	$1 == "anon" && $2 == p && (!first || $3 < first) { first = $3 }
	END {
		if (mono <= 0 || mono > first) exit 1
		# forked a moment before recording started
		if (mono < s0 - 5e9) exit 1
	}' d.txt || fail "implausible start time: $(grep '^process' d.txt)"
wall=$(awk -v p="$proc" '$1 == "process" && $2 == p { print int($11 / 1e9) }' d.txt)
now=$(date +%s)
[ $((now - wall)) -ge 0 ] && [ $((now - wall)) -lt 60 ] ||
	fail "wall-clock start $wall is not within the last minute ($now)"

# the process identity, and its range
awk -v p="$proc" -v t="$tgid" -v u="$(id -u)" '
	$1 == "process" && $2 == p { found = 1; if ($4 != t || $5 != u || $7 != "jitdemo") exit 1 }
	END { exit !found }' d.txt || fail "wrong identity: $(grep '^process' d.txt)"
awk -v p="$proc" -v lo=$((lo)) -v hi=$((hi)) '
	$1 == "range" && $2 == p && $3 + 0 <= lo && $4 + 0 >= hi { ok = 1 }
	END { exit !ok }' d.txt || fail "no anonymous range covering the JIT code"

# the archived map is the original compressed (gzip reads it back byte
# for byte), and the original is kept
copy=$(awk -v p="$proc" '$1 == "archived" && $2 == p && $3 ~ /anon\./ { print $3 }' d.txt)
[ -n "$copy" ] || fail "the JIT map was not archived"
case $copy in /*) ;; *) copy=$WORK/$copy ;; esac
case $copy in *.gz) ;; *) fail "archived map $copy is not compressed" ;; esac
gzip -dc "$copy" | cmp -s - "$map" || fail "archived map $copy differs from $map"
rm -f "$map"

"$OPROFILED" --session-dir=n --no-archive-maps -- "$jit" --seconds 1 >out2.txt 2>err2.txt ||
	fail "oprofiled --no-archive-maps exited $?: $(cat err2.txt)"
tgid2=$(awk '$1 == "process" { print $3; exit }' <(dump n))
rm -f "/tmp/anon.$tgid2"
dump n | grep -q '^archived' && fail "--no-archive-maps still archived a map"

# the size cap: a map above it is left out, with a note naming it
"$OPROFILED" --session-dir=c --archive-max=0 -- "$jit" --seconds 0.5 >out3.txt 2>err3.txt ||
	fail "oprofiled --archive-max=0 exited $?: $(cat err3.txt)"
tgid3=$(awk '$1 == "process" { print $3; exit }' <(dump c))
rm -f "/tmp/anon.$tgid3"
grep -qx "oprofiled: not archiving /tmp/anon.$tgid3: larger than 0 MiB" err3.txt ||
	fail "no note about the map above the cap: $(cat err3.txt)"
dump c | grep -q '^archived' && fail "a map above --archive-max was archived"
echo pass
