# SPDX-License-Identifier: GPL-3.0-or-later
# pypy_work.py ROUNDS: a fixed amount of work for PyPy's JIT, two hot
# functions, one of whose loops takes a bridge on most iterations.
import sys


def heavy(n):
    s = 0
    for i in range(n):
        if i % 4:
            s += i * 3 % 7
        else:
            s -= i % 5
    return s


def light(n):
    s = 0
    for i in range(n):
        s += i % 3
    return s


total = 0
for _ in range(int(sys.argv[1])):
    total += heavy(300000) + light(300000)
print(total)
