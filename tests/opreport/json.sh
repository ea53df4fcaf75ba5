#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# --format=json against opreport/report.schema.json (the schema JSON.md
# documents), in every mode, and row for row against the text report.
. "$(dirname "$0")/lib.sh"
SCHEMA=$OPJIT_SOURCE/opreport/report.schema.json
CHECK=$HERE/json_check.py
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}

mkdir "$TMP/maps"
printf '7f0000000100 80 JS:*fib\n' >"$TMP/maps/perf-300.map"
chmod 644 "$TMP/maps/perf-300.map"
printf 'ffffffff81000000 T _stext\nffffffff81000100 t do_work\n' >"$TMP/kallsyms"
S=$TMP/s
"$MKSESSION" "$S" <<EOS
separate process
kallsyms $TMP/kallsyms
image app file $RT/rt_g_pie
image lib file $RT/rt_nog_nopie
image k kernel [kernel.kallsyms]
ctx a1 app app tgid 100
ctx a2 app lib tgid 100
ctx a3 app k tgid 100
hist a1 $(off "$RT/rt_g_pie" rt_alpha) 30
hist a1 $(off "$RT/rt_g_pie" main) 5
hist a2 $(off "$RT/rt_nog_nopie" rt_gamma) 4
hist a3 0xffffffff81000104 1
process p 300 $(id -u) "jit\"demo" /usr/bin/jitdemo start_unix_ns 1 range 0x7f0000000000-0x7f0000100000
anon p 1 0x7f0000000100 300
anon p 2 0x7f0000000900 300
archive p $TMP/maps/perf-300.map
EOS

n=0
# check NAME ARGS...: the JSON of opreport ARGS is valid; with -l, its
# rows are the text's rows.
check() {
	local name=$1; shift
	"$OPREPORT" --session-dir="$S" --format=json "$@" >"$TMP/$name.json" ||
		fail "$name: opreport --format=json $* exited $?"
	local text=()
	case " $* " in
	*" -l "*)
		"$OPREPORT" --session-dir="$S" -n "$@" >"$TMP/$name.txt" 2>/dev/null
		text=("$TMP/$name.txt") ;;
	esac
	python3 "$CHECK" "$SCHEMA" "$TMP/$name.json" "${text[@]}" ||
		fail "$name: opreport --format=json $* does not follow the schema"
	echo "ok: $name (opreport --format=json $*)"
	n=$((n + 1))
}

check summary
check summary_anon --anon-samples
check summary_merge -m all -x
check symbols -l
check symbols_anon -l --anon-samples
check symbols_thread -l --anon-samples --separate=thread
check symbols_details -l -d -g -w
check symbols_global -l -% image:rt_nog_nopie
check symbols_threshold -l -t 5 -r
if [ -f "$HP/libperfmap.so" ]; then
	OPJIT_HANDLER_PATH=$HP check jit -l -d -g --anon-handler=perfmap
	grep -q '"kind":"jit","handler":"perfmap"' "$TMP/jit.json" ||
		fail "jit: no jit row named by perfmap"
else
	echo "note: $HP/libperfmap.so not built: the jit JSON case is not run"
fi

# the validator itself rejects what breaks the schema
python3 - "$TMP/symbols.json" "$TMP/broken.json" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
del d["symbols"][0]["vma"]
d["symbols"][1]["kind"] = "weird"
json.dump(d, open(sys.argv[2], "w"))
EOP
if python3 "$CHECK" "$SCHEMA" "$TMP/broken.json" >"$TMP/broken.out"; then
	fail "the validator accepted a document without vma and with kind 'weird'"
fi
grep -q "missing key 'vma'" "$TMP/broken.out" || fail "validator: no missing-key error"
grep -q "weird" "$TMP/broken.out" || fail "validator: no enum error"
echo "ok: the validator rejects a broken document"
echo "PASS ($n documents)"
