#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# --help and the man page list the same options.
. "$(dirname "$0")/lib.sh"
MAN=$OPJIT_SOURCE/opreport/opreport.1
"$OPREPORT" --help | grep -o -- '--[a-z][a-z-]*' | sort -u >"$TMP/help"
# options in the man page: ".BR \-\-name" or ".BI \-\-name=" lines
sed -n 's/^\.B[IR]\{0,1\} .*\\-\\-\([a-z][a-z\\-]*\).*/\1/p' "$MAN" |
	sed 's/\\-/-/g; s/^/--/' | sort -u >"$TMP/man"
[ "$(wc -l <"$TMP/help")" -ge 25 ] || fail "--help lists too few options"
diff -u "$TMP/help" "$TMP/man" ||
	fail "--help (-) and opreport.1 (+) list different options"
echo "PASS ($(wc -l <"$TMP/help") options)"
