#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""rejit.py FILE NAME-A NAME-B: from opreport -l -d --format=json, the
number of sampled addresses that the report names NAME-A at one time and
NAME-B at another: memory whose code was freed and replaced while the
program ran, told apart by when each sample was taken.  A name matches
a symbol that contains it.  Exit 1, with one line naming FILE, when FILE
is not such a report."""
import json
import sys


def main(argv):
    if len(argv) != 4:
        print('usage: rejit.py FILE NAME-A NAME-B', file=sys.stderr)
        return 2
    path, name_a, name_b = argv[1:]
    try:
        with open(path, encoding='utf-8') as f:
            rows = json.load(f)['symbols']
        names = {}
        for row in rows:
            sym = row.get('symbol') or ''
            which = 'a' if name_a in sym else 'b' if name_b in sym else None
            if which is None:
                continue
            for d in row.get('details') or []:
                names.setdefault(d['vma'], set()).add(which)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f'rejit.py: cannot read {path}: not an opreport -d JSON '
              f'report ({e})', file=sys.stderr)
        return 1
    print(sum(1 for v in names.values() if len(v) == 2))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
