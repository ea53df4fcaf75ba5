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
}
