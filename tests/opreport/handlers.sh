#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What handlers hand back reaches every output: JIT symbols in
# "jit:HANDLER (tgid:N COMM)", their source lines with -g, per-address
# rows and lines with -d, (unknown) rows; claim order across handlers;
# unclaimed processes stay buckets.  Uses the test handler libfakejit.so
# and, when built, perfmap.
. "$(dirname "$0")/lib.sh"
# every report, isolated and in-process, must come out the same
export OPJIT_OPREPORT=$OPREPORT
OPREPORT=$OPJIT_SOURCE/tests/handlers/opreport_both.sh
FAKE=$RT/handlers
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -f "$FAKE/libfakejit.so" ] || fail "$FAKE/libfakejit.so is not built"
[ -f "$HP/libperfmap.so" ] ||
	{ echo "SKIP: $HP/libperfmap.so is not built (target perfmap)"; exit 77; }
export OPJIT_HANDLER_PATH=$HP

mkdir "$TMP/maps"
printf '7f0000000100 80 JS:*fib\n' >"$TMP/maps/perf-300.map"
chmod 644 "$TMP/maps/perf-300.map"
S=$TMP/s
uid=$(id -u)
"$MKSESSION" "$S" <<EOS
process a 500 $uid fakejit /usr/bin/fakejit start_unix_ns 1 range 0x7e0000000000-0x7e0000010000
process b 300 $uid jitdemo /usr/bin/jitdemo start_unix_ns 1 range 0x7f0000000000-0x7f0000100000
process c 600 $uid nobody /usr/bin/nobody start_unix_ns 1 range 0x7d0000000000-0x7d0000001000
anon a 1 0x7e0000000010 500
anon a 2 0x7e0000000010 500
anon a 3 0x7e0000000020 501
anon a 4 0x7e0000000150 500
anon a 5 0x7e0000000010 500
anon a 6 0x7e0000000158 500
anon a 7 0x7e0000000900 500
anon b 8 0x7f0000000104 300
anon c 9 0x7d0000000010 600
archive b $TMP/maps/perf-300.map
EOS

"$OPREPORT" --session-dir="$S" -l -d -g --format=json --handler-path="$FAKE" \
	--anon-handler=perfmap,fakejit >"$TMP/a.json" 2>"$TMP/a.err" ||
	{ cat "$TMP/a.err"; fail "opreport exited $?"; }
# the one sample fakejit cannot name is accounted for, with its reason
want='opreport: tgid 500 (fakejit): 1 of 7 JIT samples unnamed: 1 no entry'
[ "$(cat "$TMP/a.err")" = "$want" ] ||
	{ cat "$TMP/a.err"; fail "expected only: $want"; }
python3 "$HERE/json_check.py" "$OPJIT_SOURCE/opreport/report.schema.json" \
	"$TMP/a.json" || fail "the JSON does not follow the schema"
python3 - "$TMP/a.json" <<'EOP'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = {(r["image"], r["symbol"]): r for r in doc["symbols"]}
want = {
    ("jit:fakejit (tgid:500 fakejit)", "fake_fn_0"):
        (4, "fake.js", 10, "0x7e0000000000",
         [("0x7e0000000010", 3, 11), ("0x7e0000000020", 1, 12)]),
    ("jit:fakejit (tgid:500 fakejit)", "fake_fn_1"):
        (2, "fake.js", 20, "0x7e0000000100",
         [("0x7e0000000150", 1, 25), ("0x7e0000000158", 1, 25)]),
    ("jit:fakejit (tgid:500 fakejit)", "(unknown)"):
        (1, None, None, None, [("0x7e0000000900", 1, None)]),
    ("jit:perfmap (tgid:300 jitdemo)", "JS:*fib"):
        (1, None, None, "0x7f0000000100", [("0x7f0000000104", 1, None)]),
    ("anon (tgid:600 range:0x7d0000000000-0x7d0000001000)", "(no symbols)"):
        (1, None, None, None, [("0x7d0000000010", 1, None)]),
}
bad = 0
if set(rows) != set(want):
    print("FAIL: rows %s, want %s" % (sorted(rows), sorted(want)))
    bad = 1
for key, (n, f, line, vma, det) in want.items():
    r = rows.get(key)
    if not r:
        continue
    got = (r["samples"], r["file"], r["line"], r["vma"],
           [(d["vma"], d["samples"], d["line"]) for d in r["details"]])
    if got != (n, f, line, vma, det):
        print("FAIL: %s: %s, want %s" % (key, got, (n, f, line, vma, det)))
        bad = 1
    if key[0].startswith("jit:") and r["handler"] != key[0][4:].split()[0]:
        print("FAIL: %s: handler %s" % (key, r["handler"]))
        bad = 1
    if not bad:
        print("ok: %s %s" % key)
sys.exit(bad)
EOP

# claim order: each process goes to the first handler that claims it, so
# either order gives the same rows here; repeated options add up
for args in "--anon-handler=fakejit,perfmap" \
	"--anon-handler=fakejit --anon-handler=perfmap"; do
	# shellcheck disable=SC2086
	"$OPREPORT" --session-dir="$S" -l -n --handler-path="$FAKE" $args \
		>"$TMP/b.txt" 2>"$TMP/b.err" || fail "opreport $args exited $?"
	grep -Eq '^4 +.* jit:fakejit \(tgid:500 fakejit\) +fake_fn_0$' "$TMP/b.txt" &&
		grep -Eq '^1 +.* jit:perfmap \(tgid:300 jitdemo\) +JS:\*fib$' "$TMP/b.txt" ||
		{ cat "$TMP/b.txt"; fail "opreport $args: wrong claims"; }
	echo "ok: $args"
done

# -g in the text: the handler's source line in the linenr column
"$OPREPORT" --session-dir="$S" -l -g -n --handler-path="$FAKE" \
	--anon-handler=fakejit >"$TMP/c.txt" 2>&1 || fail "opreport -g exited $?"
grep -Eq '^4 +[0-9.]+ +fake\.js:10 +jit:fakejit \(tgid:500 fakejit\) +fake_fn_0$' \
	"$TMP/c.txt" || { cat "$TMP/c.txt"; fail "-g: no fake.js:10 on fake_fn_0"; }
# without perfmap, jitdemo is nobody's: a bucket
grep -q 'anon (tgid:300 range:0x7f0000000000-0x7f0000100000) (no symbols)' \
	"$TMP/c.txt" || { cat "$TMP/c.txt"; fail "unclaimed jitdemo is not a bucket"; }
echo "ok: -g lines from the handler; unclaimed processes stay buckets"

# a handler that cannot be found (a typing mistake): one line naming it
# and the handlers there are, exit status 1, no report
if "$OPREPORT" --session-dir="$S" -l -n --handler-path="$FAKE" \
	--anon-handler=nosuch,fakejit >"$TMP/d.txt" 2>"$TMP/d.err"; then
	fail "opreport with a missing handler exited 0"
fi
[ "$(wc -l <"$TMP/d.err")" -eq 1 ] &&
	grep -q "^opreport: unknown handler 'nosuch': expected one of auto, .*fakejit" "$TMP/d.err" ||
	{ cat "$TMP/d.err"; fail "missing handler: want one line naming it and the others"; }
[ ! -s "$TMP/d.txt" ] || fail "missing handler: a report was printed"
echo "ok: a missing handler is one line: $(cat "$TMP/d.err")"

# json with call chains offers each process twice, its samples and then
# its frames: what a handler said or did wrong is still said once
"$MKSESSION" "$TMP/cg" <<EOS
callgraph 16
process a 700 $uid fakejit-fail /usr/bin/fakejit start_unix_ns 1 range 0x7e0000000000-0x7e0000010000
process b 701 $uid fakejit-badresolve /usr/bin/fakejit start_unix_ns 1 range 0x7e0000000000-0x7e0000010000
anon a 1 0x7e0000000010 700
anon b 1 0x7e0000000010 701
stack s anon:0x7e0000000010
anonstack a 2 s 700
anonstack b 2 s 701
EOS
"$OPREPORT" --session-dir="$TMP/cg" -l --format=json --handler-path="$FAKE" \
	--anon-handler=fakejit >"$TMP/e.json" 2>"$TMP/e.err" ||
	{ cat "$TMP/e.err"; fail "opreport with failing claims exited $?"; }
want="opreport: fakejit: fake map looked at
opreport: fakejit: cannot read the map of process 700 (fakejit-fail): fake map unreadable
opreport: fakejit: cannot name the samples of process 701 (fakejit-badresolve): no reason given"
[ "$(cat "$TMP/e.err")" = "$want" ] ||
	{ cat "$TMP/e.err"; fail "failing handler: want each line once"; }
echo "ok: a handler's warnings and failures are said once, samples and frames"
echo PASS
