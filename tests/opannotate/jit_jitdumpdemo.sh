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

# --source: JIT code's lines from the dump's debug-info records; the
# made-up source file is not there, so its lines come by number, and the
# loops' lines (the functions' first lines plus two) hold the samples
"$OPANNOTATE" --session-dir="$TMP/s" --source --format=json \
	--anon-handler=jitdump -i jd_alpha >"$TMP/s.json" 2>"$TMP/s.err" ||
	{ cat "$TMP/s.err"; fail "opannotate --source exited $?"; }
"$OPANNOTATE" --session-dir="$TMP/s" --source --anon-handler=jitdump \
	-i jd_alpha >"$TMP/s.txt" 2>"$TMP/s.err" || fail "opannotate --source exited $?"
one_line "$TMP/s.err" "the missing JIT source"
grep -Eq '^ +[0-9]+ +[0-9.]+% +12$' "$TMP/s.txt" || { cat "$TMP/s.txt"; fail "line 12 is not listed by number"; }
python3 - "$TMP/s.json" <<'EOP' || fail "the JIT source lines are wrong"
import json, sys
doc = json.load(open(sys.argv[1]))
files = [f for f in doc["sources"] if f["file"] == "demo/jit.src"]
assert len(files) == 1, doc["sources"]
lines = {l["line"]: l["samples"] for l in files[0]["lines"]}
loop = lines.get(12, 0) + lines.get(32, 0)
total = sum(lines.values())
print("demo/jit.src: %d samples, %d on the loops' lines 12 and 32" % (total, loop))
assert total >= 100 and loop * 10 >= total * 9, lines
EOP
echo "ok: JIT source lines"
