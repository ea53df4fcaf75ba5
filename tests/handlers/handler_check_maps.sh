#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# opjit-handler-check on each shipped handler with maps real JITs wrote:
# perf maps of jitdemo and node's (corpus), a jitdump of jitdumpdemo, the
# jitlog of exprjit (read by jitlog and javamap), a PyPy's map through
# opjit-pypy.  Each map claimed, every address its code still holds
# named (--addr), the maps claimed and resolved from threads at once as
# one thread alone: every rule held.  The perf maps also go to the
# handler written with the handler kit ($1: its directory, libkit.so).
e2e_no_commands=1 # opjit-handler-check alone
. "$(dirname "$0")/e2e_lib.sh"
kit=${1:?usage: handler_check_maps.sh KIT_DIR}
check=$OPJIT_BUILD/handler-api/check/opjit-handler-check
hp=$OPJIT_BUILD/lib/opjit/handlers
w=$OPJIT_BUILD/tests/workloads
dump=$OPJIT_BUILD/bin/opjit-jitlog
for f in "$check" "$w/jitdemo" "$w/jitdumpdemo" "$w/exprjit" "$dump"; do
	[ -x "$f" ] || fail "$f is not built"
done
# tgids past the kernel's pid limit (2^22) for the corpus maps: no live
# process has them
base=$((4194304 + 3000 + $$ % 1000 * 10))

# run NAME HANDLER ADDRS MAP...: every rule held, the addresses named
# (HANDLER: a shipped handler's name, or a path)
run() {
	local name=$1 so=$hp/lib$2.so addrs=$3 rc=0
	[[ $2 != */* ]] || so=$2
	shift 3
	timeout 300 "$check" --timeout=60 --addr="$addrs" "$so" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
	echo "== $name: opjit-handler-check ${so##*/} $*"
	cat "$tmp/$name.out"
	[ "$rc" -eq 0 ] || show_fail "$tmp/$name.err" "$name: status $rc"
	for rule in 'claims a process with the given maps' \
		'resolves a sorted batch soundly' \
		'names every address given with --addr' \
		'claims and resolves from threads at once alike' \
		'releases every state'; do
		grep -q "^held *$rule" "$tmp/$name.out" ||
			fail "$name: '$rule' not held"
	done
}
# addrs FILE: the first field of each line, as a --addr list
addrs() { awk '{ printf "%s%s", (NR > 1 ? "," : ""), $1 }' "$1"; }

# perfmap: two jitdemo runs, and node's own map of the corpus
maps=() list=""
for i in 1 2; do
	"$w/jitdemo" --seconds 0.2 --map-file perf >/dev/null &
	pid=$!
	wait "$pid" || fail "jitdemo failed"
	forget_maps_of "$pid"
	maps+=("/tmp/perf-$pid.map")
	list+=${list:+,}$(addrs "/tmp/perf-$pid.map")
done
grep -v '^ *$' "$here/corpus/perfmap/node.map" | head -n 20 \
	>"$tmp/perf-$base.map"
chmod 0644 "$tmp/perf-$base.map"
maps+=("$tmp/perf-$base.map")
list+=,$(addrs "$tmp/perf-$base.map")
run perfmap perfmap "$list" "${maps[@]}"
run kit "$kit/libkit.so" "$list" "${maps[@]}"

# jitdump: two jitdumpdemo runs; jd_gamma at A and jd_beta, moved to C,
# at their end
maps=() list=""
for i in 1 2; do
	"$w/jitdumpdemo" --seconds 0.3 --dir "$tmp" >"$tmp/jd$i.out" ||
		fail "jitdumpdemo failed"
	jd=$(sed -n 's/^jitdump //p' "$tmp/jd$i.out")
	a=$(sed -n 's/^jit-range \(0x[0-9a-f]*\) .*/\1/p' "$tmp/jd$i.out")
	[ -f "$jd" ] && [ -n "$a" ] ||
		show_fail "$tmp/jd$i.out" "jitdumpdemo: no dump"
	maps+=("$jd")
	list+=${list:+,}$a,$(printf '%x' $((a + 512)))
done
run jitdump jitdump "$list" "${maps[@]}"

# jitlog and javamap: two exprjit runs; the code each log leaves loaded
maps=() list=""
for i in 1 2; do
	"$w/exprjit" 0.3 >/dev/null &
	pid=$!
	wait "$pid" || fail "exprjit failed"
	forget_maps_of "$pid"
	maps+=("/tmp/anon.$pid")
	"$dump" dump "/tmp/anon.$pid" >"$tmp/log$i.txt" ||
		fail "opjit-jitlog dump /tmp/anon.$pid failed"
	live=$(awk '/ load id=/ { for (i = 1; i <= NF; i++)
			if ($i ~ /^addr=/) live[substr($i, 6)] = 1 }
		/ unload id=/ { for (i = 1; i <= NF; i++)
			if ($i ~ /^addr=/) delete live[substr($i, 6)] }
		END { for (a in live) printf "%s,", a }' "$tmp/log$i.txt")
	[ -n "$live" ] || show_fail "$tmp/log$i.txt" "exprjit: no code loaded"
	list+=${list:+,}${live%,}
done
run jitlog jitlog "$list" "${maps[@]}"
run javamap javamap "$list" "${maps[@]}"

# pypy and pypy-loops: a real PyPy's map, when PyPy is here
need_cmd pypy3 pypy3
"$OPJIT_BUILD/bin/opjit-pypy" -c 'import os
s = 0
for i in range(300000):
    s += i % 7
print(os.getpid())' >"$tmp/pp.out" 2>"$tmp/pp.err" ||
	show_fail "$tmp/pp.err" "opjit-pypy failed"
pid=$(cat "$tmp/pp.out")
forget_maps_of "$pid"
awk '$2 == "loop" || $2 == "bridge" { print $4 }' "/tmp/anon.$pid" \
	>"$tmp/pp.addrs"
[ -s "$tmp/pp.addrs" ] || show_fail "/tmp/anon.$pid" "PyPy compiled no loop"
run pypy pypy "$(addrs "$tmp/pp.addrs")" "/tmp/anon.$pid"
run pypy-loops pypy-loops "$(addrs "$tmp/pp.addrs")" "/tmp/anon.$pid"
echo "PASS: every shipped handler held every rule on real maps"
