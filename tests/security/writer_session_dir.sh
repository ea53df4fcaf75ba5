#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A recorder run by root never writes through a name another user could
# plant: a session directory another user owns or can write is refused
# with one line before anything is written, wherever the symbolic links
# point.
. "$(dirname "$0")/writer_lib.sh"
make_user
make_victim

# 1. an empty directory the attacker made; while root records into it,
# the attacker plants links to the victim under the names the recorder
# writes (the recorder used to follow them at its next flush)
adir=$work/theirs
mkdir "$adir"
chown "$user": "$adir"
as_user sh -c 'end=$(($(date +%s) + 4)); while [ "$(date +%s)" -lt "$end" ]; do
	for n in .session.meta.tmp .samples.hist.tmp .kallsyms.tmp; do
		ln -sf "$2" "$1/$n" 2>/dev/null
	done; sleep 0.01; done' plant "$adir" "$victim" &
bg_pids+=($!)
expect_line owned "^oprofiled: cannot use $adir: owned by uid $uid, not by uid 0 or root$" \
	"$OPROFILED" --session-dir="$adir" -- "$WORKLOADS/threetoone" 3
wait "${bg_pids[-1]}" || true
check_victim owned
[ ! -e "$adir.previous-1" ] || fail "owned: the attacker's directory was moved"

# 2. root's own directory, left writable by others
wdir=$work/open
mkdir -m 1777 "$wdir"
expect_line writable "^oprofiled: cannot use $wdir: writable by others$" \
	"$OPROFILED" --session-dir="$wdir" -- true
chmod 775 "$wdir"
expect_line group "^oprofiled: cannot use $wdir: writable by its group$" \
	"$OPROFILED" --session-dir="$wdir" -- true

# 3. root runs with the default ./oprofile_data in the attacker's
# working directory, where the attacker made oprofile_data first
cwd=$work/cwd
mkdir "$cwd"
chown "$user": "$cwd"
as_user mkdir "$cwd/oprofile_data"
as_user ln -s "$victim" "$cwd/oprofile_data/.session.meta.tmp"
(cd "$cwd" && expect_line default "^oprofiled: cannot use (\./)?oprofile_data: owned by uid $uid, not by uid 0 or root$" \
	"$OPROFILED" -- true)
check_victim default

# 4. the same working directory without a planted directory: root makes
# its own, which the attacker cannot write, and the session is whole
as_user rm -rf "$cwd/oprofile_data"
(cd "$cwd" && "$OPROFILED" -- "$WORKLOADS/threetoone" 1 >"$work/own.out" 2>&1) ||
	fail "own: $(cat "$work/own.out")"
[ "$(stat -c '%u %a' "$cwd/oprofile_data")" = "0 755" ] ||
	fail "own: oprofile_data is $(stat -c '%u %a' "$cwd/oprofile_data")"
"$OPREPORT" --session-dir="$cwd/oprofile_data" >"$work/own.txt" 2>&1 ||
	fail "own: opreport: $(cat "$work/own.txt")"
grep -q threetoone "$work/own.txt" || fail "own: no threetoone row: $(cat "$work/own.txt")"
if as_user touch "$cwd/oprofile_data/x" 2>/dev/null; then
	fail "own: the other user can write into root's session"
fi
check_victim own
ok "own: root's session in the other user's directory is root's alone"

# 5. the attacker's symbolic link in a directory the attacker owns (a
# home), pointing at a directory of root's: neither the recorder nor the
# report follows it
home=$work/home
mkdir -m 755 "$home"
chown "$user": "$home"
rootdir=$work/root-sessions
mkdir -m 755 "$rootdir"
as_user ln -s "$rootdir" "$home/link"
expect_line home-link "^oprofiled: cannot use $home/link: link is a symbolic link owned by uid $uid, not by uid 0 or root$" \
	"$OPROFILED" --session-dir="$home/link" -- true
[ -z "$(ls -A "$rootdir")" ] || fail "home-link: root's directory was written: $(ls -A "$rootdir")"
# and as a component on the way, with root's session behind it
as_user ln -s "$cwd" "$home/cwdlink"
expect_line home-link-parent "^oprofiled: cannot use $home/cwdlink/oprofile_data: cwdlink is a symbolic link owned by uid $uid, not by uid 0 or root$" \
	"$OPROFILED" --session-dir="$home/cwdlink/oprofile_data" -- true
[ ! -e "$cwd/oprofile_data.previous-1" ] || fail "home-link-parent: root's session was moved aside"
expect_line report-link "^opreport: cannot open session $home/cwdlink/oprofile_data: cwdlink is a symbolic link owned by uid $uid, not by uid 0 or root$" \
	"$OPREPORT" --session-dir="$home/cwdlink/oprofile_data"

# root's own link is followed, for the recorder and the report
ln -s "$cwd/oprofile_data" "$work/rootlink"
"$OPREPORT" --session-dir="$work/rootlink" >"$work/rootlink.txt" 2>&1 ||
	fail "root's link: opreport: $(cat "$work/rootlink.txt")"
grep -q threetoone "$work/rootlink.txt" || fail "root's link: no threetoone row"
ok "root's own link to its session is followed"
