#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What the javamap agent costs: JVM start-up and a fixed amount of steady
# work, each run with and without the agent (medians of N alternating
# runs), and the map's size per compiled method.  Prints figures; asserts
# nothing about time, so it is a benchmark, not a test.
#
#   javamap_agent.sh [--build DIR] [--runs N]
set -euo pipefail
here=$(cd "$(dirname "$0")/../javamap" && pwd)
build=${OPJIT_BUILD:-$here/../../build}
runs=7
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	*) echo "usage: javamap_agent.sh [--build DIR] [--runs N]" >&2; exit 2 ;;
	esac
done
agent=$build/lib/opjit/libjavamap-agent.so
jmdump=$build/tests/javamap/jmdump
for f in "$agent" "$jmdump"; do
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

python3 - "$agent" "$jmdump" "$work" "$runs" <<'PY'
import os, re, statistics, subprocess, sys, time

agent, jmdump, work = sys.argv[1], sys.argv[2], sys.argv[3]
runs = int(sys.argv[4])
cp = ["-cp", os.path.join(work, "classes")]

def run(args, with_agent, tag):
    cmd = ["java"]
    m = os.path.join(work, f"{tag}.map")
    if with_agent:
        if os.path.exists(m):
            os.unlink(m)
        cmd.append(f"-agentpath:{agent}=file={m}")
    t0 = time.perf_counter()
    subprocess.run(cmd + cp + args, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0

def compare(name, args, tag):
    off, on = [], []
    run(args, False, tag)  # warm the page cache and the CDS archive
    for _ in range(runs):
        # alternate, so that drift in the machine hits both alike
        off.append(run(args, False, tag))
        on.append(run(args, True, tag))
    mo, mn = statistics.median(off), statistics.median(on)
    print(f"{name:<34} {mo*1000:9.1f} ms {mn*1000:9.1f} ms "
          f"{mn/mo:6.3f}x  (+{(mn-mo)*1000:.1f} ms)")
    return os.path.join(work, f"{tag}.map")

KINDS = {1: "METHOD", 2: "CODE_LOAD", 3: "CODE_UNLOAD", 4: "DYNAMIC_CODE"}

def size_per_method(name, path):
    # jmdump must read it whole; the sizes come from the records' headers
    subprocess.run([jmdump, path], check=True, stdout=subprocess.DEVNULL)
    data = open(path, "rb").read()
    off, n, b = 32, {}, {}
    while off + 16 <= len(data):
        kind = int.from_bytes(data[off:off + 2], "little")
        length = int.from_bytes(data[off + 4:off + 8], "little")
        k = KINDS.get(kind, "other")
        n[k] = n.get(k, 0) + 1
        b[k] = b.get(k, 0) + length
        off += length
    loads = n.get("CODE_LOAD", 0)
    java = b.get("CODE_LOAD", 0) + b.get("METHOD", 0) + b.get("CODE_UNLOAD", 0)
    stub_b, stub_n = b.get("DYNAMIC_CODE", 0), n.get("DYNAMIC_CODE", 0)
    print(f"{name:<12} {len(data):>8} B total, {stub_b:>6} B in "
          f"{stub_n} stubs; {loads:>4} compiled methods, "
          f"{n.get('METHOD', 0):>4} method records: "
          f"{java / max(loads, 1):6.0f} B per compiled method")

print(f"javamap agent cost, median of {runs} alternating runs, wall time")
print(f"{'workload':<34} {'no agent':>12} {'agent':>12} {'ratio':>7}")
startup = compare("start-up (Hot, 0 s of work)", ["Hot", "0"], "startup")
steady = compare("fixed work (Inline, 2e8 calls)", ["Inline"], "inline")
churn = compare("code-cache churn (Churn 8 x 0.2 s)",
                ["Churn", "8", "0.2"], "churn")
print()
print("map size")
size_per_method("start-up", startup)
size_per_method("fixed work", steady)
size_per_method("churn", churn)
PY
