#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# opreport -o, run by root into a sticky directory: a symbolic link or a
# hard link another user planted over the file is refused with one line
# and the file it points at is untouched.
. "$(dirname "$0")/writer_lib.sh"
make_user
make_victim

session=$work/session
"$OPROFILED" --session-dir="$session" -- "$WORKLOADS/threetoone" 1 \
	>"$work/rec.out" 2>&1 || fail "recording: $(cat "$work/rec.out")"

sticky=$work/sticky
mkdir -m 1777 "$sticky"
as_user ln -s "$victim" "$sticky/report.txt"
expect_line symlink "^opreport: cannot write $sticky/report.txt: is a symbolic link in a sticky directory$" \
	"$OPREPORT" --session-dir="$session" -o "$sticky/report.txt"
check_victim symlink

# a hard link to a file the attacker owns elsewhere: not truncated
as_user sh -c "echo mine > '$sticky/theirs'; ln '$sticky/theirs' '$sticky/hard.txt'"
expect_line hardlink "^opreport: cannot write $sticky/hard.txt: has other hard links; not overwriting it$" \
	"$OPREPORT" --session-dir="$session" -o "$sticky/hard.txt"
[ "$(cat "$sticky/theirs")" = mine ] || fail "hardlink: the linked file changed"

mkfifo "$sticky/fifo"
expect_line fifo "^opreport: cannot write $sticky/fifo: a FIFO that nobody reads$" \
	timeout 20 "$OPREPORT" --session-dir="$session" -o "$sticky/fifo"

# a fresh name is written as usual
"$OPREPORT" --session-dir="$session" -o "$sticky/fresh.txt" ||
	fail "fresh: opreport failed"
grep -q threetoone "$sticky/fresh.txt" || fail "fresh: no report in the file"
ok "a new file in the sticky directory is written"
