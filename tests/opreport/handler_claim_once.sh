#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A call-graph report claims each JIT process once.  It asks whether the
# handler's names depend on the time before it reads the process's
# stacks, and names the frames after: the naming must take the state
# that question claimed, not claim again (the perfmap handler parsed a
# 100k-function map twice).  The test handler alpha names the process of
# comm "counted" after the claims it has had ("alpha:claim N"), in its
# helper and in opreport alike; what it says when claiming ("claimed")
# is said once.  Three processes: the report asks about each before it
# names any, so each must keep its claim until its naming (holding only
# the last one claimed the others twice).
. "$(dirname "$0")/lib.sh"
FAKE=$OPJIT_BUILD/tests/handlers/fake
[ -f "$FAKE/libalpha.so" ] || fail "$FAKE/libalpha.so is not built"
S=$TMP/s
"$MKSESSION" "$S" <<EOS
callgraph 127
separate process
process p 700 $(id -u) counted /usr/bin/counted start_unix_ns 1 range 0x1000-0x3000
process q 701 $(id -u) counted /usr/bin/counted start_unix_ns 2 range 0x1000-0x3000
process r 702 $(id -u) counted /usr/bin/counted start_unix_ns 3 range 0x1000-0x3000
stack j anon:0x1100 anon:0x2100
anon p 1 0x1100 700
anon p 2 0x1100 700
anonstack p 1 j 700
anonstack p 2 j 700
anon q 3 0x1100 701
anonstack q 3 j 701
anon r 4 0x1100 702
anonstack r 4 j 702
EOS
for iso in process none; do
	for fmt in --format=folded -c; do
		"$OPREPORT" --session-dir="$S" --handler-path="$FAKE" \
			--anon-handler=alpha --handler-isolation="$iso" "$fmt" \
			>"$TMP/out" 2>"$TMP/err" ||
			{ cat "$TMP/err"; fail "$iso $fmt: opreport exited $?"; }
		grep -q 'alpha:claim 1' "$TMP/out" ||
			{ cat "$TMP/out"; fail "$iso $fmt: the frames are not named by the first claim"; }
		! grep -q 'alpha:claim [2-9]' "$TMP/out" ||
			{ cat "$TMP/out"; fail "$iso $fmt: the process was claimed again"; }
		n=$(grep -c '^opreport: alpha: claimed$' "$TMP/err" || true)
		[ "$n" = 3 ] ||
			{ cat "$TMP/err"; fail "$iso $fmt: 'claimed' said $n times, not once a process"; }
		echo "ok: $iso $fmt: one claim a process, its line once"
	done
done
