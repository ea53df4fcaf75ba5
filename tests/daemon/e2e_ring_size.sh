#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The size of oprofiled's rings: 2 MiB a CPU with -g (call chains make a
# sample ten times larger), 512 KiB without; and a user who may not lock
# 2 MiB a CPU (perf_event_mlock_kb, RLIMIT_MEMLOCK 0) records with -g in
# rings of 512 KiB, as before, instead of failing.  The sizes are read
# from the recorder's /proc/PID/maps while it records.
. "$(dirname "$0")/lib.sh"

bin=$WORKLOADS/callchain
[ -x "$bin" ] || fail "$bin is not built"
cd "$WORK"
page=$(getconf PAGESIZE)
big=$(((512 + 1) * page)) small=$(((128 + 1) * page))

# ring_sizes PID: the sizes of PID's perf_event mappings, sorted and
# unique, once it has them (within 10 s), else nothing
ring_sizes() {
	local i s r
	for i in $(seq 100); do
		s=$(grep perf_event "/proc/$1/maps" 2>/dev/null |
			while read -r r _; do
				echo $((0x${r#*-} - 0x${r%-*}))
			done | sort -un | tr '\n' ' ')
		[ -n "$s" ] && { echo "${s% }"; return; }
		sleep 0.1
	done
}

# record WHO SESSION OPTS...: oprofiled OPTS on callchain for 2 s, as
# root (WHO=root) or as $user with no memory to lock; its ring sizes
# in $sizes
record() {
	local who=$1 s=$2 pid i
	shift 2
	if [ "$who" = root ]; then
		"$OPROFILED" "$@" --session-dir="$s" -- "$bin" 2 2>"$s.err" &
		pid=$!
	else
		runuser -u "$user" -- bash -c 'ulimit -l 0 && exec "$@"' _ \
			"$OPROFILED" "$@" --session-dir="$s" -- "$bin" 2 \
			2>"$s.err" &
		for i in $(seq 100); do
			# the oldest: the recorder's child is named oprofiled
			# too until it execs the command, while the rings are
			# mapped
			pid=$(pgrep -o -u "$user" -x oprofiled) && break
			sleep 0.1
		done
	fi
	cleanup_pids+=("$!")
	sizes=$(ring_sizes "$pid")
	wait "$!" || show_fail "$s.err" "oprofiled $* as $who exited $?"
	check_summary "$s.err"
}

record root rg -g
[ "$sizes" = "$big" ] || fail "-g mapped rings of $sizes bytes, not $big"
record root rf
[ "$sizes" = "$small" ] || fail "without -g rings of $sizes bytes, not $small"

# an unprivileged user: what it may lock is perf_event_mlock_kb a CPU
# (then RLIMIT_MEMLOCK, 0 here), enough for 512 KiB rings, not 2 MiB
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
mlock_kb=$(cat /proc/sys/kernel/perf_event_mlock_kb)
if [ "$(id -u)" -ne 0 ] || [ "$paranoid" -gt 2 ] ||
	[ "$mlock_kb" -ge $((big / 1024)) ] || ! command -v useradd >/dev/null; then
	echo "note: unprivileged case not run (root: $(id -u), paranoid $paranoid, perf_event_mlock_kb $mlock_kb)"
	echo pass
	exit 0
fi
trap 'e2e_remove_users; cleanup' EXIT
e2e_make_user opjit-ring
chmod 755 "$WORK"
mkdir -m 700 u && chown "$user" u
record "$user" u/g -g
[ "$sizes" = "$small" ] ||
	fail "a user who may lock 512 KiB a CPU mapped -g rings of '$sizes' bytes, not $small"
dump u/g >ug.txt
[ "$(info ug.txt callgraph_depth)" = 127 ] || fail "the unprivileged -g session has no call graphs"
[ "$(image_samples ug.txt "$bin")" -gt 0 ] || fail "no samples of the unprivileged -g command"
grep -q '^stackhist ' ug.txt || fail "no stacks in the unprivileged -g session"
echo pass
