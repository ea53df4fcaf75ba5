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
total=0 nfiles=0
for f in "${files[@]}"; do
	n=$(clang-format --style=file "$f" | diff "$f" - | grep -c '^<' || true)
	if [ "$n" -ne 0 ]; then
		[ "$quiet" = 1 ] || printf '%6d %s\n' "$n" "$f"
		total=$((total + n))
		nfiles=$((nfiles + 1))
	fi
done
echo "check-format.sh: $total lines would change, in $nfiles of ${#files[@]} files"
[ "$total" -eq 0 ]
