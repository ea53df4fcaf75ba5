#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Thousands of short-lived processes and threads: no crash, no leaked
# descriptor, losses counted, and the session reads back.
. "$(dirname "$0")/lib.sh"

cd "$WORK"
# The command's parent is oprofiled: count its descriptors at the end,
# with a builtin (an exec would make it open the new image meanwhile),
# once it has had time to read everything.
count='sleep 0.5; fds=(/proc/$PPID/fd/*); echo ${#fds[@]}'
"$OPROFILED" --session-dir=base -- bash -c "$count" >base.txt 2>berr.txt ||
	fail "oprofiled exited $?: $(cat berr.txt)"
"$OPROFILED" --session-dir=s -- bash -c '"$0" 2000 || exit; '"$count" \
	"$WORKLOADS/forkstorm" >storm.txt 2>err.txt || fail "oprofiled exited $? during the storm: $(cat err.txt)"
check_summary err.txt
[ "$(cat base.txt)" -eq "$(cat storm.txt)" ] ||
	fail "oprofiled holds $(cat storm.txt) descriptors after the storm, $(cat base.txt) after an idle run"
dump s >d.txt
procs=$(info d.txt processes)
lost=$(info d.txt lost)
echo "$(info d.txt samples) samples, $lost lost, $procs processes sampled, descriptors $(cat storm.txt)"
[ "$procs" -ge 20 ] || fail "only $procs processes of 2000 children were sampled"
grep -q " $lost lost " err.txt || fail "summary does not report the $lost lost samples"
echo pass
