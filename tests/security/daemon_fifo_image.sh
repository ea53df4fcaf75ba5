#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A user maps a file for execution and renames a FIFO
# over its path: root `oprofiled -a` must not wait on the FIFO (an open
# of a FIFO blocks until a writer comes).  --duration and SIGTERM stop it,
# and the session it leaves is complete.  The timeout on each command is
# a fail-safe for the hang this test is about, not a measure of speed.
. "$(dirname "$0")/writer_lib.sh"
SESSIONDUMP=$OPJIT_BUILD/tests/daemon/sessiondump
[ -x "$SESSIONDUMP" ] || fail "$SESSIONDUMP is not built"
command -v python3 >/dev/null || skip "python3 is not installed"
make_user
udir=$work/home
mkdir -m 755 "$udir"
chown "$user": "$udir"

# fifo_over PATH: as the user, replace PATH by a FIFO in one rename
fifo_over() {
	as_user mkfifo "$1.fifo"
	as_user mv -f "$1.fifo" "$1"
	[ -p "$1" ] || fail "$1 is not a FIFO"
}

# record NAME HOW: root oprofiled -a, stopped by HOW (duration or term);
# fails unless it ends by itself, exits 0 and leaves a closed session
record() {
	local name=$1 how=$2 rc=0 pid
	if [ "$how" = duration ]; then
		timeout -s KILL 20 "$OPROFILED" --session-dir="$work/$name" \
			-a --duration=3 2>"$work/$name.err" || rc=$?
	else
		timeout -s KILL 20 "$OPROFILED" --session-dir="$work/$name" \
			-a 2>"$work/$name.err" &
		pid=$!
		sleep 3
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" || rc=$?
	fi
	[ "$rc" != 137 ] ||
		fail "$name: oprofiled -a was still running 20 s later (stuck on the FIFO?): $(cat "$work/$name.err")"
	[ "$rc" = 0 ] || fail "$name: oprofiled exited $rc: $(cat "$work/$name.err")"
	grep -q '^oprofiled: [0-9]* samples, ' "$work/$name.err" ||
		fail "$name: no summary line: $(cat "$work/$name.err")"
	"$SESSIONDUMP" "$work/$name" >"$work/$name.dump" 2>"$work/$name.dumperr" ||
		fail "$name: the session does not read back: $(cat "$work/$name.dumperr")"
	awk '$1 == "info" && $2 == "stop_ns" && $3 > 0 { ok = 1 } END { exit !ok }' \
		"$work/$name.dump" || fail "$name: the session was not closed"
	# the mapping was seen: its path was opened (and found a FIFO)
	awk -v p="$mapped" '$1 == "image" && $4 == p { ok = 1 } END { exit !ok }' \
		"$work/$name.dump" || fail "$name: the session has no image $mapped: the attack did not happen"
	ok "$name: oprofiled -a stopped by $how with a FIFO over a mapped path"
}

# A file mapped for execution while oprofiled -a records, and a FIFO
# renamed over its path at once: the daemon reads the mapping's record
# afterwards and opens the path for the image's build ID.  (A program
# whose executable is replaced before oprofiled starts is no attack: its
# mappings then read "(deleted)".)
cp "$WORKLOADS/threetoone" "$udir/lib.src"
cat >"$udir/mapper.py" <<'PY'
import mmap, os, shutil, sys, time
src, path, stop = sys.argv[1], sys.argv[2], sys.argv[3]
end = time.monotonic() + 60
while time.monotonic() < end and not os.path.exists(stop):
    shutil.copyfile(src, path)
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC)
    os.mkfifo(path + ".fifo")
    os.rename(path + ".fifo", path)
    time.sleep(0.2)
    m.close()
    os.unlink(path)
PY
for how in duration term; do
	mapped=$udir/lib-$how
	as_user python3 "$udir/mapper.py" "$udir/lib.src" "$mapped" \
		"$udir/stop-$how" &
	bg_pids+=("$!")
	sleep 0.5
	record map-$how $how
	touch "$udir/stop-$how"
	wait "${bg_pids[-1]}" || fail "the mapper failed"
done
echo PASS
