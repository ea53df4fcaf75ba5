#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# First contact, finding 7: -l gave a JIT function a row per code object
# and per process (6 rows for 2 functions of 2 node processes under -m
# all), while diff, folded and pprof give it one.  Now -l groups a JIT's
# rows by name within a process, and across processes under
# --merge=tgid or -m all; the call graph's nodes (-c, --children) too.
. "$(dirname "$0")/lib.sh"
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -f "$HP/libperfmap.so" ] || fail "$HP/libperfmap.so is not built"
mkdir "$TMP/maps"
# fib compiled twice in each process (a second code object at another
# address), loop once
for pid in 300 400; do
	printf '7f0000000100 80 JS:*fib app.js:1:1\n7f0000000180 40 JS:~loop app.js:9:1\n7f0000000400 80 JS:*fib app.js:1:1\n' \
		>"$TMP/maps/perf-$pid.map"
	chmod 644 "$TMP/maps/perf-$pid.map"
done
S=$TMP/s
"$MKSESSION" "$S" <<EOS
separate process
process p 300 $(id -u) node /usr/bin/node start_unix_ns 1 range 0x7f0000000000-0x7f0000100000
process q 400 $(id -u) node /usr/bin/node start_unix_ns 1 range 0x7f0000000000-0x7f0000100000
anon p 1 0x7f0000000100 300
anon p 2 0x7f0000000110 300
anon p 3 0x7f0000000410 300
anon p 4 0x7f0000000180 300
anon q 5 0x7f0000000104 400
anon q 6 0x7f0000000404 400
anon q 7 0x7f0000000408 400
anon q 8 0x7f0000000180 400
archive p $TMP/maps/perf-300.map
archive q $TMP/maps/perf-400.map
EOS
export OPJIT_HANDLER_PATH=$HP
rows() { "$OPREPORT" --session-dir="$S" -l -n --anon-handler=perfmap "$@" 2>/dev/null |
	awk '/^[0-9]/ {print $1, $3, $4, $NF}' | sed 's/ (tgid:/ tgid:/' | sort; }

got=$(rows)
want="1 jit:perfmap tgid:300 app.js:9:1
1 jit:perfmap tgid:400 app.js:9:1
3 jit:perfmap tgid:300 app.js:1:1
3 jit:perfmap tgid:400 app.js:1:1"
[ "$got" = "$want" ] || fail "-l: rows are not one a function and process:
$got"
echo "ok: -l: one row a function within a process"

for m in "-m all" "--merge=tgid"; do
	# shellcheck disable=SC2086
	got=$("$OPREPORT" --session-dir="$S" -l -n --anon-handler=perfmap $m 2>/dev/null |
		awk '/^[0-9]/ {print $1, $3, $4, $5, $6}' | sort)
	want="2 jit:perfmap (node) JS:~loop app.js:9:1
6 jit:perfmap (node) JS:*fib app.js:1:1"
	[ "$got" = "$want" ] || fail "$m: rows are not one a function:
$got"
	echo "ok: -l $m: one row a function across processes"
done

# -d keeps every address of a merged row under it
n=$("$OPREPORT" --session-dir="$S" -l -d -n -m all --anon-handler=perfmap 2>/dev/null |
	awk '/JS:\*fib/ {in_fib=1; next} /^[0-9]/ {in_fib=0} in_fib && /^ / {n++} END {print n + 0}')
[ "$n" = 6 ] || fail "-d -m all: fib has $n addresses, not 6"
echo "ok: -d: the merged row keeps its addresses"

# the call graph: fib's two code objects are one node, and under -m all
# one node for both processes
S=$TMP/cg
"$MKSESSION" "$S" <<EOS
callgraph 127
process p 300 $(id -u) node /usr/bin/node start_unix_ns 1 range 0x7f0000000000-0x7f0000100000
process q 400 $(id -u) node /usr/bin/node start_unix_ns 1 range 0x7f0000000000-0x7f0000100000
anon p 1 0x7f0000000110 300
anon p 2 0x7f0000000410 300
anon q 3 0x7f0000000410 400
stack s1 anon:0x7f0000000110 anon:0x7f0000000181
stack s2 anon:0x7f0000000410 anon:0x7f0000000181
anonstack p 1 s1 300
anonstack p 2 s2 300
anonstack q 3 s2 400
archive p $TMP/maps/perf-300.map
archive q $TMP/maps/perf-400.map
EOS
got=$("$OPREPORT" --session-dir="$S" --children -n --anon-handler=perfmap 2>/dev/null |
	awk '/^[0-9]/ {print $1, $3, $6, $NF}' | sort)
want="1 0 (tgid:400 app.js:9:1
1 1 (tgid:400 app.js:1:1
2 0 (tgid:300 app.js:9:1
2 2 (tgid:300 app.js:1:1"
[ "$got" = "$want" ] || fail "--children: not one node a function and process:
$got"
got=$("$OPREPORT" --session-dir="$S" --children -n -m all --anon-handler=perfmap 2>/dev/null |
	awk '/^[0-9]/ {print $1, $3, $5, $6, $NF}' | sort)
want="3 0 jit:perfmap (node) app.js:9:1
3 3 jit:perfmap (node) app.js:1:1"
[ "$got" = "$want" ] || fail "--children -m all: not one node a function:
$got"
echo "ok: the call graph: one node a JIT function"
