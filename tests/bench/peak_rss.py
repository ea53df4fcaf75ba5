#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The peak resident set of one process of a tree, read as it exits.

peak_rss.py PIDFILE OUT

Waits for PIDFILE to name a pid, traces that process (PTRACE_SEIZE with
PTRACE_O_TRACEEXIT: it stops once, as it exits) and writes its VmHWM in
KiB to OUT, read while it is stopped at its exit with its memory still
mapped.  PIDFILE.traced, created once the trace is in place (or could not
be), tells the process it may go on: a recorder of a short workload on a
busy machine is otherwise gone before we attach.  For growth.sh: getrusage gives a recorder's peak together with
that of every child it reaped, its workload's among them, and polling
/proc would miss a peak in the recorder's last moments.  On failure OUT
gets one line beginning "why: " and the exit status is 1.

The traced process only stops when a signal is delivered to it, and is
let go on at once with the signal; it is never a child of ours, so its
parent still reaps it.
"""
import ctypes
import errno
import os
import signal
import sys
import time

PTRACE_CONT = 7
PTRACE_SEIZE = 0x4206
PTRACE_LISTEN = 0x4208
PTRACE_O_TRACEEXIT = 0x40
PTRACE_EVENT_EXIT = 6
PTRACE_EVENT_STOP = 128
WALL = 0x40000000


def hwm_kib(pid):
    with open(f'/proc/{pid}/status', encoding='ascii') as f:
        for line in f:
            if line.startswith('VmHWM:'):
                return int(line.split()[1])
    raise OSError(f'no VmHWM in /proc/{pid}/status')


def wait_pidfile(path, timeout=60.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(path, encoding='ascii') as f:
                text = f.read().strip()
            if text.isdigit():
                return int(text)
        except OSError:
            pass
        time.sleep(0.005)
    raise OSError(f'{path} named no pid within {timeout:.0f} s')


def ready(path):
    with open(path, 'w', encoding='ascii'):
        pass


def trace(pid, go):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = (ctypes.c_long, ctypes.c_long, ctypes.c_void_p,
                            ctypes.c_void_p)
    libc.ptrace.restype = ctypes.c_long

    def ptrace(req, data):
        if libc.ptrace(req, pid, None, data) == -1:
            err = ctypes.get_errno()
            raise OSError(err, f'ptrace {req:#x} of {pid}: '
                          f'{os.strerror(err)}')

    try:
        ptrace(PTRACE_SEIZE, PTRACE_O_TRACEEXIT)
    except OSError as e:
        if e.errno != errno.EPERM:
            raise
        # a container without CAP_SYS_PTRACE, or Yama: a reason, not a
        # failure of what we measure
        raise OSError(e.errno, f'ptrace is not allowed here ({e.strerror})')
    finally:
        ready(go)
    peak = None
    while True:
        _, status = os.waitpid(pid, WALL)
        if os.WIFEXITED(status) or os.WIFSIGNALED(status):
            break
        if not os.WIFSTOPPED(status):
            continue
        event, sig = status >> 16, os.WSTOPSIG(status)
        if event == PTRACE_EVENT_EXIT:
            peak = hwm_kib(pid)
            ptrace(PTRACE_CONT, 0)
        elif event == PTRACE_EVENT_STOP:
            # a group stop (SIGSTOP and the like): leave it stopped
            # as it would be untraced
            ptrace(PTRACE_LISTEN, 0)
        else:
            ptrace(PTRACE_CONT, sig)
    if peak is None:
        raise OSError(f'{pid} exited without stopping at its exit')
    return peak


def main(argv):
    if len(argv) != 3:
        print('usage: peak_rss.py PIDFILE OUT', file=sys.stderr)
        return 2
    # the terminal's ^C is for the traced process, which we let go on
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        text = str(trace(wait_pidfile(argv[1]), argv[1] + '.traced'))
        code = 0
    except OSError as e:
        text, code = f'why: {e.strerror or e}', 1
    with open(argv[2], 'w', encoding='ascii') as f:
        f.write(text + '\n')
    return code


if __name__ == '__main__':
    sys.exit(main(sys.argv))
