#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# pprof's lines are where each frame is, not where its function starts.
# A synthetic session of the callchain workload (built -O0 -g with frame
# pointers): main calls path_a from three lines and path_b from one, and
# both call hot; the stacks' return addresses are those calls' own, found
# with objdump.  With -g, go tool pprof must show each caller frame at
# the line addr2line gives for its return address - 1 (the call, which a
# marker in the source confirms), the leaf at the line of its address,
# and every function's start line unchanged; three calls from main are
# three locations.  Without -g the lines are 0, never a function's first
# line.
. "$(dirname "$0")/lib.sh"
BIN=$OPJIT_BUILD/tests/workloads/callchain
SRC=$OPJIT_SOURCE/tests/workloads/callchain.c
[ -x "$BIN" ] || fail "$BIN is not built"
command -v go >/dev/null || { echo "SKIP: go is not installed (golang-go)"; exit 77; }

# "NAME OFFSET LINE START" per frame: the file offset a stack holds, the
# line addr2line gives there (at return address - 1 for a call), and the
# line the function starts at
python3 - "$BIN" "$SRC" >"$TMP/frames.txt" <<'EOP' || fail "cannot find callchain's calls"
import re, subprocess, sys
elf, src = sys.argv[1], sys.argv[2]
run = lambda *a: subprocess.run(a, check=True, capture_output=True,
                                text=True).stdout
secs = []
for l in run("readelf", "-SW", elf).splitlines():
    m = re.search(r"\]\s+\S+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+"
                  r"([0-9a-f]+)", l)
    if m and m.group(1) != "NOBITS" and int(m.group(2), 16):
        secs.append(tuple(int(m.group(i), 16) for i in (2, 3, 4)))
def off(vma):
    return [o + vma - a for a, o, n in secs if a <= vma < a + n][0]
def line(vma):
    return int(run("addr2line", "-e", elf, "%x" % vma).split(":")[-1]
               .split()[0])
# each call's return address, from the instruction after it
calls, fn, prev = {}, None, None
for l in run("objdump", "-d", "--no-show-raw-insn", elf).splitlines():
    m = re.match(r"^[0-9a-f]+ <(\S+)>:$", l)
    if m:
        fn, prev = m.group(1), None
        continue
    m = re.match(r"^\s*([0-9a-f]+):\s+(.*)$", l)
    if not m:
        continue
    a = int(m.group(1), 16)
    if prev:
        calls.setdefault(prev, []).append(a)
        prev = None
    c = re.search(r"call\s+[0-9a-f]+ <(hot|path_a|path_b)>", m.group(2))
    if c and fn in ("main", "path_a", "path_b"):
        prev = (fn, c.group(1))
starts = {}
for l in run("nm", "--defined-only", elf).splitlines():
    p = l.split()
    if len(p) == 3 and p[2] in ("main", "path_a", "path_b", "hot"):
        starts[p[2]] = (int(p[0], 16), line(int(p[0], 16)))
# the source's own word for where the calls are
text = open(src).read().splitlines()
def marker(fn, callee):
    first = starts[fn][1]
    for i in range(first - 1, len(text)):
        if text[i].strip() == callee + "();":
            yield i + 1
# hot's leaf: an address in its loop, not at its start
hot, hot_first = starts["hot"]
leaf = next(a for a in range(hot + 8, hot + 64)
            if line(a) not in (hot_first, hot_first + 1))
print("hot", hex(off(leaf)), line(leaf), hot_first)
for (fn, callee), rets in sorted(calls.items()):
    lines = [line(r - 1) for r in rets]
    want = list(marker(fn, callee))[:len(rets)]
    if lines != want or starts[fn][1] in lines:
        sys.exit("%s -> %s: addr2line says %s, the source %s"
                 % (fn, callee, lines, want))
    for i, r in enumerate(rets):
        print("%s>%s%d" % (fn, callee, i), hex(off(r)), lines[i],
              starts[fn][1])
EOP
cat "$TMP/frames.txt"
f() { awk -v k="$1" '$1 == k { print $'"$2"' }' "$TMP/frames.txt"; }
hot=$(f hot 2)
a=$(f 'path_a>hot0' 2)
b=$(f 'path_b>hot0' 2)
[ "$(grep -c '^main>path_a' "$TMP/frames.txt")" = 3 ] ||
	fail "callchain's main does not call path_a from three lines"
printf 'ffffffff81000000 T _stext\n' >"$TMP/kallsyms"
S=$TMP/s
"$MKSESSION" "$S" <<EOS
callgraph 127
kallsyms $TMP/kallsyms
image app file $BIN
ctx c app app tgid 800
hist c $hot 10
stack a0 app:$hot app:$a app:$(f 'main>path_a0' 2)
stack a1 app:$hot app:$a app:$(f 'main>path_a1' 2)
stack a2 app:$hot app:$a app:$(f 'main>path_a2' 2)
stack b0 app:$hot app:$b app:$(f 'main>path_b0' 2)
stackhist c a0 4
stackhist c a1 3
stackhist c a2 2
stackhist c b0 1
EOS
op() { "$OPREPORT" --session-dir="$S" "$@" 2>>"$TMP/op.err"; }

# "FUNCTION:LINE ..." per sample, leaf first, with its count, from -raw
raw_stacks() {
	go tool pprof -sample_index=samples -raw "$1" >"$TMP/raw.txt" 2>"$TMP/go.err" ||
		{ cat "$TMP/go.err"; fail "go tool pprof cannot read $1"; }
	python3 - "$TMP/raw.txt" <<'EOP'
import re, sys
text = open(sys.argv[1]).read()
samples = text.split("Samples:", 1)[1].split("Locations", 1)[0]
locs = text.split("Locations", 1)[1].split("Mappings", 1)[0]
# "ID: ADDR M=N FUNCTION FILE:LINE s=START", an inlined caller's line
# on a line of its own
where, cur = {}, None
for l in locs.splitlines():
    m = re.match(r"^\s*(\d+): 0x[0-9a-f]+ M=\d+ (\S+) \S*:(\d+) s=(\d+)", l)
    if m:
        cur = m.group(1)
        where[cur] = ["%s:%s" % (m.group(2), m.group(3))]
        continue
    m = re.match(r"^\s+(\S+) \S*:(\d+) s=(\d+)", l)
    if m and cur:
        where[cur].append("%s:%s" % (m.group(1), m.group(2)))
out = []
for l in samples.splitlines():
    m = re.match(r"^\s*(\d+)\s+\d+: ((?:\d+ )*\d+)\s*$", l)
    if m:
        out.append(m.group(1) + " " + " ".join(
            "+".join(where[i]) for i in m.group(2).split()))
print("\n".join(sorted(out)))
EOP
}

op -g --format=pprof -o "$TMP/g.pb.gz" || { cat "$TMP/op.err"; fail "-g pprof exited"; }
raw_stacks "$TMP/g.pb.gz" >"$TMP/got.txt"
l() { f "$1" 3; }
{
	echo "1 hot:$(l hot) path_b:$(l 'path_b>hot0') main:$(l 'main>path_b0')"
	echo "2 hot:$(l hot) path_a:$(l 'path_a>hot0') main:$(l 'main>path_a2')"
	echo "3 hot:$(l hot) path_a:$(l 'path_a>hot0') main:$(l 'main>path_a1')"
	echo "4 hot:$(l hot) path_a:$(l 'path_a>hot0') main:$(l 'main>path_a0')"
} | sort >"$TMP/want.txt"
diff -u "$TMP/want.txt" "$TMP/got.txt" ||
	fail "-g pprof: the frames' lines are not the lines of the calls"
echo "ok: -g pprof puts path_a, path_b and main at their calls' lines"

# the functions still start where they start
go tool pprof -sample_index=samples -raw "$TMP/g.pb.gz" >"$TMP/raw.txt" 2>/dev/null
for fn in hot path_a path_b main; do
	start=$(awk -v fn="$fn" '$1 == fn || index($1, fn ">") == 1 { print $4; exit }' "$TMP/frames.txt")
	grep -qE " $fn \S*:[0-9]+ s=$start\$" "$TMP/raw.txt" ||
		{ cat "$TMP/raw.txt"; fail "-g pprof: $fn does not start at line $start"; }
done
echo "ok: every function keeps its first line as start_line"

go tool pprof -sample_index=samples -traces -lines "$TMP/g.pb.gz" >"$TMP/traces.txt" 2>"$TMP/go.err" ||
	{ cat "$TMP/go.err"; fail "go tool pprof -traces -lines failed"; }
grep -qE "^\s+path_a \S*callchain.c:$(l 'path_a>hot0')\$" "$TMP/traces.txt" ||
	{ cat "$TMP/traces.txt"; fail "-traces -lines: path_a is not at its call of hot"; }
echo "ok: -traces -lines shows path_a at callchain.c:$(l 'path_a>hot0')"

# -c, folded and json are views by function: main's three calls of
# path_a are one stack there
op -g --format=folded >"$TMP/folded.txt" || fail "-g folded exited"
want="main [callchain];path_a [callchain];hot [callchain] 9"
grep -qxF "$want" "$TMP/folded.txt" && [ "$(wc -l <"$TMP/folded.txt")" = 2 ] ||
	{ cat "$TMP/folded.txt"; fail "folded: not one stack by function"; }
op -g --format=json >"$TMP/cg.json" || fail "-g json exited"
python3 -c 'import json, sys
cg = json.load(open(sys.argv[1]))["callgraph"]
sys.exit(0 if sorted(s["samples"] for s in cg["stacks"]) == [1, 9] else 1)' \
	"$TMP/cg.json" || fail "json: stacks not unique by function"
echo "ok: folded and json keep one stack per function path"

# without -g nothing says the lines: 0, not the functions' first lines
op --format=pprof -o "$TMP/n.pb.gz" || fail "pprof exited"
raw_stacks "$TMP/n.pb.gz" >"$TMP/got0.txt"
printf '%s\n' "1 hot:0 path_b:0 main:0" "9 hot:0 path_a:0 main:0" >"$TMP/want0.txt"
diff -u "$TMP/want0.txt" "$TMP/got0.txt" ||
	fail "pprof without -g: lines other than 0"
echo "ok: without -g every line is 0"
[ ! -s "$TMP/op.err" ] || { cat "$TMP/op.err"; fail "opreport warned"; }
echo PASS
