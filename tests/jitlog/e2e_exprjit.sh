#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# exprjit, a small JIT linked with libopjit-jitlog, under oprofiled:
# opreport --anon-handler=jitlog names its three expressions, including
# the one written over another's freed address and the one that moved,
# each within 1 point of the share the JIT measured with its own clock;
# -g gives each its line in exprs.txt, -d -g the line of each term; the
# session keeps the log, opjit-jitlog dump prints it, and the javamap
# name reads it too.
. "$(dirname "$0")/lib.sh"

"$oprofiled" --session-dir="$tmp/s" -- "$exprjit" 3 >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/err"; fail "oprofiled -- exprjit failed"; }
copy=$(archived_log "$tmp/s")
logs+=("/tmp/${copy##*/}")

"$opreport" --session-dir="$tmp/s" -l --format=json --anon-handler=jitlog \
	>"$tmp/r.json" 2>"$tmp/r.err" || { cat "$tmp/r.err"; fail "opreport failed"; }
shares "$tmp/r.json" "$tmp/out" || fail "the shares are not the JIT's own"

"$opreport" --session-dir="$tmp/s" -l -g --anon-handler=jitlog >"$tmp/g.txt" 2>/dev/null
for want in "exprs.txt:10 .* expr_heavy" "exprs.txt:20 .* expr_light" \
	"exprs.txt:30 .* expr_other"; do
	grep -Eq "$want\$" "$tmp/g.txt" || { cat "$tmp/g.txt"; fail "no row '$want' under -g"; }
done
"$opreport" --session-dir="$tmp/s" -l -d -g --anon-handler=jitlog \
	--include-symbols=expr_heavy \
	>"$tmp/d.txt" 2>/dev/null
lines=$(grep -Eo '^  [0-9a-f]+ +[0-9]+ +[0-9.]+ +exprs\.txt:1[1-6]$' "$tmp/d.txt" |
	awk '{ print $4 }' | sort -u | wc -l)
[ "$lines" -ge 5 ] || { cat "$tmp/d.txt"; fail "-d -g shows $lines of expr_heavy's six term lines"; }

"$dump" dump "$copy" >"$tmp/dump.txt" || fail "opjit-jitlog dump failed"
for want in '^version 2\.1 pid=' '^seq=1 t=[0-9]+ method id=1 lines=7 name=expr_heavy file=exprs\.txt$' \
	'^seq=[0-9]+ t=[0-9]+ unload id=1 ' '^9 records; the file ends'; do
	grep -Eq "$want" "$tmp/dump.txt" || { cat "$tmp/dump.txt"; fail "opjit-jitlog dump: no '$want'"; }
done
# the whole report before grep -q, which would leave the pipe early
jm=$("$opreport" --session-dir="$tmp/s" -l --anon-handler=javamap 2>/dev/null)
grep -q 'jit:javamap .* expr_other$' <<<"$jm" || fail "--anon-handler=javamap does not read the log"
echo PASS
