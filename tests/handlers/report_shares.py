#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Sum the share of an opreport --format=json report's symbol rows.

usage: report_shares.py REPORT.json REGEX [--handler NAME] [--kind KIND]
Prints "SAMPLES TOTAL PERCENT" for the rows whose symbol matches REGEX
(and handler/kind, when given); PERCENT is of the session's samples.
"""
import json
import re
import sys


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    path, pattern = args[0], re.compile(args[1])
    want = {}
    for i in range(2, len(args) - 1, 2):
        want[args[i].lstrip('-')] = args[i + 1]
    with open(path) as f:
        rep = json.load(f)
    total = rep.get("total_samples") or 0
    got = 0
    for row in rep.get("symbols", []):
        if not pattern.search(row.get("symbol") or ""):
            continue
        if any(row.get(k) != v for k, v in want.items()):
            continue
        got += row.get("samples", 0)
    pct = 100.0 * got / total if total else 0.0
    print(f"{got} {total} {pct:.2f}")


if __name__ == "__main__":
    main()
