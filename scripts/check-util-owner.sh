#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# check-util-owner.sh [FILE...]: code outside util/ (default: every
# tracked .c and .h) that does by hand what util/ owns:
#   grow   a realloc() that grows an array by a constant number of
#          elements, or by a capacity doubled beside it (oputil/grow.h)
#   hash   a hash function's constant: FNV's prime or offset basis, a
#          MurmurHash3, xxHash, splitmix64 or Fibonacci multiplier
#          (oputil/hash.h)
#   crc    a CRC polynomial or table (oputil/crc32c.h)
# Prints FILE:LINE: KIND: TEXT for each, then a total; exits 1 when any
# is not in scripts/util-owner-allow.txt, whose lines are
# "PATH KIND reason" (the reason is required).
set -euo pipefail
cd "$(dirname "$0")/.."
allow=scripts/util-owner-allow.txt
if [ $# -eq 0 ]; then
	mapfile -t files < <(git ls-files '*.c' '*.h' | grep -v '^util/')
else
	files=("$@")
fi
bad=0
while read -r path kind reason; do
	case "$path" in ''|'#'*) continue ;; esac
	if [ -z "$reason" ]; then
		echo "$allow: $path $kind: no reason given" >&2
		bad=1
	fi
done <"$allow"
# awk: one hit per line, "FILE:LINE: KIND: TEXT"
hits=$(awk '
FNR == 1 { delete L }
{ L[FNR] = $0; t = tolower($0) }
t ~ /0x0*100000001b3|cbf29ce484222325|811c9dc5|0x01000193|16777619|2166136261|ff51afd7ed558ccd|c4ceb9fe1a85ec53|9e3779b9|bf58476d1ce4e5b9|94d049bb133111eb|c2b2ae3d27d4eb4f|165667b19e3779f9|27d4eb2f165667c5|85ebca6b|c2b2ae35/ {
	print FILENAME ":" FNR ": hash: " $0
}
t ~ /0x82f63b78|0xedb88320|0x1edc6f41|0x04c11db7|crc_?(32c?_?)?table/ {
	print FILENAME ":" FNR ": crc: " $0
}
t ~ /realloc\(/ {
	# grown by a constant: realloc(p, (n + 1) * size)
	if ($0 ~ /realloc\([^,]*,[ \t]*\([^()]*\+[ \t]*[0-9]+\)[ \t]*\*/) {
		print FILENAME ":" FNR ": grow: " $0
		next
	}
	# a capacity doubled in the lines before it
	for (i = FNR - 8; i < FNR; i++)
		if (i in L && L[i] ~ /\*[ \t]*2[^0-9]|\*=[ \t]*2|<<=[ \t]*1|<<[ \t]*1[^0-9]/) {
			print FILENAME ":" FNR ": grow: " $0
			break
		}
}
' "${files[@]}")
total=0 flagged=0
while IFS= read -r h; do
	[ -n "$h" ] || continue
	file=${h%%:*}
	kind=$(printf '%s' "$h" | sed -E 's/^[^:]*:[0-9]+: ([a-z]+):.*/\1/')
	total=$((total + 1))
	if awk -v f="$file" -v k="$kind" '$1 == f && $2 == k { found = 1 }
		END { exit !found }' "$allow"; then
		continue
	fi
	printf '%s\n' "$h" | sed -E 's/[ \t]+/ /g'
	flagged=$((flagged + 1))
done <<<"$hits"
echo "check-util-owner.sh: $flagged of $total by-hand growth, hash or CRC sites outside util/ are not allowed in $allow"
[ "$flagged" -eq 0 ] && [ "$bad" -eq 0 ]
