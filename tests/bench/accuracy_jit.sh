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
				--seconds "$ACC_SECONDS" --map-file perf
		else
			P_WHY=$O_WHY
		fi
		acc_record "$fig" pair "$TRUTH"
	done
}

# acc_jfr: BenchHot under JDK Flight Recorder; sets P_COUNTS or P_WHY
acc_jfr() {
	local t=$TMPD/acc.jfr
	P_COUNTS='' P_WHY=''
	if ! command -v jfr >/dev/null; then
		P_WHY="no jfr command (JDK Flight Recorder) on PATH"
		return
	fi
	rm -f "$t.jfr"
	java "${JAVA_OPTS[@]}" \
		"-XX:StartFlightRecording=filename=$t.jfr,settings=profile" \
		-cp "$CLASSES" BenchHot "$ACC_SECONDS" >/dev/null 2>"$t.err" ||
		{ P_WHY=$(failure "java with JFR" $? "$t.err"); return; }
	jfr print --events jdk.ExecutionSample "$t.jfr" >"$t.out" \
		2>"$t.err" ||
		{ P_WHY=$(failure "jfr print" $? "$t.err"); return; }
	P_COUNTS=$(acc_counts jfr "$t.out" hotMethod coldMethod) ||
		{ P_WHY=$P_COUNTS; P_COUNTS=''; }
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
			acc_jfr
		else
			acc_jfr
			acc_java_opjit
		fi
		acc_record "$fig" pair "$TRUTH"
	done
}

# Re-jitting: code freed and new code written at the same address.  The
# truth needs a workload that does it on purpose and knows which code ran
# when; the suite drives none it did not find.
acc_rejit() {
	local fig="re-jitting: samples named after the code that ran at"
	fig+=" that address at that time"
	local why="needs a re-jit workload: jitdemo has no re-jit mode and"
	why+=" tests/javamap has none"
	if [ -x "$JITDEMO" ] &&
		"$JITDEMO" --help 2>&1 | grep -qiE 're-?jit'; then
		why="jitdemo now offers a re-jit mode;"
		why+=" the suite does not drive it yet"
	fi
	rec_why "$ACC" "$fig" opjit "$why"
	rec_note "$ACC" "$fig" ref "perf reads a perf map, which has no" \
		"times, so it cannot tell which code was at an address when"
	rec_why "$ACC" "$fig" cmp "$why"
}
