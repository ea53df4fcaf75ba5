#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# On a full disk oprofiled stops recording with one line naming the file
# (or, filled only by the stop's last writes, says what the session
# keeps), keeps what it wrote readable, lets the command finish, and
# exits 1.
. "$(dirname "$0")/lib.sh"

[ "$(uname -m)" = x86_64 ] || skip "jitdemo writes x86-64 code; this is $(uname -m)"
[ "$(id -u)" -eq 0 ] || skip "needs root to mount a small tmpfs"
mkdir "$WORK/small"
# room for the session's small files and a 16 KiB block of samples or two,
# not for four seconds of them
mount -t tmpfs -o size=48k tmpfs "$WORK/small" 2>mount.err ||
	skip "cannot mount a tmpfs here: $(cat mount.err)"
trap 'umount "$WORK/small"; cleanup' EXIT
cd "$WORK"
rc=0
"$OPROFILED" --no-kernel --session-dir=small/s -- bash -c \
	'"$0" --seconds 4 --threads 2 >/dev/null; echo finished' \
	"$WORKLOADS/jitdemo" >out.txt 2>err.txt || rc=$?
[ "$rc" -eq 1 ] || fail "exited $rc on a full disk, not 1: $(cat err.txt)"
grep -q '^finished$' out.txt || fail "the command did not run to its end"
# the disk fills while recording, or, on a busy machine that let the
# workload sample less, only at the stop's last writes
grep -Eq '^oprofiled: cannot write small/s/[^ ]+: No space left on device; (recording stopped|the session keeps what was written before)$' err.txt ||
	fail "no clear line about the full disk: $(cat err.txt)"
[ "$(grep -c 'No space left' err.txt)" -eq 1 ] || fail "the full disk reported more than once: $(cat err.txt)"
dump small/s >d.txt
# jitdemo leaves its map behind, as runtimes do
awk '$1 == "process" { print "/tmp/anon." $3 }' d.txt | xargs -r rm -f
n=$(awk '$1 == "anon" { n++ } END { print n + 0 }' d.txt)
echo "$n anonymous samples kept on the full disk"
[ "$n" -gt 0 ] || fail "nothing kept of what was written before the disk filled"
# what could not be written is counted as lost, in the summary and in the
# session: nothing is silently missing
read -r total lost unattr < <(sed -nE 's/^oprofiled: ([0-9]+) samples, ([0-9]+) lost \([0-9.]+%\), ([0-9]+) unattributed.*/\1 \2 \3/p' err.txt)
[ -n "$total" ] || fail "no summary line: $(cat err.txt)"
held=$(awk '$1 == "anon" { n++ } $1 == "hist" { n += $4 } END { print n + 0 }' d.txt)
echo "summary: $total samples, $lost lost, $unattr unattributed; the session holds $held"
[ $((held + lost + unattr)) -ge "$total" ] ||
	fail "$((total - held - lost - unattr)) samples are neither in the session nor counted as lost"
# the session's own totals agree when its last metadata write got through
if [ "$(info d.txt stop_ns)" != 0 ]; then
	[ "$(info d.txt lost)" = "$lost" ] ||
		fail "the session says $(info d.txt lost) lost, the summary $lost"
fi
echo pass
