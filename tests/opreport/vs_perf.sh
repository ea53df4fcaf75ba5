#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The 3:1 workload recorded by Linux perf and by oprofiled in the same
# run: opreport's shares of heavy_work and light_work must be within 2
# points of perf report's.
. "$(dirname "$0")/lib.sh"
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
WORKLOAD=$OPJIT_BUILD/tests/workloads/threetoone
[ -x "$OPROFILED" ] || { echo "SKIP: $OPROFILED is not built (target oprofiled)"; exit 77; }
[ -x "$WORKLOAD" ] || { echo "SKIP: $WORKLOAD is not built (target threetoone)"; exit 77; }
command -v perf >/dev/null || { echo "SKIP: perf is not installed (linux-perf)"; exit 77; }
perf record -q --no-buildid --no-buildid-cache -e cpu-clock -F 4000 -o "$TMP/probe.data" -- true \
	>"$TMP/probe.out" 2>&1 ||
	{ cat "$TMP/probe.out"; echo "SKIP: perf cannot record cpu-clock here"; exit 77; }

# perf launches the workload; oprofiled attaches to the same process.
# (perf cannot be the parent of oprofiled: perf 6.1 aborts on the build-id
# of oprofiled's perf ring buffers.)
perf record -q --no-buildid --no-buildid-cache -e cpu-clock -F 4000 -o "$TMP/perf.data" -- "$WORKLOAD" 3cpu \
	>"$TMP/perf.out" 2>&1 &
perf_pid=$!
pid=
for _ in $(seq 100); do
	# once it has exec'd: an oprofiled attached to perf's child before
	# the exec leaves perf's enable-on-exec events off (0 samples)
	pid=$(pgrep -P "$perf_pid" -x threetoone || true)
	[ -n "$pid" ] && break
	sleep 0.02
done
[ -n "$pid" ] || fail "perf did not start threetoone"
# 3 s of the workload's CPU time (its samples, whatever the machine's
# load), however long that takes
timeout 300 "$OPROFILED" --pid="$pid" --session-dir="$TMP/session" \
	>"$TMP/oprofiled.out" 2>&1 ||
	{ cat "$TMP/oprofiled.out"; fail "oprofiled --pid=$pid failed"; }
wait "$perf_pid" || { cat "$TMP/perf.out"; fail "perf record failed"; }

perf_reads "$TMP/perf.txt" "$TMP/perf.err" perf report -i "$TMP/perf.data" \
	--stdio --no-children --sort symbol --comm threetoone --percentage relative
"$OPREPORT" --session-dir="$TMP/session" -l -m all --format=json \
	image:threetoone >"$TMP/op.json" 2>"$TMP/op.err" ||
	{ cat "$TMP/op.err"; fail "opreport failed"; }
"$OPREPORT" --session-dir="$TMP/session" -l -m all image:threetoone >"$TMP/op.txt"
head -n 6 "$TMP/op.txt"

python3 - "$TMP/perf.txt" "$TMP/op.json" <<'EOP'
import json, re, sys
perf = {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*([\d.]+)%\s+\[.\]\s+(\S+)", line)
    if m:
        perf[m.group(2)] = float(m.group(1))
doc = json.load(open(sys.argv[2]))
op = {}
for row in doc["symbols"]:
    op[row["symbol"]] = op.get(row["symbol"], 0) + row["percent"]
if doc["total_samples"] < 2000:
    sys.exit("FAIL: only %d samples from oprofiled" % doc["total_samples"])
bad = 0
for fn in ("heavy_work", "light_work"):
    p, o = perf.get(fn), op.get(fn)
    if p is None or o is None:
        print("FAIL: %s missing (perf %s, opreport %s)" % (fn, p, o))
        bad = 1
        continue
    ok = abs(p - o) <= 2.0
    print("%s: %s perf %.2f%%, opreport %.2f%%, difference %.2f points"
          % ("ok" if ok else "FAIL", fn, p, o, abs(p - o)))
    bad |= not ok
if not bad and not op["heavy_work"] > 2 * op["light_work"]:
    print("FAIL: heavy_work is not well above light_work")
    bad = 1
sys.exit(bad)
EOP
echo PASS
