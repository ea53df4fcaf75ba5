#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Mixed stacks: node running a hot JS function whose time is in libc's
# memcpy (native_leaf.js), recorded with oprofiled --callgraph=dwarf at
# its default 4 kHz.  memcpy has no frame pointer, so the kernel's walk
# skips its caller (node's builtin TypedArray.prototype.set: perf's
# dwarf mode finds it above all but a few of memcpy's samples, node's
# own copies at start); opreport unwinds memcpy's frame from the stack
# copy and joins the walk where the JIT frames keep theirs.  The
# environment holds 16 KiB, so that every copy is the whole 8 KiB (not
# what ASLR leaves above sp): 12000 copies of 96 MiB, which the
# session's writer must keep (the loop's copies are not equal, but
# share most of their bytes).  In the folded stacks that end in memcpy:
# memcpy's caller is named (a native function, not a JS frame, which
# is what the walk gives when it skips the builtin) in 95% of them, the
# builtin in 90% (under 20% with --no-unwind, frame pointers alone),
# the JS function hot is above it in 90%; the samples with the builtin
# under hot are 80% of those the script's own CPU time in a and b gives
# at 4 kHz; and a's share of the samples under a and b is within 3
# points of the script's own clock.
. "$(dirname "$0")/lib.sh"
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -x "$OPROFILED" ] || fail "$OPROFILED is not built"
[ -f "$HP/libperfmap.so" ] || fail "$HP/libperfmap.so is not built"
command -v node >/dev/null || { echo "SKIP: node is not installed (nodejs)"; exit 77; }

cd "$TMP"
OPJIT_TEST_PAD=$(printf '%16384s' '') \
	timeout 120 "$OPROFILED" --callgraph=dwarf --frequency=4000 \
	--session-dir="$TMP/s" -- node \
	--perf-basic-prof --interpreted-frames-native-stack --no-turbo-inlining \
	"$HERE/native_leaf.js" 3 >"$TMP/truth.txt" 2>"$TMP/oprofiled.err" ||
	{ cat "$TMP/oprofiled.err"; fail "oprofiled --callgraph=dwarf failed"; }
! grep "kept no stack copy" "$TMP/oprofiled.err" ||
	fail "oprofiled dropped stack copies"
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
	e2e_rm_maps "/tmp/perf-$pid.map"
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
    total = builtin = named = hot = hot_builtin = 0
    paths = {"a": 0, "b": 0}
    for line in open(path):
        stack, count = line.rsplit(" ", 1)
        frames, count = stack.split(";"), int(count)
        # a sample taken in the kernel counts by its user stack
        frames = [f for f in frames if not f.endswith("_[k]")]
        if len(frames) < 1 or not re.search(r"mem(cpy|move)\S* \[libc", frames[-1]):
            continue
        total += count
        caller = frames[-2] if len(frames) >= 2 else "[unknown]"
        if not caller.startswith("JS:") and \
           not caller.startswith("[unknown]"):
            named += count
        in_hot = any(js(f, "hot") for f in frames[:-1])
        if re.match(r"^Builtins_TypedArrayPrototypeSet \[node\]$", caller):
            builtin += count
            hot_builtin += count if in_hot else 0
        if in_hot:
            hot += count
        for p in paths:
            if any(js(f, p) for f in frames[:-1]):
                paths[p] += count
    return total, builtin, named, hot, hot_builtin, paths

bad = 0
total, builtin, named, hot, hot_builtin, paths = \
    memcpy_stacks(tmp + "/folded.txt")
fp_total, fp_builtin, _, _, _, _ = memcpy_stacks(tmp + "/fp.txt")
print("memcpy samples %d: its caller named %d, the builtin %d, hot above %d; "
      "frame pointers alone: the builtin above %d of %d"
      % (total, named, builtin, hot, fp_builtin, fp_total))
if total < 1000:
    print("FAIL: only %d samples in memcpy" % total); bad = 1
elif named * 100 < total * 95 or builtin * 100 < total * 90:
    print("FAIL: memcpy's caller named in too few stacks"); bad = 1
elif fp_builtin * 100 >= fp_total * 20:
    print("FAIL: frame pointers alone found the builtin in %d of %d: "
          "the test does not test the unwinding" % (fp_builtin, fp_total)); bad = 1
if total and hot * 100 < total * 90:
    print("FAIL: hot above memcpy in only %d of %d" % (hot, total)); bad = 1
# the script's clock: its CPU time in a and b, at 4000 samples a second
expect = 4000 * (float(truth["a"]) + float(truth["b"]))
print("%s: %d samples of the builtin's memcpy under hot, %.0f%% of the "
      "%.0f the script's CPU time in a and b gives"
      % ("ok" if hot_builtin >= 0.8 * expect else "FAIL", hot_builtin,
         100.0 * hot_builtin / expect, expect))
bad |= hot_builtin < 0.8 * expect
t = paths["a"] + paths["b"]
got = 100.0 * paths["a"] / t if t else 0
ok = t >= 1000 and abs(got - want) <= 3
print("%s: a %.2f%% of %d samples under a and b" % ("ok" if ok else "FAIL", got, t))
sys.exit(bad or not ok)
EOP
echo PASS
