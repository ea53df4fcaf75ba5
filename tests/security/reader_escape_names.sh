#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Names another user chose reach root's terminal through opreport: a JS
# file named with terminal escapes run under node --perf-basic-prof, and
# a binary named to clear the screen.  No raw control byte may reach the
# text or CSV report or stderr; the names show escaped.
. "$(dirname "$0")/reader_lib.sh"
command -v node >/dev/null || skip "node is not installed (apt-get install nodejs)"
make_user
esc=$'\e'
js="$udir/${esc}]0;owned${esc}\\${esc}[31mevil.js"
bin="$udir/spin${esc}[2J${esc}[H"
cp "$OPJIT_SOURCE/tests/handlers/fib.js" "$js"
cp "$OPJIT_BUILD/tests/workloads/threetoone" "$bin"
chown "$user": "$js" "$bin"
# node may leave a V8 log in its working directory
cd "$udir"
"$OPROFILED" --session-dir="$tmp/s" -- runuser -u "$user" -- \
	sh -c '"$1" 2 & node --perf-basic-prof "$2" 2 >/dev/null; wait' \
	sh "$bin" "$js" >"$tmp/rec.out" 2>&1 ||
	{ cat "$tmp/rec.out"; fail "oprofiled failed"; }
# the user's perf maps, which the sessions archive, are ours to remove;
# no other: tests running beside this one have theirs in /tmp too
forget_maps() {
	local f
	for f in "$1"/maps/*/perf-*.map.gz; do
		[ -f "$f" ] || continue
		f=${f##*/}
		cleanup+=("/tmp/${f%.gz}")
	done
}
forget_maps "$tmp/s"
for fmt in text csv; do
	report "$fmt" -l --anon-handler=perfmap --format=$fmt \
		--session-dir="$tmp/s"
	[ "$rc" = 0 ] || { cat "$tmp/$fmt.err"; fail "$fmt: exit $rc"; }
	no_raw_control "$tmp/$fmt.out" "$tmp/$fmt.err"
	grep -qF 'spin\x1b[2J\x1b[H' "$tmp/$fmt.out" ||
		{ cat "$tmp/$fmt.out"; fail "$fmt: the binary's name is not shown escaped"; }
	grep -E 'fib' "$tmp/$fmt.out" | grep -qF '\x1b]0;owned\x1b\\x1b[31mevil.js' ||
		{ cat "$tmp/$fmt.out"; fail "$fmt: no fib row naming the JS file escaped"; }
	ok "$fmt: $(grep -F 'spin\x1b' "$tmp/$fmt.out" | head -1)"
	ok "$fmt: $(grep -E 'fib' "$tmp/$fmt.out" | head -1)"
done
# the call graph views print the same names: -c and folded
"$OPROFILED" -g --session-dir="$tmp/g" -- runuser -u "$user" -- \
	sh -c '"$1" 2 & node --perf-basic-prof "$2" 2 >/dev/null; wait' \
	sh "$bin" "$js" >"$tmp/recg.out" 2>&1 ||
	{ cat "$tmp/recg.out"; fail "oprofiled -g failed"; }
forget_maps "$tmp/g"
for view in -c --format=folded; do
	name=cg${view//[^a-z]/}
	report "$name" "$view" --anon-handler=perfmap --session-dir="$tmp/g"
	[ "$rc" = 0 ] || { cat "$tmp/$name.err"; fail "$view: exit $rc"; }
	no_raw_control "$tmp/$name.out" "$tmp/$name.err"
	grep -qF 'spin\x1b[2J\x1b[H' "$tmp/$name.out" ||
		{ cat "$tmp/$name.out"; fail "$view: the binary's name is not shown escaped"; }
	# folded separates frames with ';', so a name's own ';' reads ':'
	jsname='\x1b]0;owned\x1b\\x1b[31mevil.js'
	[ "$view" = -c ] || jsname=${jsname/;/:}
	grep -qF "$jsname" "$tmp/$name.out" ||
		{ cat "$tmp/$name.out"; fail "$view: the JS file is not shown escaped"; }
	ok "$view: $(grep -F 'spin\x1b' "$tmp/$name.out" | head -1 | cut -c1-120)"
done
# the summary and the header's command line
report summary --session-dir="$tmp/s"
no_raw_control "$tmp/summary.out" "$tmp/summary.err"
grep -F 'command:' "$tmp/summary.out" | grep -qF 'spin\x1b[2J' ||
	{ cat "$tmp/summary.out"; fail "the command line is not shown escaped"; }
echo PASS
