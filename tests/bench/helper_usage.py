#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""helper_usage.py OPREPORT ARGS...: run opreport and watch its handler
helpers (its children) through /proc every 2 ms.  Prints, over all
helpers: the most address space one mapped beyond opreport's size when it
appeared (what the helper's memory limit comes on top of), its most
threads, and its CPU seconds; opreport's exit status is ours."""
import os
import subprocess
import sys
import time


def status(pid):
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                out[k] = v.split()
    except OSError:
        return None
    return out


def cpu(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def main():
    p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
    seen = {}
    while p.poll() is None:
        for c in children(p.pid):
            st = status(c)
            # (a helper on its way out has no memory left to show)
            if not st or "VmPeak" not in st:
                continue
            h = seen.get(c)
            if h is None:
                parent = status(p.pid)
                base = int(parent["VmSize"][0]) if parent else 0
                h = seen[c] = {"base": base, "peak": 0, "threads": 0,
                               "cpu": 0.0}
            h["peak"] = max(h["peak"], int(st["VmPeak"][0]))
            h["threads"] = max(h["threads"], int(st["Threads"][0]))
            t = cpu(c)
            if t is not None:
                h["cpu"] = max(h["cpu"], t)
        time.sleep(0.002)
    if not seen:
        print("no helper seen", file=sys.stderr)
        return 1
    extra = max(h["peak"] - h["base"] for h in seen.values()) / 1024
    threads = max(h["threads"] for h in seen.values())
    secs = max(h["cpu"] for h in seen.values())
    print(f"helpers {len(seen)}: address space beyond opreport's "
          f"{extra:.1f} MiB, threads {threads}, CPU {secs:.2f} s")
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
