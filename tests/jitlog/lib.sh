# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the jitlog end-to-end scripts.  Sourced, not run: checks the
# build, makes $tmp (removed at exit with the files in $logs).
. "${BASH_SOURCE[0]%/*}/../lib/e2e.sh"
: "${OPJIT_BUILD:?}"
oprofiled=$OPJIT_BUILD/daemon/oprofiled
opreport=$OPJIT_BUILD/opreport/opreport
exprjit=$OPJIT_BUILD/tests/workloads/exprjit
dump=$OPJIT_BUILD/bin/opjit-jitlog
for f in "$oprofiled" "$opreport" "$exprjit" "$dump"; do
	[ -x "$f" ] || fail "$f is not built"
done
tmp=$(mktemp -d)
logs=()
trap 'rm -rf "$tmp" "${logs[@]}"' EXIT

# archived_log SESSION: the copy of the JIT's log the session kept,
# inflated into $tmp under the log's own name
archived_log() {
	local copy name
	copy=$(ls "$1"/maps/*/anon.*.gz 2>/dev/null | head -1)
	[ -n "$copy" ] || fail "session $1 kept no (compressed) copy of the log"
	name=${copy##*/}
	mkdir -p "$tmp/inflated"
	gzip -dc "$copy" >"$tmp/inflated/${name%.gz}" ||
		fail "cannot inflate $copy"
	echo "$tmp/inflated/${name%.gz}"
}

# shares REPORT.json [TRUTH]: exprjit's three expressions, all its JIT
# samples (at least 2000) named by jitlog, each share printed; with its
# truth output, each within 1 point of the JIT's own clock
shares() {
	python3 - "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
truth = {}
if len(sys.argv) > 2:
    for line in open(sys.argv[2]):
        w = line.split()
        if len(w) == 3 and w[0] == "truth":
            truth[w[1]] = float(w[2])
rows = [r for r in doc["symbols"] if r["kind"] in ("jit", "anon")]
named = {}
unnamed = 0
for r in rows:
    if r["kind"] == "jit" and r["handler"] == "jitlog" and r["symbol"].startswith("expr_"):
        named[r["symbol"]] = named.get(r["symbol"], 0) + r["samples"]
    else:
        unnamed += r["samples"]
total = sum(named.values())
print("named %d, unnamed %d" % (total, unnamed))
bad = total < 2000 or unnamed > total / 100 or len(named) != 3
bad |= len(sys.argv) > 2 and set(truth) != set(named)
for n in sorted(named):
    share = 100.0 * named[n] / total
    print("%s: %.2f%% (%d)%s" % (n, share, named[n],
          ", %.2f%% by the JIT's clock" % truth[n] if n in truth else ""))
    if n in truth:
        bad |= abs(share - truth[n]) > 1.0
sys.exit(bad)
PY
}
