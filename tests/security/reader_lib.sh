# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the reader_*.sh tests: what opreport does with files and names
# other users control.  Sourced, not run.
. "${BASH_SOURCE[0]%/*}/../lib/e2e.sh"
: "${OPJIT_BUILD:?OPJIT_BUILD must name the build directory}"
: "${OPJIT_SOURCE:?OPJIT_SOURCE must name the source directory}"

OPREPORT=${OPREPORT:-$OPJIT_BUILD/opreport/opreport}
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
MKSESSION=$OPJIT_BUILD/tests/opreport/mksession
RT=$OPJIT_BUILD/tests/opreport
for f in "$OPREPORT" "$OPROFILED" "$MKSESSION" "$RT/rt_g_pie"; do
	[ -x "$f" ] || fail "$f is not built"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/opjit-reader.XXXXXX")
cleanup=()
reader_cleanup() {
	rm -rf "$tmp" "${cleanup[@]}"
	e2e_remove_users
}
trap reader_cleanup EXIT

# make_user: a throwaway unprivileged user, removed on exit; its name in
# $user and a directory it owns (world-readable, as a home would be) in
# $udir.
make_user() {
	e2e_make_user opjit-rd
	udir=$(mktemp -d /tmp/opjit-rd-home.XXXXXX)
	cleanup+=("$udir")
	chmod 755 "$udir"
	chown "$user": "$udir"
}

# report NAME ARGS...: opreport ARGS under a time limit; stdout in
# $tmp/NAME.out, stderr in $tmp/NAME.err, exit status in $rc.  A hang is
# a failure.
report() {
	local name=$1; shift
	rc=0
	timeout 60 "$OPREPORT" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
		rc=$?
	[ "$rc" != 124 ] || fail "$name: opreport $* did not finish in 60 s"
	[ "$rc" -lt 128 ] || { tail -40 "$tmp/$name.err" >&2;
		fail "$name: opreport $* died of signal $((rc - 128))"; }
}

# one_line NAME STATUS LINE: opreport exited STATUS and said exactly LINE
# on stderr, and nothing else (but the note of the JIT samples it hid,
# which every report says and tests/opreport checks).
one_line() {
	local name=$1 status=$2 want=$3 got
	got=$(grep -vE '^opreport: note: [0-9]+ of [0-9]+ samples .* --anon-handler=auto names them$' "$tmp/$name.err" || true)
	[ "$rc" = "$status" ] || { echo "$got" >&2;
		fail "$name: exit status $rc, expected $status"; }
	[ "$got" = "$want" ] || fail "$name: stderr is
$got
expected exactly
$want"
	ok "$name: $want"
}

# no_raw_control FILE...: not one byte a terminal could act on (C0 but
# newline, DEL, C1 in UTF-8, a byte of invalid UTF-8 such as a raw 0x9b,
# CSI on an 8-bit terminal) in FILEs
no_raw_control() {
	local f
	for f in "$@"; do
		python3 - "$f" <<'PY' || fail "$f holds raw control bytes"
import re, sys
data = open(sys.argv[1], "rb").read()
bad = re.search(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", data)
if bad:
    start = max(0, bad.start() - 40)
    print(f"{sys.argv[1]}: byte {bad.start()}: {data[start:bad.end() + 20]!r}")
    sys.exit(1)
try:
    data.decode("utf-8")
except UnicodeDecodeError as e:
    print(f"{sys.argv[1]}: byte {e.start}: not UTF-8: {data[max(0, e.start - 40):e.end + 20]!r}")
    sys.exit(1)
PY
	done
}
