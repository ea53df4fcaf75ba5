#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# PyPy under oprofiled, through opjit-pypy: the opjit_pypy module's map
# and PyPy's own log (--log) both name the JIT loops of the workload's
# two hot functions.  With bridges folded into their loops (pypy-loops),
# heavy's and light's shares of the JIT samples are within 3 points of
# the split the workload measured with its own clock; with a row per
# bridge (pypy), heavy has a bridge row, and its loop and bridge rows add
# up to its folded row.
. "$(dirname "$0")/e2e_lib.sh"
need_cmd pypy3 pypy3
launcher=$OPJIT_BUILD/bin/opjit-pypy
[ -x "$launcher" ] || fail "$launcher is not built"

# run NAME [--log]: profile the workload, keep its output.  Two seconds
# are some 3,500 samples in the two loops on a busy machine (1,000 asked
# below), and enough for the split: a clock skewed by 5 points fails it.
run() {
	local name=$1; shift
	"$oprofiled" --session-dir="$tmp/$name" -- "$launcher" "$@" \
		"$here/pypy_split.py" 2 >"$tmp/$name.out" 2>"$tmp/$name.err" ||
		show_fail "$tmp/$name.err" "oprofiled -- opjit-pypy $* failed"
	local f found=
	for f in "$tmp/$name"/maps/*/anon.*.gz; do
		[ -f "$f" ] || continue
		f=${f%.gz}
		forget_maps_of "${f##*.}"
		found=1
	done
	[ -n "$found" ] || fail "$name: the session kept no copy of PyPy's map"
}

# shares NAME HANDLER: "HEAVY LIGHT BRIDGES" samples of heavy's and
# light's rows, and of heavy's bridge rows, from the JSON report
shares() {
	"$opreport" --session-dir="$tmp/$1" -l --format=json \
		--anon-handler="$2" >"$tmp/$1.$2.json" 2>"$tmp/$1.$2.err" ||
		show_fail "$tmp/$1.$2.err" "opreport --anon-handler=$2 failed"
	python3 - "$tmp/$1.$2.json" <<'PY'
import json, re, sys
rows = json.load(open(sys.argv[1]))["symbols"]
def count(pat):
    return sum(r["samples"] for r in rows
               if r["kind"] == "jit" and re.search(pat, r["symbol"] or ""))
print(count(r"^loop \d+ heavy |in loop \d+ \(heavy\)$"),
      count(r"^loop \d+ light |in loop \d+ \(light\)$"),
      count(r"^bridge from guard 0x[0-9a-f]+ in loop \d+ \(heavy\)$"))
PY
}

check() {
	local name=$1 truth h l b hb lb
	truth=$(sed -n 's/^pypy_split heavy \([0-9]*\) light \([0-9]*\)$/\1 \2/p' "$tmp/$name.out")
	[ -n "$truth" ] || show_fail "$tmp/$name.out" "$name: the workload printed no times"
	read -r h l b < <(shares "$name" pypy-loops)
	read -r hb lb bb < <(shares "$name" pypy)
	echo "$name: heavy $h light $l (pypy-loops); heavy's bridges $bb" \
		"(pypy); clock: $truth"
	[ $((h + l)) -ge 1000 ] || fail "$name: only $((h + l)) samples named in the two loops"
	python3 - "$h" "$l" $truth <<'PY' || fail "$name: the loops' split is not the clock's"
import sys
h, l, th, tl = map(int, sys.argv[1:])
got, want = 100.0 * h / (h + l), 100.0 * th / (th + tl)
print("heavy: %.2f%% of the two loops' samples, %.2f%% by the clock" % (got, want))
sys.exit(abs(got - want) > 3.0)
PY
	[ "$hb" -eq "$h" ] && [ "$lb" -eq "$l" ] ||
		fail "$name: rows of loops and bridges ($hb, $lb) do not add up to the folded rows ($h, $l)"
}

run module
if grep -v '^oprofiled: ' "$tmp/module.err" | grep -q .; then
	show_fail "$tmp/module.err" "opjit-pypy said something"
fi
check module
read -r _ _ bb < <(shares module pypy)
[ "$bb" -gt 0 ] || fail "module: heavy's loop took its bridge, but no bridge row has samples"
"$opreport" --session-dir="$tmp/module" -l --anon-handler=pypy 2>"$tmp/m.err" |
	grep -Eq ' loop [0-9]+ heavy \(pypy_split\.py:[0-9]+-[0-9]+\)$' ||
	fail "module: no row names heavy's loop with its file and lines"
if grep -v 'JIT samples unnamed' "$tmp/m.err" | grep -q .; then
	show_fail "$tmp/m.err" "module: warnings about a good map"
fi
echo "ok: the module's map"

run log --log
check log
echo "ok: PyPy's own log"
echo PASS
