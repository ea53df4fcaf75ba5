#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# First contact, finding 1: folded and pprof left JIT samples out without
# a word.  Every format now says on stderr, in one line a report, how many
# anonymous samples it left out and the option that names them; the text
# layouts say it before their table, a pprof file keeps it as a comment
# and JSON as anon_hidden.option.  The documented folded and pprof
# commands name a handler.
. "$(dirname "$0")/lib.sh"

NOTE_RE='^opreport: note: 4 of 10 samples \(40\.0%\) ran in anonymous memory \(JIT code\) and are not shown; --anon-handler=auto names them$'
S=$TMP/s
off=$(python3 "$HERE/offsets.py" "$RT/rt_g_pie" rt_alpha | cut -d' ' -f2)
"$MKSESSION" "$S" <<EOS
separate process
image app file $RT/rt_g_pie
ctx a app app tgid 100
hist a $off 6
process p 300 $(id -u) jitdemo /usr/bin/jitdemo start_unix_ns 1 range 0x7f0000000000-0x7f0000100000
anon p 1 0x7f0000000100 300
anon p 2 0x7f0000000110 300
anon p 3 0x7f0000000180 301
anon p 4 0x7f0000000900 300
EOS

# one_note NAME ARGS...: opreport ARGS exits 0 and its stderr has the
# note exactly once
one_note() {
	local name=$1; shift
	"$OPREPORT" --session-dir="$S" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" ||
		{ cat "$TMP/$name.err"; fail "$name: opreport $* failed"; }
	local n
	n=$(grep -cE "$NOTE_RE" "$TMP/$name.err" || true)
	[ "$n" = 1 ] || { cat "$TMP/$name.err"; fail "$name: opreport $*: the note on stderr $n times, not once"; }
	echo "ok: $name says what it left out"
}
one_note text
one_note symbols -l
one_note csv -l --format=csv
one_note json -l --format=json
one_note folded --format=folded
one_note pprof --format=pprof -o "$TMP/p.pb.gz"

# the folded output holds the other 6, the note the 4: the whole profile
sum=$(awk '{s += $NF} END {print s + 0}' "$TMP/folded.out")
[ "$sum" = 6 ] || fail "folded holds $sum samples, not 6"

# text: before the table, not after it
first=$(grep -n '^note: 4 of 10 samples' "$TMP/symbols.out" | cut -d: -f1)
table=$(grep -n '^samples ' "$TMP/symbols.out" | cut -d: -f1)
[ -n "$first" ] && [ -n "$table" ] && [ "$first" -lt "$table" ] ||
	{ cat "$TMP/symbols.out"; fail "-l: the note is not before the table"; }
echo "ok: text says it up front"

# pprof: a comment of the file itself
gzip -dc "$TMP/p.pb.gz" >"$TMP/p.pb" && grep -aq 'note: 4 of 10 samples (40.0%) ran in anonymous memory (JIT code) and are not shown; --anon-handler=auto names them' "$TMP/p.pb" ||
	fail "the pprof file has no comment on the hidden samples"
echo "ok: pprof keeps it as a comment"

# json: the field, with the option
python3 - "$TMP/json.out" <<'EOP' || fail "json anon_hidden is wrong"
import json, sys
h = json.load(open(sys.argv[1]))["anon_hidden"]
assert h == {"samples": 4, "percent": 40.0,
             "option": "--anon-handler=auto"}, h
EOP
echo "ok: json anon_hidden.option"

# a differential profile: one line a side, naming the session
cp -r "$S" "$TMP/base"
"$OPREPORT" --session-dir="$S" --diff="$TMP/base" --format=folded \
	>/dev/null 2>"$TMP/diff.err" || fail "diff folded exited $?"
n=$(grep -c 'note: 4 of 10 samples.*--anon-handler=auto names them$' "$TMP/diff.err" || true)
[ "$n" = 2 ] || { cat "$TMP/diff.err"; fail "diff: $n notes, not one a side"; }
grep -q "^opreport: session $TMP/base: note:" "$TMP/diff.err" ||
	{ cat "$TMP/diff.err"; fail "diff: the baseline's note does not name it"; }
echo "ok: a differential profile says it for each side"

# nothing hidden, nothing said
"$OPREPORT" --session-dir="$S" --format=folded --anon-samples \
	>/dev/null 2>"$TMP/shown.err" || fail "--anon-samples exited $?"
! grep -q 'note:' "$TMP/shown.err" || fail "a note with nothing hidden"
echo "ok: no note when nothing is hidden"

# the documented folded and pprof commands ask for the JIT code (the
# JVM's alloc and lock events are named by the agent's log, not a handler)
bad=$(grep -hE -- '--format=(folded|pprof)|\\-\\-format=(folded|pprof)' \
	"$OPJIT_SOURCE/README.md" "$OPJIT_SOURCE/opreport/opreport.1" |
	grep -E '^ *(build/opreport/)?opreport|^opreport' |
	grep -vE -- '--anon-handler|\\-\\-anon\\-handler|--event=(alloc|lock)|\\-\\-event=(alloc|lock)' || true)
[ -z "$bad" ] || fail "documented without a handler: $bad"
echo "ok: the documented folded and pprof commands name a handler"
