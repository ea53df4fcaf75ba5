# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by opreport's end-to-end scripts.  Sourced, not run.
set -euo pipefail

: "${OPJIT_BUILD:?OPJIT_BUILD must name the build directory}"
: "${OPJIT_SOURCE:?OPJIT_SOURCE must name the source directory}"
OPREPORT=$OPJIT_BUILD/opreport/opreport
MKSESSION=$OPJIT_BUILD/tests/opreport/mksession
RT=$OPJIT_BUILD/tests/opreport
HERE=$OPJIT_SOURCE/tests/opreport
for f in "$OPREPORT" "$MKSESSION" "$RT/rt_g_pie"; do
	[ -x "$f" ] || { echo "FAIL: $f is not built"; exit 1; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/opreport-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

fail() { echo "FAIL: $*"; exit 1; }
