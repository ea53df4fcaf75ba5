# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the javamap end-to-end tests.  Sourced, not run.
. "${BASH_SOURCE[0]%/*}/../lib/e2e.sh"

JM_AGENT=${OPJIT_BUILD:?}/lib/opjit/libjavamap-agent.so
JM_DUMP=$OPJIT_BUILD/tests/javamap/jmdump
JM_JAVA_SRC=${OPJIT_SOURCE:?}/tests/javamap/java
JM_NAME=${0##*/}

# jm_need_java: a JDK with javac, and the agent built against it
jm_need_java() {
	local jdk="install openjdk-17-jdk-headless"
	command -v java >/dev/null || skip "no java on PATH ($jdk)"
	command -v javac >/dev/null || skip "no javac on PATH ($jdk)"
	[ -f "$JM_AGENT" ] ||
		skip "$JM_AGENT was not built (no JDK headers at configure" \
			"time)"
	[ -x "$JM_DUMP" ] || fail "$JM_DUMP is missing"
}

# jm_workdir: a scratch directory, removed on exit, with the workloads
# compiled into $JM_WORK/classes
jm_workdir() {
	JM_WORK=$(mktemp -d /tmp/jm-e2e.XXXXXX)
	trap 'rm -rf "$JM_WORK"' EXIT
	mkdir "$JM_WORK/classes"
	javac -d "$JM_WORK/classes" "$JM_JAVA_SRC"/*.java ||
		fail "javac failed on $JM_JAVA_SRC"
}

# mono_ns: CLOCK_MONOTONIC now, the clock the agent stamps with
mono_ns() {
	python3 -c 'import time
print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'
}

# expect_grep PATTERN FILE WHAT
expect_grep() {
	grep -qE -- "$1" "$2" || {
		sed -n '1,40p' "$2" >&2
		fail "$3 (no line matching '$1' in $2)"
	}
}

# line_of FILE TEXT: the line number of the first line holding TEXT
line_of() {
	grep -nF -- "$2" "$1" | head -n 1 | cut -d: -f1
}

# jm_need_profiler: oprofiled and opreport from this build, and perf
# events that work here
jm_need_profiler() {
	JM_OPROFILED=$OPJIT_BUILD/daemon/oprofiled
	JM_OPREPORT=$OPJIT_BUILD/opreport/opreport
	[ -x "$JM_OPROFILED" ] || skip "$JM_OPROFILED was not built"
	[ -x "$JM_OPREPORT" ] || skip "$JM_OPREPORT was not built"
	[ -f "$OPJIT_HANDLER_PATH/libjavamap.so" ] ||
		fail "$OPJIT_HANDLER_PATH/libjavamap.so was not built"
	# every report, isolated and in-process, must come out the same
	export OPJIT_OPREPORT=$JM_OPREPORT
	JM_OPREPORT=$OPJIT_SOURCE/tests/handlers/opreport_both.sh
}

# jm_profile SESSION CMD...: record CMD under oprofiled; a machine
# without perf events is a loud skip, any other failure fails
jm_profile() {
	local session=$1; shift
	if ! "$JM_OPROFILED" --session-dir="$session" -- "$@" \
		>"$session.out" 2>"$session.err"; then
		if grep -qiE 'perf_event_open|permission|not supported' \
			"$session.err"; then
			skip "oprofiled cannot sample here:" \
				"$(head -n 1 "$session.err")"
		fi
		fail "oprofiled failed: $(cat "$session.err")"
	fi
}

# jm_tgid JSON: the JVM's tgid in an opreport --format=json report
jm_tgid() {
	# sed, not head: a reader that leaves early fails grep under pipefail
	grep -o '"jit:javamap (tgid:[0-9]*' "$1" | sed -n '1s/.*tgid://p'
}

# jm_report SESSION ARGS...: opreport with the javamap handler
jm_report() {
	local session=$1; shift
	"$JM_OPREPORT" --session-dir="$session" --anon-handler=javamap "$@"
}
