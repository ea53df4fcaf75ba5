#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A user names a program with ESC, BEL and a raw 0x9b (CSI on an 8-bit
# terminal, and invalid UTF-8) and root profiles it: root's oprofiled
# prints the name escaped on stderr, and opreport's JSON is valid UTF-8
# that a strict parser reads, with the controls escaped and the invalid
# byte as U+FFFD; the text and folded views and every stderr hold no raw
# control byte.
. "$(dirname "$0")/reader_lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
make_user
evil=$'spin\e]0;owned\a\x9b2J'
bin="$udir/$evil"
cp "$OPJIT_BUILD/tests/workloads/threetoone" "$bin"
chown "$user": "$bin"

# the recorder's own lines about the program: a name it cannot run...
printf 'not a program\n' >"$udir/$evil.txt"
chown "$user": "$udir/$evil.txt"
rc=0
"$OPROFILED" --session-dir="$tmp/none" -- "$udir/$evil.txt" \
	>"$tmp/norun.out" 2>"$tmp/norun.err" || rc=$?
[ "$rc" != 0 ] || fail "norun: oprofiled ran a text file"
no_raw_control "$tmp/norun.err"
grep -qF 'spin\x1b]0;owned\x07\x9b2J.txt' "$tmp/norun.err" ||
	fail "norun: the name is not shown escaped: $(cat -v "$tmp/norun.err")"
ok "norun: $(cat "$tmp/norun.err")"

# ...and a whole recording of it, run by the user, a call graph too
"$OPROFILED" -g --session-dir="$tmp/s" -- runuser -u "$user" -- "$bin" 1 \
	>"$tmp/rec.out" 2>"$tmp/rec.err" ||
	{ cat "$tmp/rec.err"; fail "oprofiled failed"; }
no_raw_control "$tmp/rec.err"
ok "recording: stderr holds no raw control byte"

report json --format=json -l --session-dir="$tmp/s"
[ "$rc" = 0 ] || { cat "$tmp/json.err"; fail "json: exit $rc"; }
no_raw_control "$tmp/json.out" "$tmp/json.err"
python3 - "$tmp/json.out" <<'PY' || fail "json: not what a strict parser reads"
import json, sys
doc = json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))
want = "spin\x1b]0;owned\x07\ufffd2J"
def strings(v):
    if isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)
    elif isinstance(v, str):
        yield v
# the image's path, not only the recorded command line
found = [s for s in strings(doc) if s.endswith("/" + want)]
if not found:
    print("no path names the program as", repr(want))
    sys.exit(1)
print("ok: json:", ascii(found[0]))
PY

# folded separates frames with ';', so the name's own ';' reads ':'
for view in text folded; do
	report "$view" --format=$view -l --session-dir="$tmp/s"
	[ "$rc" = 0 ] || { cat "$tmp/$view.err"; fail "$view: exit $rc"; }
	no_raw_control "$tmp/$view.out" "$tmp/$view.err"
	name='spin\x1b]0;owned\x07\x9b2J'
	[ "$view" = text ] || name=${name/;/:}
	grep -qF "$name" "$tmp/$view.out" ||
		{ cat -v "$tmp/$view.out"; fail "$view: the name is not shown escaped"; }
	ok "$view: the name shows as $name"
done
