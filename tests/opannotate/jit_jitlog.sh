#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# exprjit, a JIT of ours linked with libopjit-jitlog, logging its code's
# bytes (--code-bytes), recorded for real: through the jitlog handler,
# each expression's instructions hold exactly the samples opreport gives
# it, its hottest code's in its loop; expr_other, written where
# expr_heavy was, and expr_light, moved, are annotated once per piece of
# code.  Without --code-bytes the same code is shown by address, with
# the reason.
. "$(dirname "$0")/lib.sh"
JIT=$OPJIT_BUILD/tests/workloads/exprjit
DUMP=$OPJIT_BUILD/bin/opjit-jitlog
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
OPREPORT=$OPJIT_BUILD/opreport/opreport
for f in "$JIT" "$DUMP" "$OPREPORT"; do
	[ -x "$f" ] || fail "$f is not built"
done
[ -f "$HP/libjitlog.so" ] || fail "$HP/libjitlog.so is not built"
[ "$(uname -m)" = x86_64 ] || skip "exprjit writes x86-64 code; this is $(uname -m)"
export OPJIT_HANDLER_PATH=$HP
logs=()
trap 'rm -rf "$TMP" "${logs[@]}"' EXIT
# kept SESSION: the session's copy of the log, in $copy; the JIT's own,
# left in /tmp as a JIT leaves it, is removed at exit
kept() {
	local name
	copy=$(ls "$1"/maps/*/anon.*.gz 2>/dev/null | head -1)
	[ -n "$copy" ] || fail "session $1 kept no copy of the log"
	name=${copy##*/}
	logs+=("/tmp/${name%.gz}")
}

record "$TMP/s" "$JIT" --code-bytes 1.5
kept "$TMP/s"
"$OPANNOTATE" --session-dir="$TMP/s" --assembly --format=json \
	--anon-handler=jitlog >"$TMP/a.json" 2>"$TMP/a.err" ||
	{ cat "$TMP/a.err"; fail "opannotate exited $?"; }
"$OPREPORT" --session-dir="$TMP/s" -l --format=json --anon-handler=jitlog \
	>"$TMP/r.json" 2>"$TMP/r.err" || { cat "$TMP/r.err"; fail "opreport exited $?"; }
python3 "$HERE/check.py" sums "$TMP/a.json" "$TMP/r.json" jitlog 50 90 \
	expr_heavy expr_light expr_other ||
	fail "the expressions' instructions do not hold their samples"
python3 - "$TMP/a.json" <<'EOP' || fail "the pieces of code are not annotated apart"
import json, sys
doc = json.load(open(sys.argv[1]))
code = {}
for s in doc["symbols"]:
    code.setdefault(s["name"], []).append(s)
heavy, other, light = code["expr_heavy"], code["expr_other"], code["expr_light"]
assert len(heavy) == 1 and len(other) == 1, (len(heavy), len(other))
h, o = heavy[0]["instructions"], other[0]["instructions"]
# one address, two codes: six terms and four
assert h[0]["vma"] == o[0]["vma"], (h[0], o[0])
assert sum("imul" in i["text"] for i in h) == 6, h
assert sum("imul" in i["text"] for i in o) == 4, o
assert heavy[0]["load_ns"] < other[0]["load_ns"]
# moved: two pieces of code, at two addresses
assert len(light) == 2 and light[0]["instructions"][0]["vma"] != \
    light[1]["instructions"][0]["vma"], [l["instructions"][0] for l in light]
print("expr_heavy and expr_other at 0x%x, expr_light at two addresses" % h[0]["vma"])
EOP

# the log says which loads carry code
gzip -dc "$copy" >"$TMP/log" || fail "cannot inflate $copy"
"$DUMP" dump "$TMP/log" >"$TMP/dump.txt" || fail "opjit-jitlog dump failed"
n=$(grep -Ec ' load id=[0-9]+ .* code=[0-9]+$' "$TMP/dump.txt" || true)
[ "$n" -eq 4 ] || { cat "$TMP/dump.txt"; fail "$n loads with code in the log, not 4"; }

# without the bytes: the samples by address, and why
record "$TMP/n" "$JIT" 0.6
kept "$TMP/n"
"$OPANNOTATE" --session-dir="$TMP/n" --assembly --format=json \
	--anon-handler=jitlog -i expr_heavy >"$TMP/n.json" 2>"$TMP/n.err" ||
	{ cat "$TMP/n.err"; fail "opannotate exited $? without code bytes"; }
python3 - "$TMP/n.json" <<'EOP' || fail "code without bytes is not shown by address"
import json, sys
doc = json.load(open(sys.argv[1]))
s = [s for s in doc["symbols"] if s["name"] == "expr_heavy"]
assert len(s) == 1 and not s[0]["disassembled"], s
assert "no code bytes" in s[0]["why"], s[0]["why"]
assert all(i["text"] is None for i in s[0]["instructions"])
assert sum(i["samples"] for i in s[0]["instructions"]) == s[0]["samples"] > 0
print("without code bytes: %d samples by address (%s)" % (s[0]["samples"], s[0]["why"]))
EOP
echo "ok: jitlog code bytes"
