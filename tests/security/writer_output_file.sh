#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# opreport -o, run by root into directories another user can write or
# owns: a symbolic link planted at the name or on the way to it, a hard
# link, an existing file and a FIFO are refused with one line, and the
# file a link points at is untouched; --force replaces a file by its
# name, never writing through it.
. "$(dirname "$0")/writer_lib.sh"
make_user
make_victim

session=$work/session
"$OPROFILED" --session-dir="$session" -- "$WORKLOADS/threetoone" 1 \
	>"$work/rec.out" 2>&1 || fail "recording: $(cat "$work/rec.out")"

sticky=$work/sticky
mkdir -m 1777 "$sticky"
as_user ln -s "$victim" "$sticky/report.txt"
expect_line symlink "^opreport: cannot write $sticky/report.txt: is a symbolic link; not writing through it$" \
	"$OPREPORT" --session-dir="$session" -o "$sticky/report.txt"
check_victim symlink

# a directory the attacker owns, not sticky: the kernel's protected
# symlinks do not apply here, and root must not follow the link either
home=$work/home
mkdir -m 755 "$home"
chown "$user": "$home"
as_user ln -s "$victim" "$home/report.txt"
for force in "" --force; do
	expect_line "owned-link${force:+-force}" "^opreport: cannot write $home/report.txt: is a symbolic link; not writing through it$" \
		"$OPREPORT" --session-dir="$session" $force -o "$home/report.txt"
	check_victim "owned-link $force"
done

# pprof writes FILE and FILE.base: a link at either is refused
as_user ln -s "$victim" "$home/prof.pb.gz.base"
expect_line pprof-base "^opreport: cannot write $home/prof.pb.gz.base: is a symbolic link; not writing through it$" \
	"$OPREPORT" --session-dir="$session" --diff="$session" --format=pprof \
	--force -o "$home/prof.pb.gz"
check_victim pprof-base
as_user rm "$home/prof.pb.gz.base"
as_user ln -s "$victim" "$home/prof2.pb.gz"
expect_line pprof "^opreport: cannot write $home/prof2.pb.gz: is a symbolic link; not writing through it$" \
	"$OPREPORT" --session-dir="$session" --format=pprof --force \
	-o "$home/prof2.pb.gz"
check_victim pprof

# the attacker's link on the way to the file, into root's own directory
as_user ln -s "$work/root-only" "$home/dir"
expect_line path-link "^opreport: cannot write $home/dir/victim: dir is a symbolic link owned by uid $uid, not by uid 0 or root$" \
	"$OPREPORT" --session-dir="$session" --force -o "$home/dir/victim"
check_victim path-link

# a link swapped in while opreport writes with --force: the name is
# replaced by rename, so whatever stands there at the end is replaced,
# never written through
as_user sh -c 'echo mine > "$1/swap.txt"' sh "$home"
as_user sh -c 'end=$(($(date +%s) + 3)); while [ "$(date +%s)" -lt "$end" ]; do
	ln -sfn "$2" "$1/swap.txt.new" && mv -fT "$1/swap.txt.new" "$1/swap.txt"
	echo mine > "$1/swap.tmp" && mv -f "$1/swap.tmp" "$1/swap.txt"
	done' race "$home" "$victim" &
bg_pids+=($!)
for i in $(seq 20); do
	"$OPREPORT" --session-dir="$session" --force -o "$home/swap.txt" \
		>/dev/null 2>&1 || true
done
wait "${bg_pids[-1]}" || true
check_victim race
ok "race: 20 --force reports beside a replanted link left the victim alone"

# a hard link to a file the attacker owns elsewhere: refused, and with
# --force the name is replaced and the other file keeps its bytes
as_user sh -c "echo mine > '$sticky/theirs'; ln '$sticky/theirs' '$sticky/hard.txt'"
expect_line hardlink "^opreport: cannot write $sticky/hard.txt: exists; use --force to replace it$" \
	"$OPREPORT" --session-dir="$session" -o "$sticky/hard.txt"
"$OPREPORT" --session-dir="$session" --force -o "$sticky/hard.txt" ||
	fail "hardlink --force: opreport failed"
[ "$(cat "$sticky/theirs")" = mine ] || fail "hardlink: the linked file changed"
grep -q threetoone "$sticky/hard.txt" || fail "hardlink --force: no report"
ok "hardlink --force: the name was replaced, the other file kept"

# root's own existing file: kept without --force
printf 'keep\n' >"$work/mine.txt"
expect_line existing "^opreport: cannot write $work/mine.txt: exists; use --force to replace it$" \
	"$OPREPORT" --session-dir="$session" -o "$work/mine.txt"
[ "$(cat "$work/mine.txt")" = keep ] || fail "existing: the file changed"

mkfifo "$sticky/fifo"
expect_line fifo "^opreport: cannot write $sticky/fifo: a FIFO that nobody reads$" \
	timeout 20 "$OPREPORT" --session-dir="$session" -o "$sticky/fifo"

# a fresh name is written as usual, and so is /dev/null
"$OPREPORT" --session-dir="$session" -o "$sticky/fresh.txt" ||
	fail "fresh: opreport failed"
grep -q threetoone "$sticky/fresh.txt" || fail "fresh: no report in the file"
"$OPREPORT" --session-dir="$session" -o /dev/null || fail "/dev/null: opreport failed"
ok "a new file in the sticky directory and /dev/null are written"
