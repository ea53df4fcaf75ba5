# SPDX-License-Identifier: GPL-3.0-or-later
# run.sh's preparation: build what is missing, note the machine and the
# versions, and find out whether perf can record here.  Sourced.

# bench_build: configure and build when something the suite runs is
# missing.  Colleagues' parts may not build yet; the suite measures what
# did build and the table says what did not.
bench_build() {
	local log=$LOGDIR/build.log exe missing=0
	if [ ! -f "$BUILD/CMakeCache.txt" ]; then
		cmake -S "$SRC" -B "$BUILD" -DOPJIT_WERROR=ON >"$log" 2>&1 ||
			die "cannot configure $BUILD (log: $log)"
	fi
	for exe in "$RUSAGE" "$SPIN" "$OPROFILED" "$OPREPORT" "$THREETOONE" \
		"$JITDEMO" "$RESOLVE" "$ANON_SESSION"; do
		[ -x "$exe" ] || missing=1
	done
	if [ "$missing" = 1 ]; then
		echo "run.sh: building $BUILD (log: $log)" >&2
		cmake --build "$BUILD" -j "$(nproc)" >>"$log" 2>&1 ||
			echo "run.sh: the build failed in part;" \
				"measuring what was built (log: $log)" >&2
	fi
	if [ ! -x "$RUSAGE" ] || [ ! -x "$SPIN" ]; then
		cmake --build "$BUILD" -j "$(nproc)" \
			--target bench_rusage bench_spin >>"$log" 2>&1 ||
			die "cannot build the suite's own helpers (log: $log)"
	fi
	bench_build_java
}

# the Java workloads are compiled here rather than by CMake, which builds
# C: ours, and tests/javamap's two-hot-method and re-jitting ones
JAVA_WHY='' CHURN_WHY='' HOT_WHY=''
bench_build_java() {
	local src=$BENCH_DIR/workloads/BenchHot.java
	local class=$CLASSES/BenchHot.class
	if ! command -v javac >/dev/null || ! command -v java >/dev/null; then
		JAVA_WHY="no JDK (javac, java) on PATH"
		CHURN_WHY=$JAVA_WHY HOT_WHY=$JAVA_WHY
		return
	fi
	if [ ! -f "$class" ] || [ "$src" -nt "$class" ]; then
		mkdir -p "$CLASSES" &&
			javac -d "$CLASSES" "$src" 2>"$LOGDIR/javac.log" ||
			JAVA_WHY=$(failure javac $? "$LOGDIR/javac.log")
	fi
	bench_build_churn
}

# javac_into DIR SOURCE...: compile tests/javamap workloads into DIR
# unless up to date; print the reason and fail when they cannot be had
javac_into() {
	local dir=$1 f stamp
	shift
	for f in "$@"; do
		[ -f "$f" ] || { echo "needs ${f#"$SRC"/}, which is missing"; \
			return 1; }
	done
	stamp=$dir/.built
	if [ -f "$stamp" ] && [ -z "$(find "$@" -newer "$stamp")" ]; then
		return 0
	fi
	mkdir -p "$dir" && javac -d "$dir" "$@" 2>"$dir.log" ||
		{ failure javac $? "$dir.log"; return 1; }
	touch "$stamp"
}

bench_build_churn() {
	local src=$SRC/tests/javamap/java
	CHURN_CLASSES=$BUILD/tests/bench/churn-classes
	HOT_CLASSES=$BUILD/tests/bench/hot-classes
	CHURN_WHY=$(javac_into "$CHURN_CLASSES" "$src/Churn.java" \
		"$src/ChurnA.java" "$src/ChurnB.java")
	HOT_WHY=$(javac_into "$HOT_CLASSES" "$src/Hot.java")
}

# version_of CMD ARGS...: the first line CMD prints about its version
version_of() {
	command -v "$1" >/dev/null || { echo "not installed"; return; }
	"$@" 2>&1 | grep -v '^\s*$' | head -n 1
}

bench_meta() {
	local commit cpu mem os mode
	commit=$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null ||
		echo unknown)
	git -C "$SRC" diff --quiet HEAD 2>/dev/null ||
		commit="$commit (with uncommitted changes)"
	cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)
	mem=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' \
		/proc/meminfo)
	os=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")
	mode=full
	[ "$SMOKE" = 0 ] ||
		mode="smoke (checks the suite works; its figures mean nothing)"
	[ "$QUICK" = 0 ] ||
		mode="quick (small sizes, to look at while working)"
	mode+=", $RUNS run(s) per figure"
	# growth has a count of its own, its runs being long
	[[ ",$SECTIONS," != *,growth,* ]] ||
		mode+=" (growth: $GROWTH_RUNS run(s) of each size)"
	rec_meta "date" "$(date -u '+%Y-%m-%d %H:%M UTC')"
	rec_meta "command" "\`$COMMAND_LINE\`"
	rec_meta "mode" "$mode"
	rec_meta "machine" "$cpu, $(nproc) CPUs, $mem; shared with other" \
"work, so read the ratios, not the times"
	rec_meta "system" "$os, Linux $(uname -r)," \
"perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)," \
"perf_event_max_sample_rate" \
"$(cat /proc/sys/kernel/perf_event_max_sample_rate)"
	rec_meta "opjit" "commit $commit, build $BUILD"
	rec_meta "compiler" "$(version_of gcc --version)"
	rec_meta "perf" "$(version_of perf --version)"
	rec_meta "node" "$(version_of node --version)"
	rec_meta "java" "$(version_of java -version)"
}

# perf must be able to record a software event here, or every reference
# cell says why not
PERF_WHY=''
bench_perf_check() {
	if ! command -v perf >/dev/null; then
		PERF_WHY="perf is not installed (Debian package linux-perf)"
		return
	fi
	if ! perf record -q -e cpu-clock -o "$TMPD/check.data" -- true \
		>/dev/null 2>"$TMPD/check.err"; then
		PERF_WHY="perf record does not work here:"
		PERF_WHY+=" $(first_error "$TMPD/check.err")"
	fi
	rm -f "$TMPD/check.data"
}
