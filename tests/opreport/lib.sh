# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by opreport's end-to-end scripts.  Sourced, not run.
. "${BASH_SOURCE[0]%/*}/../lib/e2e.sh"

: "${OPJIT_BUILD:?OPJIT_BUILD must name the build directory}"
: "${OPJIT_SOURCE:?OPJIT_SOURCE must name the source directory}"
OPREPORT=$OPJIT_BUILD/opreport/opreport
MKSESSION=$OPJIT_BUILD/tests/opreport/mksession
RT=$OPJIT_BUILD/tests/opreport
HERE=$OPJIT_SOURCE/tests/opreport
for f in "$OPREPORT" "$MKSESSION" "$RT/rt_g_pie"; do
	[ -x "$f" ] || fail "$f is not built"
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/opreport-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# golden NAME ARGS...: compare "opreport --session-dir=$S ARGS" with
# golden/NAME.txt, temporary paths and 64-bit addresses masked (not with
# GOLDEN_MASK=0, for addresses the test chose; with GOLDEN_SQUEEZE=1,
# runs of spaces as one, for columns as wide as a path of this checkout).  Sets
# status=1 on a difference.  OPJIT_UPDATE_GOLDEN=1 rewrites the file.
GOLDEN=$HERE/golden
status=0
golden() {
	local name=$1; shift
	"$OPREPORT" --session-dir="$S" "$@" >"$TMP/raw" 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "$name: opreport $* exited $?"; }
	local mask='s/\b[0-9a-f]\{16\}\b/XXXXXXXXXXXXXXXX/g'
	[ "${GOLDEN_MASK:-1}" = 1 ] || mask='s/^$//'
	local squeeze='s/^$//'
	[ "${GOLDEN_SQUEEZE:-0}" = 0 ] || squeeze='s/  */ /g'
	sed -e "s|$TMP|TMP|g" -e "s|$RT|RT|g" -e "$mask" -e "$squeeze" \
		-e 's/,0x[0-9a-f]*,/,0xVMA,/' "$TMP/raw" >"$TMP/$name.txt"
	if [ "${OPJIT_UPDATE_GOLDEN:-}" = 1 ]; then
		cp "$TMP/$name.txt" "$GOLDEN/$name.txt"
		echo "updated: $name"
	elif diff -u "$GOLDEN/$name.txt" "$TMP/$name.txt"; then
		echo "ok: $name (opreport $*)"
	else
		echo "FAIL: $name (opreport $*) differs from golden/$name.txt"
		status=1
	fi
}
