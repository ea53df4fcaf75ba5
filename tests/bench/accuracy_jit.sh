# SPDX-License-Identifier: GPL-3.0-or-later
# Accuracy on JIT code: jitdemo's anonymous functions (perf map), the Java
# workload against JDK Flight Recorder, and the re-jitting case.  Sourced
# by run.sh after accuracy.sh.

# HotSpot would inline the two methods into main; kept apart, both
# profilers must name them, and the truth stays 75/25
JAVA_OPTS=(-XX:CompileCommand=quiet
	"-XX:CompileCommand=dontinline,BenchHot::*")

acc_jitdemo() {
	local rep fig="jitdemo (perf map): jit_hot share of jit_hot +"
	fig+=" jit_cold (truth $TRUTH%)"
	for ((rep = 0; rep < RUNS; rep++)); do
		if O_WHY=$(need_exe "$JITDEMO"); then
			# a perf map, since that is the one file perf reads too
			acc_both "$rep" perfmap jit_hot jit_cold -- \
				"${PID_EXEC[@]}" "$ACC_PIDFILE" "$JITDEMO" \
				--seconds "$ACC_NATIVE_SECONDS" --map-file perf
		else
			P_WHY=$O_WHY
		fi
		acc_record "$fig" pair "$TRUTH"
	done
}

# acc_jfr PATTERN... -- JAVA-ARGS...: java under JDK Flight Recorder;
# sets P_COUNTS or P_WHY; java's output is kept in $TMPD/acc.jfr.stdout
acc_jfr() {
	local t=$TMPD/acc.jfr
	local -a pats=()
	while [ "$1" != -- ]; do pats+=("$1"); shift; done
	shift
	P_COUNTS='' P_WHY=''
	if ! command -v jfr >/dev/null; then
		P_WHY="no jfr command (JDK Flight Recorder) on PATH"
		return
	fi
	rm -f "$t.jfr"
	# at its finest sampling period, 1 ms (profile's is 10 ms), a
	# quarter of the samples the profilers take at 4 kHz rather than a
	# fortieth; the samples row says how many
	local rec="filename=$t.jfr,settings=profile"
	rec+=",jdk.ExecutionSample#period=1ms"
	java "-XX:StartFlightRecording=$rec" \
		"$@" >"$t.stdout" 2>"$t.err" ||
		{ P_WHY=$(failure "java with JFR" $? "$t.err"); return; }
	jfr print --events jdk.ExecutionSample "$t.jfr" >"$t.out" \
		2>"$t.err" ||
		{ P_WHY=$(failure "jfr print" $? "$t.err"); return; }
	P_COUNTS=$(acc_counts jfr "$t.out" "${pats[@]}") ||
		{ P_WHY=$P_COUNTS; P_COUNTS=''; }
}

acc_java_jfr() {
	acc_jfr hotMethod coldMethod -- "${JAVA_OPTS[@]}" -cp "$CLASSES" \
		BenchHot "$ACC_SECONDS"
}

acc_java_opjit() {
	O_COUNTS=''
	O_WHY=$(need_exe "$AGENT") || return 0
	acc_opjit javamap hotMethod coldMethod -- \
		"${PID_EXEC[@]}" "$ACC_PIDFILE" java "-agentpath:$AGENT" \
		"${JAVA_OPTS[@]}" -cp "$CLASSES" BenchHot "$ACC_SECONDS"
}

acc_java() {
	local rep fig="Java BenchHot: hotMethod share of hotMethod +"
	fig+=" coldMethod (truth $TRUTH%; reference: JFR)"
	for ((rep = 0; rep < RUNS; rep++)); do
		if [ -n "$JAVA_WHY" ]; then
			O_WHY=$JAVA_WHY P_WHY=$JAVA_WHY
		elif [ $((rep % 2)) = 0 ]; then
			acc_java_opjit
			acc_java_jfr
		else
			acc_java_jfr
			acc_java_opjit
		fi
		acc_record "$fig" pair "$TRUTH"
	done
}

# tests/javamap's Hot, as the JVM runs it, inlining on: opjit must name
# inlined code through the agent's inline records
acc_javamap_hot() {
	local rep fig="Java tests/javamap Hot, inlining on: alpha share of"
	fig+=" alpha + beta (truth $TRUTH%; reference: JFR)"
	local -a args=(-cp "$HOT_CLASSES" Hot "$ACC_SECONDS")
	for ((rep = 0; rep < RUNS; rep++)); do
		O_WHY='' O_COUNTS=''
		if [ -n "$HOT_WHY" ]; then
			O_WHY=$HOT_WHY P_WHY=$HOT_WHY
		elif [ $((rep % 2)) = 0 ]; then
			javamap_hot_opjit "${args[@]}"
			acc_jfr Hot.alpha Hot.beta -- "${args[@]}"
		else
			acc_jfr Hot.alpha Hot.beta -- "${args[@]}"
			javamap_hot_opjit "${args[@]}"
		fi
		acc_record "$fig" pair "$TRUTH"
	done
}

javamap_hot_opjit() {
	O_WHY=$(need_exe "$AGENT") || return 0
	acc_opjit javamap Hot.alpha Hot.beta -- "${PID_EXEC[@]}" \
		"$ACC_PIDFILE" java "-agentpath:$AGENT" "$@"
}
