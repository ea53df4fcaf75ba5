#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# check-format.sh [FILE...]: the C files (default: every tracked .c and .h)
# that clang-format, with the checked-in .clang-format, would change.
# Prints each such file and how many of its lines would change, then a
# total; exits 1 when any would.  -q prints the total only.
set -euo pipefail
cd "$(dirname "$0")/.."
quiet=0
[ "${1:-}" = -q ] && { quiet=1; shift; }
command -v clang-format >/dev/null ||
	{ echo "check-format.sh: clang-format not found (apt-get install clang-format)" >&2; exit 2; }
if [ $# -eq 0 ]; then
	mapfile -t files < <(git ls-files '*.c' '*.h')
else
	files=("$@")
fi
# one clang-format for every file: --dry-run names each line it would
# change as FILE:LINE:COL: warning (forty times faster than a process a file)
rc=0
report=$(clang-format --style=file --dry-run "${files[@]}" 2>&1) || rc=$?
bad=$(grep -oE '^[^:]+:[0-9]+:[0-9]+: (warning|error):' <<<"$report" |
	cut -d: -f1 | sort | uniq -c || true)
total=0 nfiles=0
while read -r n f; do
	[ -n "$f" ] || continue
	[ "$quiet" = 1 ] || printf '%6d %s\n' "$n" "$f"
	total=$((total + n))
	nfiles=$((nfiles + 1))
done <<<"$bad"
# a non-zero status with nothing to reformat: clang-format itself failed
if [ "$rc" -ne 0 ] && [ "$nfiles" -eq 0 ]; then
	printf '%s\n' "$report" >&2
	echo "check-format.sh: clang-format failed (status $rc)" >&2
	exit 2
fi
echo "check-format.sh: $total lines would change, in $nfiles of ${#files[@]} files"
[ "$total" -eq 0 ]
