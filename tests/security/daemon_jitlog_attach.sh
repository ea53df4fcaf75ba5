#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Root oprofiled attaches to a JIT log by writing the library's control
# block through /proc/PID/mem, which ignores page protection.  It must
# write only into the library's own writable data, of a process it may
# profile: not into a set-user-ID root program an unprivileged user runs,
# and not where a crafted library puts opjit_jitlog_control (read-only
# data, code).  Each refusal is one line.  The lab program watches the
# control block itself, so a write is seen, not inferred; the same
# program without the set-user-ID bit shows that a write would be seen.
. "$(dirname "$0")/writer_lib.sh"
SRC=$(cd "$(dirname "$0")" && pwd)
LIB=$OPJIT_BUILD/lib/libopjit-jitlog.so
[ -e "$LIB" ] || fail "$LIB is not built"
LIB=$(readlink -f "$LIB")
CC=${CC:-cc}
command -v "$CC" >/dev/null || skip "no C compiler ($CC) to build the lab programs"
make_user
lab=$work/lab
mkdir -m 755 "$lab"
# a sanitizer build's library needs its runtime loaded first
san=()
! ldd "$LIB" 2>/dev/null | grep -q libasan || san=("-fsanitize=address,undefined")
"$CC" "${san[@]}" -o "$lab/jitlog_lab" "$SRC/jitlog_lab.c" -ldl ||
	fail "cannot build the lab program"
for sec in rodata text; do
	mkdir -m 755 "$lab/$sec"
	"$CC" -shared -fPIC -DLAB_SECTION="\".$sec\"" \
		-o "$lab/$sec/libopjit-jitlog.so" "$SRC/jitlog_crafted.c" ||
		fail "cannot build the crafted library"
done

# watch NAME LIBRARY [suid] [HOW]: root oprofiled on the lab program run
# by the user, mapping LIBRARY; the program's report in $work/NAME.out,
# the daemon's stderr in $work/NAME.err.  HOW: as oprofiled's command
# (cmd, the default), --pid once it runs (pid), or -a started before it
# (all).  The kernel does not carry a command's counters across a
# set-user-ID exec, so a set-user-ID program is watched with pid or all.
watch() {
	local name=$1 lib=$2 prog=$lab/jitlog_lab how=${4:-cmd} rc=0 pid dpid
	if [ "${3:-}" = suid ]; then
		prog=$lab/jitlog_lab_suid
		cp "$lab/jitlog_lab" "$prog"
		chown root:root "$prog"
		chmod 4755 "$prog"
	fi
	case $how in
	cmd)
		timeout -s KILL 60 "$OPROFILED" --session-dir="$work/$name.s" -- \
			runuser -u "$user" -- "$prog" "$lib" 3 \
			>"$work/$name.out" 2>"$work/$name.err" || rc=$?
		;;
	pid)
		as_user "$prog" "$lib" 4 >"$work/$name.out" &
		pid=$!
		bg_pids+=("$pid")
		sleep 1
		pid=$(pgrep -n -U "$user" -x "${prog##*/}") ||
			fail "$name: the lab program is not running"
		timeout -s KILL 60 "$OPROFILED" --session-dir="$work/$name.s" \
			--pid="$pid" --duration=2 \
			2>"$work/$name.err" || rc=$?
		wait "${bg_pids[-1]}" || true
		;;
	all)
		timeout -s KILL 60 "$OPROFILED" --session-dir="$work/$name.s" \
			-a --duration=4 2>"$work/$name.err" &
		dpid=$!
		sleep 1
		as_user "$prog" "$lib" 2 >"$work/$name.out" || true
		wait "$dpid" || rc=$?
		;;
	esac
	[ "$rc" = 0 ] || fail "$name: oprofiled exited $rc: $(cat "$work/$name.err")"
	grep -q '^oprofiled: [0-9]* samples, ' "$work/$name.err" ||
		fail "$name: no summary line: $(cat "$work/$name.err")"
	read -r _ euid _ state <"$work/$name.out" ||
		fail "$name: the lab program said nothing"
}

# refused NAME REASON: not written, and one line saying why
refused() {
	local name=$1 why=$2 lines
	[ "$state" = 0 ] ||
		fail "$name: oprofiled wrote state $state into the control block"
	# with -a, other processes of the machine may have their own lines
	lines=$(grep -c "^oprofiled: \(not\|cannot\) attach.*(jitlog_lab${3:-})" "$work/$name.err" || true)
	[ "$lines" = 1 ] || fail "$name: $lines lines about the attach, not one: $(cat "$work/$name.err")"
	grep -qxF "oprofiled: not attaching to the JIT log of pid $(awk -v c="(jitlog_lab${3:-})" 'index($0, c) && /not attaching/ { sub(/.*pid /, ""); print $1; exit }' "$work/$name.err") (jitlog_lab${3:-}): $why; its code is named only if its JIT writes the log without a profiler" "$work/$name.err" ||
		fail "$name: not the line expected ($why): $(cat "$work/$name.err")"
	ok "$name: $(grep "not attaching.*(jitlog_lab${3:-})" "$work/$name.err")"
}

# the control: an ordinary program of the user is attached to
watch plain "$LIB"
[ "$state" -ge 1 ] ||
	fail "plain: oprofiled did not attach to the user's own program (state $state): $(cat "$work/plain.err")"
! grep -q 'JIT log' "$work/plain.err" || fail "plain: $(cat "$work/plain.err")"
ok "plain: an ordinary program is attached to (state $state)"

# a set-user-ID root program the user runs, found by --pid and by -a
watch suid-pid "$LIB" suid pid
[ "$euid" = 0 ] || skip "the set-user-ID bit is not honoured here (euid $euid): nosuid mount or no_new_privs"
refused suid-pid "it runs set-user-ID or set-group-ID" _suid
watch suid-all "$LIB" suid all
refused suid-all "it runs set-user-ID or set-group-ID" _suid

# a crafted library whose control block lies in read-only data or code
for sec in rodata text; do
	watch "crafted-$sec" "$lab/$sec/libopjit-jitlog.so"
	refused "crafted-$sec" "its opjit_jitlog_control lies outside the library's writable data"
done
echo PASS
