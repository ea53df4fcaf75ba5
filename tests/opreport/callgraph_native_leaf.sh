#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Mixed stacks: node running a hot JS function whose time is in libc's
# memcpy (native_leaf.js), recorded with oprofiled --callgraph=dwarf.
# memcpy has no frame pointer, so the kernel's walk skips its caller
# (node's builtin TypedArray.prototype.set, or Buffer's _copyActual once
# optimised code calls memcpy itself); opreport unwinds memcpy's frame
# from the stack copy and joins the walk where the JIT frames keep
# theirs.  In the folded stacks that end in memcpy: its caller is one of
# those two in 90% of them, the builtin in half at least (under 20% with
# --no-unwind, frame pointers alone, which skip it), the JS function hot
# is above it in 90%, and a's share of the samples under a and b is
# within 3 points of the script's own clock.
. "$(dirname "$0")/lib.sh"
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -x "$OPROFILED" ] || fail "$OPROFILED is not built"
[ -f "$HP/libperfmap.so" ] || fail "$HP/libperfmap.so is not built"
command -v node >/dev/null || { echo "SKIP: node is not installed (nodejs)"; exit 77; }

cd "$TMP"
timeout 120 "$OPROFILED" --callgraph=dwarf --session-dir="$TMP/s" -- node \
	--perf-basic-prof --interpreted-frames-native-stack --no-turbo-inlining \
	"$HERE/native_leaf.js" 3 >"$TMP/truth.txt" 2>"$TMP/oprofiled.err" ||
	{ cat "$TMP/oprofiled.err"; fail "oprofiled --callgraph=dwarf failed"; }
op() { local out=$1; shift
	"$OPREPORT" --session-dir="$TMP/s" --handler-path="$HP" \
		--anon-handler=perfmap --format=folded "$@" >"$TMP/$out.txt" \
		2>"$TMP/op.err" || { cat "$TMP/op.err"; fail "opreport $* failed"; }; }
op folded
op fp --no-unwind
# node leaves its perf map behind, as runtimes do: remove ours
"$OPREPORT" --session-dir="$TMP/s" --anon-samples --format=json \
	>"$TMP/r.json" 2>/dev/null || true
for pid in $(grep -o 'tgid:[0-9]*' "$TMP/r.json" | cut -d: -f2 | sort -u); do
	rm -f "/tmp/perf-$pid.map"
done

python3 - "$TMP" <<'EOP'
import re, sys
tmp = sys.argv[1]
truth = dict(l.split() for l in open(tmp + "/truth.txt"))
want = 100.0 * float(truth["a"]) / (float(truth["a"]) + float(truth["b"]))
print("script: a %.2f%% of its CPU time in the two paths" % want)

def js(frame, name):
    return re.match(r"^JS:[*~^+]?%s .*native_leaf\.js:\d+:\d+ \[perfmap\]_\[j\]$"
                    % name, frame)

def memcpy_stacks(path):
    total = builtin = caller = hot = 0
    paths = {"a": 0, "b": 0}
    for line in open(path):
        stack, count = line.rsplit(" ", 1)
        frames, count = stack.split(";"), int(count)
        if len(frames) < 2 or not re.search(r"mem(cpy|move)\S* \[libc", frames[-1]):
            continue
        total += count
        if re.match(r"^Builtins_TypedArrayPrototypeSet \[node\]$", frames[-2]):
            builtin += count
            caller += count
        elif re.match(r"^JS:\S*_copyActual node:buffer:", frames[-2]):
            caller += count
        if any(js(f, "hot") for f in frames[:-1]):
            hot += count
        for p in paths:
            if any(js(f, p) for f in frames[:-1]):
                paths[p] += count
    return total, builtin, caller, hot, paths

bad = 0
total, builtin, caller, hot, paths = memcpy_stacks(tmp + "/folded.txt")
fp_total, fp_builtin, _, _, _ = memcpy_stacks(tmp + "/fp.txt")
print("memcpy samples %d: its caller above %d, the builtin %d, hot above %d; "
      "frame pointers alone: the builtin above %d of %d"
      % (total, caller, builtin, hot, fp_builtin, fp_total))
if total < 1000:
    print("FAIL: only %d samples in memcpy" % total); bad = 1
elif caller * 100 < total * 90 or builtin * 2 < total:
    print("FAIL: memcpy's caller found in too few stacks"); bad = 1
elif fp_builtin * 100 >= fp_total * 20:
    print("FAIL: frame pointers alone found the builtin in %d of %d: "
          "the test does not test the unwinding" % (fp_builtin, fp_total)); bad = 1
if total and hot * 100 < total * 90:
    print("FAIL: hot above memcpy in only %d of %d" % (hot, total)); bad = 1
t = paths["a"] + paths["b"]
got = 100.0 * paths["a"] / t if t else 0
ok = t >= 1000 and abs(got - want) <= 3
print("%s: a %.2f%% of %d samples under a and b" % ("ok" if ok else "FAIL", got, t))
sys.exit(bad or not ok)
EOP
echo PASS
