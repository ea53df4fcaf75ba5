#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A C program with a known hot loop: the loop's instructions hold at
# least 90% of its function's samples, --source puts them on the loop's
# lines, as with the images' whole symbol tables read; a missing source
# file, a missing image and bad options cost one line each.
. "$(dirname "$0")/lib.sh"
CC=${CC:-cc}
command -v "$CC" >/dev/null || skip "no C compiler ($CC)"
mkdir "$TMP/src"
cp "$HERE/hotloop.c" "$TMP/src/hotloop.c"
"$CC" -g -O1 -o "$TMP/hotloop" "$TMP/src/hotloop.c" || fail "cannot build hotloop"
record "$TMP/s" "$TMP/hotloop" 10
S=--session-dir=$TMP/s

"$OPANNOTATE" "$S" --assembly --source --format=json -i hot_sum \
	>"$TMP/a.json" 2>"$TMP/a.err" || { cat "$TMP/a.err"; fail "opannotate exited $?"; }
python3 "$HERE/check.py" loop "$TMP/a.json" hot_sum "$TMP/src/hotloop.c" 100 ||
	fail "the samples are not on the loop"

# the text layout: the loop's source line above its instructions
"$OPANNOTATE" "$S" --assembly -i hot_sum >"$TMP/a.txt" 2>"$TMP/a.err" ||
	fail "opannotate --assembly exited $?"
grep -q "hotloop.c:1[678]: .*HOT-LOOP" "$TMP/a.txt" ||
	{ cat "$TMP/a.txt"; fail "no loop line interleaved in the disassembly"; }
[ ! -s "$TMP/a.err" ] || { cat "$TMP/a.err"; fail "warnings on a clean run"; }
echo "ok: hot loop"

# the static tables, read only where the samples fall, name them as the
# whole tables do
same_as_whole "--assembly --source" opannotate "$S" --assembly --source
same_as_whole "-i hot_sum, JSON" opannotate "$S" --assembly --source -i hot_sum --format=json
echo "ok: as the whole tables"

# --threshold: only symbols with that share; -e leaves one out
"$OPANNOTATE" "$S" --assembly --threshold=50 >"$TMP/t.txt" 2>/dev/null || fail "--threshold exited $?"
[ "$(grep -c '^[^ ].*  \[' "$TMP/t.txt")" -eq 1 ] && grep -q '^hot_sum  \[' "$TMP/t.txt" ||
	{ cat "$TMP/t.txt"; fail "--threshold=50 does not keep hot_sum alone"; }
"$OPANNOTATE" "$S" --assembly -e hot_sum >"$TMP/e.txt" 2>/dev/null || fail "-e exited $?"
! grep -q '^hot_sum  \[' "$TMP/e.txt" || fail "-e hot_sum annotated hot_sum"
echo "ok: --threshold, -e"

# --time: the first half of the session holds some of hot_sum's
# samples, fewer than the whole
hot_samples() {
	sed -n '/^hot_sum  \[/{n;s/^  \([0-9]*\) samples.*/\1/p;q}' "$1"
}
"$OPANNOTATE" "$S" --assembly -i hot_sum --time=0%-50% >"$TMP/h.txt" 2>"$TMP/h.err" ||
	{ cat "$TMP/h.err"; fail "--time=0%-50% exited $?"; }
all=$(hot_samples "$TMP/a.txt") half=$(hot_samples "$TMP/h.txt")
[ -n "$all" ] && [ -n "$half" ] && [ "$half" -gt 0 ] && [ "$half" -lt "$all" ] ||
	{ head -5 "$TMP/h.txt" "$TMP/h.err"; fail "--time=0%-50%: hot_sum has ${half:-no} of ${all:-no} samples"; }
echo "ok: --time=0%-50%: hot_sum $half of $all samples"

# --context=0: only sampled lines, the rest as "..."
"$OPANNOTATE" "$S" --source --context=0 -i hot_sum >"$TMP/c.txt" 2>/dev/null ||
	fail "--context=0 exited $?"
grep -q '^  \.\.\.$' "$TMP/c.txt" || fail "--context=0 left nothing out"
! grep -q "int main" "$TMP/c.txt" || fail "--context=0 shows an unsampled line"
echo "ok: --context"

# the source file gone: one line, the sampled lines by number
rm "$TMP/src/hotloop.c"
"$OPANNOTATE" "$S" --source -i hot_sum >"$TMP/m.txt" 2>"$TMP/m.err" ||
	fail "opannotate with a missing source exited $?"
one_line "$TMP/m.err" "missing source"
grep -q "cannot read source .*hotloop.c" "$TMP/m.err" || fail "the line does not name the file"
grep -Eq '^ +[0-9]+ +[0-9.]+% +1[678]$' "$TMP/m.txt" ||
	{ cat "$TMP/m.txt"; fail "no sampled line numbers without the file"; }
echo "ok: missing source"

# the image gone: one line, the sampled addresses without disassembly
rm "$TMP/hotloop"
"$OPANNOTATE" "$S" --assembly image:hotloop >"$TMP/i.txt" 2>"$TMP/i.err" ||
	fail "opannotate with a missing image exited $?"
one_line "$TMP/i.err" "missing image"
grep -q "cannot read $TMP/hotloop" "$TMP/i.err" || fail "the line does not name the image"
grep -q "(no code)" "$TMP/i.txt" || fail "no sampled addresses without the image"
echo "ok: missing image"


for bad in "--context=-1" "--format=xml" "--threshold=200" "tgid:x" "--time=5,1" "--time=x"; do
	if "$OPANNOTATE" "$S" --assembly "$bad" >/dev/null 2>"$TMP/b.err"; then
		fail "$bad was taken"
	fi
	one_line "$TMP/b.err" "$bad"
done
"$OPANNOTATE" "$S" >/dev/null 2>"$TMP/b.err" && fail "no --assembly nor --source was taken"
one_line "$TMP/b.err" "no mode"
"$OPANNOTATE" --session-dir="$TMP/none" --source >/dev/null 2>"$TMP/b.err" &&
	fail "a missing session was taken"
one_line "$TMP/b.err" "missing session"
echo "ok: bad input"
