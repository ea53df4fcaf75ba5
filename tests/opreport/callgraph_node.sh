#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# node with --perf-basic-prof --interpreted-frames-native-stack, recorded
# with call chains: the folded stacks that end in the hot JS function must
# be named JS frames from the script's entry down to it (main, a or b,
# hot), named through the perfmap handler, with a above hot three times
# as often as b (within 5 points: V8 tiers up while it runs).
. "$(dirname "$0")/lib.sh"
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -x "$OPROFILED" ] || fail "$OPROFILED is not built"
[ -f "$HP/libperfmap.so" ] || fail "$HP/libperfmap.so is not built"
command -v node >/dev/null || { echo "SKIP: node is not installed (nodejs)"; exit 77; }

cd "$TMP"
timeout 120 "$OPROFILED" -g --session-dir="$TMP/s" -- node --perf-basic-prof \
	--interpreted-frames-native-stack --no-turbo-inlining \
	"$HERE/calltree.js" 3 >"$TMP/wl.out" 2>"$TMP/oprofiled.err" ||
	{ cat "$TMP/oprofiled.err"; fail "oprofiled -g failed"; }
"$OPREPORT" --session-dir="$TMP/s" --handler-path="$HP" \
	--anon-handler=perfmap --format=folded >"$TMP/folded.txt" \
	2>"$TMP/op.err" || { cat "$TMP/op.err"; fail "opreport --format=folded failed"; }
# node leaves its perf map behind, as runtimes do: remove ours
"$OPREPORT" --session-dir="$TMP/s" --anon-samples --format=json \
	>"$TMP/r.json" 2>/dev/null || true
for pid in $(grep -o 'tgid:[0-9]*' "$TMP/r.json" | cut -d: -f2 | sort -u); do
	e2e_rm_maps "/tmp/perf-$pid.map"
done

python3 - "$TMP/folded.txt" "$HERE/calltree.js" <<'EOP'
import re, sys
script = sys.argv[2]
def js(frame, name):
    # V8's perf map names: "JS:*hot /path/calltree.js:9:13 [perfmap]_[j]"
    return re.match(r"^JS:[*~^+]?%s %s:\d+:\d+ \[perfmap\]_\[j\]$"
                    % (re.escape(name), re.escape(script)), frame)
under = {"a": 0, "b": 0}
total = named = 0
for line in open(sys.argv[1]):
    stack, count = line.rsplit(" ", 1)
    frames, count = stack.split(";"), int(count)
    if not js(frames[-1], "hot"):
        continue
    total += count
    # the script's frames: from its top level down to hot
    top = [i for i, f in enumerate(frames) if js(f, "")]
    if not top:
        continue
    path = frames[top[0]:]
    if len(path) >= 4 and js(path[1], "main") and path[2].startswith("JS:") \
            and all(f.endswith("[perfmap]_[j]") for f in path):
        named += count
        for k in under:
            if js(path[-2], k):
                under[k] += count
print("hot: %d samples, %d on fully named stacks from the script's entry, "
      "a %d b %d" % (total, named, under["a"], under["b"]))
if total < 300:
    sys.exit("FAIL: too few samples in JS hot")
if named < 0.8 * total:
    sys.exit("FAIL: under 80% of hot's stacks are named from the entry")
pa = 100.0 * under["a"] / max(1, under["a"] + under["b"])
if abs(pa - 75) > 5:
    sys.exit("FAIL: a has %.1f%% of hot's named stacks, not 75%%" % pa)
print("ok: a %.1f%%" % pa)
EOP
echo PASS
