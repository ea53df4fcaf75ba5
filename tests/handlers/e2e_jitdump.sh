#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The jitdump handler end to end, on a workload that knows its own
# split: jd_alpha, then jd_gamma JIT-ed over the same address, and jd_beta
# moved half-way, all described only by a jitdump the workload mmaps
# executable from a directory that is not /tmp.  Each share must come out
# within 1 point of the truth, the reused address named after the code
# that held it at each moment, with lines under -g; the claim order of
# --anon-handler picks between the dump and a perf map; the report still
# names everything from the session's copy once the dump is deleted, and
# from the live file when nothing was archived.  The dump's own mapping
# must cost no sample.
. "$(dirname "$0")/e2e_lib.sh"
demo=$OPJIT_BUILD/tests/workloads/jitdumpdemo
[ -x "$demo" ] || fail "$demo is not built"
mkdir -p "$tmp/dumps"

# record NAME [OPTIONS...]: profile the demo into session $tmp/NAME
record() {
	local name=$1; shift
	"$oprofiled" --session-dir="$tmp/$name" "$@" -- "$demo" \
		--seconds 4 --dir "$tmp/dumps" --perf-map \
		>"$tmp/$name.out" 2>&1 ||
		show_fail "$tmp/$name.out" "oprofiled failed"
	forget_maps_of "$(sed -n 's|^jitdump .*/jit-\([0-9]*\)\.dump$|\1|p' \
		"$tmp/$name.out")"
	grep -q ' 0 unattributed' "$tmp/$name.out" ||
		show_fail "$tmp/$name.out" "$name: samples left unattributed"
}

# report NAME OUT [OPTIONS...]: JSON report into $tmp/OUT.json
report() {
	local name=$1 out=$2; shift 2
	"$opreport" --session-dir="$tmp/$name" -l -g --format=json "$@" \
		>"$tmp/$out.json" 2>"$tmp/$out.err" ||
		show_fail "$tmp/$out.err" "opreport failed on $name"
}

# check_truth NAME OUT HANDLER PREFIX: each function's share of the JIT
# samples within 1 point of the share of CPU time the demo measured (or
# four standard deviations of a share of that many samples, if wider), and
# within the share of the samples the kernel lost more (a lost sample may
# have been any function's: the ring fills while the recorder waits on a
# disk that a build beside it keeps busy)
check_truth() {
	python3 - "$tmp/$1.out" "$tmp/$2.json" "$3" "$4" <<'PY'
import json, math, sys
out, rep, handler, prefix = sys.argv[1:]
truth, summary, lost, said = {}, None, None, []
for line in open(out):
    if line.startswith("oprofiled: "):
        said.append(line.strip())
    f = line.split()
    if len(f) == 3 and f[0] == "truth":
        truth[f[1]] = float(f[2])
    if line.startswith("oprofiled: ") and " lost (" in line:
        summary = line.strip()
        lost, recorded = int(f[3]), int(f[1])
if len(truth) != 3:
    sys.exit(f"FAIL: the demo printed no truth in {out}")
if summary is None:
    sys.exit(f"FAIL: no summary line of oprofiled's in {out}")
if lost * 20 > recorded + lost:
    sys.exit(f"FAIL: more than 5% of the samples lost: {summary}")
lost_share = 100.0 * lost / (recorded + lost)
got, lines, other = {}, {}, 0
for row in json.load(open(rep))["symbols"]:
    if row.get("kind") != "jit":
        continue
    if row.get("handler") != handler:
        other += row["samples"]
        continue
    name = row["symbol"]
    if not name.startswith(prefix):
        other += row["samples"]
        continue
    name = name[len(prefix):]
    got[name] = got.get(name, 0) + row["samples"]
    lines[name] = (row.get("file"), row.get("line"))
total = sum(got.values()) + other
if not total:
    sys.exit(f"FAIL: {rep}: no JIT samples named by {handler}")
bad = []
for name, want in sorted(truth.items()):
    pct = 100.0 * got.get(name, 0) / total
    print(f"{handler}: {prefix}{name} {pct:.2f}% of JIT samples "
          f"(truth {want:.2f}%)")
    # a point, or four standard deviations of a share counted from
    # TOTAL samples, where that is wider: 1 point at 15k samples of a
    # half share was 2.5 of them, and failed about one run in fifteen
    # with nothing wrong
    p = want / 100.0
    allowed = max(1.0, 400.0 * math.sqrt(p * (1.0 - p) / total)) + lost_share
    if abs(pct - want) > allowed:
        bad.append(f"{name} at {pct:.2f}%, truth {want:.2f}% "
                   f"(within {allowed:.2f} allowed)")
if 100.0 * other / total > 0.5:
    bad.append(f"{other} JIT samples not named by {handler}")
if handler == "jitdump":
    want_lines = {"jd_alpha": 10, "jd_beta": 20, "jd_gamma": 30}
    for name, line in want_lines.items():
        if lines.get(name) != ("demo/jit.src", line):
            bad.append(f"{name} at {lines.get(name)}, "
                       f"not demo/jit.src:{line}")
if bad:
    sys.exit("FAIL: " + "; ".join(bad) + "\n" + "\n".join(said))
PY
}

record s
pid=$(sed -n 's|^jitdump .*/jit-\([0-9]*\)\.dump$|\1|p' "$tmp/s.out")
dump=$tmp/dumps/jit-$pid.dump
[ -f "$dump" ] || fail "the demo wrote no $dump"
[ -f "$tmp/s/maps/0/jit-$pid.dump.gz" ] ||
	fail "the session has no (compressed) copy of jit-$pid.dump"

# the dump's mapping is data: never an image of the report
"$opreport" --session-dir="$tmp/s" -l --anon-samples >"$tmp/plain.txt" \
	2>&1 || show_fail "$tmp/plain.txt" "opreport failed"
! grep -q "jit-$pid.dump" "$tmp/plain.txt" ||
	show_fail "$tmp/plain.txt" "the dump file shows up as code"

report s jd --anon-handler=jitdump
check_truth s jd jitdump ""
[ ! -s "$tmp/jd.err" ] || show_fail "$tmp/jd.err" "warnings about a clean run"

# the claim order decides between the dump and the perf map
report s both --anon-handler=jitdump,perfmap
check_truth s both jitdump ""
report s rev --anon-handler=perfmap,jitdump
python3 "$here/report_shares.py" "$tmp/rev.json" '^map:' --handler perfmap \
	>"$tmp/rev.n"
read -r n _ <"$tmp/rev.n"
[ "$n" -gt 0 ] || show_fail "$tmp/rev.json" \
	"perfmap,jitdump: the perf map did not name the code"
python3 "$here/report_shares.py" "$tmp/rev.json" . --handler jitdump \
	>"$tmp/rev.j"
read -r n _ <"$tmp/rev.j"
[ "$n" -eq 0 ] || fail "perfmap,jitdump: the jitdump named $n samples"

# the session's copy once the dump is gone
rm -f "$dump"
report s gone --anon-handler=jitdump
check_truth s gone jitdump ""

# the live file, when nothing was archived
record live --no-archive-maps
ls "$tmp/live/maps" >/dev/null 2>&1 &&
	[ -n "$(ls -A "$tmp/live/maps")" ] && fail "--no-archive-maps archived"
report live live --anon-handler=jitdump
check_truth live live jitdump ""
echo "jitdump: shares, re-JIT, move, lines, claim order, archive: ok"
