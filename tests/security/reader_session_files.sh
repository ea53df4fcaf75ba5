#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Session files that are not what they claim to be: a FIFO, /dev/zero
# behind a symlink, a 4 GiB sparse file, a session.meta cut short, counts
# that cannot add up, a kallsyms copy that is missing.  opreport finishes
# at once with one line naming the file and the problem.
. "$(dirname "$0")/reader_lib.sh"

APP=$RT/rt_g_pie
cat >"$tmp/kallsyms" <<EOS
ffffffff81000000 T _stext
ffffffff81000100 t do_work
ffffffff81000200 T schedule
EOS
base=$tmp/base
"$MKSESSION" "$base" <<EOS
kallsyms $tmp/kallsyms
image app file $APP
image k kernel [kernel.kallsyms]
ctx a app app
ctx k app k
hist a $(off "$APP" rt_alpha) 300
hist k 0xffffffff81000104 150
process p 300 0 node /usr/bin/node range 0x7f0000000000-0x7f0000100000
anon p 1 0x7f0000000100 300
EOS
report base -l --session-dir="$base"
one_line base 0 ""
grep -q 'rt_alpha' "$tmp/base.out" || fail "base: no rt_alpha row"
grep -q 'do_work' "$tmp/base.out" || fail "base: no do_work row"

# fresh NAME: a copy of the base session in $S
fresh() { S=$tmp/$1; rm -rf "$S"; cp -a "$base" "$S"; }
fifo() { rm -f "$S/$1"; mkfifo "$S/$1"; }
zero() { rm -f "$S/$1"; ln -s /dev/zero "$S/$1"; }

fresh meta_fifo; fifo session.meta
report meta_fifo -l --session-dir="$S"
one_line meta_fifo 1 "opreport: cannot read $S/session.meta: not a regular file"

fresh meta_zero; zero session.meta
report meta_zero -l --session-dir="$S"
one_line meta_zero 1 "opreport: cannot read $S/session.meta: not a regular file"

fresh hist_fifo; fifo samples.hist
report hist_fifo -l --session-dir="$S"
one_line hist_fifo 0 "opreport: warning: cannot read $S/samples.hist: not a regular file"

fresh anon_zero; zero anon.samples
report anon_zero -l --session-dir="$S"
one_line anon_zero 0 "opreport: warning: cannot read $S/anon.samples: not a regular file"

fresh ksyms_fifo; fifo kallsyms
report ksyms_fifo -l --session-dir="$S"
one_line ksyms_fifo 0 "opreport: warning: cannot read $S/kallsyms: not a regular file; kernel samples show as (no symbols)"

fresh ksyms_zero; zero kallsyms
report ksyms_zero -l --session-dir="$S"
one_line ksyms_zero 0 "opreport: warning: cannot read $S/kallsyms: not a regular file; kernel samples show as (no symbols)"

# A missing kallsyms copy with kernel samples in the session.
fresh ksyms_missing; rm "$S/kallsyms"
report ksyms_missing -l --session-dir="$S"
one_line ksyms_missing 0 "opreport: warning: cannot read $S/kallsyms: missing from the session; kernel samples show as (no symbols)"
grep -q '150 .*(no symbols)' "$tmp/ksyms_missing.out" ||
	fail "ksyms_missing: the 150 kernel samples are not (no symbols)"

# 4 GiB of hole after the good blocks, read within 1 GiB of address
# space: only what is before the damage is read.
fresh sparse; good=$(stat -c %s "$S/samples.hist")
truncate -s 4G "$S/samples.hist"
# (ASan reserves terabytes of address space for its shadow: no limit)
vlimit=1048576
! ldd "$OPREPORT" | grep libasan >/dev/null || vlimit=unlimited
rc=0
(ulimit -v $vlimit; exec timeout 60 "$OPREPORT" -l --session-dir="$S") \
	>"$tmp/sparse.out" 2>"$tmp/sparse.err" || rc=$?
one_line sparse 0 "opreport: warning: $S/samples.hist: offset $good: bad block magic"
grep -q 'rt_alpha' "$tmp/sparse.out" || fail "sparse: the good blocks were lost"

fresh meta_sparse; truncate -s 4G "$S/session.meta"
report meta_sparse -l --session-dir="$S"
one_line meta_sparse 1 "opreport: cannot read $S/session.meta: larger than its format allows"

# session.meta cut after "event "
fresh meta_cut; printf 'opjit-session 1\nevent ' >"$S/session.meta"
report meta_cut -l --session-dir="$S"
one_line meta_cut 1 "opreport: $S/session.meta: line 2: truncated (no newline at the end)"

fresh meta_empty; printf 'opjit-session 1\nevent \nfrequency 4000\n' >"$S/session.meta"
report meta_empty -l --session-dir="$S"
one_line meta_empty 1 "opreport: $S/session.meta: line 2: empty value for event"

# A count of 2^64-1 with a valid checksum: alone it is 100%; with any
# other sample the sum cannot be right, and the session is refused.
S=$tmp/max1
"$MKSESSION" "$S" <<EOS
image app file $APP
ctx a app app
hist a $(off "$APP" rt_alpha) 0xffffffffffffffff
EOS
report max1 -l --session-dir="$S"
one_line max1 0 ""
grep -Eq '^18446744073709551615 +100\.0000 ' "$tmp/max1.out" ||
	{ cat "$tmp/max1.out"; fail "max1: not one row of 2^64-1 at 100%"; }
report max1_json --format=json --session-dir="$S"
python3 - "$tmp/max1_json.out" <<'PY' || fail "max1_json: wrong total"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["total_samples"] == 2**64 - 1, r["total_samples"]
PY
S=$tmp/max2
"$MKSESSION" "$S" <<EOS
image app file $APP
ctx a app app
hist a $(off "$APP" rt_alpha) 0xffffffffffffffff
hist a $(off "$APP" rt_gamma) 6501
EOS
for fmt in text json csv; do
	report "max2_$fmt" -l --format=$fmt --session-dir="$S"
	one_line "max2_$fmt" 1 "opreport: cannot read session $S: impossible sample counts (their sum exceeds 2^64-1)"
	[ ! -s "$tmp/max2_$fmt.out" ] || fail "max2_$fmt: a report was printed"
done
# A FIFO planted where .gnu_debuglink sends the search, beside a stripped
# image: one line, and the image's samples without symbols.
mkdir "$tmp/dl"
cp "$RT/rt_split.linked" "$tmp/dl/app"
mkfifo "$tmp/dl/rt_split.debug"
S=$tmp/debuglink
"$MKSESSION" "$S" <<EOS
image app file $tmp/dl/app
ctx a app app
hist a $(off "$RT/rt_split" rt_alpha) 10
EOS
report debuglink -l -g --session-dir="$S"
one_line debuglink 0 "opreport: warning: cannot read $tmp/dl/rt_split.debug: not a regular file; its debug information is not used"
rm "$tmp/dl/rt_split.debug"
cp "$RT/rt_split.debug" "$tmp/dl/"
report debuglink_ok -l -g --session-dir="$S"
one_line debuglink_ok 0 ""
grep -q 'rtarget.c:[0-9]* *app *rt_alpha' "$tmp/debuglink_ok.out" ||
	{ cat "$tmp/debuglink_ok.out"; fail "debuglink_ok: rt_alpha not named from its debug file"; }
echo PASS
