#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Several events in one session, as perf records them: -e cpu-clock -e
# page-faults and -e cpu-clock,page-faults each record both events of
# pagetouch in one session, every context naming its event
# (CONTEXT_EVENTS): the cpu-clock samples agree with the workload's CPU
# time, the page-faults samples with the minor faults it took itself
# (getrusage around the touching), and a one-event session carries no
# event block at all.  opreport reports cpu-clock by default, saying once
# which other events there are, and --event=page-faults the faults; the
# header of either counts each event's samples in the session.
. "$(dirname "$0")/lib.sh"

cd "$WORK"
bin=$WORKLOADS/pagetouch
[ -x "$bin" ] || fail "$bin is not built"
OPREPORT=$OPJIT_BUILD/opreport/opreport
[ -x "$OPREPORT" ] || fail "$OPREPORT is not built"
# report_count OUT SYMBOL: the samples of SYMBOL's row in opreport -l
report_count() { awk -v s="$2" '$NF == s { n += $1 } END { print n + 0 }' "$1"; }
read -r lo hi < <(symbol_offsets "$bin" touch_pages)

# event_samples DUMP EVENT: samples of contexts of event index EVENT
# whose application is pagetouch (any image, the kernel included)
event_samples() {
	awk -v p="$bin" -v e="$2" '
		$1 == "image" && $4 == p { img[$2] = 1 }
		$1 == "context" && ($3 in img) { app[$2] = 1 }
		$1 == "ctxevent" && $3 == e { ev[$2] = 1 }
		$1 == "hist" && ($2 in app) && ($2 in ev) { n += $4 }
		END { print n + 0 }' "$1"
}
# touch_samples DUMP EVENT: those in touch_pages
touch_samples() {
	awk -v p="$bin" -v e="$2" -v lo="$lo" -v hi="$hi" '
		$1 == "image" && $4 == p { img[$2] = 1 }
		$1 == "context" && ($4 in img) { ctx[$2] = 1 }
		$1 == "ctxevent" && $3 == e { ev[$2] = 1 }
		$1 == "hist" && ($2 in ctx) && ($2 in ev) &&
			$3 + 0 >= lo + 0 && $3 + 0 < hi + 0 { n += $4 }
		END { print n + 0 }' "$1"
}

# all_samples DIR EVENT: the samples of event index EVENT in the whole
# session, its histograms and JIT samples, as a report of it reads them
all_samples() {
	"$SESSIONDUMP" "$1" "$2" >all.txt 2>all.err ||
		fail "sessiondump $1 $2: $(cat all.err)"
	awk '$1 == "hist" { n += $4 } $1 == "anon" { n++ } END { print n + 0 }' all.txt
}
# json_samples OPTIONS...: the session's samples opreport --format=json
# counts for the event it reports
json_samples() {
	"$OPREPORT" --session-dir=s --format=json "$@" 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["session_samples"])'
}

# block_types FILE: the type of each block of a container file, walking
# the 16-byte headers (FORMAT.md) from offset 16
block_types() {
	od -An -tu1 -v "$1" | tr -s ' ' '\n' | awk 'NF' | awk '
		{ b[NR - 1] = $1 }
		END {
			for (off = 16; off + 16 <= NR; off += 16 + len) {
				print b[off + 4] + 256 * b[off + 5]
				len = b[off + 8] + 256 * b[off + 9] + \
					65536 * b[off + 10] + 16777216 * b[off + 11]
			}
		}'
}

for spelling in "-e cpu-clock -e page-faults" "-e cpu-clock,page-faults"; do
	rm -rf s truth
	# shellcheck disable=SC2086 # the spelling is words
	OPJIT_WORKLOAD_FAULTS_FILE=$WORK/truth "$OPROFILED" --session-dir=s \
		$spelling -- "$bin" 1 >rec.out 2>rec.err ||
		fail "oprofiled $spelling failed: $(cat rec.err)"
	check_summary rec.err
	read -r ms faults <truth || fail "pagetouch did not say its truth"
	dump s >d.txt
	[ "$(info d.txt event)" = cpu-clock,page-faults ] ||
		fail "$spelling: the session's events are '$(info d.txt event)'"
	grep -q '^ctxevent ' d.txt || fail "$spelling: no context names its event"
	block_types s/samples.hist | grep -qx 13 ||
		fail "$spelling: no CONTEXT_EVENTS block in samples.hist"
	lost=$(info d.txt lost)
	clock=$(event_samples d.txt 0)
	pf=$(touch_samples d.txt 1)
	pf_clock=$(touch_samples d.txt 0)
	echo "$spelling: cpu-clock $clock samples for $ms ms of CPU;" \
		"page-faults $pf in touch_pages for $faults minor faults there;" \
		"$lost lost"
	# a second of its own CPU time, however long a busy machine makes it
	[ "$ms" -ge 900 ] || fail "pagetouch ran for $ms ms of CPU, not its second"
	# cpu-clock at 4000 Hz of the workload's CPU time: at least half of
	# it (the kernel ramps the period up at the start), at most all of
	# it and a tenth (a tick's rounding)
	[ "$clock" -ge $((ms * 2)) ] && [ "$clock" -le $((ms * 44 / 10)) ] ||
		fail "$spelling: $clock cpu-clock samples for $ms ms of CPU"
	# page-faults beside a clock is sampled at every fault: one sample a
	# fault, in the function that took it.  The only slack: a sample the
	# kernel lost (counted in lost), and the faults getrusage saw in the
	# call itself rather than in the loop (none: one fault a fresh page),
	# so within 1% and the lost ones
	[ "$faults" -ge 1000 ] || fail "pagetouch took only $faults faults"
	[ $((pf * 100)) -le $((faults * 101)) ] &&
		[ $(((pf + lost) * 100)) -ge $((faults * 99)) ] ||
		fail "$spelling: $pf page-faults samples for $faults faults ($lost lost)"
	# the events are apart: the touching is a small share of the clock
	[ "$pf_clock" -lt "$pf" ] ||
		fail "$spelling: cpu-clock counted $pf_clock in touch_pages, as many as the faults"

	# opreport: cpu-clock by default, one line on stderr for the rest
	"$OPREPORT" --session-dir=s -l >r0.txt 2>r0.err ||
		fail "opreport failed: $(cat r0.err)"
	[ "$(cat r0.err)" = "opreport: session s recorded cpu-clock,page-faults: reporting cpu-clock (--event=NAME for another)" ] ||
		fail "opreport said on stderr: $(cat r0.err)"
	grep -q '^Counted cpu-clock events' r0.txt ||
		fail "the default report is not of cpu-clock: $(head -2 r0.txt)"
	[ "$(report_count r0.txt touch_pages)" -eq "$pf_clock" ] ||
		fail "opreport: $(report_count r0.txt touch_pages) cpu-clock samples in touch_pages, the session $pf_clock"
	"$OPREPORT" --session-dir=s -l --event=page-faults >r1.txt 2>r1.err ||
		fail "opreport --event=page-faults failed: $(cat r1.err)"
	[ ! -s r1.err ] || fail "opreport --event=page-faults said: $(cat r1.err)"
	grep -q '^Counted page-faults events' r1.txt ||
		fail "--event=page-faults reports another: $(head -2 r1.txt)"
	[ "$(report_count r1.txt touch_pages)" -eq "$pf" ] ||
		fail "opreport: $(report_count r1.txt touch_pages) page-faults in touch_pages, the session $pf"
	# the header's third line: every event's samples, whichever the
	# report is of, the same as the reader gives each event and as
	# the JSON of each counts
	all_clock=$(all_samples s 0)
	all_pf=$(all_samples s 1)
	echo "$spelling: the session holds $all_clock cpu-clock and $all_pf page-faults samples"
	[ "$all_clock" -ge "$clock" ] && [ "$all_pf" -ge "$pf" ] ||
		fail "$spelling: $all_clock and $all_pf samples in the session, pagetouch's alone $clock and $pf"
	[ "$(json_samples)" = "$all_clock" ] &&
		[ "$(json_samples --event=page-faults)" = "$all_pf" ] ||
		fail "$spelling: the JSON counts $(json_samples) and $(json_samples --event=page-faults), the session $all_clock and $all_pf"
	want="Events recorded: cpu-clock $all_clock samples (this report), page-faults $all_pf samples (--event=page-faults)"
	[ "$(sed -n 3p r0.txt)" = "$want" ] ||
		fail "$spelling: the header of cpu-clock's report is '$(head -n 4 r0.txt)', not '... $want'"
	want="Events recorded: cpu-clock $all_clock samples (--event=cpu-clock), page-faults $all_pf samples (this report)"
	[ "$(sed -n 3p r1.txt)" = "$want" ] ||
		fail "$spelling: the header of page-faults' report is '$(head -n 4 r1.txt)', not '... $want'"
	# under a --time window the same line: the whole session's samples
	"$OPREPORT" --session-dir=s -l --time=0%-50% >r4.txt 2>r4.err ||
		fail "opreport --time=0%-50% failed: $(cat r4.err)"
	[ "$(sed -n 3p r4.txt)" = "Events recorded: cpu-clock $all_clock samples (this report), page-faults $all_pf samples (--event=page-faults)" ] ||
		fail "$spelling: under --time the header is '$(head -n 4 r4.txt)'"
	rc=0
	"$OPREPORT" --session-dir=s --event=cycles >r2.txt 2>r2.err || rc=$?
	[ "$rc" -ne 0 ] && [ "$(cat r2.err)" = "opreport: --event=cycles: session s recorded cpu-clock,page-faults" ] ||
		fail "opreport --event=cycles exited $rc and said: $(cat r2.err)"
done

# one event: the session is as before, no CONTEXT_EVENTS block
rm -rf s
"$OPROFILED" --session-dir=s -e page-faults -- "$bin" 0.2 >rec.out 2>rec.err ||
	fail "oprofiled -e page-faults failed: $(cat rec.err)"
dump s >d1.txt
[ "$(info d1.txt event)" = page-faults ] || fail "one event: '$(info d1.txt event)'"
! grep -q '^ctxevent ' d1.txt || fail "a one-event session has context events"
types=$(block_types s/samples.hist)
grep -qx 2 <<<"$types" || fail "no CONTEXTS block in a one-event session: $types"
! grep -qx 13 <<<"$types" || fail "a one-event session has a CONTEXT_EVENTS block"
# and reports as before: no word of other events
"$OPREPORT" --session-dir=s -l >r3.txt 2>r3.err || fail "opreport failed: $(cat r3.err)"
[ ! -s r3.err ] || fail "opreport of one event said: $(cat r3.err)"
grep -q '^Counted page-faults events' r3.txt || fail "one event: $(head -1 r3.txt)"
! grep -q '^Events recorded' r3.txt || fail "one event: the header counts events: $(head -n 4 r3.txt)"
[ "$(report_count r3.txt touch_pages)" -gt 0 ] || fail "one event: no faults in touch_pages"
echo pass
