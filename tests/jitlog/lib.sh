# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the jitlog end-to-end scripts.  Sourced, not run: checks the
# build, makes $tmp (removed at exit with the files in $logs).
set -euo pipefail
: "${OPJIT_BUILD:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
oprofiled=$OPJIT_BUILD/daemon/oprofiled
opreport=$OPJIT_BUILD/opreport/opreport
exprjit=$OPJIT_BUILD/tests/workloads/exprjit
dump=$OPJIT_BUILD/bin/opjit-jitlog
for f in "$oprofiled" "$opreport" "$exprjit" "$dump"; do
	[ -x "$f" ] || fail "$f is not built"
done
tmp=$(mktemp -d)
logs=()
trap 'rm -rf "$tmp" "${logs[@]}"' EXIT
