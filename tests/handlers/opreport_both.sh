#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# opreport for the end-to-end tests: runs the real one ($OPJIT_OPREPORT)
# twice, with handlers in helper processes (the default) and with
# --handler-isolation=none, and fails loudly unless the two give the same
# bytes on stdout, stderr and in an --output-file, and the same status.
# Then it answers as opreport would.  A call that chooses the isolation
# itself runs once.
set -u
real=${OPJIT_OPREPORT:?}
for a in "$@"; do
	case $a in --handler-isolation*) exec "$real" "$@" ;; esac
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# the same arguments, with any output file moved to $1
args_with_output() {
	local out=$1 next=0 a; shift
	for a in "$@"; do
		if [ "$next" = 1 ]; then printf '%s\0' "$out"; next=0; continue; fi
		case $a in
		-o|--output-file) printf '%s\0' "$a"; next=1 ;;
		--output-file=*) printf '%s\0' "--output-file=$out" ;;
		-o?*) printf '%s\0' "-o$out" ;;
		*) printf '%s\0' "$a" ;;
		esac
	done
}
# the output file the caller named, if any
output_of() {
	local next=0 a f=
	for a in "$@"; do
		if [ "$next" = 1 ]; then f=$a; next=0; continue; fi
		case $a in
		-o|--output-file) next=1 ;;
		--output-file=*) f=${a#--output-file=} ;;
		-o?*) f=${a#-o} ;;
		esac
	done
	printf '%s' "$f"
}

outfile=$(output_of "$@")
mapfile -d '' none_args < <(args_with_output "$work/none.file" "$@")
stdin=/dev/null
[ -t 0 ] || { cat >"$work/stdin"; stdin=$work/stdin; }

"$real" "${none_args[@]}" --handler-isolation=none <"$stdin" \
	>"$work/none.out" 2>"$work/none.err"
none_rc=$?
"$real" "$@" <"$stdin" >"$work/proc.out" 2>"$work/proc.err"
proc_rc=$?

same=1
cmp -s "$work/none.out" "$work/proc.out" || same=0
cmp -s "$work/none.err" "$work/proc.err" || same=0
[ "$none_rc" = "$proc_rc" ] || same=0
if [ -n "$outfile" ] && [ -e "$outfile" ]; then
	cmp -s "$work/none.file" "$outfile" || same=0
fi
if [ "$same" = 0 ]; then
	{
		echo "FAIL: opreport $* differs with --handler-isolation=none" \
			"(status $none_rc, isolated $proc_rc)"
		diff "$work/none.out" "$work/proc.out" | head -n 20
		diff "$work/none.err" "$work/proc.err" | head -n 20
		[ -z "$outfile" ] || diff "$work/none.file" "$outfile" |
			head -n 20
	} >&2
	exit 99
fi
cat "$work/proc.out"
cat "$work/proc.err" >&2
exit "$proc_rc"
