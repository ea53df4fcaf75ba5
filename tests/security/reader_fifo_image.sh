#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# An unprivileged user profiled by root replaces their own binary with a
# FIFO before root reads the report: opreport must not wait on the FIFO,
# and says so in one line.
. "$(dirname "$0")/reader_lib.sh"
make_user
spin=$udir/spin
cp "$OPJIT_BUILD/tests/workloads/threetoone" "$spin"
chown "$user": "$spin"
"$OPROFILED" --session-dir="$tmp/s" -- runuser -u "$user" -- "$spin" 1 \
	>"$tmp/rec.out" 2>&1 || { cat "$tmp/rec.out"; fail "oprofiled failed"; }
report before -l --session-dir="$tmp/s"
grep -q 'heavy_work' "$tmp/before.out" ||
	{ cat "$tmp/before.out" "$tmp/before.err"; fail "no heavy_work row"; }

as_user rm "$spin"
as_user mkfifo "$spin"
for args in "-l" "-l -d" "-l -g"; do
	# shellcheck disable=SC2086 # the options are words
	report fifo $args --session-dir="$tmp/s"
	[ "$rc" = 0 ] || { cat "$tmp/fifo.err"; fail "opreport $args: exit $rc"; }
	grep -F "$spin" "$tmp/fifo.err" >"$tmp/lines" || true
	[ "$(cat "$tmp/lines")" = "opreport: warning: cannot read $spin: not a regular file; its samples show as (no symbols)" ] ||
		{ cat "$tmp/fifo.err"; fail "opreport $args: not the one line about $spin"; }
	grep -q "(no symbols)" "$tmp/fifo.out" ||
		fail "opreport $args: the FIFO's samples are not (no symbols)"
	ok "opreport $args: $(cat "$tmp/lines")"
done
echo PASS
