# SPDX-License-Identifier: GPL-3.0-or-later
# Anonymous resolution throughput: the perfmap handler's resolve step,
# timed by the handlers' own benchmark program against maps of each size.
# Sourced by run.sh.

RESOLVE_SECTION="Anonymous resolution throughput"

# resolve_once ENTRIES: print samples/s, or fail with the reason on stdout
resolve_once() {
	local out
	if ! out=$("$RESOLVE" --entries "$1" 2>"$TMPD/resolve.err"); then
		echo "bench_perfmap_resolve failed: $(first_error "$TMPD/resolve.err")"
		return 1
	fi
	# the program prints samples/s; take the number on that line
	out=$(grep -iE 'samples/s' <<<"$out" | grep -oE '[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?' | head -n 1)
	if [ -z "$out" ]; then
		echo "bench_perfmap_resolve printed no samples/s figure"
		return 1
	fi
	echo "$out"
}

bench_resolve() {
	local n rep fig v why
	rec_section "$RESOLVE_SECTION" "Samples per second that the perfmap handler resolves against a perf map of each size, timed by tests/handlers/bench_perfmap_resolve. perf has no separate resolver to time (it resolves perf maps inside \`perf report\`), so there is no reference figure."
	for n in "${MAP_SIZES[@]}"; do
		fig="perfmap handler, map of $(awk -v n="$n" 'BEGIN { if (n >= 1e6) printf "%gM", n / 1e6; else printf "%gk", n / 1e3 }') entries: samples resolved per second"
		rec_note "$RESOLVE_SECTION" "$fig" ref "no perf counterpart"
		rec_note "$RESOLVE_SECTION" "$fig" cmp "-"
		if ! why=$(need_exe "$RESOLVE"); then
			rec_why "$RESOLVE_SECTION" "$fig" opjit "$why"
			continue
		fi
		for ((rep = 0; rep < RUNS; rep++)); do
			if v=$(resolve_once "$n"); then
				rec_val "$RESOLVE_SECTION" "$fig" opjit "$v" rate
			else
				rec_why "$RESOLVE_SECTION" "$fig" opjit "$v"
			fi
		done
	done
}
