#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# First contact, finding 6: tgid:N on a session recorded without
# --separate=process showed only the JIT rows, as 100%, and said nothing a
# user could act on.  One line now says that the native samples were not
# kept per process, and how to record them so; a separated session says
# nothing.
. "$(dirname "$0")/lib.sh"
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -f "$HP/libperfmap.so" ] || fail "$HP/libperfmap.so is not built"
off=$(python3 "$HERE/offsets.py" "$RT/rt_g_pie" rt_alpha | cut -d' ' -f2)
for sep in none process; do
	{
		[ $sep = none ] || echo "separate process"
		echo "image app file $RT/rt_g_pie"
		if [ $sep = none ]; then echo "ctx a app app"; else echo "ctx a app app tgid 300"; fi
		echo "hist a $off 6"
		echo "process p 300 $(id -u) jitdemo /usr/bin/jitdemo start_unix_ns 1 range 0x7f0000000000-0x7f0000100000"
		echo "anon p 1 0x7f0000000100 300"
		echo "anon p 2 0x7f0000000110 300"
	} | "$MKSESSION" "$TMP/$sep"
done
want="opreport: warning: session $TMP/none was recorded without --separate=process: native samples were not kept per process, so tgid: selects only JIT (anonymous) samples; record with oprofiled --separate=process"
for fmt in text folded json; do
	"$OPREPORT" --session-dir="$TMP/none" -l --format=$fmt --anon-samples tgid:300 \
		>"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "$fmt: opreport failed"; }
	[ "$(grep -cxF "$want" "$TMP/err")" = 1 ] ||
		{ cat "$TMP/err"; fail "$fmt: no one line that native samples were not kept per process"; }
	echo "ok: $fmt: $(cat "$TMP/err")"
done
"$OPREPORT" --session-dir="$TMP/process" -l --anon-samples tgid:300 \
	>"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "separated: opreport failed"; }
[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "separated session: a warning"; }
grep -q 'rt_alpha' "$TMP/out" || fail "separated session: tgid:300 lost its native samples"
echo "ok: a separated session selects native samples by process, silently"
