#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A handler that turns on root, who runs opreport: one hostile test handler
# per attack (tests/handlers/fake_handler.c, FAKE_HOSTILE_*), run in its
# helper process on a real session of the JIT demo.  Each attack must fail:
# a root process the handler aims SIGKILL at through F_SETOWN, F_SETSIG
# and O_ASYNC lives on; /etc/shadow and a root-only file never reach the
# report, read by the handler or opened through the host's open_map; neither opreport's /proc/PID/mem nor a root process's opens;
# prlimit on another process changes nothing; 300 threads or 512 MiB fail
# inside the helper with one line, and the report goes on as without the
# handler.  A handler that declines leaves the report byte for byte as
# perfmap alone makes it.
. "$(dirname "$0")/reader_lib.sh"
[ "$(id -u)" = 0 ] || skip "the attacks are on root: run as root"
bad=$OPJIT_BUILD/tests/handlers/bad
hp=$OPJIT_BUILD/lib/opjit/handlers
jitdemo=$OPJIT_BUILD/tests/workloads/jitdemo
[ -x "$jitdemo" ] || fail "$jitdemo is not built"
for h in setown read-shadow open-map proc-mem threads memory prlimit; do
	[ -f "$bad/lib$h.so" ] || fail "$bad/lib$h.so is not built"
done
[ -s /etc/shadow ] || skip "/etc/shadow is missing or empty"

"$OPROFILED" --session-dir="$tmp/s" -- "$jitdemo" --seconds 2 \
	--threads 1 --map-file perf >"$tmp/rec.out" 2>&1 || {
	cat "$tmp/rec.out" >&2; fail "oprofiled failed"; }

# a root process to aim at, and a file only root may read
sleep 1000 &
victim=$!
cleanup+=("/proc/$victim/no-such-file")
trap 'kill "$victim" 2>/dev/null || true; reader_cleanup' EXIT
secret=$(mktemp /tmp/opjit-secret.XXXXXX)
cleanup+=("$secret")
echo "opjit-secret-$RANDOM$RANDOM-not-for-handlers" >"$secret"
chmod 600 "$secret"
limits=$(grep '^Max open files' "/proc/$victim/limits")
export FAKE_VICTIM_PID=$victim

args=(--session-dir="$tmp/s" --handler-path="$bad:$hp" -l)
report clean "${args[@]}" --anon-handler=perfmap
[ "$rc" = 0 ] || { cat "$tmp/clean.err" >&2; fail "clean: status $rc"; }
grep -q 'jit_hot' "$tmp/clean.out" ||
	fail "clean: perfmap named no jit_hot: nothing for a handler to claim"
# the demo's map is ours to remove
demo=$(grep -o 'tgid:[0-9]*' "$tmp/clean.out" | head -n 1 | cut -d: -f2)
[ -z "$demo" ] || cleanup+=("/tmp/perf-$demo.map")

# stolen NAME: no attack of NAME's report worked
stolen() {
	! grep -h 'attack succeeded' "$tmp/$1.out" "$tmp/$1.err" ||
		fail "$1: the handler's attack succeeded"
}
# as_clean NAME: status 0, and the report perfmap alone gives
as_clean() {
	[ "$rc" = 0 ] || { cat "$tmp/$1.err" >&2; fail "$1: status $rc"; }
	cmp -s "$tmp/clean.out" "$tmp/$1.out" || {
		diff "$tmp/clean.out" "$tmp/$1.out" | head -n 20 >&2
		fail "$1: the report differs from perfmap's alone"
	}
}

# F_SETOWN + F_SETSIG(SIGKILL) + O_ASYNC on every descriptor, stderr a
# pipe (a pipe signals, a file does not); the handler claims, so that
# opreport's next call makes the channel ready
rc=0
timeout 60 "$OPREPORT" "${args[@]}" --anon-handler=setown,perfmap \
	2>&1 >"$tmp/setown.out" | cat >"$tmp/setown.err" ||
	rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || { cat "$tmp/setown.err" >&2; fail "setown: status $rc"; }
grep -q 'setown' "$tmp/setown.out" ||
	fail "setown: the handler did not claim the demo: nothing was tried"
kill -0 "$victim" 2>/dev/null ||
	fail "setown: the handler killed root's process $victim"
ok "setown: root's process $victim lives"

# reading files only root may read: itself, and through the host's
# open_map, passed off as an archived map
for f in /etc/shadow "$secret"; do
	for h in read-shadow open-map; do
		FAKE_READ_PATH=$f report "$h" "${args[@]}" \
			--anon-handler="$h,perfmap"
		stolen "$h"
		grep -v '^[[:space:]]*$' "$f" | grep -F -q -f - \
			"$tmp/$h.out" "$tmp/$h.err" &&
			fail "$h: bytes of $f reached the report"
		# (open-map's refusal is a warning line of its own)
		[ "$h" = open-map ] || as_clean "$h"
		ok "$h: nothing of $f in the report"
	done
done

# opreport's memory and the victim's
report procmem "${args[@]}" --anon-handler=proc-mem,perfmap
stolen procmem
as_clean procmem
ok "proc-mem: neither opreport's nor root's /proc/PID/mem opened"

# the victim's and opreport's limits
report prlimit "${args[@]}" --anon-handler=prlimit,perfmap
stolen prlimit
as_clean prlimit
[ "$(grep '^Max open files' "/proc/$victim/limits")" = "$limits" ] ||
	fail "prlimit: the handler changed root's process's limits"
ok "prlimit: no other process's limits changed"

# limits: one line, then the report as without the handler
for b in "threads:started [0-9]+ of 300 threads: .*" \
	"memory:cannot map 512 MiB: Cannot allocate memory"; do
	name=${b%%:*} what=${b#*:}
	report "$name" "${args[@]}" --anon-handler="$name,perfmap"
	stolen "$name"
	as_clean "$name"
	[ "$(wc -l <"$tmp/$name.err")" = 1 ] &&
		grep -Eqx "opreport: $name: cannot read the map of process [0-9]+ \(jitdemo\): $what" \
			"$tmp/$name.err" || {
		cat "$tmp/$name.err" >&2
		fail "$name: not one line saying the limit held"
	}
	[ "$name" != threads ] ||
		! grep -q 'started 300 of' "$tmp/$name.err" ||
		fail "threads: all 300 threads started"
	ok "$name: $(cat "$tmp/$name.err")"
done
echo "handler sandbox: every attack failed; reports intact"
