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


def pprof_traces(path):
    """The stacks of go tool pprof -traces output at PATH: a list of
    (samples, frames), the leaf first."""
    traces = []
    for trace in open(path).read().split("-----------+"):
        frames, value = [], None
        for line in trace.splitlines():
            m = re.match(r"^\s*(\d+)\s+(\S+)$", line)
            if m and value is None:
                value, frames = int(m.group(1)), [m.group(2)]
            elif value is not None and line.strip():
                frames.append(line.strip())
        if value is not None:
            traces.append((value, frames))
    return traces
