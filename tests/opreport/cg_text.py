# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading opreport -c text in the call-graph tests (imported by their
Python, with tests/opreport on sys.path)."""
import re


def callers(path, symbol):
    """The callers of SYMBOL in the opreport -c text at PATH: name to
    samples, from the indented lines above SYMBOL's unindented one."""
    found, block = {}, []
    for line in open(path):
        if line.startswith("-----"):
            block = []
            continue
        m = re.match(r"^(\s*)(\d+)\s+[\d.]+\s+.*\s(\S+)$", line.rstrip("\n"))
        if not m:
            continue
        if not m.group(1) and m.group(3) == symbol:
            found = {name: count for _, count, name in block}
        block.append((m.group(1), int(m.group(2)), m.group(3)))
    return found
