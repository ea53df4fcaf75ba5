# SPDX-License-Identifier: GPL-3.0-or-later
# What every end-to-end shell test shares: how it fails, skips (exit 77,
# loudly, never a quiet pass) and says what held, throwaway users, and the
# offsets of the report's test programs.  Sourced by the folders' own
# libraries and scripts, not run: ". "$OPJIT_SOURCE/tests/lib/e2e.sh"" or
# relative to the sourcing file.
set -euo pipefail

# the script's name before each FAIL and SKIP line
TEST_NAME=${TEST_NAME:-${0##*/}}
TEST_NAME=${TEST_NAME%.sh}

fail() { echo "$TEST_NAME: FAIL: $*" >&2; exit 1; }
skip() { echo "$TEST_NAME: SKIP: $*" >&2; exit 77; }
ok() { echo "ok: $*"; }
# show_fail FILE MSG...: show what FILE says, then fail
show_fail() { local f=$1; shift; cat "$f" >&2; fail "$@"; }
# need_cmd CMD PACKAGE: skip loudly when CMD is missing
need_cmd() {
	command -v "$1" >/dev/null ||
		skip "$1 is not installed (apt-get install $2)"
}

# perf_reads OUT ERR CMD...: perf's reading command CMD (report, script),
# its output in OUT and ERR.  perf 6.1 now and then aborts in its
# build-id code on data it reads at another try: the reference's crash,
# said each time and tried twice more, never a pass.  Fails when CMD
# does.
perf_reads() {
	local out=$1 err=$2 try rc
	shift 2
	for try in 1 2 3; do
		rc=0
		"$@" >"$out" 2>"$err" || rc=$?
		[ "$rc" -gt 128 ] || break
		echo "$* crashed (signal $((rc - 128))) at try $try: $(head -n 1 "$err")"
	done
	[ "$rc" = 0 ] || show_fail "$err" "$* failed (exit $rc)"
}

# e2e_make_user PREFIX: a throwaway unprivileged user, its name in $user and
# its uid in $uid; e2e_remove_users (the caller's exit trap) removes them.
e2e_users=()
e2e_make_user() {
	[ "$(id -u)" = 0 ] || skip "making a throwaway user needs root"
	need_cmd useradd passwd
	user=$1$$-${#e2e_users[@]}
	useradd --system --no-create-home --shell /usr/sbin/nologin \
		"$user" || fail "cannot create user $user"
	e2e_users+=("$user")
	uid=$(id -u "$user")
}
e2e_remove_users() {
	local u
	for u in "${e2e_users[@]}"; do userdel "$u" 2>/dev/null || true; done
}
# as_user CMD...: run CMD as $user
as_user() { runuser -u "$user" -- "$@"; }

# e2e_forget_jit_maps SESSION...: remove from /tmp the JIT maps
# (anon.PID, perf-PID.map) of the processes these sessions recorded,
# named by the copies each session archived: only our workloads' maps,
# never those of a test running beside us (anything new in /tmp during
# our run may be theirs).  The pids are 15 bits here and come round in
# minutes on a busy machine: a map newer than the session's copy (which
# keeps the map's time) is another process's, made since.
e2e_forget_jit_maps() {
	local s f n
	for s in "$@"; do
		for f in "$s"/maps/*/*; do
			n=${f##*/}
			n=${n%.gz}
			[[ $n =~ ^(anon\.[0-9]+|perf-[0-9]+\.map)$ ]] || continue
			# the one path, not a walk of /tmp: a test beside us
			# removing its own directory there made find fail
			if [ -e "/tmp/$n" ] && [ ! "/tmp/$n" -nt "$f" ]; then
				rm -f "/tmp/$n"
			fi
		done
	done
}

# e2e_rm_maps FILE...: remove FILEs, but not a JIT map (/tmp/anon.PID,
# /tmp/perf-PID.map) whose pid a live process has: that pid came round
# to another test's workload, and the map is its.
e2e_rm_maps() {
	local f pid
	for f in "$@"; do
		if [[ $f =~ ^/tmp/(anon\.([0-9]+)|perf-([0-9]+)\.map)$ ]]; then
			pid=${BASH_REMATCH[2]}${BASH_REMATCH[3]}
			! kill -0 "$pid" 2>/dev/null || continue
		fi
		rm -f "$f"
	done
}

# off PROGRAM SYMBOL: SYMBOL's offset in one of tests/opreport's programs;
# ret SYMBOL: in $APP, a return address one past an address inside it, so
# that the report's lookup at address - 1 lands inside the function.
off() {
	python3 "${OPJIT_SOURCE:?}/tests/opreport/offsets.py" "$1" "$2" |
		cut -d' ' -f2
}
ret() { printf '0x%x' $(($(off "$APP" "$1") + 1)); }
