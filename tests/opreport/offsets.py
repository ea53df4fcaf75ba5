#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""offsets.py BINARY FUNC...: print "FUNC OFFSET" for each function, the
file offset of its third byte, from nm and readelf (not from libbfd)."""
import re
import subprocess
import sys


def run(args):
    return subprocess.run(args, check=True, capture_output=True,
                          text=True).stdout


def main():
    binary, wanted = sys.argv[1], sys.argv[2:]
    syms = {}
    for line in run(["nm", "--defined-only", binary]).splitlines():
        p = line.split()
        if len(p) == 3 and p[2] in wanted:
            syms[p[2]] = int(p[0], 16)
    secs = []
    for line in run(["readelf", "-SW", binary]).splitlines():
        m = re.search(r"\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+"
                      r"([0-9a-f]+)", line)
        if m and m.group(2) != "NOBITS" and int(m.group(3), 16):
            secs.append(tuple(int(m.group(i), 16) for i in (3, 4, 5)))
    for name in wanted:
        vma = syms[name] + 2
        off = [o + vma - a for a, o, s in secs if a <= vma < a + s]
        print(name, hex(off[0]))


if __name__ == "__main__":
    main()
