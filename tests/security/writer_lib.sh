# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the writer_*.sh tests: what oprofiled and opreport write, run
# as root, in places other users control.  Sourced, not run.
. "${BASH_SOURCE[0]%/*}/../lib/e2e.sh"
: "${OPJIT_BUILD:?OPJIT_BUILD must name the build directory}"

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
bg_pids=()
writer_cleanup() {
	local p
	for p in "${bg_pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$work"
	e2e_remove_users
}
trap writer_cleanup EXIT

# make_user: a throwaway unprivileged user, removed on exit; its name in
# $user, its uid in $uid.
make_user() { e2e_make_user opjit-wr; }

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
