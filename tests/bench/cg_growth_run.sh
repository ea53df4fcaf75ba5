# SPDX-License-Identifier: GPL-3.0-or-later
# run.sh's short call-graph growth point (sourced): cg_growth.sh --quick,
# one interleaved pair of `oprofiled -g` and `perf record -g` for C and
# node, its rows recorded as the suite's; the full table (10 and 60 s, 3
# pairs) is cg_growth.sh's own, for RESULTS.md.

CG_GROWTH="Call-graph recording by length (short)"

bench_cg_growth() {
	local out=$TMPD/cg_growth.md err=$TMPD/cg_growth.err row
	local name ocpu pcpu ratio

	rec_section "$CG_GROWTH" "tests/bench/cg_growth.sh --quick: one" \
		"pair a workload, 5 s, 4 kHz, recorder CPU from the kernel's" \
		"accounting; opjit is \`oprofiled -g\`, ref \`perf record -g\`."
	if ! command -v perf >/dev/null; then
		rec_why_row "$CG_GROWTH" "C, 5 s" "perf is not installed"
		return
	fi
	if ! "$BENCH_DIR/cg_growth.sh" --quick --build "$BUILD" >"$out" \
		2>"$err"; then
		rec_why_row "$CG_GROWTH" "C, 5 s" \
			"cg_growth.sh failed: $(tail -n 1 "$err")"
		return
	fi
	# | C, 5 s | 0.199 s | 8556 | 0.334 s | 0.60x [0.60, 0.60] |
	while IFS='|' read -r _ name ocpu _ pcpu ratio _; do
		# one word each, the name's spaces kept
		read -r name <<<"$name"
		read -r ocpu _ <<<"$ocpu"
		read -r pcpu _ <<<"$pcpu"
		read -r ratio _ <<<"${ratio%%x*}"
		rec_val "$CG_GROWTH" "$name: recorder CPU" opjit "$ocpu" s
		rec_val "$CG_GROWTH" "$name: recorder CPU" ref "$pcpu" s
		rec_val "$CG_GROWTH" "$name: recorder CPU" cmp "$ratio" x
	done < <(grep '^| [A-Za-z]*, [0-9]* s |' "$out")
}
