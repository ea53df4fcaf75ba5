# SPDX-License-Identifier: GPL-3.0-or-later
# pypy_callers.py SECONDS: two Python functions, left and right, call the
# same hot loop (hot's) 3:1, until the thread has run SECONDS of CPU time
# (so that a busy machine does not leave too few samples); each caller
# is timed by the thread's own CPU clock.  Both callers loop over their
# calls, so the JIT compiles a loop of each that enters hot's loop
# through a call.
# Prints "pypy_callers left NS right NS".
import sys
import time


def hot(n):
    s = 0
    i = 0
    while i < n:
        s += i * i % 7
        i += 1
    return s


def left(k, n):
    t = 0
    for _ in range(3 * k):
        t += hot(n)
    return t


def right(k, n):
    t = 0
    for _ in range(k):
        t += hot(n)
    return t


def main():
    clock = time.thread_time_ns
    spent = {"left": 0, "right": 0}
    end = clock() + int(float(sys.argv[1]) * 1e9)
    while clock() < end:
        t0 = clock()
        left(2000, 1000)
        t1 = clock()
        right(2000, 1000)
        t2 = clock()
        spent["left"] += t1 - t0
        spent["right"] += t2 - t1
    print("pypy_callers left %d right %d" % (spent["left"], spent["right"]))


main()
