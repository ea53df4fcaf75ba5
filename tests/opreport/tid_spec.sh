#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# First contact, per-thread views: tid:N selects the JIT samples of
# thread N (each JIT sample carries its thread), and one line says that
# native samples, whose histograms keep no thread, are left out.
. "$(dirname "$0")/lib.sh"
off=$(off "$RT/rt_g_pie" rt_alpha)
{
	echo "separate process"
	echo "image app file $RT/rt_g_pie"
	echo "ctx a app app tgid 300"
	echo "hist a $off 6"
	echo "process p 300 $(id -u) jitdemo /usr/bin/jitdemo start_unix_ns 1 range 0x7f0000000000-0x7f0000100000"
	echo "anon p 1 0x7f0000000100 300"
	echo "anon p 2 0x7f0000000110 301"
	echo "anon p 3 0x7f0000000120 301"
	echo "anon p 4 0x7f0000000130 302"
} | "$MKSESSION" "$TMP/s"
want="opreport: warning: native samples are not kept per thread, so tid: selects only JIT (anonymous) samples; record with oprofiled --separate=thread"
# total: the JIT samples of the threads asked for, no native ones
total() {
	"$OPREPORT" --session-dir="$TMP/s" --anon-samples --format=json "$@" \
		>"$TMP/out.json" 2>"$TMP/err" || { cat "$TMP/err"; fail "opreport $* failed"; }
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total_samples"])' "$TMP/out.json"
}
[ "$(total)" = 10 ] || fail "whole session: $(total) samples, expected 10"
[ -s "$TMP/err" ] && { cat "$TMP/err"; fail "whole session: a warning"; }
got=$(total tid:301)
[ "$got" = 2 ] || fail "tid:301: $got samples, expected 2"
[ "$(grep -cxF "$want" "$TMP/err")" = 1 ] ||
	{ cat "$TMP/err"; fail "tid:301: no one line that native samples are not kept per thread"; }
got=$(total tid:300,302)
[ "$got" = 2 ] || fail "tid:300,302: $got samples, expected 2"
got=$(total tid:999)
[ "$got" = 0 ] || fail "tid:999: $got samples, expected 0"
"$OPREPORT" --session-dir="$TMP/s" tid:x >"$TMP/out" 2>"$TMP/err" &&
	fail "tid:x accepted"
grep -qxF "opreport: bad profile specification 'tid:x': expected thread ids" "$TMP/err" ||
	{ cat "$TMP/err"; fail "tid:x: not the one line expected"; }
ok "tid: selects JIT samples by thread and says native samples are left out"
