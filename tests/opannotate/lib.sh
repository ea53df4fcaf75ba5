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
