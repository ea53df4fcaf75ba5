#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# -l --children: the cumulative column perf users expect, from the call
# graph: each function with the samples on whose stacks it is beside its
# own, most first (main twice: its own application's, and under the
# JIT code of the node process); a session without call chains is
# refused in one line.
. "$(dirname "$0")/lib.sh"
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -f "$HP/libperfmap.so" ] || fail "$HP/libperfmap.so is not built"
export OPJIT_HANDLER_PATH=$HP
APP=$RT/rt_g_pie
mkdir "$TMP/maps"
printf '7f0000000100 80 JS:*fib\n7f0000000200 80 JS:~loop\n' >"$TMP/maps/perf-300.map"
chmod 644 "$TMP/maps/perf-300.map"
S=$TMP/s
"$MKSESSION" "$S" <<EOS
callgraph 127
image app file $APP
ctx a app app
hist a $(off "$APP" rt_alpha) 30
hist a $(off "$APP" rt_gamma) 10
hist a $(off "$APP" rt_local_beta) 5
stack s1 app:$(off "$APP" rt_alpha) app:$(ret main)
stack s2 app:$(off "$APP" rt_gamma) app:$(ret main)
stack s3 app:$(off "$APP" rt_local_beta) app:$(ret rt_gamma) app:$(ret main)
stack s6 anon:0x7f0000000110 anon:0x7f0000000211 app:$(ret main)
stackhist a s1 30
stackhist a s2 10
stackhist a s3 5
process p 300 $(id -u) node /usr/bin/node start_unix_ns 1 range 0x7f0000000000-0x7f0000100000
anon p 1 0x7f0000000110 300
anon p 2 0x7f0000000110 300
anonstack p 1 s6 300
anonstack p 2 s6 300
archive p $TMP/maps/perf-300.map
EOS
"$OPREPORT" --session-dir="$S" -l -n --children --anon-handler=perfmap \
	>"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "--children failed"; }
cat "$TMP/out"
awk '/^[0-9]/ {print $1, $3, $NF}' "$TMP/out" >"$TMP/got"
cat >"$TMP/want" <<EOW
45 0 main
30 30 rt_alpha
15 10 rt_gamma
5 5 rt_local_beta
2 2 JS:*fib
2 0 JS:~loop
2 0 main
EOW
diff -u "$TMP/want" "$TMP/got" || fail "--children: not each function's cumulative and own samples"
head -1 "$TMP/out" | grep -q '^children  *%  *self  *%  *image name' ||
	fail "--children: not the columns children, %, self, %"
echo "ok: -l --children"

"$OPREPORT" --session-dir="$S" --children --anon-handler=perfmap -t 10 -n \
	>"$TMP/t" 2>/dev/null || fail "--children -t exited $?"
[ "$(grep -c '^[0-9]' "$TMP/t")" = 4 ] || { cat "$TMP/t"; fail "--children -t 10: not the four over 10% of children"; }
echo "ok: --children alone is -l, and -t looks at the children"

"$MKSESSION" "$TMP/flat" <<EOS
image app file $APP
ctx a app app
hist a $(off "$APP" rt_alpha) 30
EOS
"$OPREPORT" --session-dir="$TMP/flat" -l --children >/dev/null 2>"$TMP/err" &&
	fail "--children without call chains exited 0"
grep -qx "opreport: session $TMP/flat has no call graph: record with oprofiled -g" "$TMP/err" ||
	{ cat "$TMP/err"; fail "--children without call chains: not the one line"; }
"$OPREPORT" --session-dir="$S" --children --format=csv >/dev/null 2>"$TMP/err" &&
	fail "--children --format=csv exited 0"
[ "$(wc -l <"$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "--children --format=csv: not one line"; }
echo "ok: --children where it does not apply: one line"
