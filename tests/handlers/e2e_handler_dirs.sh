#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Handler code found as an attacker would plant it: a libperfmap.so in a
# directory anyone may write, named by OPJIT_HANDLER_PATH, and one owned
# by another user.  Neither may run its constructor; each is one line, and
# the real perfmap from the build tree still names the samples.
. "$(dirname "$0")/e2e_lib.sh"
need_cmd cc gcc
mksession=$OPJIT_BUILD/tests/opreport/mksession
[ -x "$mksession" ] || fail "$mksession is not built"

# a library whose constructor leaves a mark when it runs
cat >"$tmp/evil.c" <<EOC
#include <stdio.h>
__attribute__((constructor)) static void evil(void)
{
	FILE *f = fopen("$tmp/constructor-ran", "w");

	if (f)
		fclose(f);
}
EOC
drop=$tmp/drop
mkdir "$drop"
chmod 1777 "$drop"
cc -shared -fPIC -o "$drop/libperfmap.so" "$tmp/evil.c" ||
	fail "cannot build the planted library"
chmod 0644 "$drop/libperfmap.so"

# a session of one process with a trusted perf map in the session
pid=4194299
printf '7e0000000000 100 real_fn\n' >"$tmp/perf-$pid.map"
chmod 0644 "$tmp/perf-$pid.map"
"$mksession" "$tmp/s" <<EOS
process a $pid $(id -u) jitapp /usr/bin/jitapp start_unix_ns 1 range 0x7e0000000000-0x7e0000010000
anon a 1 0x7e0000000010 $pid
archive a $tmp/perf-$pid.map
EOS

OPJIT_HANDLER_PATH=$drop "$opreport" --session-dir="$tmp/s" -l \
	--anon-handler=perfmap >"$tmp/r.txt" 2>"$tmp/r.err" ||
	show_fail "$tmp/r.err" "opreport failed"
[ ! -e "$tmp/constructor-ran" ] ||
	fail "the planted library's constructor ran"
[ "$(cat "$tmp/r.err")" = "opreport: ignoring handler directory $drop: \
writable by group or others (trust rule: mode)" ] ||
	show_fail "$tmp/r.err" "want one line ignoring $drop"
grep -Eq "^1 .* jit:perfmap \\(tgid:$pid jitapp\\) +real_fn$" "$tmp/r.txt" ||
	show_fail "$tmp/r.txt" "the real perfmap did not name the sample"
echo "ok: $(cat "$tmp/r.err")"

# the listing does not run it either, and still lists the real one
OPJIT_HANDLER_PATH=$drop "$opreport" --list-handlers >"$tmp/l.txt" \
	2>"$tmp/l.err" || show_fail "$tmp/l.err" "--list-handlers failed"
[ ! -e "$tmp/constructor-ran" ] ||
	fail "--list-handlers ran the planted library's constructor"
grep -q "^perfmap[[:space:]]$OPJIT_BUILD/lib/opjit/handlers/" "$tmp/l.txt" ||
	show_fail "$tmp/l.txt" "--list-handlers lost the real perfmap"
grep -q "ignoring handler directory $drop" "$tmp/l.err" ||
	show_fail "$tmp/l.err" "--list-handlers did not say why $drop is ignored"
echo "ok: --list-handlers ignores $drop"

# a private directory, but a library another user owns
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: the other user's library needs root to chown" >&2
	exit 77
fi
chmod 0755 "$drop"
chown 12345:12345 "$drop/libperfmap.so"
"$opreport" --session-dir="$tmp/s" -l --anon-handler=perfmap \
	--handler-path="$drop" >"$tmp/r.txt" 2>"$tmp/r.err" ||
	show_fail "$tmp/r.err" "opreport failed"
[ ! -e "$tmp/constructor-ran" ] ||
	fail "another user's library's constructor ran"
grep -qxF "opreport: skipping handler $drop/libperfmap.so: owned by uid \
12345, not by root (trust rule: owner)" "$tmp/r.err" ||
	show_fail "$tmp/r.err" "no line refusing the other user's library"
echo "ok: $(cat "$tmp/r.err")"
