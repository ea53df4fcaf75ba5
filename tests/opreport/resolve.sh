#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Symbol resolution over every image shape; the checks are in resolve.py.
. "$(dirname "$0")/lib.sh"
for tool in nm readelf objcopy objdump addr2line python3; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
python3 "$HERE/resolve.py" "$TMP/work"
