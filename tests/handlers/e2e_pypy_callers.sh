#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# PyPy's loops in the call graph: two Python functions, left and right,
# call the same hot loop 3:1 (pypy_callers.py), each from a loop the JIT
# compiled.  Recorded with --callgraph=dwarf, the folded report puts
# left's and right's loops above hot's, and the split through them is
# within 3 points of the one the workload measured with its own thread
# clock.  What cannot be had is said by the README and checked here too:
# a plain -g recording has no copy to read, so hot's caller stays
# unnamed, and calls the interpreter made (before the callers' loops
# were compiled) have no Python caller.
. "$(dirname "$0")/e2e_lib.sh"
need_cmd pypy3 pypy3
launcher=$OPJIT_BUILD/bin/opjit-pypy
[ -x "$launcher" ] || fail "$launcher is not built"

# run NAME OPRPOFILED-OPTION: profile the workload, keep its output.
# One second of the thread's CPU is some 3,500 samples of hot's loop with
# a caller at 4 kHz, seven times the 500 asked below, and enough for the
# split: a clock skewed by 5 points fails it.  Each sample's stack copy
# is unwound by both reports, which under ASan cost more than the run.
run() {
	"$oprofiled" --session-dir="$tmp/$1" "$2" -- "$launcher" \
		"$here/pypy_callers.py" 1 >"$tmp/$1.out" 2>"$tmp/$1.err" ||
		show_fail "$tmp/$1.err" "oprofiled $2 -- opjit-pypy failed"
	local f found=
	for f in "$tmp/$1"/maps/*/anon.*.gz; do
		[ -f "$f" ] || continue
		f=${f%.gz}
		forget_maps_of "${f##*.}"
		found=1
	done
	[ -n "$found" ] || fail "$1: the session kept no copy of PyPy's map"
	"$opreport" --session-dir="$tmp/$1" --format=folded \
		--anon-handler=pypy-loops >"$tmp/$1.folded" 2>"$tmp/$1.rerr" ||
		show_fail "$tmp/$1.rerr" "opreport --format=folded failed"
}

# callers NAME: "LEFT RIGHT OTHER" samples of hot's loop under left's
# loop, under right's, and under anything else
callers() {
	python3 - "$tmp/$1.folded" <<'PY'
import re, sys
loop = r"^loop \d+ %s \(pypy_callers\.py:\d+-\d+\) \[pypy-loops\]_\[j\]$"
hot = re.compile(loop % "hot")
caller = re.compile(loop % "(left|right)")
n = {"left": 0, "right": 0, "other": 0}
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    # the kernel's frames of a sample taken in it come after the leaf
    while frames and frames[-1].endswith("_[k]"):
        frames.pop()
    if not hot.match(frames[-1]):
        continue
    m = len(frames) > 1 and caller.match(frames[-2])
    n[m.group(1) if m else "other"] += int(count)
print(n["left"], n["right"], n["other"])
PY
}

run dwarf --callgraph=dwarf
truth=$(sed -n 's/^pypy_callers left \([0-9]*\) right \([0-9]*\)$/\1 \2/p' "$tmp/dwarf.out")
[ -n "$truth" ] || show_fail "$tmp/dwarf.out" "the workload printed no times"
read -r l r o < <(callers dwarf)
echo "dwarf: hot's loop under left's loop $l, under right's $r, other $o; clock: $truth"
[ $((l + r)) -ge 500 ] ||
	show_fail "$tmp/dwarf.folded" "only $((l + r)) of hot's samples have a Python caller"
# the callers' loops run from their first few calls on: most of hot's
# samples are theirs
[ $((l + r)) -ge $((4 * o)) ] ||
	show_fail "$tmp/dwarf.folded" "$o of hot's $((l + r + o)) samples have no caller"
python3 - "$l" "$r" $truth <<'PY' || fail "the callers' split is not the clock's"
import sys
l, r, tl, tr = map(int, sys.argv[1:])
got, want = 100.0 * l / (l + r), 100.0 * tl / (tl + tr)
print("left: %.2f%% of hot's samples with a caller, %.2f%% by the clock" % (got, want))
sys.exit(abs(got - want) > 3.0)
PY
# opreport -c says the same: left's loop calls hot's
"$opreport" --session-dir="$tmp/dwarf" -c --anon-handler=pypy-loops \
	>"$tmp/dwarf.c" 2>"$tmp/dwarf.cerr" ||
	show_fail "$tmp/dwarf.cerr" "opreport -c failed"
grep -Eq 'loop [0-9]+ left \(pypy_callers\.py:[0-9]+-[0-9]+\)' "$tmp/dwarf.c" ||
	show_fail "$tmp/dwarf.c" "opreport -c names no caller loop of left"
echo "ok: --callgraph=dwarf names hot's callers"

# -g keeps no stack copy: the chain above PyPy's JIT code is not one
run fp -g
read -r l r o < <(callers fp)
echo "fp: hot's loop under left's loop $l, under right's $r, other $o"
[ "$o" -gt 0 ] || show_fail "$tmp/fp.folded" "-g: no samples of hot's loop"
[ $((l + r)) -eq 0 ] ||
	show_fail "$tmp/fp.folded" "-g named callers it has no copy to read"
echo "ok: -g leaves them unnamed, as the README says"
echo PASS
