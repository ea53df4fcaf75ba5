#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# In a ThreadSanitizer build (-DOPJIT_TSAN=ON): opjit-handler-check's
# threads catch the thread-unsafe test handler by ThreadSanitizer's
# report, even where its answers happen to agree, and every shipped
# handler runs clean on real maps (handler_check_maps.sh, whose every
# rule would break on a race), and the handler written with the kit.
# $1 $2: the fake3 test handler directory, the kit handler's.
e2e_no_commands=1 # opjit-handler-check alone
. "$(dirname "$0")/e2e_lib.sh"
fake3=${1:?usage: handler_check_tsan.sh FAKE_DIR3 KIT_DIR}
kit=${2:?}
check=$OPJIT_BUILD/handler-api/check/opjit-handler-check
[ -x "$check" ] || fail "$check is not built"
grep -q '^OPJIT_TSAN:BOOL=ON$' "$OPJIT_BUILD/CMakeCache.txt" ||
	fail "$OPJIT_BUILD is not a ThreadSanitizer build (-DOPJIT_TSAN=ON)"

rc=0
"$check" --comm=any "$fake3/libshared.so" >"$tmp/shared.out" \
	2>"$tmp/shared.err" || rc=$?
cat "$tmp/shared.out"
[ "$rc" -eq 1 ] || show_fail "$tmp/shared.err" "shared: status $rc, not 1"
grep -q '^BROKEN *claims and resolves from threads at once alike *ThreadSanitizer reported a data race' \
	"$tmp/shared.out" || show_fail "$tmp/shared.err" \
	"shared: the threads rule not broken by ThreadSanitizer"
[ "$(grep -c '^BROKEN' "$tmp/shared.out")" -eq 1 ] ||
	fail "shared: more than the threads rule broken"
# the report is ThreadSanitizer's, on the handler's own globals
grep -q 'WARNING: ThreadSanitizer: data race' "$tmp/shared.err" ||
	show_fail "$tmp/shared.err" "shared: no ThreadSanitizer report"
grep -Eq "Location is global 'fake_shared_(name|claims)'" "$tmp/shared.err" ||
	show_fail "$tmp/shared.err" "shared: the race is not on its globals"
echo "ok: ThreadSanitizer caught the thread-unsafe handler"

# the shipped handlers on real maps, instrumented: no race anywhere
bash "$here/handler_check_maps.sh" "$kit" || exit $?
echo "PASS: the thread-unsafe handler caught by ThreadSanitizer; the shipped handlers clean"
