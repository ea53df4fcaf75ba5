# SPDX-License-Identifier: GPL-3.0-or-later
# pypy_split.py SECONDS | --rounds N: two hot functions, heavy and light,
# called in turn for SECONDS of the process's own CPU time (not the
# clock's: on a busy machine it does the same work), or N times each (a
# fixed amount of work, for the benchmark); each call is timed by that
# CPU clock.
# Prints "pypy_split heavy NS light NS".  heavy's loop takes a bridge on
# most iterations (the odd branch), so that bridges carry a real share.
import sys
import time


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


def main():
    rounds = int(sys.argv[2]) if sys.argv[1] == "--rounds" else None
    seconds = None if rounds is not None else float(sys.argv[1])
    clock = time.process_time_ns
    spent = {"heavy": 0, "light": 0}
    end = clock() + int((seconds or 0) * 1e9)
    done = 0
    while (done < rounds) if rounds is not None else clock() < end:
        done += 1
        t0 = clock()
        heavy(300000)
        t1 = clock()
        light(300000)
        t2 = clock()
        spent["heavy"] += t1 - t0
        spent["light"] += t2 - t1
    print("pypy_split heavy %d light %d" % (spent["heavy"], spent["light"]))


main()
