#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Handlers that crash, hang, exit, answer garbage or reach for the network
# or the file system, on a real session of the JIT demo: each costs one
# line naming the handler, the process and what happened; opreport exits
# 0; the demo's code is still named by perfmap when the bad handler broke
# while claiming, and stays an anonymous bucket when it broke later, with
# every other row as in a report without handlers.  $1: the directory of
# the misbehaving test handlers.
. "$(dirname "$0")/e2e_lib.sh"
bad_dir=${1:?usage: e2e_isolation.sh BAD_HANDLER_DIR}
jitdemo=$OPJIT_BUILD/tests/workloads/jitdemo
[ -x "$jitdemo" ] || fail "$jitdemo is not built"
[ -f "$bad_dir/libsegv-claim.so" ] || fail "$bad_dir has no test handlers"
real=$OPJIT_OPREPORT
hp=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}

# a second of the demo: every check compares a report with another of
# the same session
"$oprofiled" --session-dir="$tmp/s" -- "$jitdemo" --seconds 1 --threads 1 \
	--map-file perf >"$tmp/rec.out" 2>&1 ||
	show_fail "$tmp/rec.out" "oprofiled failed"

# run NAME ARGS...: opreport, bounded in time, status 0, output kept.
# The looping handlers spin a core until the deadline: a second tells a
# hang, and is still many times what perfmap takes on the demo's map.
run() {
	local name=$1; shift
	timeout 120 "$real" --session-dir="$tmp/s" --handler-timeout=1 \
		--handler-path="$bad_dir:$hp" "$@" >"$tmp/$name.out" \
		2>"$tmp/$name.err"
	local rc=$?
	[ "$rc" -ne 124 ] || show_fail "$tmp/$name.err" "$name: opreport hung"
	[ "$rc" -eq 0 ] || show_fail "$tmp/$name.err" "$name: status $rc"
}

# the reference: perfmap alone, and no handler at all
run clean -l --format=json --anon-handler=perfmap
pid=$(report_pids "$tmp/clean.out" | head -n 1)
[ -n "$pid" ] || show_fail "$tmp/clean.out" "perfmap named no JIT code"
forget_maps_of "$pid"
run plain -l --anon-samples

# named REPORT REGEX: samples perfmap named REGEX in a JSON report
named() {
	local n
	read -r n _ _ < <(python3 "$here/report_shares.py" "$tmp/$1.out" \
		"$2" --handler perfmap)
	echo "$n"
}
hot=$(named clean '^jit_hot$')
[ "$hot" -gt 0 ] || fail "clean: perfmap named no jit_hot"

# one line on stderr, matching PATTERN
one_line() {
	grep -Eqx -- "$2" "$tmp/$1.err" ||
		show_fail "$tmp/$1.err" "$1: no line like: $2"
	# (a sanitizer build's runtime may add its own ==PID== lines when
	# a handler calls exit())
	[ "$(grep -Evc '^opreport: [a-z-]*: claimed$|^==[0-9]+==' \
		"$tmp/$1.err")" -eq 1 ] ||
		show_fail "$tmp/$1.err" "$1: more than one line"
}

# broke while claiming: the next handler, perfmap, names the code
for b in "segv-claim:killed by SIGSEGV" "loop-claim:took longer than 1 s" \
	"exit-claim:exited with status [0-9]+" "socket:killed by SIGSYS" \
	"write-file:killed by SIGSYS"; do
	name=${b%%:*} what=${b#*:}
	FAKE_WRITE_PATH=$tmp/written run "$name" -l --format=json \
		--anon-handler="$name,perfmap"
	one_line "$name" "opreport: handler $name $what while claiming tgid \
$pid \(jitdemo\)"
	[ "$(named "$name" '^jit_hot$')" -eq "$hot" ] ||
		fail "$name: perfmap did not name the demo's code as before"
done
[ ! -e "$tmp/written" ] || fail "write-file: the handler wrote a file"

# broke after claiming: the process stays an anonymous bucket, and the
# report is the one without handlers, byte for byte
for b in "segv-resolve:killed by SIGSEGV:resolving" \
	"abort-resolve:killed by SIGABRT:resolving" \
	"loop-resolve:took longer than 1 s:resolving" \
	"null-name:returned a symbol with no name:resolving" \
	"huge-size:returned a symbol of 18446744073709551615 bytes at \
0x[0-9a-f]+:resolving" \
	"segv-release:killed by SIGSEGV:releasing"; do
	IFS=: read -r name what doing <<<"$b"
	run "$name" -l --anon-handler="$name,perfmap"
	one_line "$name" "opreport: handler $name $what while $doing tgid \
$pid \(jitdemo\); its samples stay anonymous"
	# the report, without the naming block that says the handler failed
	awk '/^names of anonymous samples, by process:$/ { exit } { print }' \
		"$tmp/$name.out" | sed '${/^$/d}' >"$tmp/$name.table"
	cmp -s "$tmp/plain.out" "$tmp/$name.table" || {
		diff "$tmp/plain.out" "$tmp/$name.table" | head -n 20 >&2
		fail "$name: the report differs from one without handlers"
	}
	grep -Eq "^tgid $pid \(jitdemo\): [0-9]+ samples, none named: handler $name failed" \
		"$tmp/$name.out" || fail "$name: the naming block does not say the handler failed"
done

# a constructor that crashes: skipped at load, listed as skipped
run ctor -l --format=json --anon-handler=segv-ctor,perfmap
one_line ctor "opreport: skipping handler $bad_dir/libsegv-ctor.so: killed \
by SIGSEGV while loading"
[ "$(named ctor '^jit_hot$')" -eq "$hot" ] ||
	fail "ctor: perfmap did not name the demo's code as before"
run list --list-handlers
one_line list "opreport: skipping handler $bad_dir/libsegv-ctor.so: killed \
by SIGSEGV while loading"
grep -q "^segv-resolve	$bad_dir/libsegv-resolve.so	" "$tmp/list.out" ||
	show_fail "$tmp/list.out" "list: segv-resolve not listed"
grep -q "^perfmap	" "$tmp/list.out" ||
	show_fail "$tmp/list.out" "list: perfmap not listed"
echo "isolation: every misbehaving handler cost one line; reports intact"
