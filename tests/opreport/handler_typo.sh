#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# First contact, finding 10: a handler name typed wrong exited 0 with a
# report that named nothing.  Now it is an error: exit status 1 and one
# line that lists the names the search path holds.
. "$(dirname "$0")/lib.sh"
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -f "$HP/libperfmap.so" ] || fail "$HP/libperfmap.so is not built"
S=$TMP/s
"$MKSESSION" "$S" <<EOS
process p 300 $(id -u) jitdemo /usr/bin/jitdemo start_unix_ns 1 range 0x7f0000000000-0x7f0000100000
anon p 1 0x7f0000000100 300
EOS
for arg in --anon-handler=perfmp --anon-handler=jitdump,perfmp "--anon-handler=auto --anon-handler=perfmp"; do
	# shellcheck disable=SC2086
	if OPJIT_HANDLER_PATH=$HP "$OPREPORT" --session-dir="$S" -l $arg \
		>"$TMP/out" 2>"$TMP/err"; then
		fail "$arg: exited 0"
	fi
	[ "$(wc -l <"$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "$arg: not one line"; }
	grep -qxE "opreport: unknown handler 'perfmp': expected one of auto, (.*, )?jitdump, (.*, )?perfmap(, .*)?" "$TMP/err" ||
		{ cat "$TMP/err"; fail "$arg: the line does not list the names"; }
	[ ! -s "$TMP/out" ] || fail "$arg: a report was printed"
	echo "ok: $arg -> $(cat "$TMP/err")"
done
