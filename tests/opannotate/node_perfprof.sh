#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# node --perf-prof (a jitdump, ./jit-<pid>.dump) recorded for real: the
# hot JS function of hot.js annotated through the jitdump handler, every
# code V8 made of it disassembled from the bytes the dump kept, their
# instructions holding exactly the samples opreport gives the function,
# and its hottest code's samples in its loop; in --source, the samples
# on the loop's lines, a tenth at least on its body's (V8's line tables
# are 64 bytes off as written: taken as written, the body has none).  node's own symbols (110k), read only where its samples
# fall, name them as the whole table does, with and without -i.
. "$(dirname "$0")/lib.sh"
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
OPREPORT=$OPJIT_BUILD/opreport/opreport
[ -x "$OPREPORT" ] || fail "$OPREPORT is not built"
[ -f "$HP/libjitdump.so" ] || fail "$HP/libjitdump.so is not built"
command -v node >/dev/null || skip "node is not installed (apt-get install nodejs)"
export OPJIT_HANDLER_PATH=$HP

mkdir "$TMP/run"
# node writes its dump in its working directory
(cd "$TMP/run" && record "$TMP/s" node --perf-prof "$HERE/hot.js" 3)
grep -q '^hot done' "$TMP/rec.out" || { cat "$TMP/rec.out"; fail "hot.js did not run to its end"; }
ls "$TMP/run"/jit-*.dump >/dev/null 2>&1 || fail "node --perf-prof wrote no jit-<pid>.dump"
"$OPREPORT" --session-dir="$TMP/s" -l --format=json --anon-handler=jitdump \
	>"$TMP/r.json" 2>"$TMP/r.err" || { cat "$TMP/r.err"; fail "opreport exited $?"; }
# V8's names for hot at any tier: JS:*hot (optimised), JS:^hot, ...
name='(JS|LazyCompile|Function):[*~^+]?hot( .*)?'
"$OPANNOTATE" --session-dir="$TMP/s" --assembly --format=json \
	--anon-handler=jitdump image:anon >"$TMP/a.json" 2>"$TMP/a.err" ||
	{ cat "$TMP/a.err"; fail "opannotate exited $?"; }
python3 "$HERE/check.py" sums "$TMP/a.json" "$TMP/r.json" jitdump 500 90 "$name" ||
	fail "hot's instructions do not hold its samples"
"$OPANNOTATE" --session-dir="$TMP/s" --source --format=json \
	--anon-handler=jitdump image:anon >"$TMP/s.json" 2>"$TMP/s.err" ||
	{ cat "$TMP/s.err"; fail "opannotate --source exited $?"; }
python3 "$HERE/check.py" hottest "$TMP/s.json" "$HERE/hot.js" 500 ||
	fail "the samples of hot.js are not on its loop's lines"
# node's hottest native symbol and the hot JS function, by -i
native=$(python3 -c '
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["symbols"]
        if r["kind"] == "file" and r["image"].endswith("/node")]
print(max(rows, key=lambda r: r["samples"])["symbol"] if rows else "")' "$TMP/r.json")
[ -n "$native" ] || fail "no sample in node's own code"
hotjs=$(python3 -c '
import json, re, sys
rows = [r for r in json.load(open(sys.argv[1]))["symbols"]
        if r["kind"] == "jit" and re.fullmatch(sys.argv[2], r["symbol"])]
print(max(rows, key=lambda r: r["samples"])["symbol"] if rows else "")' "$TMP/r.json" "$name")
[ -n "$hotjs" ] || fail "no JIT row for hot"
S=(--session-dir="$TMP/s" --anon-handler=jitdump)
same_as_whole "--assembly -i NATIVE" opannotate "${S[@]}" --assembly -i "$native"
grep -qF "$native" "$TMP/part.out" || fail "-i $native annotated nothing"
same_as_whole "--assembly -i HOT" opannotate "${S[@]}" --assembly -i "$hotjs"
grep -qF "$hotjs" "$TMP/part.out" || fail "-i $hotjs annotated nothing"
same_as_whole "--assembly --source --format=json" opannotate "${S[@]}" --assembly --source \
	--format=json
same_as_whole "--assembly -e NATIVE --threshold=0.5" opannotate "${S[@]}" --assembly \
	-e "$native" --threshold=0.5
same_as_whole "-l -d" opreport "${S[@]}" -l -d
echo "ok: node --perf-prof annotated"
