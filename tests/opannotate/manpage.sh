#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# --help and the man page list the same options.
. "$(dirname "$0")/lib.sh"
MAN=$OPJIT_SOURCE/opannotate/opannotate.1
"$OPANNOTATE" --help | grep -o -- '--[a-z][a-z-]*' | sort -u >"$TMP/help"
sed -n 's/^\.B[IR]\{0,1\} .*\\-\\-\([a-z][a-z\\-]*\).*/\1/p' "$MAN" |
	sed 's/\\-/-/g; s/^/--/' | sort -u >"$TMP/man"
[ "$(wc -l <"$TMP/help")" -ge 10 ] || fail "--help lists too few options"
diff -u "$TMP/help" "$TMP/man" ||
	fail "--help (-) and opannotate.1 (+) list different options"
echo "PASS ($(wc -l <"$TMP/help") options)"
