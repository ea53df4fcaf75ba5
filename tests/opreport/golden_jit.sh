#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The JIT rows: a process the perfmap handler claims shows
# "jit:perfmap (tgid:N COMM)" rows and an (unknown) row; a process nobody
# claims stays an anon bucket.  Golden files in tests/opreport/golden/.
. "$(dirname "$0")/lib.sh"
# every report, isolated and in-process, must come out the same
export OPJIT_OPREPORT=$OPREPORT
OPREPORT=$OPJIT_SOURCE/tests/handlers/opreport_both.sh
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -f "$HP/libperfmap.so" ] ||
	{ echo "SKIP: $HP/libperfmap.so is not built (target perfmap)"; exit 77; }

mkdir "$TMP/maps"
# the map is the application's: owned by the process's uid, not
# writable by others, newer than the process
printf '7f0000000100 80 JS:*fib\n7f0000000180 40 JS:~loop\n' \
	>"$TMP/maps/perf-300.map"
chmod 644 "$TMP/maps/perf-300.map"
S=$TMP/s
"$MKSESSION" "$S" <<EOS
separate process
image app file $RT/rt_g_pie
ctx a app app tgid 100
hist a $(python3 "$HERE/offsets.py" "$RT/rt_g_pie" rt_alpha | cut -d' ' -f2) 6
process p 300 $(id -u) jitdemo /usr/bin/jitdemo start_unix_ns 1 range 0x7f0000000000-0x7f0000100000
process q 400 $(id -u) other /usr/bin/other start_unix_ns 1 range 0x7e0000000000-0x7e0000001000
anon p 1 0x7f0000000100 300
anon p 2 0x7f0000000110 300
anon p 3 0x7f0000000180 301
anon p 4 0x7f0000000900 300
anon p 5 0x7f0000000104 300
anon q 6 0x7e0000000010 400
archive p $TMP/maps/perf-300.map
EOS
export OPJIT_HANDLER_PATH=$HP
golden jit_symbols -l --anon-handler=perfmap
GOLDEN_MASK=0 golden jit_details -l -d -g -n --anon-handler=perfmap \
	tgid:300,400
golden jit_summary --anon-handler=perfmap
golden jit_buckets -l -n --anon-samples
"$OPREPORT" --list-handlers --handler-path="$HP" >"$TMP/list" ||
	fail "--list-handlers exited $?"
grep -q "^perfmap[[:space:]].*libperfmap.so" "$TMP/list" ||
	{ cat "$TMP/list"; fail "--list-handlers does not list perfmap"; }
echo "ok: --list-handlers"

# On a terminal, lines keep within its width: the image column gives up
# space first, its names cut in the middle, then the symbol is cut at the
# end; -f keeps every name whole.  Piped, nothing is cut.
command -v script >/dev/null ||
	fail "script (util-linux) is needed to give opreport a terminal"
# on_tty COLS [ARGS]: the report, on a terminal COLS wide (-l unless ARGS
# say -s for the summary)
on_tty() {
	local cols=$1 mode=-l
	shift
	[ "${1:-}" != -s ] || { mode=; shift; }
	script -qec "stty cols $cols && '$OPJIT_OPREPORT' --session-dir='$S' -n $mode --anon-handler=perfmap $* 2>/dev/null" \
		/dev/null </dev/null | tr -d '\r'
}
on_tty 60 >"$TMP/tty60.txt"
# the table, up to the notes after it
awk '/^$/ { exit bad } length($0) > 60 { print; bad = 1 } END { exit bad }' "$TMP/tty60.txt" ||
	fail "opreport -l on a 60-column terminal wrote longer lines"
grep -Eq '^1 +8\.3333 +anon \(tgid:4.*\.\.\..*\) +\(no symbols\)$' "$TMP/tty60.txt" ||
	{ cat "$TMP/tty60.txt"; fail "the anon range is not cut in the middle on a 60-column terminal"; }
grep -Eq '^6 +50\.0000 +rt_g_pie \(tgid:100\) +rt_alpha$' "$TMP/tty60.txt" ||
	{ cat "$TMP/tty60.txt"; fail "a short row changed on a 60-column terminal"; }
on_tty 30 >"$TMP/tty30.txt"
grep -Eq '^6 +50\.0000 +rt_g_pie \(tgid:100\) +rt_alpha$' "$TMP/tty30.txt" ||
	{ cat "$TMP/tty30.txt"; fail "on a 30-column terminal a short symbol name was cut"; }
on_tty 60 -f >"$TMP/tty60f.txt"
grep -Eq 'anon \(tgid:400 range:0x7e0000000000-0x7e0000001000\) +\(no symbols\)$' "$TMP/tty60f.txt" ||
	{ cat "$TMP/tty60f.txt"; fail "-f on a terminal cut a name"; }
on_tty 200 >"$TMP/tty200.txt"
"$OPJIT_OPREPORT" --session-dir="$S" -n -l --anon-handler=perfmap >"$TMP/piped.txt"
diff -u "$TMP/piped.txt" "$TMP/tty200.txt" ||
	fail "on a terminal wide enough, the report is not the piped one"
COLUMNS=20 "$OPJIT_OPREPORT" --session-dir="$S" -n -l --anon-handler=perfmap >"$TMP/piped20.txt"
diff -u "$TMP/piped.txt" "$TMP/piped20.txt" || fail "COLUMNS cut a piped report"
# the summary: the name is cut in the middle, the counts stay
on_tty 60 -s >"$TMP/tty60s.txt"
expand "$TMP/tty60s.txt" | awk '/^$/ { exit bad } length($0) > 60 { print; bad = 1 } END { exit bad }' ||
	fail "the summary on a 60-column terminal wrote longer lines"
grep -Eq '^\s+1 100\.0000 anon \(tgid.*\.\.\..*\)$' "$TMP/tty60s.txt" ||
	{ cat "$TMP/tty60s.txt"; fail "the summary's anon range is not cut in the middle"; }
echo "ok: terminal widths 60, 30, 200, -f, the summary at 60, and piped"
[ "$status" -eq 0 ] && echo PASS
exit "$status"
