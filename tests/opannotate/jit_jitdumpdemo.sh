#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A JIT of ours that writes a jitdump (jitdumpdemo --same-name), recorded
# for real: its hot inner loop's bytes, as the dump kept them,
# disassemble and hold the samples, and its two generations at one
# address, under one name, are annotated apart.
. "$(dirname "$0")/lib.sh"
JIT=$OPJIT_BUILD/tests/workloads/jitdumpdemo
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -x "$JIT" ] || fail "$JIT is not built"
[ -f "$HP/libjitdump.so" ] || fail "$HP/libjitdump.so is not built"
[ "$(uname -m)" = x86_64 ] || skip "jitdumpdemo writes x86-64 code; this is $(uname -m)"
export OPJIT_HANDLER_PATH=$HP
record "$TMP/s" "$JIT" --seconds 1.5 --same-name --dir "$TMP"
"$OPANNOTATE" --session-dir="$TMP/s" --assembly --format=json \
	--anon-handler=jitdump -i jd_alpha >"$TMP/a.json" 2>"$TMP/a.err" ||
	{ cat "$TMP/a.err"; fail "opannotate exited $?"; }
python3 "$HERE/check.py" generations "$TMP/a.json" jd_alpha \
	'mov    $0x61a80,%ecx' 'mov    $0x61a90,%ecx' 50 ||
	fail "the generations of jd_alpha are not annotated apart"
