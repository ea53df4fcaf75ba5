# SPDX-License-Identifier: GPL-3.0-or-later
# run.sh's short call-graph growth point (sourced): cg_growth.sh --quick,
# one interleaved pair of `oprofiled -g` and `perf record -g` for C and
# node (with a perf map, and with jitdump), its rows recorded as the suite's (the recorders' CPU, and each
# report form's peak RSS beside perf script's); the full tables (10 and
# 60 s, 3 pairs) are cg_growth.sh's own, for RESULTS.md.

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
	# | C, 5 s | 0.199 s | 8556 to 8556 | 0.334 s | 23.26 / 33.40 | 0.60x [0.60, 0.60] |
	while IFS='|' read -r _ name ocpu _ pcpu _ ratio _; do
		# one word each, the name's spaces kept
		read -r name <<<"$name"
		read -r ocpu _ <<<"$ocpu"
		read -r pcpu _ <<<"$pcpu"
		read -r ratio _ <<<"${ratio%%x*}"
		rec_val "$CG_GROWTH" "$name: recorder CPU" opjit "$ocpu" s
		rec_val "$CG_GROWTH" "$name: recorder CPU" ref "$pcpu" s
		rec_val "$CG_GROWTH" "$name: recorder CPU" cmp "$ratio" x
	done < <(sed '/^$/q' "$out" | grep '^| [A-Za-z]*, [0-9]* s |')
	# the reports' peak RSS (the second table):
	# | C, 5 s | -c | 3.1 MiB | 20.0 MiB | 18.0 MiB | 0.16x [..] | 0.17x [..] |
	while IFS='|' read -r _ name form orss prss srss _ sratio _; do
		read -r name <<<"$name"
		read -r form _ <<<"$form"
		read -r orss _ <<<"$orss"
		read -r prss _ <<<"$prss"
		read -r srss _ <<<"$srss"
		read -r sratio _ <<<"${sratio%%x*}"
		rec_val "$CG_GROWTH" "$name: opreport $form peak RSS" opjit \
			"$orss" MiB
		rec_val "$CG_GROWTH" "$name: opreport $form peak RSS" ref \
			"$srss" MiB
		rec_val "$CG_GROWTH" "$name: opreport $form peak RSS" cmp \
			"$sratio" x
		rec_val "$CG_GROWTH" "$name: perf report -g peak RSS" ref \
			"$prss" MiB
	done < <(sed '1,/^$/d' "$out" | grep '^| [A-Za-z]*, [0-9]* s |')
}
