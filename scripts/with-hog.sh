#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# with-hog.sh N CMD...: run CMD with N busy loops beside it, as on a
# machine shared with other work, and exit as CMD did.  Tests that count
# samples must hold under it: they judge counts by the workload's CPU
# time, never by wall time.  test.sh runs the end-to-end suite this way
# when OPJIT_TEST_HOG=N.
set -uo pipefail
n=${1:-}
[[ "$n" =~ ^[0-9]+$ ]] && [ $# -ge 2 ] ||
	{ echo "usage: with-hog.sh N CMD..." >&2; exit 2; }
shift
hogs=()
stop() { [ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null; }
trap stop EXIT
for ((i = 0; i < n; i++)); do
	bash -c 'while :; do :; done' &
	hogs+=("$!")
done
"$@"
