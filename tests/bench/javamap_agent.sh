#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What the javamap agent costs: JVM start-up and a fixed amount of steady
# work, each run without the agent and with it (medians of N alternating
# runs), and the map's size per piece of code.  With --compare AGENT, a
# second build of the agent (an older one, say) runs in the same rounds,
# so that before and after meet the same machine.  Prints figures;
# asserts nothing about time, so it is a benchmark, not a test.
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
agents = [("agent", agent)] + ([("compared", other)] if other else [])

def run(args, lib, tag):
    cmd = ["java"]
    m = os.path.join(work, f"{tag}.map")
    if lib:
        if os.path.exists(m):
            os.unlink(m)
        cmd.append(f"-agentpath:{lib}=file={m}")
    t0 = time.perf_counter()
    subprocess.run(cmd + cp + args, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0

def compare(name, args, tag):
    times = {"none": []}
    for a, _ in agents:
        times[a] = []
    run(args, None, tag)  # warm the page cache and the CDS archive
    for _ in range(runs):
        # alternate, so that drift in the machine hits every column alike
        times["none"].append(run(args, None, tag))
        for a, lib in agents:
            times[a].append(run(args, lib, f"{tag}-{a}"))
    base = statistics.median(times["none"])
    cols = [f"{base*1000:9.1f} ms"]
    for a, _ in agents:
        m = statistics.median(times[a])
        cols.append(f"{m*1000:9.1f} ms {m/base:6.3f}x")
    print(f"{name:<34} " + "  ".join(cols))

def size(name, tag, a):
    path = os.path.join(work, f"{tag}-{a}.map")
    out = subprocess.run([jmdump, path], check=True, capture_output=True,
                         text=True).stdout
    m = re.search(r"^records=(\d+) methods=(\d+) codes=(\d+) .* bytes=(\d+)$",
                  out, re.M)
    records, methods, codes, used = (int(x) for x in m.groups())
    print(f"{name:<12} {a:<9} {os.path.getsize(path):>9} B on disk, "
          f"{used:>8} B of records: {codes:>4} pieces of code, "
          f"{methods:>4} methods, {used / max(codes, 1):6.0f} B per code")

print(f"javamap agent cost, median of {runs} alternating runs, wall time")
print(f"{'workload':<34} {'no agent':>12}  " +
      "  ".join(f"{a:>20}" for a, _ in agents))
WORK = [("start-up (Hot, 0 s of work)", ["Hot", "0"], "startup"),
        ("fixed work (Inline, 2e8 calls)", ["Inline"], "inline"),
        ("code-cache churn (Churn 8 x 0.2 s)", ["Churn", "8", "0.2"],
         "churn")]
for name, args, tag in WORK:
    compare(name, args, tag)
print()
print("map size")
for name, args, tag in WORK:
    for a, _ in agents:
        size(name.split(" (")[0], tag, a)
PY
