#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What the javamap agent costs: JVM start-up and a fixed amount of steady
# work, each run without the agent, with it, and with it and its `code`
# option (each compiled method's machine code copied into the map at
# load), medians of N alternating runs by wall time and by the JVM's own
# CPU time (user + system, from wait4), and the map's size per piece of
# code.  The `code` option's cost per load is the CPU time it adds over
# the agent without it, divided by the pieces of code the map holds.
# perf's own JVM agent (libperf-jvmti.so, perf record -k 1) is not in
# Debian's linux-perf, so the agent without `code` is the reference.
# With --compare AGENT, a second build of the agent (an older one, say)
# runs in the same rounds, so that before and after meet the same
# machine.  Prints figures; asserts nothing about time, so it is a
# benchmark, not a test.
#
#   javamap_agent.sh [--build DIR] [--runs N] [--compare AGENT.so]
set -euo pipefail
here=$(cd "$(dirname "$0")/../javamap" && pwd)
build=${OPJIT_BUILD:-$here/../../build}
runs=7
other=
usage="usage: javamap_agent.sh [--build DIR] [--runs N] [--compare AGENT.so]"
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--compare) other=$2; shift 2 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
agent=$build/lib/opjit/libjavamap-agent.so
jmdump=$build/tests/javamap/jmdump
for f in "$agent" "$jmdump" ${other:+"$other"}; do
	if [ ! -e "$f" ]; then
		echo "javamap_agent.sh: $f is missing; build first" >&2
		exit 1
	fi
done
command -v javac >/dev/null || { echo "javamap_agent.sh: no javac" >&2; exit 1; }

work=$(mktemp -d /tmp/jm-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/classes"
javac -d "$work/classes" "$here"/java/*.java

python3 - "$agent" "$jmdump" "$work" "$runs" "$other" <<'PY'
import os, re, statistics, subprocess, sys, time

agent, jmdump, work, runs, other = sys.argv[1:6]
runs = int(runs)
cp = ["-cp", os.path.join(work, "classes")]
# (column, agent library, its options past file=)
agents = [("agent", agent, ""), ("agent+code", agent, ",code")] + \
    ([("compared", other, "")] if other else [])

def run(args, lib, opts, tag):
    """wall seconds, CPU seconds (user + system) of one JVM run"""
    cmd = ["java"]
    m = os.path.join(work, f"{tag}.map")
    if lib:
        if os.path.exists(m):
            os.unlink(m)
        cmd.append(f"-agentpath:{lib}=file={m}{opts}")
    t0 = time.perf_counter()
    err = os.path.join(work, "java.err")
    with open(err, "w") as e:
        p = subprocess.Popen(cmd + cp + args, stdout=subprocess.DEVNULL,
                             stderr=e)
        _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        sys.stderr.write(open(err).read())
        sys.exit(f"javamap_agent.sh: {' '.join(cmd)} failed ({p.returncode})")
    return wall, ru.ru_utime + ru.ru_stime

def codes(tag, a):
    out = subprocess.run([jmdump, os.path.join(work, f"{tag}-{a}.map")],
                         check=True, capture_output=True, text=True).stdout
    m = re.search(r"^records=(\d+) methods=(\d+) codes=(\d+) .* bytes=(\d+)$",
                  out, re.M)
    return [int(x) for x in m.groups()]

def spread(v):
    return statistics.median(v), min(v), max(v)

def compare(name, args, tag):
    times = {"none": []}
    for a, _, _ in agents:
        times[a] = []
    run(args, None, "", tag)  # warm the page cache and the CDS archive
    for i in range(runs):
        # alternate, and rotate the order, so that drift in the machine
        # hits every column alike
        cols = [("none", None, "")] + agents
        k = i % len(cols)
        for a, lib, opts in cols[k:] + cols[:k]:
            times[a].append(run(args, lib, opts, f"{tag}-{a}"))
    res = {}
    for idx, what in ((0, "wall"), (1, "CPU")):
        base = statistics.median(t[idx] for t in times["none"])
        cells = [f"{base*1000:.1f} ms"]
        for a, _, _ in agents:
            v = [t[idx] for t in times[a]]
            m, lo, hi = spread(v)
            # per round, against that round's run without the agent
            r = [x / y[idx] for x, y in zip(v, times["none"])]
            cells.append(f"{m*1000:.1f} ms ({lo*1000:.0f}..{hi*1000:.0f}), "
                         f"{m/base:.3f}x")
        print(f"| {name} | {what} | " + " | ".join(cells) + " |")
        res[what] = {a: [t[idx] for t in times[a]] for a in times}
    return res

print(f"javamap agent cost, median (range) of {runs} alternating runs; "
      "ratios of medians against no agent")
print()
print("| workload | time | no agent | " +
      " | ".join(a for a, _, _ in agents) + " |")
print("|---|---|---|" + "---|" * len(agents))
WORK = [("start-up (Hot, 0 s of work)", ["Hot", "0"], "startup"),
        ("fixed work (Inline, 2e8 calls)", ["Inline"], "inline"),
        ("code-cache churn (Churn 8 x 0.2 s)", ["Churn", "8", "0.2"],
         "churn")]
results = [(name, tag, compare(name, args, tag)) for name, args, tag in WORK]
print()
print("the `code` option's CPU time per piece of code logged: the median "
      "of the per-round differences (agent+code - agent) over the pieces "
      "of code in the map")
print()
print("| workload | pieces of code | CPU added by code, median (range) | per piece of code |")
print("|---|---|---|---|")
for name, tag, res in results:
    n = codes(tag, "agent+code")[2]
    d = [c - a for c, a in zip(res["CPU"]["agent+code"], res["CPU"]["agent"])]
    m, lo, hi = spread(d)
    print(f"| {name} | {n} | {m*1000:+.1f} ms ({lo*1000:+.1f}..{hi*1000:+.1f}) "
          f"| {m*1e6/max(n, 1):+.1f} us |")
print()
print("map size")
for name, _, tag in WORK:
    for a, _, _ in agents:
        records, methods, n, used = codes(tag, a)
        path = os.path.join(work, f"{tag}-{a}.map")
        print(f"{name.split(' (')[0]:<12} {a:<10} {os.path.getsize(path):>9} B on disk, "
              f"{used:>8} B of records: {n:>4} pieces of code, "
              f"{methods:>4} methods, {used / max(n, 1):6.0f} B per code")
PY
