#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The text layout, byte for byte, against tests/opreport/golden/*.txt.
# Samples are placed with nm's offsets, so the expected rows do not depend
# on the compiler's layout; addresses (-w, -d) are masked.
# OPJIT_UPDATE_GOLDEN=1 rewrites the files (review the diff!).
. "$(dirname "$0")/lib.sh"

APP=$RT/rt_g_pie
LIB=$RT/rt_nog_nopie
cat >"$TMP/kallsyms" <<EOS
ffffffff81000000 T _stext
ffffffff81000100 t do_work
ffffffff81000200 T schedule
EOS
S=$TMP/s
"$MKSESSION" "$S" <<EOS
separate process
kallsyms $TMP/kallsyms
image app file $APP
image lib file $LIB
image k kernel [kernel.kallsyms]
ctx a1 app app tgid 100
ctx a2 app lib tgid 100
ctx a3 app k tgid 100
ctx b1 lib lib tgid 200
ctx b2 lib k tgid 200
hist a1 $(off "$APP" rt_alpha) 300
hist a1 $(off "$APP" rt_gamma) 100
hist a1 $(off "$APP" main) 50
hist a2 $(off "$LIB" rt_local_beta) 40
hist a3 0xffffffff81000104 10
hist b1 $(off "$LIB" rt_alpha) 200
hist b1 $(off "$LIB" rt_far_delta) 90
hist b2 0xffffffff81000204 3
process p 300 0 jitdemo /usr/bin/jitdemo range 0x7f0000000000-0x7f0000100000
anon p 1 0x7f0000000100 300
anon p 2 0x7f0000000100 300
anon p 3 0x7f0000000180 301
anon p 4 0x7f0000000100 300
anon p 5 0x7f0000000200 300
anon p 6 0x7f0000200000 300
anon p 7 0x7f0000200010 300
EOS

golden summary
golden summary_x -x
golden summary_merge_lib -m lib
golden summary_anon --anon-samples
golden summary_threshold -n -t 30
golden symbols -l
golden symbols_anon -l --anon-samples
golden symbols_merge_all -l -m all
golden symbols_threshold -l -t 10
golden symbols_sort -l -s image,symbol -r
golden symbols_sort_vma -l -n -m all -s vma
golden symbols_sort_debug -l -n -g -m all -s debug image:rt_g_pie
golden symbols_debug -l -g -n image:rt_g_pie
golden symbols_details -l -d -w tgid:100
golden symbols_global -l -% -n image:rt_nog_nopie
golden symbols_include -l -n -i rt_alpha,main
golden symbols_exclude -l -n -m all -e rt_alpha,do_work
GOLDEN_SQUEEZE=1 golden symbols_long -l -f -n -m all
golden csv_symbols -l --format=csv
golden csv_summary --format=csv
# a session separated by process and CPU, merged step by step
S=$TMP/cpus
"$MKSESSION" "$S" <<EOS
separate process,cpu
image app file $APP
ctx a app app tgid 5 cpu 0
ctx b app app tgid 5 cpu 1
ctx c app app tgid 6 cpu 1
hist a $(off "$APP" rt_alpha) 3
hist b $(off "$APP" rt_alpha) 1
hist b $(off "$APP" rt_gamma) 2
hist c $(off "$APP" rt_gamma) 2
EOS
golden cpu_summary -n
golden cpu_symbols -l -n
golden cpu_merge_cpu -l -n -m cpu
golden cpu_merge_all -l -n -m tgid,cpu
S=$TMP/s

# -o writes what stdout would have shown
# (its stderr has the note of the hidden anonymous samples)
"$OPREPORT" --session-dir="$S" -l -o "$TMP/o.txt" >"$TMP/o.stdout" 2>/dev/null ||
	fail "-o: opreport exited $?"
[ ! -s "$TMP/o.stdout" ] || fail "-o: opreport still wrote to stdout"
"$OPREPORT" --session-dir="$S" -l >"$TMP/stdout.txt"
cmp -s "$TMP/o.txt" "$TMP/stdout.txt" || fail "-o: the file differs from stdout"
echo "ok: -o FILE"
[ "$status" -eq 0 ] && echo PASS
exit "$status"
