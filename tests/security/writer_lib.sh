# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the writer_*.sh tests: what oprofiled and opreport write, run
# as root, in places other users control.  Sourced, not run.
set -euo pipefail
: "${OPJIT_BUILD:?OPJIT_BUILD must name the build directory}"

TEST_NAME=${0##*/}
TEST_NAME=${TEST_NAME%.sh}
fail() { echo "$TEST_NAME: FAIL: $*" >&2; exit 1; }
skip() { echo "$TEST_NAME: SKIP: $*" >&2; exit 77; }
ok() { echo "ok: $*"; }

OPROFILED=$OPJIT_BUILD/daemon/oprofiled
OPREPORT=$OPJIT_BUILD/opreport/opreport
WORKLOADS=$OPJIT_BUILD/tests/workloads
for f in "$OPROFILED" "$OPREPORT" "$WORKLOADS/threetoone"; do
	[ -x "$f" ] || fail "$f is not built"
done
[ "$(id -u)" = 0 ] || skip "the attacker tests play root and other users: run as root"
command -v useradd >/dev/null || skip "useradd is not installed (apt-get install passwd)"

work=$(mktemp -d "${TMPDIR:-/tmp}/opjit-$TEST_NAME.XXXXXX")
chmod 755 "$work"
users=()
bg_pids=()
writer_cleanup() {
	local p u
	for p in "${bg_pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$work"
	for u in "${users[@]}"; do userdel "$u" 2>/dev/null || true; done
}
trap writer_cleanup EXIT

# make_user: a throwaway unprivileged user, removed on exit; its name in
# $user, its uid in $uid.
make_user() {
	user=opjit-wr$$-${#users[@]}
	useradd --system --no-create-home --shell /usr/sbin/nologin "$user" ||
		fail "cannot create user $user"
	users+=("$user")
	uid=$(id -u "$user")
}

as_user() { runuser -u "$user" -- "$@"; }

# a file only root may write, whose bytes must never change: $victim
make_victim() {
	mkdir -m 700 "$work/root-only"
	victim=$work/root-only/victim
	printf 'precious\n' >"$victim"
	chmod 600 "$victim"
	victim_sum=$(sha256sum "$victim")
}

check_victim() {
	[ "$(sha256sum "$victim")" = "$victim_sum" ] ||
		fail "$1: $victim changed: $(head -c 200 "$victim")"
}

# expect_line NAME PATTERN CMD...: CMD exits 1 and its stderr is the one
# line matching PATTERN (an extended regular expression).
expect_line() {
	local name=$1 re=$2 rc=0; shift 2
	"$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
	[ "$rc" = 1 ] || fail "$name: exit status $rc, not 1: $(cat "$work/$name.err")"
	[ "$(wc -l <"$work/$name.err")" = 1 ] ||
		fail "$name: not one line: $(cat "$work/$name.err")"
	grep -Eq "$re" "$work/$name.err" ||
		fail "$name: said '$(cat "$work/$name.err")', not /$re/"
	ok "$name: $(cat "$work/$name.err")"
}
