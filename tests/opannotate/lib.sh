# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by opannotate's end-to-end scripts.  Sourced, not run.
set -euo pipefail

: "${OPJIT_BUILD:?OPJIT_BUILD must name the build directory}"
: "${OPJIT_SOURCE:?OPJIT_SOURCE must name the source directory}"
OPANNOTATE=$OPJIT_BUILD/opannotate/opannotate
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
HERE=$OPJIT_SOURCE/tests/opannotate
TEST_NAME=${0##*/}
TEST_NAME=${TEST_NAME%.sh}
fail() { echo "$TEST_NAME: FAIL: $*" >&2; exit 1; }
skip() { echo "$TEST_NAME: SKIP: $*" >&2; exit 77; }
for f in "$OPANNOTATE" "$OPROFILED"; do
	[ -x "$f" ] || fail "$f is not built"
done
command -v python3 >/dev/null || skip "python3 is not installed"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/opannotate-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# record DIR CMD...: a session of CMD, or a loud skip where perf_event
# is closed to us
record() {
	local dir=$1
	shift
	if [ "$(id -u)" -ne 0 ] &&
		[ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)" -gt 2 ]; then
		skip "perf_event_paranoid > 2 forbids perf_event_open for non-root users"
	fi
	"$OPROFILED" --session-dir="$dir" -- "$@" >"$TMP/rec.out" 2>"$TMP/rec.err" ||
		fail "oprofiled exited $?: $(cat "$TMP/rec.err")"
}

# one_line FILE WHAT: FILE holds exactly one line, about WHAT
one_line() {
	local n
	n=$(wc -l <"$1")
	[ "$n" -eq 1 ] || { cat "$1"; fail "$2: $n lines on stderr, not 1"; }
	grep -q "^opannotate: " "$1" || { cat "$1"; fail "$2: not an opannotate: line"; }
}

# same_as_whole WHAT TOOL ARGS...: TOOL (opannotate or opreport) ARGS
# gives byte for byte what it gives with every ELF image's static table
# read whole (TOOL_whole, the tool as it was before reading only the
# parts its samples need), on stdout and stderr
same_as_whole() {
	local what=$1 tool=$2 rc
	local part=$OPJIT_BUILD/$2/$2 whole=$OPJIT_BUILD/tests/opannotate/$2_whole
	shift 2
	[ -x "$part" ] || fail "$part is not built"
	[ -x "$whole" ] || fail "$whole is not built"
	rc=0
	"$part" "$@" >"$TMP/part.out" 2>"$TMP/part.err" || rc=$?
	echo "exit $rc" >>"$TMP/part.err"
	rc=0
	"$whole" "$@" >"$TMP/whole.out" 2>"$TMP/whole.err" || rc=$?
	echo "exit $rc" >>"$TMP/whole.err"
	cmp -s "$TMP/part.out" "$TMP/whole.out" ||
		{ diff "$TMP/whole.out" "$TMP/part.out" | head -20; fail "$tool $what: the output differs from the whole tables'"; }
	cmp -s "$TMP/part.err" "$TMP/whole.err" ||
		{ diff "$TMP/whole.err" "$TMP/part.err" | head -20; fail "$tool $what: stderr differs from the whole tables'"; }
}
