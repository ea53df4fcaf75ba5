#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# First contact, finding 9: speedscope showed flamegraph.pl's _[j], _[k]
# and _[i] suffixes as part of the names.  --folded-annotations=none
# writes the folded dialect speedscope reads as it is: the same stacks
# and counts, each frame's kind in words inside its brackets.
#   folded_speedscope.sh format      the dialect, against the default's
#   folded_speedscope.sh speedscope  through speedscope's own importer,
#                                    under node (skips without it:
#                                    npm install -g speedscope)
. "$(dirname "$0")/lib.sh"
mode=${1:-format}
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -f "$HP/libperfmap.so" ] || fail "$HP/libperfmap.so is not built"
export OPJIT_HANDLER_PATH=$HP
if [ "$mode" = speedscope ]; then
	command -v node >/dev/null || { echo "SKIP: node is not installed (apt-get install nodejs)"; exit 77; }
	command -v npm >/dev/null || { echo "SKIP: npm is not installed (apt-get install npm)"; exit 77; }
	bundle=$(ls "$(npm root -g 2>/dev/null)"/speedscope/dist/release/speedscope-*.js 2>/dev/null | head -1 || true)
	[ -n "$bundle" ] || { echo "SKIP: speedscope is not installed (npm install -g speedscope)"; exit 77; }
fi
APP=$RT/rt_g_pie
mkdir "$TMP/maps"
printf '7f0000000100 80 JS:*fib app.js:1:1\n7f0000000200 80 JS:~loop app.js:9:1\n' \
	>"$TMP/maps/perf-300.map"
chmod 644 "$TMP/maps/perf-300.map"
printf 'ffffffff81000000 T _stext\nffffffff81000100 t do_work\n' >"$TMP/kallsyms"
S=$TMP/s
"$MKSESSION" "$S" <<EOS
callgraph 127
separate process
kallsyms $TMP/kallsyms
image app file $APP
image k kernel [kernel.kallsyms]
ctx a app app tgid 100
ctx kk app k tgid 100
hist a $(off "$APP" rt_alpha) 30
hist kk 0xffffffff81000104 2
stack s1 app:$(off "$APP" rt_alpha) app:$(ret main)
stack s4 kernel 1 k:0xffffffff81000104 app:$(ret rt_alpha) app:$(ret main)
stack s6 anon:0x7f0000000110 anon:0x7f0000000211 app:$(ret main)
stackhist a s1 30
stackhist kk s4 2
process p 300 $(id -u) node /usr/bin/node start_unix_ns 1 range 0x7f0000000000-0x7f0000100000
anon p 1 0x7f0000000110 300
anon p 2 0x7f0000000110 300
anonstack p 1 s6 300
anonstack p 2 s6 300
archive p $TMP/maps/perf-300.map
EOS
"$OPREPORT" --session-dir="$S" --format=folded --anon-handler=perfmap \
	>"$TMP/marked" 2>"$TMP/err" || { cat "$TMP/err"; fail "folded failed"; }
"$OPREPORT" --session-dir="$S" --format=folded --anon-handler=perfmap \
	--folded-annotations=none >"$TMP/plain" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "--folded-annotations=none failed"; }
cat "$TMP/plain"

if [ "$mode" = format ]; then
	grep -q '_\[[jk]\]' "$TMP/marked" || fail "the default lost flamegraph.pl's marks"
	! grep -q '_\[[jki]\]' "$TMP/plain" || fail "--folded-annotations=none: a mark is left"
	# the same stacks and counts, the marks turned to words
	sed -e 's/_\[k\]//g' -e 's/ \[\([^]]*\)\]_\[j\]/ [\1]/g' "$TMP/marked" |
		sed -e 's/\(do_work\)\(;\| \)/\1 [kernel]\2/g' >"$TMP/want"
	diff -u "$TMP/want" "$TMP/plain" || fail "--folded-annotations=none: not the same stacks"
	grep -qF 'main [rt_g_pie];JS:~loop app.js:9:1 [perfmap];JS:*fib app.js:1:1 [perfmap] 2' "$TMP/plain" ||
		fail "the JIT stack is not there, plain"
	grep -qF 'rt_alpha [rt_g_pie];do_work [kernel] 2' "$TMP/plain" ||
		fail "the kernel frame is not there, plain"
	"$OPREPORT" --session-dir="$S" --format=folded --folded-annotations=bogus \
		>/dev/null 2>"$TMP/bad" && fail "a bad --folded-annotations exited 0"
	grep -qx "opreport: invalid --folded-annotations 'bogus': expected flamegraph or none" "$TMP/bad" ||
		{ cat "$TMP/bad"; fail "a bad --folded-annotations: not the one line"; }
	echo "ok: --folded-annotations=none: the same stacks, no marks"
	exit 0
fi

# speedscope's importer of this format, taken from its bundle as it is
# (the one function that splits a line at its last space and a stack at
# ';'), run under node on both outputs
node - "$bundle" "$TMP/plain" "$TMP/marked" <<'EOJS' >"$TMP/names" || fail "speedscope's importer did not run"
const fs = require("fs");
const [bundle, plain, marked] = process.argv.slice(2);
const src = fs.readFileSync(bundle, "utf8");
const at = src.search(/function [\w$]+\(\w\)\{let \w=\[\];for\(let \w of \w\.splitLines\(\)\)\{let \w=\/\^\(\.\*\) \(\\d\+\)\$\/gm\.exec/);
if (at < 0) { console.error("no collapsed-stack importer in " + bundle); process.exit(2); }
let depth = 0, end = src.indexOf("{", at);
for (; end < src.length; end++) {
	if (src[end] === "{") depth++;
	else if (src[end] === "}" && --depth === 0) break;
}
const parse = new Function("return " + src.slice(at, end + 1))();
String.prototype.splitLines = function () { return this.split("\n"); };
for (const f of [plain, marked]) {
	const samples = parse(fs.readFileSync(f, "utf8"));
	const total = samples.reduce((n, s) => n + s.duration, 0);
	console.log(`${f === plain ? "plain" : "marked"} total ${total}`);
	for (const s of samples)
		for (const fr of s.stack) console.log(`${f === plain ? "plain" : "marked"} ${fr.name}`);
}
EOJS
cat "$TMP/names"
want=$(awk '{n += $NF} END {print n}' "$TMP/plain")
grep -qx "plain total $want" "$TMP/names" || fail "speedscope read another total than $want"
grep -q '^marked .*_\[[jk]\]$' "$TMP/names" ||
	fail "speedscope did not show the default's marks: the check cannot see them"
! grep -q '^plain .*_\[' "$TMP/names" || fail "speedscope shows a mark of --folded-annotations=none"
grep -qx 'plain JS:\*fib app.js:1:1 \[perfmap\]' "$TMP/names" ||
	fail "speedscope does not read the JIT frame's name"
echo "ok: speedscope reads --folded-annotations=none with plain names"
