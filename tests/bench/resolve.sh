# SPDX-License-Identifier: GPL-3.0-or-later
# Anonymous resolution throughput: the perfmap handler's resolve step,
# timed by the handlers' own benchmark program against maps of each size.
# Sourced by run.sh.

RESOLVE_SECTION="Anonymous resolution throughput"
RS=$RESOLVE_SECTION
RATE_FIG="samples resolved per second"
LOAD_FIG="map load time"
HELD_FIG="memory held once loaded, against the map's size"
PEAK_FIG="peak memory while loading, against the map's size"

# resolve_once ENTRIES: run the handlers' benchmark once; set R_LOAD (s),
# R_RATE (samples/s), R_MAP, R_HELD and R_PEAK (bytes), or R_WHY
resolve_once() {
	local out err=$TMPD/resolve.err
	R_LOAD='' R_RATE='' R_WHY='' R_MAP='' R_HELD='' R_PEAK=''
	out=$("$RESOLVE" "$1" "$RESOLVE_SAMPLES" 2>"$err") ||
		{ R_WHY=$(failure bench_perfmap_resolve $? "$err"); return; }
	# "map: N entries loaded in S s" and "resolve: ...: R samples/s"
	R_LOAD=$(sed -nE 's/^map: .* loaded in ([0-9.]+) s.*/\1/p' <<<"$out")
	R_RATE=$(sed -nE 's/^resolve: .*: ([0-9.]+) samples\/s.*/\1/p' \
		<<<"$out")
	# "memory: map M bytes, held after loading H bytes (...), peak
	# while loading P bytes (...), ..."
	R_MAP=$(sed -nE 's/^memory: map ([0-9]+) bytes.*/\1/p' <<<"$out")
	R_HELD=$(sed -nE 's/^memory: .*held after loading ([0-9]+) bytes.*/\1/p' <<<"$out")
	R_PEAK=$(sed -nE 's/^memory: .*peak while loading ([0-9]+) bytes.*/\1/p' <<<"$out")
	if [ -z "$R_LOAD" ] || [ -z "$R_RATE" ]; then
		R_WHY="bench_perfmap_resolve printed no load time or"
		R_WHY+=" samples/s: $(rec_clean "$out")"
	fi
}

# size_name N: 10000 -> 10k, 1000000 -> 1M
size_name() {
	awk -v n="$1" 'BEGIN {
		if (n >= 1e6) printf "%gM", n / 1e6
		else printf "%gk", n / 1e3
	}'
}

bench_resolve() {
	local n rep fig what why
	rec_section "$RESOLVE_SECTION" "The perfmap handler, through its" \
"table, against a perf map of each size (plus one re-jitted entry in" \
"ten), timed by tests/handlers/bench_perfmap_resolve on" \
"$RESOLVE_SAMPLES sorted random samples; its rate includes checking" \
"every name. perf has no separate resolver to time (it resolves perf" \
"maps inside \`perf report\`), so there is no reference figure. The" \
"handler's memory (malloc's bytes in use, and the peak resident set" \
"while loading) is set against the map file's size."
	for n in "${MAP_SIZES[@]}"; do
		fig="map of $(size_name "$n") entries"
		for what in "$RATE_FIG" "$LOAD_FIG"; do
			rec_note "$RS" "$fig: $what" ref "no perf counterpart"
			rec_note "$RS" "$fig: $what" cmp "-"
			why=$(need_exe "$RESOLVE") ||
				rec_why "$RS" "$fig: $what" opjit "$why"
		done
		[ -x "$RESOLVE" ] || continue
		for ((rep = 0; rep < RUNS; rep++)); do
			resolve_once "$n"
			if [ -n "$R_WHY" ]; then
				rec_why "$RS" "$fig: $RATE_FIG" opjit "$R_WHY"
				rec_why "$RS" "$fig: $LOAD_FIG" opjit "$R_WHY"
				continue
			fi
			rec_val "$RS" "$fig: $RATE_FIG" opjit "$R_RATE" rate
			rec_val "$RS" "$fig: $LOAD_FIG" opjit "$R_LOAD" s
			rec_val "$RS" "$fig: $HELD_FIG" opjit "$R_HELD" B
			rec_val "$RS" "$fig: $HELD_FIG" ref "$R_MAP" B
			rec_val "$RS" "$fig: $HELD_FIG" cmp \
				"$(calc ratio "$R_HELD" "$R_MAP")" x
			rec_val "$RS" "$fig: $PEAK_FIG" opjit "$R_PEAK" B
			rec_val "$RS" "$fig: $PEAK_FIG" ref "$R_MAP" B
			rec_val "$RS" "$fig: $PEAK_FIG" cmp \
				"$(calc ratio "$R_PEAK" "$R_MAP")" x
		done
	done
	bench_anon_memory
}

# opreport's memory for anonymous samples: sessions of ANON_SIZES[0] and
# [1] samples of one process, and of four processes of [0] each, written
# by bench_anon_session (random addresses over a 10k-function perf map),
# reported with `opreport -l --anon-handler=perfmap` and, the JIT samples
# hidden, with plain `opreport -l`.  The growth between the two sizes is
# what a sample costs: the goal is at most 24 bytes.
ANON_FIG="\`opreport -l --anon-handler=perfmap\` peak RSS"

# anon_rss DIR ARGS...: opreport's peak RSS (KB) on session DIR, or why
anon_rss() {
	local s=$1 out=$TMPD/anon.ru
	shift
	"$RUSAGE" -o "$out" -- "$OPREPORT" --session-dir="$s" "$@" \
		>/dev/null 2>"$TMPD/anon.err" ||
		{ failure opreport $? "$TMPD/anon.err"; return 1; }
	ru_read "$out" && echo "$RU_RSS"
}

bench_anon_memory() {
	local small=${ANON_SIZES[0]} big=${ANON_SIZES[1]} why n s
	local f1 f4 fp fh r1 r4 rp rh
	f1="$ANON_FIG, $(size_name "$small") samples of one process"
	f4="$ANON_FIG, $(size_name "$big") samples of one process"
	fp="$ANON_FIG, four processes of $(size_name "$small") samples"
	fh="\`opreport -l\` (JIT samples hidden) peak RSS, $(size_name "$big") samples"
	local fg="$ANON_FIG: growth a sample from $(size_name "$small") to $(size_name "$big")"
	for n in "$f1" "$f4" "$fp" "$fh" "$fg"; do
		rec_note "$RS" "$n" ref "no perf counterpart"
		rec_note "$RS" "$n" cmp "-"
	done
	why=$(need_exe "$ANON_SESSION") || {
		for n in "$f1" "$f4" "$fp" "$fh" "$fg"; do
			rec_why "$RS" "$n" opjit "$why"
		done
		return
	}
	for s in "1 $small a1" "1 $big a4" "4 $small p4"; do
		set -- $s
		rm -rf "$TMPD/$3"
		"$ANON_SESSION" "$TMPD/$3" "$1" "$2" 2>"$TMPD/anon.err" || {
			why=$(failure bench_anon_session $? "$TMPD/anon.err")
			for n in "$f1" "$f4" "$fp" "$fh" "$fg"; do
				rec_why "$RS" "$n" opjit "$why"
			done
			return
		}
	done
	r1=$(anon_rss "$TMPD/a1" -l --anon-handler=perfmap)
	rec_val "$RS" "$f1" opjit "$r1" KB
	r4=$(anon_rss "$TMPD/a4" -l --anon-handler=perfmap)
	rec_val "$RS" "$f4" opjit "$r4" KB
	rp=$(anon_rss "$TMPD/p4" -l --anon-handler=perfmap)
	rec_val "$RS" "$fp" opjit "$rp" KB
	rh=$(anon_rss "$TMPD/a4" -l)
	rec_val "$RS" "$fh" opjit "$rh" KB
	rec_val "$RS" "$fg" opjit \
		"$(awk -v a="$r1" -v b="$r4" -v n="$((big - small))" \
			'BEGIN { if (a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/)
				printf "%.3f", (b - a) * 1024 / n }')" B/sample
	rm -rf "$TMPD/a1" "$TMPD/a4" "$TMPD/p4"
}

