#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Statistics and the Markdown table for tests/bench/run.sh.

stats.py table RAW OUT [--check]
    Turn the raw records of one run into tables: each figure is the
    median of its runs with the spread (min..max).  Write Markdown to OUT
    and print it.  With --check, exit 1 when a row has a cell with
    neither a figure nor a reason, or when there are no rows at all.

RAW holds tab-separated records, one a line:
    m KEY VALUE                          machine and versions
    s SECTION TEXT                       what a section compares
    v SECTION FIGURE COLUMN VALUE FORMAT one measured value of one run
    w SECTION FIGURE COLUMN REASON       why a run measured nothing
    n SECTION FIGURE COLUMN TEXT         a cell that holds no figure by
                                         nature (e.g. no counterpart)
COLUMN is opjit, ref or cmp; FORMAT is one of FORMATS below.
"""
import statistics
import sys

COLUMNS = ('opjit', 'ref', 'cmp')
HEADERS = ('figure', 'opjit', 'reference', 'opjit vs reference')


def fmt_seconds(v, m):
    return f'{v * 1000:.1f} ms' if m < 1 else f'{v:.3f} s'


def fmt_bytes(v, m):
    for unit, size in (('MiB', 1 << 20), ('KiB', 1 << 10)):
        if m >= size:
            return f'{v / size:.2f} {unit}'
    return f'{v:.0f} B'


def fmt_rate(v, m):
    if m >= 1e6:
        return f'{v / 1e6:.2f} M/s'
    if m >= 1e3:
        return f'{v / 1e3:.1f} k/s'
    return f'{v:.0f} /s'


# each takes a value and the median, so that a cell keeps one unit
FORMATS = {
    'x': lambda v, m: f'{v:.3f}x',
    's': fmt_seconds,
    'cpu': lambda v, m: f'{v * 1000:.0f} ms',
    'B': fmt_bytes,
    'KB': lambda v, m: fmt_bytes(v * 1024, m * 1024),
    'B/sample': lambda v, m: f'{v:.1f} B',
    'pct': lambda v, m: f'{v:.2f}%',
    'pt': lambda v, m: f'{v:+.2f} pt',
    'dist': lambda v, m: f'{v:.2f} pt',
    'rate': fmt_rate,
    'n': lambda v, m: f'{v:.0f}',
    'us/s': lambda v, m: f'{v:.0f} us/s',
}


class Cell:
    def __init__(self):
        self.values = []
        self.fmt = None
        self.reasons = []
        self.notes = []

    def render(self):
        out = ''
        if self.values:
            med = statistics.median(self.values)
            f = FORMATS[self.fmt]
            out = f(med, med)
            if len(self.values) > 1:
                out += (f' ({f(min(self.values), med)}..'
                        f'{f(max(self.values), med)})')
        if self.reasons:
            # one line per distinct reason, in the order they came
            seen = list(dict.fromkeys(self.reasons))
            why = '; '.join(seen)
            if self.values:
                out += (f'; {len(self.reasons)} run(s) not measured: '
                        f'{why}')
            else:
                out = f'not measured: {why}'
        if self.notes and not out:
            out = '; '.join(dict.fromkeys(self.notes))
        return out.replace('|', '\\|')


def load(path):
    meta, intro, sections = [], {}, {}
    with open(path, encoding='utf-8') as f:
        for lineno, line in enumerate(f, 1):
            rec = line.rstrip('\n').split('\t')
            kind = rec[0]
            if kind == 'm' and len(rec) == 3:
                meta.append((rec[1], rec[2]))
            elif kind == 's' and len(rec) == 3:
                intro[rec[1]] = rec[2]
                sections.setdefault(rec[1], {})
            elif kind in ('v', 'w', 'n') and len(rec) == (6 if kind == 'v'
                                                            else 5):
                if rec[3] not in COLUMNS:
                    raise ValueError(f'{path}:{lineno}: bad column '
                                     f'{rec[3]}')
                rows = sections.setdefault(rec[1], {})
                cells = rows.setdefault(rec[2],
                                        {c: Cell() for c in COLUMNS})
                cell = cells[rec[3]]
                if kind != 'v':
                    (cell.reasons if kind == 'w' else
                     cell.notes).append(rec[4])
                    continue
                if rec[5] not in FORMATS:
                    raise ValueError(f'{path}:{lineno}: bad format '
                                     f'{rec[5]}')
                cell.fmt = rec[5]
                cell.values.append(float(rec[4]))
            else:
                raise ValueError(f'{path}:{lineno}: malformed record')
    return meta, intro, sections


def markdown(meta, intro, sections):
    out = ['# opjit beside Linux perf: benchmark and accuracy', '']
    for key, value in meta:
        out.append(f'- {key}: {value}')
    out.append('')
    out.append('Each figure is the median of its runs, with the range '
               '(min..max) in brackets. "opjit vs reference" is computed '
               'per run, then summarised the same way.')
    for name, rows in sections.items():
        out += ['', f'## {name}', '']
        if name in intro:
            out += [intro[name], '']
        out.append('| ' + ' | '.join(HEADERS) + ' |')
        out.append('|' + '---|' * len(HEADERS))
        for figure, cells in rows.items():
            row = [figure.replace('|', '\\|')]
            row += [cells[c].render() for c in COLUMNS]
            out.append('| ' + ' | '.join(row) + ' |')
    return '\n'.join(out) + '\n'


def check(sections):
    problems = []
    for name, rows in sections.items():
        if not rows:
            problems.append(f'section "{name}" has no rows')
        for figure, cells in rows.items():
            for c in COLUMNS:
                cell = cells[c]
                if not (cell.values or cell.reasons or cell.notes):
                    problems.append(f'"{name}" / "{figure}": the {c} '
                                    'cell has neither a figure nor a '
                                    'reason')
    if not sections:
        problems.append('no figures at all')
    return problems


def cmd_table(argv):
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != '--check'):
        print('usage: stats.py table RAW OUT [--check]', file=sys.stderr)
        return 2
    try:
        meta, intro, sections = load(argv[0])
    except (OSError, ValueError) as e:
        print(f'stats.py: cannot read {argv[0]}: {e}', file=sys.stderr)
        return 1
    text = markdown(meta, intro, sections)
    try:
        with open(argv[1], 'w', encoding='utf-8') as f:
            f.write(text)
    except OSError as e:
        print(f'stats.py: cannot write {argv[1]}: {e}', file=sys.stderr)
        return 1
    # the problems come before the table, which is long, so that they
    # head the output of a failing smoke test
    problems = check(sections) if len(argv) == 3 else []
    for p in problems:
        print(f'stats.py: {p}', file=sys.stderr)
    sys.stderr.flush()
    sys.stdout.write(text)
    return 1 if problems else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == 'table':
        return cmd_table(argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
