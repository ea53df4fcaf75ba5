#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Why a sample has no name: one process for each reason, each with its
# count and its line in the block after "opreport -l", and its object in
# the JSON "naming" array.  The handler's reasons (no entry, before load,
# after unload) and the loader's (no handler claimed, a map refused by a
# trust rule, a map the handler could not read, a handler that failed).
. "$(dirname "$0")/lib.sh"
FAKE=$OPJIT_BUILD/tests/handlers/fake
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
for lib in "$FAKE/libalpha.so" "$HP/libperfmap.so" "$HP/libjavamap.so"; do
	[ -f "$lib" ] || fail "$lib is not built"
done
export OPJIT_HANDLER_PATH=$HP

# tgids past the kernel's pid limit (2^22): no live process has them, so
# their /tmp maps are this test's alone
base=$((4194304 + 1000 + $$ % 1000 * 10))
maps=()
trap 'rm -rf "$TMP" "${maps[@]}"' EXIT
map() { maps+=("$1"); rm -f "$1"; }

# A: perfmap names 2 of 3, 1 at an address no entry covers
map /tmp/perf-$((base + 1)).map
printf '7f0000000100 80 JS:*fib\n' >/tmp/perf-$((base + 1)).map
chmod 644 /tmp/perf-$((base + 1)).map
# C: a planted symbolic link; D: a map anyone may write
printf '7f0000000100 80 JS:*fib\n' >"$TMP/good.map"
chmod 644 "$TMP/good.map"
map /tmp/perf-$((base + 3)).map
ln -s "$TMP/good.map" /tmp/perf-$((base + 3)).map
map /tmp/perf-$((base + 4)).map
cp "$TMP/good.map" /tmp/perf-$((base + 4)).map
chmod 666 /tmp/perf-$((base + 4)).map
# E: a time-stamped map: f loaded at 1 s and unloaded at 2 s (the handler
# lets code run 100 ms before its load was logged)
map /tmp/anon.$((base + 5))
python3 - /tmp/anon.$((base + 5)) $((base + 5)) <<'EOP'
import struct, sys
path, pid = sys.argv[1], int(sys.argv[2])
def rec(kind, time, payload):
    return struct.pack("<HHIQ", kind, 0, 16 + len(payload), time) + payload
name = b"Demo.f()"
out = b"OPJITJMP" + struct.pack("<HHIIIQ", 1, 0, 32, pid, 0, 0)
out += rec(1, 900000000, struct.pack("<QIIII", 7, len(name), 0, 0, 0) + name)
out += rec(2, 1000000000, struct.pack("<QQII", 7, 0x7f0000000100, 0x80, 0))
out += rec(3, 2000000000, struct.pack("<QQ", 7, 0x7f0000000100))
open(path, "wb").write(out)
EOP
chmod 644 /tmp/anon.$((base + 5))

uid=$(id -u)
S=$TMP/s
{
	for i in 1 2 3 4 5 6 7; do
		comm=(x jitdemo other symlinked writable javaish badresolve fail-alpha)
		echo "process p$i $((base + i)) $uid ${comm[$i]} /usr/bin/${comm[$i]} start_unix_ns 1 range 0x7f0000000000-0x7f0000100000"
	done
	echo "anon p1 1500 0x7f0000000104 1"
	echo "anon p1 1500 0x7f0000000110 1"
	echo "anon p1 1500 0x7f0000000900 1"
	echo "anon p2 1500 0x7f0000000104 2"
	echo "anon p3 1500 0x7f0000000104 3"
	echo "anon p4 1500 0x7f0000000104 4"
	echo "anon p4 1600 0x7f0000000104 4"
	echo "anon p5 500000000 0x7f0000000104 5"
	echo "anon p5 1500000000 0x7f0000000104 5"
	echo "anon p5 1600000000 0x7f0000000108 5"
	echo "anon p5 2500000000 0x7f0000000104 5"
	echo "anon p6 1500 0x7f0000000104 6"
	echo "anon p7 1500 0x7f0000000104 7"
} | "$MKSESSION" "$S"

args=(--session-dir="$S" -l --handler-path="$FAKE"
	--anon-handler=perfmap,javamap,alpha)
"$OPREPORT" "${args[@]}" >"$TMP/out.txt" 2>"$TMP/err.txt" ||
	{ cat "$TMP/err.txt"; fail "opreport -l exited $?"; }
sed -n '/^names of anonymous samples, by process:$/,$p' "$TMP/out.txt" >"$TMP/block.txt"
expect_line() {
	grep -qxF "$1" "$TMP/block.txt" ||
		{ cat "$TMP/out.txt"; fail "no line '$1' after the report"; }
}
expect_line "tgid $((base + 1)) (jitdemo): 3 samples, 2 named by perfmap, 1 unnamed: 1 no entry"
expect_line "tgid $((base + 2)) (other): 1 sample, none named: no handler claimed the process"
expect_line "tgid $((base + 3)) (symlinked): 1 sample, none named: map refused: /tmp/perf-$((base + 3)).map: is a symbolic link (trust rule: no symlinks)"
grep -Eqx "tgid $((base + 4)) \(writable\): 2 samples, none named: map refused: /tmp/perf-$((base + 4))\.map: .*writ.*" "$TMP/block.txt" ||
	{ cat "$TMP/block.txt"; fail "the map anyone may write is not said to be refused for that"; }
expect_line "tgid $((base + 5)) (javaish): 4 samples, 2 named by javamap, 2 unnamed: 1 before load, 1 after unload"
expect_line "tgid $((base + 6)) (badresolve): 1 sample, none named: handler alpha failed (its message is above)"
expect_line "tgid $((base + 7)) (fail-alpha): 1 sample, none named: map unreadable: alpha: fake map unreadable"
[ "$(wc -l <"$TMP/block.txt")" -eq 8 ] ||
	{ cat "$TMP/block.txt"; fail "the block has other lines than one a process"; }
echo "ok: one line a process, with its reason"
"$OPREPORT" "${args[@]}" --handler-isolation=none >"$TMP/none.txt" 2>/dev/null ||
	fail "opreport --handler-isolation=none exited $?"
diff -u "$TMP/out.txt" "$TMP/none.txt" ||
	fail "handlers in opreport's own process give other reasons"

# the same in JSON, against the schema
"$OPREPORT" "${args[@]}" --format=json >"$TMP/out.json" 2>/dev/null ||
	fail "opreport --format=json exited $?"
python3 - "$TMP/out.json" "$base" <<'EOP' || fail "the JSON naming array is wrong"
import json, sys
doc = json.load(open(sys.argv[1]))
base = int(sys.argv[2])
got = {n["tgid"] - base: n for n in doc["naming"]}
want = {
    1: ("claimed", "perfmap", 3, 2, {"no entry": 1}),
    2: ("unclaimed", None, 1, 0, {}),
    3: ("map refused", None, 1, 0, {"map refused": 1}),
    4: ("map refused", None, 2, 0, {"map refused": 2}),
    5: ("claimed", "javamap", 4, 2, {"before load": 1, "after unload": 1}),
    6: ("handler failed", "alpha", 1, 0, {}),
    7: ("map unreadable", None, 1, 0, {}),
}
bad = 0
for k, (status, handler, samples, named, unnamed) in want.items():
    n = got.get(k)
    if not n or (n["status"], n["handler"], n["samples"], n["named"], n["unnamed"]) != (status, handler, samples, named, unnamed):
        print("tgid base+%d: %r, expected %r" % (k, n, (status, handler, samples, named, unnamed)))
        bad = 1
if "is a symbolic link" not in got[3]["why"] or got[1]["why"] is not None:
    print("why:", got[3]["why"], got[1]["why"]); bad = 1
sys.exit(bad)
EOP
python3 "$HERE/json_check.py" "$OPJIT_SOURCE/opreport/report.schema.json" "$TMP/out.json" ||
	fail "the JSON report does not match report.schema.json"
echo "ok: the JSON naming array"

# the same in CSV: a "naming" row per outcome of each process
"$OPREPORT" "${args[@]}" --format=csv >"$TMP/out.csv" 2>/dev/null ||
	fail "opreport --format=csv exited $?"
python3 - "$TMP/out.csv" "$base" <<'EOP' || fail "the CSV naming rows are wrong"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
base = int(sys.argv[2])
got = sorted((int(r["tgid"]) - base, r["image"], r["symbol"], int(r["samples"]),
              r["handler"], r["kind"]) for r in rows if r["row"] == "naming")
want = sorted([
    (1, "claimed", "named", 2, "perfmap", "jit"),
    (1, "claimed", "no entry", 1, "perfmap", "anon"),
    (2, "unclaimed", "no handler claimed the process", 1, "", "anon"),
    (5, "claimed", "named", 2, "javamap", "jit"),
    (5, "claimed", "before load", 1, "javamap", "anon"),
    (5, "claimed", "after unload", 1, "javamap", "anon"),
    (6, "handler failed", "handler alpha failed (its message is above)", 1, "alpha", "anon"),
    (7, "map unreadable", "map unreadable: alpha: fake map unreadable", 1, "", "anon"),
])
refused = [g for g in got if g[1] == "map refused"]
got = [g for g in got if g[1] != "map refused"]
bad = got != want
if [(g[0], g[3]) for g in refused] != [(3, 1), (4, 2)] or \
        "is a symbolic link" not in refused[0][2]:
    print("refused:", refused); bad = True
if bad:
    print("got: ", got); print("want:", want)
if any(len(r) != len(rows[0]) for r in rows):
    print("rows of other widths"); bad = True
sys.exit(bad)
EOP
echo "ok: the CSV naming rows"

# A call graph names every anonymous frame, and says of the frames what
# the flat report says of the samples: under -c in the block, in the
# folded output on stderr, in pprof's comments.
G=$TMP/g
{
	echo "callgraph 127"
	echo "image exe file /usr/bin/jitdemo"
	echo "process p1 $((base + 1)) $uid jitdemo /usr/bin/jitdemo start_unix_ns 1 range 0x7f0000000000-0x7f0000100000"
	echo "process p2 $((base + 2)) $uid other /usr/bin/other start_unix_ns 1 range 0x7f0000000000-0x7f0000100000"
	echo "stack s1 anon:0x7f0000000104 anon:0x7f0000000901 exe:0x1000"
	echo "stack s2 anon:0x7f0000000110 exe:0x1000"
	echo "anonstack p1 1500 s1 $((base + 1))"
	echo "anonstack p1 1500 s2 $((base + 1))"
	echo "anonstack p2 1500 s2 $((base + 2))"
} | "$MKSESSION" "$G"
cg=(--session-dir="$G" --anon-handler=perfmap)
"$OPREPORT" "${cg[@]}" -c >"$TMP/cg.txt" 2>"$TMP/cg.err" ||
	{ cat "$TMP/cg.err"; fail "opreport -c exited $?"; }
sed -n '/^names of anonymous frames in call chains, by process:$/,$p' "$TMP/cg.txt" >"$TMP/block.txt"
expect_line "tgid $((base + 1)) (jitdemo): 3 frames, 2 named by perfmap, 1 unnamed: 1 no entry"
expect_line "tgid $((base + 2)) (other): 1 frame, none named: no handler claimed the process"
[ "$(wc -l <"$TMP/block.txt")" -eq 3 ] ||
	{ cat "$TMP/cg.txt"; fail "-c: the block has other lines than one a process"; }
grep -qxF "opreport: tgid $((base + 1)) (jitdemo): 1 of 3 JIT frames unnamed: 1 no entry" "$TMP/cg.err" ||
	{ cat "$TMP/cg.err"; fail "-c: no line on stderr for the unnamed frame"; }
echo "ok: -c says how the frames were named"
"$OPREPORT" "${cg[@]}" --format=folded >"$TMP/f.txt" 2>"$TMP/f.err" ||
	fail "opreport --format=folded exited $?"
grep -qxF "opreport: tgid $((base + 1)) (jitdemo): 1 of 3 JIT frames unnamed: 1 no entry" "$TMP/f.err" ||
	{ cat "$TMP/f.err"; fail "folded: no line on stderr for the unnamed frame"; }
! grep -q "names of" "$TMP/f.txt" || fail "folded: the naming got into the stacks"
echo "ok: folded says it on stderr"
"$OPREPORT" "${cg[@]}" --format=pprof -o "$TMP/p.pb.gz" 2>/dev/null ||
	fail "opreport --format=pprof exited $?"
go tool pprof -comments "$TMP/p.pb.gz" >"$TMP/comments.txt" 2>"$TMP/go.err" ||
	{ cat "$TMP/go.err"; fail "go tool pprof cannot read the comments"; }
grep -qxF "names of anonymous frames: tgid $((base + 1)) (jitdemo): 3 frames, 2 named by perfmap, 1 unnamed: 1 no entry" "$TMP/comments.txt" &&
	grep -qxF "names of anonymous frames: tgid $((base + 2)) (other): 1 frame, none named: no handler claimed the process" "$TMP/comments.txt" ||
	{ cat "$TMP/comments.txt"; fail "pprof: the comments do not say how the frames were named"; }
echo "ok: pprof carries it in its comments"

# without handlers, JSON says so; the text has no block
"$OPREPORT" --session-dir="$S" -l --anon-samples --format=json >"$TMP/plain.json" ||
	fail "opreport --anon-samples exited $?"
python3 -c '
import json, sys
n = json.load(open(sys.argv[1]))["naming"]
sys.exit(not (len(n) == 7 and all(x["status"] == "no handler" for x in n)))' "$TMP/plain.json" ||
	fail "--anon-samples without handlers: the naming array does not say no handler"
"$OPREPORT" --session-dir="$S" -l --anon-samples >"$TMP/plain.txt"
! grep -q "^names of anonymous samples" "$TMP/plain.txt" ||
	fail "--anon-samples without handlers printed the naming block"
echo PASS
