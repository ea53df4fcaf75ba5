# SPDX-License-Identifier: GPL-3.0-or-later
# Anonymous resolution throughput: the perfmap handler's resolve step,
# timed by the handlers' own benchmark program against maps of each size.
# Sourced by run.sh.

RESOLVE_SECTION="Anonymous resolution throughput"

# resolve_once ENTRIES: run the handlers' benchmark once; set R_LOAD (s)
# and R_RATE (samples/s), or R_WHY
resolve_once() {
	local out
	R_LOAD='' R_RATE='' R_WHY=''
	if ! out=$("$RESOLVE" "$1" "$RESOLVE_SAMPLES" 2>"$TMPD/resolve.err"); then
		R_WHY="bench_perfmap_resolve failed: $(first_error "$TMPD/resolve.err")"
		return
	fi
	# "map: N entries loaded in S s" and "resolve: ...: R samples/s"
	R_LOAD=$(sed -nE 's/^map: .* loaded in ([0-9.]+) s.*/\1/p' <<<"$out")
	R_RATE=$(sed -nE 's/^resolve: .*: ([0-9.]+) samples\/s.*/\1/p' <<<"$out")
	if [ -z "$R_LOAD" ] || [ -z "$R_RATE" ]; then
		R_WHY="bench_perfmap_resolve printed no load time or samples/s: $(rec_clean "$out")"
	fi
}

bench_resolve() {
	local n rep fig size why what
	rec_section "$RESOLVE_SECTION" "The perfmap handler, through its table, against a perf map of each size (plus one re-jitted entry in ten), timed by tests/handlers/bench_perfmap_resolve on $RESOLVE_SAMPLES sorted random samples; its rate includes checking every name. perf has no separate resolver to time (it resolves perf maps inside \`perf report\`), so there is no reference figure."
	for n in "${MAP_SIZES[@]}"; do
		size=$(awk -v n="$n" 'BEGIN { if (n >= 1e6) printf "%gM", n / 1e6; else printf "%gk", n / 1e3 }')
		for what in "samples resolved per second" "map load time"; do
			fig="map of $size entries: $what"
			rec_note "$RESOLVE_SECTION" "$fig" ref "no perf counterpart"
			rec_note "$RESOLVE_SECTION" "$fig" cmp "-"
			if why=$(need_exe "$RESOLVE"); then :; else
				rec_why "$RESOLVE_SECTION" "$fig" opjit "$why"
			fi
		done
		[ -x "$RESOLVE" ] || continue
		for ((rep = 0; rep < RUNS; rep++)); do
			resolve_once "$n"
			if [ -n "$R_WHY" ]; then
				rec_why "$RESOLVE_SECTION" "map of $size entries: samples resolved per second" opjit "$R_WHY"
				rec_why "$RESOLVE_SECTION" "map of $size entries: map load time" opjit "$R_WHY"
				continue
			fi
			rec_val "$RESOLVE_SECTION" "map of $size entries: samples resolved per second" opjit "$R_RATE" rate
			rec_val "$RESOLVE_SECTION" "map of $size entries: map load time" opjit "$R_LOAD" s
		done
	done
}
