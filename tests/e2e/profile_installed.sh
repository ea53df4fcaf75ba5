#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# profile_installed.sh: profile a JIT through the opjit commands found on
# PATH alone, as a user of an installed opjit does: no build tree, no
# OPJIT_HANDLER_PATH.  The bundled jitdemo (built from its source when
# $JITDEMO does not name a binary) must show jit_hot and jit_cold through
# the installed perfmap handler, and, when pypy3 is installed, the
# installed opjit-pypy's map must name a PyPy loop.  Run by the
# relocation test (PATH=PREFIX/bin) and by the package's autopkgtest.
# Exit 0 passes, 77 skips (says why), anything else fails.
. "${BASH_SOURCE[0]%/*}/../lib/e2e.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)
unset OPJIT_HANDLER_PATH

for c in oprofiled opreport opannotate; do
	command -v "$c" >/dev/null || fail "$c is not on PATH ($PATH)"
done
echo "using $(command -v oprofiled) and $(command -v opreport)"
[ "$(uname -m)" = x86_64 ] || skip "jitdemo writes x86-64 code; this is $(uname -m)"

tmp=$(mktemp -d)
# the maps jitdemo and PyPy leave in /tmp are ours: the sessions name them
trap 'e2e_forget_jit_maps "$tmp/s" "$tmp/p"; rm -rf "$tmp"' EXIT
jitdemo=${JITDEMO:-}
if [ -z "$jitdemo" ]; then
	cc=${CC:-cc}
	command -v "$cc" >/dev/null || fail "no C compiler to build jitdemo"
	"$cc" -O1 -pthread -o "$tmp/jitdemo" "$src/tests/workloads/jitdemo.c" ||
		fail "cannot build jitdemo from $src/tests/workloads/jitdemo.c"
	jitdemo=$tmp/jitdemo
fi

oprofiled --session-dir="$tmp/s" -- "$jitdemo" --seconds 2 \
	>"$tmp/rec.log" 2>&1 || show_fail "$tmp/rec.log" "oprofiled failed"
opreport --session-dir="$tmp/s" -l --anon-handler=perfmap \
	>"$tmp/report.txt" 2>"$tmp/report.err" ||
	show_fail "$tmp/report.err" "opreport failed"
for f in jit_hot jit_cold; do
	awk -v s="$f" '$NF == s && $1 > 0 { ok = 1 } END { exit !ok }' \
		"$tmp/report.txt" ||
		{ cat "$tmp/report.txt" "$tmp/report.err" >&2;
		  fail "the installed opreport does not name $f"; }
done
grep -q 'jit:perfmap (tgid:[0-9]* ' "$tmp/report.txt" ||
	show_fail "$tmp/report.txt" "no jit:perfmap image in the report"
echo "jitdemo: jit_hot and jit_cold named by the installed perfmap handler"
# a perf map keeps no code: opannotate gives jit_hot's sampled addresses
opannotate --session-dir="$tmp/s" --assembly --anon-handler=perfmap \
	-i jit_hot >"$tmp/ann.txt" 2>"$tmp/ann.err" ||
	show_fail "$tmp/ann.err" "opannotate failed"
grep -q '^jit_hot ' "$tmp/ann.txt" && grep -Eq '^ +[0-9]+ +[0-9.]+% +[0-9a-f]+:  \(no code\)$' "$tmp/ann.txt" ||
	show_fail "$tmp/ann.txt" "the installed opannotate does not annotate jit_hot"
echo "jitdemo: jit_hot annotated by the installed opannotate"

if ! command -v pypy3 >/dev/null; then
	echo "pypy3 is not installed: opjit-pypy not checked" >&2
	exit 0
fi
command -v opjit-pypy >/dev/null || fail "opjit-pypy is not on PATH"
oprofiled --session-dir="$tmp/p" -- opjit-pypy \
	"$src/tests/handlers/pypy_split.py" 2 >"$tmp/prec.log" 2>&1 ||
	show_fail "$tmp/prec.log" "oprofiled -- opjit-pypy failed"
grep -q 'ModuleNotFoundError\|No module named' "$tmp/prec.log" &&
	show_fail "$tmp/prec.log" "opjit-pypy did not find its module"
opreport --session-dir="$tmp/p" -l --anon-handler=pypy \
	>"$tmp/preport.txt" 2>"$tmp/preport.err" ||
	show_fail "$tmp/preport.err" "opreport --anon-handler=pypy failed"
grep -Eq ' loop [0-9]+ heavy \(pypy_split\.py:[0-9]+-[0-9]+\)$' \
	"$tmp/preport.txt" ||
	{ cat "$tmp/preport.txt" "$tmp/preport.err" >&2;
	  fail "the installed opjit-pypy and pypy handler name no heavy loop"; }
echo "pypy: heavy's loop named through the installed opjit-pypy"
