#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Each image is opened once however many contexts, processes and
# addresses its samples come from; its debug file once for symbols and
# lines, plus once more by libbfd's .gnu_debuglink CRC check.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null ||
	{ echo "SKIP: strace is not installed (Debian package strace)"; exit 77; }
LINKED=$RT/rt_split.linked
{
	echo "separate process"
	echo "image app file $LINKED"
	for t in 1 2 3 4 5 6 7 8; do echo "ctx c$t app app tgid $t"; done
	for t in 1 2 3 4 5 6 7 8; do
		for off in $(python3 "$HERE/offsets.py" "$RT/rt_split" \
			rt_alpha rt_gamma main rt_far_delta | cut -d' ' -f2); do
			echo "hist c$t $off $t"
			echo "hist c$t $((off + 1)) 1"
		done
	done
} | "$MKSESSION" "$TMP/s"
# LeakSanitizer cannot run under ptrace: a sanitizer build checks leaks
# in the other tests, not under strace
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -qq -e trace=open,openat -o "$TMP/trace" \
	"$OPREPORT" --session-dir="$TMP/s" -l -g -d >"$TMP/out" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "opreport under strace exited $?"; }
grep -q rt_alpha "$TMP/out" || { cat "$TMP/out"; fail "rt_alpha not named"; }
opens() { grep -c "\"$1\"" "$TMP/trace" || true; }
n=$(opens "$LINKED")
[ "$n" -eq 1 ] || { grep -F "$LINKED" "$TMP/trace"; fail "$LINKED opened $n times, want 1"; }
echo "ok: $LINKED opened once"
n=$(opens "$RT/rt_split.debug")
[ "$n" -eq 2 ] || { grep -F rt_split.debug "$TMP/trace"; fail "rt_split.debug opened $n times, want 2"; }
echo "ok: rt_split.debug opened once, and once for its CRC"
echo PASS
