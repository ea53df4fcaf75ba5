#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# JIT code annotated from the bytes its handler kept (ABI 1.4 code_bytes),
# on a session whose every sample the test chose (mksession) and a
# jitdump written here: two generations of "hot" at one address, each
# with its own samples and bytes; code that does not disassemble; a load
# whose size says more than its record holds; code moved to another
# address, annotated where it ran; a perf map, which keeps no
# code; and handlers whose slot fails, faults or lies.  One line each,
# never a crash, in the handler's helper and (but the fault) in process.
. "$(dirname "$0")/lib.sh"
MKSESSION=$OPJIT_BUILD/tests/opreport/mksession
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
CODEDIR=$OPJIT_BUILD/tests/opannotate/handlers
[ -x "$MKSESSION" ] || fail "$MKSESSION is not built"
for h in "$HP/libjitdump.so" "$HP/libperfmap.so" "$CODEDIR/libcodeok.so"; do
	[ -f "$h" ] || fail "$h is not built"
done
[ "$(uname -m)" = x86_64 ] || skip "the test's code bytes are x86-64; this is $(uname -m)"
export OPJIT_HANDLER_PATH=$HP

mkdir "$TMP/maps"
python3 - "$TMP/maps/jit-300.dump" "$TMP/anon.txt" <<'EOP'
import struct, sys

A, B, C = 0x7f0000001000, 0x7f0000002000, 0x7f0000003000
gen1 = bytes.fromhex("b9801a0600" "ffc9" "75fc" "c3")        # mov; 1: dec; jnz 1b; ret
gen2 = bytes.fromhex("31c0" "b940420f00" "01c8" "ffc9" "75fa" "c3")
junk = bytes.fromhex("060606c3")                            # push %es: not in 64-bit mode
out = bytearray(struct.pack("<IIIIIIQQ", 0x4A695444, 1, 40, 62, 0, 300, 0, 0))
index = 0

def load(t, addr, name, code, size=None):
    global index
    index += 1
    body = struct.pack("<IIQQQQ", 300, 300, addr, addr,
                       len(code) if size is None else size, index)
    body += name.encode() + b"\0" + code
    out.extend(struct.pack("<IIQ", 0, 16 + len(body), t) + body)

load(1000, A, "hot", gen1)
load(1000, B, "junk", junk)
load(1000, C, "liar", gen1, size=64)       # says 64 bytes, holds 10
load(1000000000, A, "hot", gen2)           # the same address, new code
D, E = 0x7f0000004000, 0x7f0000005000
load(1000, D, "mover", gen1)
out.extend(struct.pack("<IIQIIQQQQQ", 1, 16 + 48, 4000, 300, 300, E, D, E,
                       len(gen1), index))  # JIT_CODE_MOVE to E
open(sys.argv[1], "wb").write(out)

samples = []                              # (time, address, count)
samples += [(2000, A, 5), (2000, A + 5, 45), (2000, A + 7, 50)]
samples += [(2000000000, A, 2), (2000000000, A + 2, 1),
            (2000000000, A + 7, 30), (2000000000, A + 9, 30),
            (2000000000, A + 11, 37)]
samples += [(3000, B, 4), (3000, B + 1, 3)]
samples += [(3000, C + 5, 6), (3000, C + 40, 2)]
samples += [(1500, D + 7, 3), (5000, E + 5, 8)]
with open(sys.argv[2], "w") as f:
    t = 0
    for when, addr, n in samples:
        for _ in range(n):
            t += 1
            f.write("anon p %d 0x%x 300\n" % (when + t, addr))
    for addr in (0x1005, 0x1005, 0x1007):
        f.write("anon q 5000 0x%x 400\n" % addr)
    for addr in (0x7e0000000010, 0x7e0000000012, 0x7e0000000012):
        f.write("anon m 5000 0x%x 500\n" % addr)
EOP
printf '7e0000000000 40 JS:*mapped\n' >"$TMP/maps/perf-500.map"
chmod 644 "$TMP/maps/jit-300.dump" "$TMP/maps/perf-500.map"
S=$TMP/s
{
	echo "separate process"
	echo "process p 300 $(id -u) jitty /usr/bin/jitty start_ns 100 start_unix_ns 1 range 0x7f0000000000-0x7f0000100000"
	echo "process q 400 $(id -u) codefake /usr/bin/codefake start_ns 100 start_unix_ns 1 range 0x1000-0x2000"
	echo "process m 500 $(id -u) mapped /usr/bin/mapped start_ns 100 start_unix_ns 1 range 0x7e0000000000-0x7e0000001000"
	cat "$TMP/anon.txt"
	echo "archive p $TMP/maps/jit-300.dump"
	echo "archive m $TMP/maps/perf-500.map"
} | "$MKSESSION" "$S" || fail "mksession failed"

ann() {
	"$OPANNOTATE" --session-dir="$S" "$@"
}

for iso in process none; do
	ann --assembly --format=json --anon-handler=jitdump,perfmap \
		--handler-isolation=$iso tgid:300,500 >"$TMP/j-$iso.json" 2>"$TMP/j-$iso.err" ||
		{ cat "$TMP/j-$iso.err"; fail "opannotate ($iso) exited $?"; }
	python3 "$HERE/check.py" jit "$TMP/j-$iso.json" ||
		fail "the JIT annotation ($iso) is wrong"
	# one line: the lying size; the perf map's missing code is said in
	# the annotation, and undisassemblable bytes are "(bad)", not errors
	one_line "$TMP/j-$iso.err" "jit ($iso)"
	grep -q "liar .*gave 10 of its 64 bytes" "$TMP/j-$iso.err" ||
		fail "the lying size is not said: $(cat "$TMP/j-$iso.err")"
done
cmp -s <(grep -v '"session"' "$TMP/j-process.json") <(grep -v '"session"' "$TMP/j-none.json") ||
	fail "the helper and in-process annotations differ"
echo "ok: two generations, bad bytes, a lying size, a perf map; isolated and in process"

# opreport still shows a JIT function as one row, whatever its generations
"$OPJIT_BUILD/opreport/opreport" --session-dir="$S" -l --anon-handler=jitdump tgid:300 >"$TMP/r.txt" 2>/dev/null ||
	fail "opreport exited $?"
[ "$(grep -cw 'hot$' "$TMP/r.txt")" -eq 1 ] || { cat "$TMP/r.txt"; fail "opreport does not fold hot's generations"; }
grep -Eq '^200 .*hot$' "$TMP/r.txt" || { cat "$TMP/r.txt"; fail "opreport's hot row is not 200 samples"; }
echo "ok: opreport keeps one row per JIT function"

# the text layout: the generations one after the other, each its own
ann --assembly --anon-handler=jitdump tgid:300 -i hot >"$TMP/t.txt" 2>/dev/null ||
	fail "opannotate --assembly exited $?"
[ "$(grep -c '^hot ' "$TMP/t.txt")" -eq 2 ] || { cat "$TMP/t.txt"; fail "not two generations of hot"; }
grep -q "code loaded at 1000000000 ns" "$TMP/t.txt" || fail "no load time for the new generation"
echo "ok: text"

# the handlers' code_bytes slot, each way it can go wrong
code() {
	ann --assembly --handler-path="$CODEDIR" --anon-handler="$1" tgid:400 "${@:2}"
}
code codeok >"$TMP/ok.txt" 2>"$TMP/ok.err" || fail "codeok exited $?"
[ ! -s "$TMP/ok.err" ] || { cat "$TMP/ok.err"; fail "codeok: warnings"; }
grep -Eq '^ +2 +66\.67% +1005:  dec +%ecx$' "$TMP/ok.txt" ||
	{ cat "$TMP/ok.txt"; fail "codeok: the loop is not annotated"; }
for kind in fail huge; do
	for iso in process none; do
		code code$kind --handler-isolation=$iso >"$TMP/$kind.txt" 2>"$TMP/$kind.err" ||
			fail "code$kind ($iso) exited $?"
		one_line "$TMP/$kind.err" "code$kind ($iso)"
		grep -q "cf:loop .*could not give its code" "$TMP/$kind.err" ||
			fail "code$kind ($iso): $(cat "$TMP/$kind.err")"
		grep -Eq '^ +2 +66\.67% +1005:  \(no code\)$' "$TMP/$kind.txt" ||
			{ cat "$TMP/$kind.txt"; fail "code$kind ($iso): no per-address counts"; }
	done
done
# a slot that faults takes its helper down, not opannotate: the loader
# says so once and the samples stay unnamed
code codesegv >"$TMP/segv.txt" 2>"$TMP/segv.err" || fail "codesegv: opannotate exited $?"
grep -q "SIGSEGV" "$TMP/segv.err" || { cat "$TMP/segv.err"; fail "codesegv: the fault is not said"; }
! grep -q "cf:loop" "$TMP/segv.txt" || fail "codesegv: a faulting handler's names were kept"
echo "ok: failing, lying and faulting code_bytes"
