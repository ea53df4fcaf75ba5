#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Samples in a kernel module's code, filed under [kernel.kallsyms] as the
# recorder files every kernel sample (perf_event says nothing of
# modules): the session's trimmed kallsyms keeps the module lines they
# need, and the report names them by the module's symbol with the module
# as their image ("[nf_conntrack]") in the summary, -l, CSV, JSON, -c and
# folded; the last symbol of a module ends where /proc/modules says the
# module does; the kernel's own samples are named as before.  This
# machine need not have modules: the session is written with the samples
# writer.
. "$(dirname "$0")/lib.sh"

APP=$RT/rt_g_pie
printf '%s\n' \
	'ffffffff81000000 T _stext' \
	'ffffffff81000100 t do_work' \
	'ffffffff81000200 T schedule' \
	'ffffffff81000300 T kernel_tail' \
	'ffffffffc0003000 t xfs_only	[xfs]' \
	'ffffffffc0000000 t ct_get	[nf_conntrack]' \
	'ffffffffc0000100 t ct_in	[nf_conntrack]' \
	'ffffffffc0000200 t ct_put	[nf_conntrack]' \
	'ffffffffc0001000 t ext4_read	[ext4]' \
	'ffffffffc0001100 t ext4_tail	[ext4]' \
	'ffffffffc0005000 t unused_fn	[unused]' >"$TMP/kallsyms"
printf '%s\n' \
	'nf_conntrack 4096 1 - Live 0xffffffffc0000000' \
	'ext4 8192 0 - Live 0xffffffffc0001000' \
	'xfs 256 0 - Live 0xffffffffc0003000' >"$TMP/modules"

S=$TMP/s
"$MKSESSION" "$S" <<EOS
callgraph 127
separate process
kallsyms $TMP/kallsyms
modules $TMP/modules
image app file $APP
image k kernel [kernel.kallsyms]
image m module [ext4]
ctx kk app k tgid 100
ctx mm app m tgid 100
hist kk 0xffffffff81000104 10
hist kk 0xffffffffc0000180 7
hist kk 0xffffffffc0002800 5
hist kk 0xffffffffc0003200 2
hist mm 0xffffffffc0001010 3
stack s1 kernel 2 k:0xffffffffc0000180 k:0xffffffff81000105 app:$(ret main)
stack s2 kernel 2 k:0xffffffffc0000104 k:0xffffffffc0002811 app:$(ret main)
stackhist kk s1 4
stackhist kk s2 3
EOS

# the trim kept what names and bounds the module samples, and no more:
# unused_fn bounds the sample past xfs's end, _stext and ct_get go
want='ffffffff81000100 t do_work
ffffffff81000200 T schedule
ffffffff81000300 T kernel_tail
ffffffffc0003000 t xfs_only	[xfs]
ffffffffc0000100 t ct_in	[nf_conntrack]
ffffffffc0000200 t ct_put	[nf_conntrack]
ffffffffc0001000 t ext4_read	[ext4]
ffffffffc0001100 t ext4_tail	[ext4]
ffffffffc0005000 t unused_fn	[unused]'
[ "$(cat "$S/kallsyms")" = "$want" ] ||
	{ diff <(echo "$want") "$S/kallsyms"; fail "the trimmed kallsyms"; }
ok "the trim keeps the module lines of kernel samples"

report() {
	"$OPREPORT" --session-dir="$S" "$@" >"$TMP/out" 2>"$TMP/err" ||
		show_fail "$TMP/err" "opreport $* exited $?"
	[ ! -s "$TMP/err" ] || show_fail "$TMP/err" "opreport $* warned"
}
# has LINE: $TMP/out holds LINE, runs of blanks squeezed
has() {
	tr -s ' \t' ' ' <"$TMP/out" | grep -qxF -- "$1" ||
		show_fail "$TMP/out" "no line '$1'"
}

report -l
has '10 37.0370 [kernel.kallsyms] (tgid:100) rt_g_pie do_work'
has '7 25.9259 [nf_conntrack] (tgid:100) rt_g_pie ct_in'
has '5 18.5185 [ext4] (tgid:100) rt_g_pie ext4_tail'
has '3 11.1111 [ext4] (tgid:100) rt_g_pie ext4_read'
# past xfs's end by /proc/modules: in no symbol, left to the kernel
has '2 7.4074 [kernel.kallsyms] (tgid:100) rt_g_pie (no symbols)'
ok "-l names module code with the module as its image"
# the whole table, as a recorder killed before its stop leaves it, names
# the same
cp "$TMP/out" "$TMP/trimmed"
cp "$S/kallsyms" "$TMP/kallsyms.trimmed"
cp "$TMP/kallsyms" "$S/kallsyms"
report -l
diff -u "$TMP/trimmed" "$TMP/out" || fail "-l differs with the whole table"
report --format=folded
cp "$TMP/out" "$TMP/whole.folded"
cp "$TMP/kallsyms.trimmed" "$S/kallsyms"
report --format=folded
diff -u "$TMP/whole.folded" "$TMP/out" ||
	fail "folded differs with the whole table"
ok "the trimmed table names as the whole one"

report -l --format=csv
has "symbol,7,25.9259,0xffffffffc0000100,,,100,,kernel,,$APP,[nf_conntrack],ct_in"
has "symbol,10,37.0370,0xffffffff81000100,,,100,,kernel,,$APP,[kernel.kallsyms],do_work"
ok "csv"

report -l --format=json
python3 - "$TMP/out" <<'EOF' || fail "json"
import json, sys
rows = {}
def walk(x):
    if isinstance(x, dict):
        if "symbol" in x and "image" in x and "samples" in x:
            rows[x["symbol"]] = (x["image"], x["samples"])
        for v in x.values():
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(json.load(open(sys.argv[1])))
want = {"ct_in": ("[nf_conntrack]", 7), "ext4_tail": ("[ext4]", 5),
        "do_work": ("[kernel.kallsyms]", 10)}
for k, v in want.items():
    if rows.get(k) != v:
        sys.exit(f"{k}: {rows.get(k)} instead of {v}: {rows}")
EOF
ok "json"

report --format=folded
has 'main [rt_g_pie];do_work_[k];ct_in [nf_conntrack]_[k] 4'
has 'main [rt_g_pie];ext4_tail [ext4]_[k];ct_in [nf_conntrack]_[k] 3'
report --format=folded --folded-annotations=none
has 'main [rt_g_pie];do_work [kernel];ct_in [nf_conntrack] 4'
ok "folded"

# the summary counts each module as an image of its own
report
has ' 12 44.4444 [kernel.kallsyms]'
has ' 8 29.6296 [ext4]'
has ' 7 25.9259 [nf_conntrack]'
ok "the summary"

report -c
grep -q '\[nf_conntrack\].*ct_in' "$TMP/out" ||
	show_fail "$TMP/out" "-c names no ct_in in [nf_conntrack]"
grep -q '\[kernel.kallsyms\].*do_work' "$TMP/out" ||
	show_fail "$TMP/out" "-c names no do_work in [kernel.kallsyms]"
ok "-c"

# image: selects module code filed under the kernel by its module, as
# the report names it, by name or as NAME.ko, wildcards too; and
# [kernel.kallsyms] selects the kernel's own code, without the modules'
# rows: the symbols of the report's rows with their counts
rows() {
	awk '$1 ~ /^[0-9]+$/ && NF >= 4 {
		s = $0; sub(/.*rt_g_pie +/, "", s); print $1, s }' "$TMP/out" |
		sort | tr '\n' ' '
}
for spec in 'image:[nf_conntrack]' image:nf_conntrack image:nf_conntrack.ko \
	'image:nf_*'; do
	report -l "$spec"
	[ "$(rows)" = "7 ct_in " ] || show_fail "$TMP/out" "$spec: rows $(rows)"
done
report -l 'image:[ext4]'
[ "$(rows)" = "3 ext4_read 5 ext4_tail " ] ||
	show_fail "$TMP/out" "image:[ext4]: rows $(rows)"
report -l 'image:[kernel.kallsyms]'
[ "$(rows)" = "10 do_work 2 (no symbols) " ] ||
	show_fail "$TMP/out" "image:[kernel.kallsyms]: rows $(rows)"
# stacks by their leaf: both end in ct_in, none in ext4
report --format=folded --folded-annotations=none 'image:[nf_conntrack]'
[ "$(sort "$TMP/out")" = "main [rt_g_pie];do_work [kernel];ct_in [nf_conntrack] 4
main [rt_g_pie];ext4_tail [ext4];ct_in [nf_conntrack] 3" ] ||
	show_fail "$TMP/out" "folded image:[nf_conntrack]"
report --format=folded 'image:[ext4]'
[ ! -s "$TMP/out" ] || show_fail "$TMP/out" "folded image:[ext4]"
report -l image:xfs
[ "$(rows)" = "" ] || show_fail "$TMP/out" "image:xfs: rows $(rows)"
ok "image: selects a module's code filed under the kernel"

# a malformed modules line: one warning naming the file, the rest kept
printf 'garbage\n' >>"$S/modules"
"$OPREPORT" --session-dir="$S" -l >"$TMP/out" 2>"$TMP/err" ||
	show_fail "$TMP/err" "opreport -l exited $?"
[ "$(wc -l <"$TMP/err")" = 1 ] && grep -qF "$S/modules: 1 malformed lines" "$TMP/err" ||
	show_fail "$TMP/err" "not one line naming $S/modules"
has '5 18.5185 [ext4] (tgid:100) rt_g_pie ext4_tail'
ok "a malformed modules line"
