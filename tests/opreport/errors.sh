#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every bad input gives exit 1 and exactly one line on stderr that names
# the problem; a session damaged in one file still reports the rest.
. "$(dirname "$0")/lib.sh"

# expect_error WANT ARGS...: opreport ARGS exits 1 with one stderr line
# containing WANT, and prints nothing on stdout.
expect_error() {
	local want=$1; shift
	local rc=0
	"$OPREPORT" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" -eq 1 ] || fail "opreport $*: exit $rc, want 1"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] ||
		{ cat "$TMP/err"; fail "opreport $*: want exactly one line on stderr"; }
	grep -qF -- "$want" "$TMP/err" ||
		fail "opreport $*: stderr '$(cat "$TMP/err")' lacks '$want'"
	grep -q '^opreport: ' "$TMP/err" ||
		fail "opreport $*: stderr line does not start with 'opreport: '"
	[ ! -s "$TMP/out" ] || fail "opreport $*: printed a report"
	echo "ok: $* -> $(cat "$TMP/err")"
}

S=$TMP/session
"$MKSESSION" "$S" <<EOS
image app file $RT/rt_g_pie
ctx c app app
hist c 0x1000 3
process p 4242 0 demo /usr/bin/demo range 0x10000-0x20000
anon p 1 0x10010 4242
EOS

expect_error "cannot open session $TMP/nowhere: No such file or directory" \
	--session-dir="$TMP/nowhere"
: >"$TMP/plainfile"
expect_error "cannot open session $TMP/plainfile" --session-dir="$TMP/plainfile"
mkdir "$TMP/empty"
expect_error "$TMP/empty" --session-dir="$TMP/empty"

cp -r "$S" "$TMP/badmeta"
printf 'garbage\n' >"$TMP/badmeta/session.meta"
expect_error "$TMP/badmeta/session.meta" --session-dir="$TMP/badmeta"

expect_error "opreport: unknown option '--no-such-option'" --session-dir="$S" --no-such-option
expect_error "opreport: option '--threshold' needs a value" --session-dir="$S" --threshold
expect_error "opreport: invalid --threshold 'x': expected a percentage between 0 and 100" \
	--session-dir="$S" -t x
expect_error "invalid --threshold '150'" --session-dir="$S" --threshold=150
expect_error "bad profile specification 'foo:bar': unknown tag 'foo'" \
	--session-dir="$S" foo:bar
expect_error "bad profile specification 'tgid:abc': expected process ids" \
	--session-dir="$S" tgid:abc
expect_error "bad profile specification 'nocolon': expected tag:value" \
	--session-dir="$S" nocolon
expect_error "invalid --format 'xml'" --session-dir="$S" --format=xml
expect_error "invalid --sort 'size'" --session-dir="$S" -l -s size
expect_error "invalid --sort ''" --session-dir="$S" -l -s ''
expect_error "invalid --sort 'image,,sample'" --session-dir="$S" -l -s image,,sample
expect_error "invalid --merge 'thread'" --session-dir="$S" -m thread
expect_error "invalid --merge 'lib,,cpu'" --session-dir="$S" -m lib,,cpu
expect_error "invalid --demangle 'fancy'" --session-dir="$S" --demangle=fancy
expect_error "opreport: invalid handler name '../evil': use letters a-z, digits, '-' and '_'" \
	--session-dir="$S" --anon-handler=../evil
long=$(printf 'h%.0s' $(seq 70))
expect_error "opreport: invalid handler name '$long': longer than 64 characters" \
	--session-dir="$S" --anon-handler="perfmap,$long"
expect_error "cannot write $TMP/nodir/out.txt" --session-dir="$S" -o "$TMP/nodir/out.txt"

# Damage inside one data file: a warning naming it, and the rest reported.
cp -r "$S" "$TMP/damaged"
size=$(stat -c %s "$TMP/damaged/samples.hist")
truncate -s $((size / 2)) "$TMP/damaged/samples.hist"
rc=0
"$OPREPORT" --session-dir="$TMP/damaged" -l --anon-samples \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/err"; fail "damaged session: exit $rc, want 0"; }
grep -q "warning: .*samples.hist" "$TMP/err" ||
	{ cat "$TMP/err"; fail "damaged session: no warning naming samples.hist"; }
grep -q "anon (tgid:4242 range:0x10000-0x20000)" "$TMP/out" ||
	{ cat "$TMP/out"; fail "damaged session: the intact anonymous samples are missing"; }
echo "ok: damaged samples.hist -> $(cat "$TMP/err")"

# A missing binary is not an error: its samples are (no symbols).
"$MKSESSION" "$TMP/missing" <<EOS
image app file $TMP/gone/app
ctx c app app
hist c 0x1000 5
EOS
"$OPREPORT" --session-dir="$TMP/missing" -l >"$TMP/out" 2>"$TMP/err" ||
	fail "missing binary: exit $?, want 0"
grep -Eq '^5 +100\.0000 +app +\(no symbols\)$' "$TMP/out" ||
	{ cat "$TMP/out"; fail "missing binary: no (no symbols) row"; }
echo "ok: missing binary -> (no symbols)"
# An image that is not ELF, or is cut short: one warning naming it, its
# samples (no symbols), the rest of the report as usual.
echo "not an elf" >"$TMP/text"
head -c 3000 "$RT/rt_g_pie" >"$TMP/trunc"
"$MKSESSION" "$TMP/badimages" <<EOS
image a file $TMP/text
image b file $TMP/trunc
image k kernel [kernel.kallsyms]
ctx x a a
ctx y a b
ctx z a k
hist x 0x10 1
hist y 0x1150 2
hist z 0xffffffff81000010 4
EOS
# damaged after the recording (a clean stop writes only good lines)
printf 'ffffffff81000000 T _stext\nnonsense\n\001\002\n' \
	>"$TMP/badimages/kallsyms"
"$OPREPORT" --session-dir="$TMP/badimages" -l -g -d >"$TMP/out" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "bad images: exit $?, want 0"; }
for f in text trunc; do
	[ "$(grep -c "warning: cannot read $TMP/$f: " "$TMP/err")" -eq 1 ] ||
		{ cat "$TMP/err"; fail "bad images: no single warning naming $f"; }
done
grep -q "warning: $TMP/badimages/kallsyms: 2 malformed lines (first at line 2)" \
	"$TMP/err" || { cat "$TMP/err"; fail "bad kallsyms: no warning naming it"; }
[ "$(wc -l <"$TMP/err")" -eq 3 ] || { cat "$TMP/err"; fail "bad images: want 3 warnings"; }
grep -Eq '^ +ffffffff81000010 ' "$TMP/out" && grep -q '_stext$' "$TMP/out" ||
	{ cat "$TMP/out"; fail "bad kallsyms: the good line is lost"; }
[ "$(grep -c '(no symbols)$' "$TMP/out")" -eq 2 ] ||
	{ cat "$TMP/out"; fail "bad images: want two (no symbols) rows"; }
echo "ok: corrupt images and kallsyms -> one warning each"

# Recorded without the kernel: no kallsyms copy, and nothing to say
# about it in any output, the call graph's included.
"$MKSESSION" "$TMP/nokernel" <<EOS
callgraph 16
image app file $RT/rt_g_pie
ctx c app app
hist c 0x1000 3
stack s app:0x1000
stackhist c s 3
EOS
for fmt in text json folded; do
	"$OPREPORT" --session-dir="$TMP/nokernel" -l --format=$fmt \
		>"$TMP/out" 2>"$TMP/err" || fail "no kernel, $fmt: exit $?"
	[ ! -s "$TMP/err" ] ||
		{ cat "$TMP/err"; fail "no kernel, $fmt: want nothing on stderr"; }
done
echo "ok: no kernel recorded -> no word about its kallsyms"
echo PASS
