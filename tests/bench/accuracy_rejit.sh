# SPDX-License-Identifier: GPL-3.0-or-later
# Accuracy when code is re-jitted.  tests/javamap's Churn workload
# alternates two classes whose compiled code is freed after each phase,
# so new code lands in the memory of old.  opjit (javamap, which knows
# when each piece of code lived) against JFR, which names frames by
# walking stacks and so is not fooled by reused memory; the truth is the
# workload's own clock.  Sourced by run.sh after accuracy.sh.

CHURN_SRC=$SRC/tests/javamap/java
REJIT_FIG="re-jitting (tests/javamap Churn: code freed, its memory"
REJIT_FIG+=" reused): ChurnA.work share of ChurnA.work + ChurnB.work"
REJIT_FIG+=" (truth: the workload's clock; reference: JFR)"
REJIT_BOTH="re-jitting: sampled addresses named ChurnA.work at one time"
REJIT_BOTH+=" and ChurnB.work at another"

# churn_truth FILE: ChurnA's share of the run by the workload's clock
churn_truth() {
	local a b
	read -r a b <<<"$(sed -nE \
		's/^churn ran ChurnA ([0-9]+) ns ChurnB ([0-9]+) ns$/\1 \2/p' \
		"$1" 2>/dev/null)"
	pct "$a" "$(add "$a" "$b")"
}

# rejit_share WHY-VAR COUNTS STDOUT: set SHARE and DIST (from the truth)
# or fill the variable named WHY-VAR
rejit_share() {
	local -n why=$1
	local truth
	SHARE='' DIST=''
	[ -z "$why" ] || return 0
	SHARE=$(share_of "$2" pair)
	truth=$(churn_truth "$3")
	if [ -z "$SHARE" ]; then
		why="the report names neither ChurnA.work nor ChurnB.work"
	elif [ -z "$truth" ]; then
		why="Churn printed no timing line"
		SHARE=''
	else
		DIST=$(absdiff "$SHARE" "$truth")
	fi
}

acc_rejit_record() {
	local o od p pd n='' dfig
	dfig="${REJIT_FIG% (truth*}: distance from the truth"
	local both="needs both figures of the run"
	rejit_share O_WHY "$O_COUNTS" "$TMPD/acc.opjit.stdout"
	o=$SHARE od=$DIST
	rejit_share P_WHY "$P_COUNTS" "$TMPD/acc.jfr.stdout"
	p=$SHARE pd=$DIST
	acc_cell "$REJIT_FIG" opjit "$o" "$O_WHY" pct
	acc_cell "$REJIT_FIG" ref "$p" "$P_WHY" pct
	acc_cell "$REJIT_FIG" cmp "$(sub "$o" "$p")" "$both" pt
	acc_cell "$dfig" opjit "$od" "$O_WHY" dist
	acc_cell "$dfig" ref "$pd" "$P_WHY" dist
	acc_cell "$dfig" cmp "$(sub "$od" "$pd")" "$both" pt
	if [ -z "$O_WHY" ] && [ "$OPREPORT_KIND" != opreport-json ]; then
		O_WHY="opreport has no --format=json to list sampled addresses"
	fi
	if [ -z "$O_WHY" ]; then
		n=$(python3 "$BENCH_DIR/rejit.py" "$TMPD/acc.opjit.out" \
			ChurnA.work ChurnB.work 2>"$TMPD/rejit.err") ||
			O_WHY=$(first_error "$TMPD/rejit.err")
	fi
	acc_cell "$REJIT_BOTH" opjit "$n" "$O_WHY" n
	rec_note "$ACC" "$REJIT_BOTH" ref "JFR names frames, not" \
		"addresses; perf reads a perf map, which has no times"
	rec_note "$ACC" "$REJIT_BOTH" cmp "-"
}

# the code cache small enough that freed code's memory is soon reused
CHURN_OPTS=(-XX:ReservedCodeCacheSize=8m)

churn_opjit() {
	O_COUNTS=''
	O_WHY=$(need_exe "$AGENT") || return 0
	ACC_OPREPORT_ARGS=(-d)
	acc_opjit javamap ChurnA.work ChurnB.work -- \
		"${PID_EXEC[@]}" "$ACC_PIDFILE" java "-agentpath:$AGENT" \
		"${CHURN_OPTS[@]}" -cp "$CHURN_CLASSES" Churn "$1" 0.25
	ACC_OPREPORT_ARGS=()
}

churn_jfr() {
	acc_jfr ChurnA.work ChurnB.work -- "${CHURN_OPTS[@]}" \
		-cp "$CHURN_CLASSES" Churn "$1" 0.25
}

acc_rejit() {
	local rep phases=24
	# a quarter second a phase, as tests/javamap runs it
	[ "$SMOKE" = 0 ] || phases=4
	for ((rep = 0; rep < RUNS; rep++)); do
		if [ -n "$CHURN_WHY" ]; then
			O_WHY=$CHURN_WHY P_WHY=$CHURN_WHY
		elif [ $((rep % 2)) = 0 ]; then
			churn_opjit "$phases"
			churn_jfr "$phases"
		else
			churn_jfr "$phases"
			churn_opjit "$phases"
		fi
		acc_rejit_record
	done
}
