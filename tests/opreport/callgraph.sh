#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The known call tree (callchain: main -> path_a -> hot 75%, main ->
# path_b -> hot 25%) recorded with call chains by oprofiled -g and by perf record -g in
# the same run.  opreport -c, --format=folded and --format=pprof (read by
# go tool pprof) must each put 75/25 of hot's samples under a and b within
# 2 points, and agree with perf; pprof's top functions are opreport -l's.
# With -g, pprof puts path_a and path_b at their lines that call hot.
# A session recorded without -g: -c says so in one line and fails.
. "$(dirname "$0")/lib.sh"
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
WORKLOAD=$OPJIT_BUILD/tests/workloads/callchain
[ -x "$OPROFILED" ] || fail "$OPROFILED is not built"
[ -x "$WORKLOAD" ] || fail "$WORKLOAD is not built"
command -v perf >/dev/null || { echo "SKIP: perf is not installed (linux-perf)"; exit 77; }
command -v go >/dev/null || { echo "SKIP: go is not installed (golang-go)"; exit 77; }
perf record -q --no-buildid --no-buildid-cache -e cpu-clock -F 1000 -g -o "$TMP/probe.data" -- true \
	>"$TMP/probe.out" 2>&1 ||
	{ cat "$TMP/probe.out"; echo "SKIP: perf cannot record cpu-clock here"; exit 77; }

# perf launches the workload; oprofiled attaches to the same process
# (perf 6.1 cannot be the parent of oprofiled, see vs_perf.sh).
perf record -q --no-buildid --no-buildid-cache -e cpu-clock -F 4000 -g -o "$TMP/perf.data" -- "$WORKLOAD" 4 \
	>"$TMP/perf.out" 2>&1 &
perf_pid=$!
pid=
for _ in $(seq 100); do
	# once it has exec'd: an oprofiled attached to perf's child before
	# the exec leaves perf's enable-on-exec events off (0 samples)
	pid=$(pgrep -P "$perf_pid" -x callchain || true)
	[ -n "$pid" ] && break
	sleep 0.02
done
[ -n "$pid" ] || fail "perf did not start callchain"
# callchain runs 4 s of its CPU time, however long a busy machine makes it
timeout 300 "$OPROFILED" -g --pid="$pid" --session-dir="$TMP/s" \
	>"$TMP/oprofiled.out" 2>&1 ||
	{ cat "$TMP/oprofiled.out"; fail "oprofiled -g --pid=$pid failed"; }
wait "$perf_pid" || { cat "$TMP/perf.out"; fail "perf record failed"; }
S=$TMP/s

op() { "$OPREPORT" --session-dir="$S" "$@" 2>"$TMP/op.err" ||
	{ cat "$TMP/op.err"; fail "opreport $* failed"; }; }

op -c image:callchain >"$TMP/c.txt"
op --format=folded image:callchain >"$TMP/folded.txt"
op --format=pprof -o "$TMP/p.pb.gz" image:callchain
op -l image:callchain >"$TMP/l.txt"
[ ! -s "$TMP/op.err" ] || { cat "$TMP/op.err"; fail "opreport warned on a clean session"; }
go tool pprof -sample_index=samples -traces "$TMP/p.pb.gz" >"$TMP/traces.txt" 2>"$TMP/go.err" ||
	{ cat "$TMP/go.err"; fail "go tool pprof cannot read the pprof file"; }
go tool pprof -sample_index=samples -top -nodecount=3 "$TMP/p.pb.gz" >"$TMP/top.txt" 2>"$TMP/go.err" ||
	{ cat "$TMP/go.err"; fail "go tool pprof -top failed"; }
op -g --format=pprof -o "$TMP/g.pb.gz" image:callchain
go tool pprof -sample_index=samples -traces -lines "$TMP/g.pb.gz" >"$TMP/gtraces.txt" 2>"$TMP/go.err" ||
	{ cat "$TMP/go.err"; fail "go tool pprof -traces -lines failed"; }
perf_reads "$TMP/perf.txt" "$TMP/perf.err" perf script -i "$TMP/perf.data" -F comm,ip,sym
sed -n '1,12p' "$TMP/c.txt"

python3 - "$TMP" "$OPJIT_SOURCE/tests/workloads/callchain.c" <<'EOP'
import os, re, sys
sys.path.insert(0, os.environ["OPJIT_SOURCE"] + "/tests/opreport")
import cg_text
tmp = sys.argv[1]
bad = 0

def shares(name, a, b):
    """path_a's and path_b's percentages of hot's samples."""
    global bad
    t = a + b
    if t < 1000:
        print("FAIL: %s: only %d samples of hot under path_a and path_b"
              % (name, t))
        bad = 1
        return None
    pa, pb = 100.0 * a / t, 100.0 * b / t
    ok = abs(pa - 75) <= 2 and abs(pb - 25) <= 2
    print("%s: %s path_a %.2f%% path_b %.2f%% (%d samples)"
          % ("ok" if ok else "FAIL", name, pa, pb, t))
    bad |= not ok
    return pa

# -c: the callers above hot's unindented line
callers = cg_text.callers(tmp + "/c.txt", "hot")
c = shares("opreport -c", callers.get("path_a", 0), callers.get("path_b", 0))

# folded: stacks ending in a;hot and b;hot
fa = fb = 0
for line in open(tmp + "/folded.txt"):
    stack, count = line.rsplit(" ", 1)
    frames = [re.sub(r" \[[^]]*\]$", "", f) for f in stack.split(";")]
    if frames[-2:] == ["path_a", "hot"] and "main" in frames:
        fa += int(count)
    if frames[-2:] == ["path_b", "hot"] and "main" in frames:
        fb += int(count)
f = shares("folded", fa, fb)

# go tool pprof -traces: blocks of "COUNT leaf" then the callers
pa = pb = 0
for value, frames in cg_text.pprof_traces(tmp + "/traces.txt"):
    if frames[:2] == ["hot", "path_a"]:
        pa += value
    if frames[:2] == ["hot", "path_b"]:
        pb += value
shares("go tool pprof -traces", pa, pb)

# -g, -traces -lines: below hot, path_a and path_b at their "hot();"
src = open(sys.argv[2]).read().splitlines()
def call_line(fn):
    first = next(i for i, l in enumerate(src) if re.search(r"\b%s\(void\)$" % fn, l))
    return next(i + 1 for i in range(first, len(src)) if src[i].strip() == "hot();")
want = {fn: call_line(fn) for fn in ("path_a", "path_b")}
seen = {}
for trace in open(tmp + "/gtraces.txt").read().split("-----------+"):
    frames = [re.sub(r"^\s*[\d.]+\w*\s+", "", l).split()
              for l in trace.splitlines() if re.search(r"callchain\.c:\d+", l)]
    if len(frames) >= 2 and frames[0][0] == "hot" and frames[1][0] in want:
        seen.setdefault(frames[1][0], set()).add(
            int(frames[1][1].rsplit(":", 1)[1]))
for fn, line in sorted(want.items()):
    ok = seen.get(fn) == {line}
    print("%s: -g pprof -traces -lines: %s under hot at lines %s, its call is %d"
          % ("ok" if ok else "FAIL", fn, sorted(seen.get(fn, ())), line))
    bad |= not ok

# perf script: sample header line, then frames leaf first
perf = {"path_a": 0, "path_b": 0}
frames = []
for line in open(tmp + "/perf.txt").read().split("\n") + [""]:
    if line.strip() == "":
        if len(frames) >= 2 and frames[0] == "hot" and frames[1] in perf:
            perf[frames[1]] += 1
        frames = []
    elif line.startswith(("\t", " ")):
        p = line.split()
        if len(p) >= 2:
            frames.append(re.sub(r"\+0x[0-9a-f]+$", "", p[1]))
p = shares("perf script", perf["path_a"], perf["path_b"])
# two recorders of one process, each with its own sampling noise: within
# 3 points of each other (each is checked against the truth above)
if c is not None and p is not None and abs(c - p) > 3:
    print("FAIL: opreport -c %.2f%% and perf %.2f%% differ" % (c, p))
    bad = 1

# go tool pprof -top: the leading function is opreport -l's first symbol
top = [l.split()[-1] for l in open(tmp + "/top.txt")
       if re.match(r"^\s*\d+\s+[\d.]+%", l)]
rows = [l.split()[-1] for l in open(tmp + "/l.txt")
        if re.match(r"^\d+\s+[\d.]+\s", l)]
if not top or not rows or top[0] != rows[0] or top[0] != "hot":
    print("FAIL: go tool pprof -top %s, opreport -l %s" % (top[:3], rows[:3]))
    bad = 1
else:
    print("ok: go tool pprof -top and opreport -l both lead with %s" % top[0])
sys.exit(bad)
EOP

# a session without call chains: -c says it in one line and fails
timeout 60 "$OPROFILED" --session-dir="$TMP/flat" -- "$WORKLOAD" 0.3 \
	>"$TMP/flat.out" 2>&1 || { cat "$TMP/flat.out"; fail "oprofiled failed"; }
if "$OPREPORT" --session-dir="$TMP/flat" -c >"$TMP/flat.txt" 2>"$TMP/flat.err"; then
	fail "-c on a session without call chains exited 0"
fi
[ "$(wc -l <"$TMP/flat.err")" = 1 ] && grep -q "has no call graph" "$TMP/flat.err" ||
	{ cat "$TMP/flat.err"; fail "-c without call chains: not one line saying so"; }
[ ! -s "$TMP/flat.txt" ] || fail "-c without call chains printed a report"
echo PASS
