#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A JIT in a container: its own pid namespace (it is pid 1 there) and its
# own /tmp.  The map it writes, /tmp/anon.1 inside, must be found through
# /proc/<tgid>/root/tmp/anon.<nspid> while it runs, and through the
# session's copy.
. "$(dirname "$0")/e2e_lib.sh"
need_cmd unshare util-linux
jitdemo=$OPJIT_BUILD/tests/workloads/jitdemo
[ -x "$jitdemo" ] || fail "$jitdemo is not built"
unshare --pid --mount --fork true 2>/dev/null ||
	skip "cannot create pid and mount namespaces here (needs root)"

unshare --pid --mount --fork --kill-child \
	sh "$OPJIT_SOURCE/tests/private_tmp.sh" "$jitdemo" \
	--seconds 120 --threads 1 --map-file anon >"$tmp/demo.out" 2>&1 &
outer=$!
demo=
# unshare --fork ignores SIGTERM while it waits, and the demo is the
# namespace's init, which only SIGKILL stops from outside
stop_demo() {
	[ -z "$demo" ] || kill -KILL "$demo" 2>/dev/null || true
	kill "$outer" 2>/dev/null || true
	wait "$outer" || true
}
trap 'stop_demo; rm -rf "$tmp"' EXIT

for _ in $(seq 50); do
	demo=$(pgrep -P "$outer" -x jitdemo || true)
	[ -n "$demo" ] && [ -e "/proc/$demo/root/tmp/anon.1" ] && break
	sleep 0.1
done
[ -n "$demo" ] || show_fail "$tmp/demo.out" "the demo did not start"
[ -e "/proc/$demo/root/tmp/anon.1" ] ||
	fail "the demo wrote no /tmp/anon.1 inside its namespace"
[ ! -e "/tmp/anon.$demo" ] || fail "/tmp/anon.$demo exists outside"

# check SESSION WHAT HOT_NS COLD_NS: jit_hot/jit_cold named as the demo's
# own clock split them while the session recorded
check() {
	"$opreport" --session-dir="$tmp/$1" -l --format=json \
		--anon-handler=perfmap >"$tmp/$1.json" 2>"$tmp/$1.err" ||
		show_fail "$tmp/$1.err" "opreport failed"
	local hot cold
	read -r hot _ _ < <(python3 "$here/report_shares.py" "$tmp/$1.json" \
		'^jit_hot$' --handler perfmap)
	read -r cold _ _ < <(python3 "$here/report_shares.py" \
		"$tmp/$1.json" '^jit_cold$' --handler perfmap)
	[ "$hot" -gt 0 ] && [ "$cold" -gt 0 ] || show_fail "$tmp/$1.err" \
		"$2: jit_hot ($hot) and jit_cold ($cold) not both named"
	check_jitdemo_share "$2" "$hot" "$cold" "$3" "$4"
}

# record SESSION OPTIONS...: a 2 s --pid session of the demo; sets hot_ns
# and cold_ns to the demo's CPU time in each function during it
record() {
	local s=$1 before after
	shift
	before=$(jitdemo_so_far "$demo" "$tmp/demo.out")
	"$oprofiled" --session-dir="$tmp/$s" --pid="$demo" --duration=2 \
		"$@" >"$tmp/$s.out" 2>&1 ||
		show_fail "$tmp/$s.out" "oprofiled --pid failed"
	after=$(jitdemo_so_far "$demo" "$tmp/demo.out")
	hot_ns=$((${after% *} - ${before% *}))
	cold_ns=$((${after#* } - ${before#* }))
}

# the live map inside the container, with no copy in the session
record live --no-archive-maps
[ ! -d "$tmp/live/maps" ] || [ -z "$(ls -A "$tmp/live/maps")" ] ||
	fail "--no-archive-maps still copied maps into the session"
check live "through /proc/$demo/root/tmp/anon.1" "$hot_ns" "$cold_ns"

# the session's copy, once the container is gone
record arch
stop_demo
[ ! -e "/proc/$demo/root/tmp/anon.1" ] || fail "the demo still runs"
check arch "from the session's copy" "$hot_ns" "$cold_ns"
echo "container: the JIT map was found inside the namespace and in the session"
