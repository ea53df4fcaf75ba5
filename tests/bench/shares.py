#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Sample counts by symbol from a profiler's output, for the accuracy rows.

shares.py KIND FILE PATTERN...

KIND is how FILE was written:
  opreport-json  opreport -l --format=json (opreport/JSON.md)
  opreport       opreport -l, text: rows "SAMPLES PERCENT ... SYMBOL"
  perf           perf report --stdio --sort sym -n
  jfr            jfr print --events jdk.ExecutionSample (top frames)

Prints one line: the samples of each PATTERN (a substring of the symbol
name; a row counts for the first pattern it contains), then the total
samples the output lists, then the samples it says were lost (-1 when it
does not say).  Exit 1, with one line on stderr naming FILE, when FILE
cannot be read or holds no samples at all.
"""
import json
import re
import sys

ROW_PERF = re.compile(r'^\s*[0-9.]+%\s+([0-9]+)\s+\[.\]\s+(.*)$')
ROW_OPREPORT = re.compile(r'^\s*([0-9]+)\s+[0-9.]+%?\s+(.*)$')
LOST_PERF = re.compile(r'^#\s*Total Lost Samples:\s*([0-9]+)')


def rows_perf(text):
    lost = -1
    rows = []
    for line in text.splitlines():
        m = LOST_PERF.match(line)
        if m:
            lost = int(m.group(1))
            continue
        m = ROW_PERF.match(line)
        if m:
            rows.append((m.group(2), int(m.group(1))))
    return rows, lost


def rows_opreport(text):
    rows = []
    for line in text.splitlines():
        m = ROW_OPREPORT.match(line)
        if m:
            rows.append((m.group(2), int(m.group(1))))
    return rows, -1


def json_symbols(node):
    """Yield (name, samples) from any object holding both keys: the
    JSON layout may nest symbols under images or processes."""
    if isinstance(node, dict):
        count = node.get('samples')
        if isinstance(count, int) and ('symbol' in node or 'name' in node):
            # a row the report could not name still counts in the total
            name = node.get('symbol', node.get('name'))
            yield (name if isinstance(name, str) else ''), count
            return
        for value in node.values():
            yield from json_symbols(value)
    elif isinstance(node, list):
        for value in node:
            yield from json_symbols(value)


def rows_opreport_json(text):
    doc = json.loads(text)
    lost = -1
    if isinstance(doc, dict):
        for key in ('samples_lost', 'lost'):
            if isinstance(doc.get(key), int):
                lost = doc[key]
    return list(json_symbols(doc)), lost


def rows_jfr(text):
    rows = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == 'stackTrace = [' and i + 1 < len(lines):
            top = lines[i + 1].strip()
            if top != ']':
                rows.append((top, 1))
    return rows, -1


PARSERS = {
    'perf': rows_perf,
    'opreport': rows_opreport,
    'opreport-json': rows_opreport_json,
    'jfr': rows_jfr,
}


def main(argv):
    if len(argv) < 3 or argv[1] not in PARSERS:
        print('usage: shares.py opreport|opreport-json|perf|jfr FILE '
              'PATTERN...', file=sys.stderr)
        return 2
    kind, path, patterns = argv[1], argv[2], argv[3:]
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            rows, lost = PARSERS[kind](f.read())
    except (OSError, ValueError) as e:
        print(f'shares.py: cannot read {path}: {e}', file=sys.stderr)
        return 1
    total = sum(n for _, n in rows)
    if total == 0:
        print(f'shares.py: {path}: no samples in the {kind} output',
              file=sys.stderr)
        return 1
    counts = [0] * len(patterns)
    for name, n in rows:
        for i, pat in enumerate(patterns):
            if pat in name:
                counts[i] += n
                break
    print(' '.join(str(c) for c in counts + [total, lost]))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
