#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What the JVMTI agent's alloc= and lock= cost, beside JFR's `profile`
# settings (which record jdk.ObjectAllocationSample and
# jdk.JavaMonitorEnter) on the same workloads in the same rounds: an
# allocation-heavy one (tests/javamap/java/Alloc.java, 1 KiB objects) and
# a lock-heavy one (tests/bench/workloads/LockHeavy.java, four threads on
# one monitor).  Each round runs every configuration once, in an order
# that rotates; figures are medians of the rounds with their range, and
# ratios are taken per round.  Prints a markdown table; asserts nothing
# about time, so it is a benchmark, not a test.  async-profiler is not a
# Debian package, so JFR is the reference.
#
#   jvm_events.sh [--build DIR] [--rounds N] [--quick]
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$BENCH_DIR/../.." && pwd)
build=${OPJIT_BUILD:-$SRC/build}
rounds=5 alloc_rounds=1000000 lock_entries=1000000
usage="usage: jvm_events.sh [--build DIR] [--rounds N] [--quick]"
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--quick) rounds=1 alloc_rounds=200000 lock_entries=200000; shift ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
agent=$build/lib/opjit/libjavamap-agent.so
jitlog=$build/bin/opjit-jitlog
for f in "$agent" "$jitlog"; do
	[ -e "$f" ] || { echo "jvm_events.sh: $f is missing; build first" >&2; exit 1; }
done
for c in java javac jfr; do
	command -v $c >/dev/null ||
		{ echo "jvm_events.sh: no $c (openjdk-17-jdk-headless)" >&2; exit 1; }
done

work=$(mktemp -d /tmp/jvm-events.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/classes"
javac -d "$work/classes" "$SRC/tests/javamap/java/Alloc.java" \
	"$BENCH_DIR/workloads/LockHeavy.java"

python3 - "$agent" "$jitlog" "$work" "$rounds" "$alloc_rounds" "$lock_entries" <<'PY'
import os, re, resource, statistics, subprocess, sys, time

agent, jitlog, work, rounds, alloc_n, lock_n = sys.argv[1:7]
rounds = int(rounds)
cp = ["-cp", os.path.join(work, "classes")]
workloads = {
    "alloc": (["Alloc", alloc_n], "alloc", "jdk.ObjectAllocationSample"),
    "lock": (["LockHeavy", lock_n], "lock", "jdk.JavaMonitorEnter"),
}
configs = ["alone", "agent", "agent+event", "jfr"]

def run(wl, cfg):
    args, event, jfr_event = workloads[wl]
    # jfr reads only files named .jfr
    out = os.path.join(work, f"{wl}.{cfg}" + (".jfr" if cfg == "jfr" else ".map"))
    if os.path.exists(out):
        os.unlink(out)
    cmd = ["java"]
    if cfg == "agent":
        cmd.append(f"-agentpath:{agent}=file={out}")
    elif cfg == "agent+event":
        cmd.append(f"-agentpath:{agent}=file={out},{event}")
    elif cfg == "jfr":
        cmd.append(f"-XX:StartFlightRecording=settings=profile,filename={out}")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd + cp + args, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    size = os.path.getsize(out) if os.path.exists(out) else 0
    events = None
    if cfg == "agent+event":
        r = subprocess.run([jitlog, "folded", event, out], check=True,
                           capture_output=True, text=True)
        events = len(r.stdout.splitlines())
    elif cfg == "jfr":
        r = subprocess.run(["jfr", "summary", out], check=True,
                           capture_output=True, text=True)
        m = re.search(r"^\s*%s\s+(\d+)" % re.escape(jfr_event), r.stdout, re.M)
        events = int(m.group(1)) if m else 0
    return {"wall": wall, "cpu": cpu, "bytes": size, "events": events}

res = {(w, c): [] for w in workloads for c in configs}
for r in range(rounds):
    for w in workloads:
        order = configs[r % len(configs):] + configs[:r % len(configs)]
        for c in order:
            res[(w, c)].append(run(w, c))

def fmt(vals, unit):
    m, lo, hi = statistics.median(vals), min(vals), max(vals)
    if unit == "s":
        return "%.2f s (%.2f..%.2f)" % (m, lo, hi)
    if unit == "x":
        return "%.2fx (%.2fx..%.2fx)" % (m, lo, hi)
    if unit == "KiB":
        return "%.0f KiB (%.0f..%.0f)" % (m / 1024, lo / 1024, hi / 1024)
    return "%.0f (%.0f..%.0f)" % (m, lo, hi)

print("| workload | figure | agent+event | JFR profile | agent+event vs JFR |")
print("|---|---|---|---|---|")
for w in workloads:
    alone = res[(w, "alone")]
    a, j, plain = res[(w, "agent+event")], res[(w, "jfr")], res[(w, "agent")]
    print("| %s | alone: wall, CPU | %s, %s | | |" % (
        w, fmt([x["wall"] for x in alone], "s"), fmt([x["cpu"] for x in alone], "s")))
    print("| %s | agent without events: slowdown by CPU | %s | | |" % (
        w, fmt([p["cpu"] / b["cpu"] for p, b in zip(plain, alone)], "x")))
    for fig in ("wall", "cpu"):
        sa = [x[fig] / b[fig] for x, b in zip(a, alone)]
        sj = [x[fig] / b[fig] for x, b in zip(j, alone)]
        print("| %s | slowdown by %s | %s | %s | %s |" % (
            w, "wall time" if fig == "wall" else "CPU time",
            fmt(sa, "x"), fmt(sj, "x"), fmt([p / q for p, q in zip(sa, sj)], "x")))
    print("| %s | bytes written | %s | %s | %s |" % (
        w, fmt([x["bytes"] for x in a], "KiB"), fmt([x["bytes"] for x in j], "KiB"),
        fmt([p["bytes"] / q["bytes"] for p, q in zip(a, j)], "x")))
    print("| %s | events recorded | %s | %s | %s |" % (
        w, fmt([x["events"] for x in a], ""), fmt([x["events"] for x in j], ""),
        fmt([p["events"] / max(q["events"], 1) for p, q in zip(a, j)], "x")))
PY
