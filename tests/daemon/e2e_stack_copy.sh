#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# oprofiled's stack copies on the frameless workload:
# --callgraph=dwarf,512 keeps registers and at most 512 bytes of user
# stack for (nearly) every sample whose user leaf is in a file (one
# taken in the kernel too: the user part's), counted as the stacks are; -g and --callgraph=fp keep none;
# --call-graph=dwarf,2048 (perf's spelling) copies more than 512 and at
# most 2048 bytes; a JIT leaf's copy (jitdemo's) is cut to 2048 bytes
# and counted in the executable's own context.
. "$(dirname "$0")/lib.sh"

bin=$WORKLOADS/frameless
[ -x "$bin" ] || fail "$bin is not built"
cd "$WORK"

# copies in D: "COPIES SAMPLES_WITH_A_USER_LEAF_IN_A_FILE MAX_SIZE ZERO_SP"
copies() {
	awk '
	$1 == "stack" { k = $3; user[$2] = NF > 4 + k && $(5 + k) !~ /^(anon|unknown):/ }
	$1 == "stackhist" && user[$3] { samples += $4 }
	$1 == "stackcopy" { n += $5; if ($9 > max) max = $9; if ($7 == 0) zsp++ }
	END { printf "%d %d %d %d\n", n, samples, max, zsp }' "$1"
}

"$OPROFILED" --callgraph=dwarf,512 --session-dir=g -- "$bin" 1 >/dev/null 2>err.txt ||
	fail "oprofiled --callgraph=dwarf,512 exited $?: $(cat err.txt)"
check_summary err.txt
dump g >g.txt
read -r n samples max zsp <<<"$(copies g.txt)"
[ "$samples" -ge 100 ] || fail "-g: only $samples user samples with stacks"
# every user stack sample of the workload has a copy; a few may have
# none (a sample held until its mapping was seen)
[ $((n * 100)) -ge $((samples * 95)) ] ||
	fail "-g: $n copies for $samples user samples"
[ "$n" -le "$samples" ] || fail "-g: $n copies for only $samples samples"
[ "$max" -gt 0 ] && [ "$max" -le 512 ] || fail "-g: copy of $max bytes, not 1..512"
[ "$zsp" = 0 ] || fail "-g: $zsp copies with sp 0"

"$OPROFILED" -g --session-dir=plain -- "$bin" 1 >/dev/null 2>err.txt ||
	fail "oprofiled -g exited $?: $(cat err.txt)"
dump plain >plain.txt
[ "$(info plain.txt callgraph_depth)" = 127 ] || fail "-g did not record stacks"
! grep -q '^stackcopy ' plain.txt || fail "-g recorded stack copies"

"$OPROFILED" --callgraph=fp --session-dir=fp -- "$bin" 1 >/dev/null 2>err.txt ||
	fail "oprofiled --callgraph=fp exited $?: $(cat err.txt)"
dump fp >fp.txt
[ "$(info fp.txt callgraph_depth)" = 127 ] || fail "--callgraph=fp did not record stacks"
! grep -q '^stackcopy ' fp.txt || fail "--callgraph=fp recorded stack copies"

"$OPROFILED" --call-graph dwarf,2048 --session-dir=dw -- "$bin" 1 >/dev/null 2>err.txt ||
	fail "oprofiled --call-graph dwarf,2048 exited $?: $(cat err.txt)"
dump dw >dw.txt
read -r n samples max zsp <<<"$(copies dw.txt)"
[ "$max" -gt 512 ] && [ "$max" -le 2048 ] ||
	fail "dwarf,2048: largest copy $max bytes, not 513..2048"
jit=$WORKLOADS/jitdemo
[ -x "$jit" ] || fail "$jit is not built"
"$OPROFILED" --callgraph=dwarf --session-dir=jit -- "$jit" --seconds 1 --map-file none >/dev/null 2>err.txt ||
	fail "oprofiled --callgraph=dwarf on jitdemo exited $?: $(cat err.txt)"
dump jit >jit.txt
# "COPIES ANON_LEAF_SAMPLES MAX_SIZE BAD_CTX" of the stacks with a JIT leaf
read -r n samples max badctx <<<"$(awk '
	$1 == "image" && $4 ~ /\/jitdemo$/ { exe = $2 }
	$1 == "context" && $3 == exe && $4 == exe { ctx[$2] = 1 }
	$1 == "stack" && $5 ~ /^anon:/ { jit[$2] = 1 }
	$1 == "anonstack" && jit[$4] { samples++ }
	$1 == "stackcopy" && jit[$4] { n += $5; if ($9 > max) max = $9; if (!ctx[$3]) bad++ }
	END { printf "%d %d %d %d\n", n, samples, max, bad }' jit.txt)"
[ "$samples" -ge 100 ] || fail "jitdemo: only $samples samples with a JIT leaf"
[ $((n * 100)) -ge $((samples * 95)) ] && [ "$n" -le "$samples" ] ||
	fail "jitdemo: $n copies for $samples samples with a JIT leaf"
[ "$max" -gt 0 ] && [ "$max" -le 2048 ] || fail "jitdemo: JIT leaf copy of $max bytes, not 1..2048"
[ "$badctx" = 0 ] || fail "jitdemo: $badctx JIT leaf copies not in the executable's context"
echo "$TEST_NAME: PASS"
