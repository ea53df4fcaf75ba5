#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Stack copies through an image without call-frame information: the
# frameless workload with .eh_frame and .debug_frame taken out.  Recorded
# with oprofiled --callgraph=dwarf, opreport must say so in one line for
# that image however many copies stop there, unwind what libc's CFI
# covers (memcpy's caller, hot), and lose no sample: every format's total
# is that of the frame-pointer stacks (--no-unwind).
. "$(dirname "$0")/lib.sh"
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
WORKLOAD=$OPJIT_BUILD/tests/workloads/frameless_nocfi
[ -x "$OPROFILED" ] || fail "$OPROFILED is not built"
[ -x "$WORKLOAD" ] || fail "$WORKLOAD is not built"

timeout 120 "$OPROFILED" --callgraph=dwarf --session-dir="$TMP/s" -- \
	"$WORKLOAD" 1 >/dev/null 2>"$TMP/oprofiled.err" ||
	{ cat "$TMP/oprofiled.err"; fail "oprofiled --callgraph=dwarf failed"; }
S=$TMP/s

"$OPREPORT" --session-dir="$S" --format=folded >"$TMP/folded.txt" 2>"$TMP/err.txt" ||
	{ cat "$TMP/err.txt"; fail "opreport --format=folded failed"; }
"$OPREPORT" --session-dir="$S" --format=folded --no-unwind >"$TMP/fp.txt" 2>/dev/null ||
	fail "opreport --no-unwind failed"
"$OPREPORT" --session-dir="$S" -c >"$TMP/c.txt" 2>/dev/null || fail "opreport -c failed"
cat "$TMP/err.txt"

n=$(grep -c "frameless_nocfi: no call-frame information" "$TMP/err.txt" || true)
[ "$n" = 1 ] || fail "$n lines say frameless_nocfi has no call-frame information, not 1"
# Without frame pointers the kernel's walk follows whatever rbp holds; a
# value that loops fills the chain to the depth limit, which is said.
others=$(grep -v -e "frameless_nocfi: no call-frame information" \
	-e "unwound from its stack copy only part of the way" \
	-e "call chain cut at the recording's depth limit" "$TMP/err.txt" || true)
[ -z "$others" ] || fail "other warnings: $others"

total() { awk '{ s += $NF } END { print s + 0 }' "$1"; }
[ "$(total "$TMP/folded.txt")" = "$(total "$TMP/fp.txt")" ] ||
	fail "folded holds $(total "$TMP/folded.txt") samples, the frame-pointer stacks $(total "$TMP/fp.txt")"
memcpy=$(awk '$0 ~ /memcpy[^;]* \[libc[^;]*\] [0-9]+$/ { s += $NF } END { print s + 0 }' "$TMP/folded.txt")
hot=$(awk '$0 ~ /hot \[frameless_nocfi\];[^;]*memcpy[^;]* \[libc[^;]*\] [0-9]+$/ { s += $NF } END { print s + 0 }' "$TMP/folded.txt")
echo "memcpy leaf samples: $memcpy, with hot as their caller: $hot"
[ "$memcpy" -ge 500 ] || fail "only $memcpy samples in memcpy"
[ $((hot * 100)) -ge $((memcpy * 95)) ] || fail "hot is the caller of only $hot of $memcpy memcpy samples"
grep -q "hot" "$TMP/c.txt" || fail "-c does not show hot"
echo PASS
