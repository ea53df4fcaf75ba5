#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every test: installs what is missing, then builds and runs ctest four
# times: the normal build (warnings as errors), an ASan+UBSan build of the
# unit suites and of the end-to-end tests of opreport, the handlers and
# oprofiled (where the pages are written, and loaded in the browsers only
# in the normal build), a ThreadSanitizer build of what runs threads, and a clang
# build of the fuzz targets that runs each one briefly (and clang's
# warnings on the rest of the tree); then the Debian packages.
# Ends with one line: "N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/scripts/setup.sh"

need_packages "${OPJIT_BUILD_PACKAGES[@]}" clang libclang-rt-14-dev \
	linux-perf nodejs python3 procps mono-runtime mono-mcs golang-go pypy3 \
	clang-format chromium firefox-esr dpkg-dev debhelper lintian fakeroot ccache
# The tests run the packages installed above, ahead of anything else on
# PATH: an interpreter's wrapper found first (a version manager's shim
# for python3, say) can cost most of a second of CPU a call, and many
# tests call python3 in loops (opreport_timeline took 33 s of CPU
# through one, 11 s without).
export PATH=/usr/bin:/bin:$PATH
export CK_FORK=no

passed=0 failed=0
ctest_wrap=() # what ctest runs under
ctest_jobs=$(nproc) # tests ctest runs at once
# timed NAME CMD...: run CMD, then say how long it took on stderr, so
# that the log shows where a run's minutes go
timed() {
	local t0=$SECONDS rc=0
	"$@" || rc=$?
	echo "$1${2:+ ${2##*/}}: $((SECONDS - t0)) s" >&2
	return "$rc"
}
# run_ctest DIR LABEL-ARGS...: run ctest, add its counts to the totals,
# print the output of failing tests.
run_ctest() {
	local dir=$1; shift
	local tag=${dir##*/}
	local log="$OPJIT_LOGDIR/$tag-ctest.log"
	local t0=$SECONDS
	"${ctest_wrap[@]}" ctest --test-dir "$dir" --output-on-failure -j "$ctest_jobs" "$@" >"$log" 2>&1 || true
	echo "ctest $tag: $((SECONDS - t0)) s" >&2
	local line total nfail
	line=$(grep -E 'tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | tail -n 1 || true)
	if [ -z "$line" ]; then
		tail -n 40 "$log" >&2
		echo "$tag: ctest did not run (log: $log)" >&2
		failed=$((failed + 1))
		return
	fi
	total=${line##* out of }
	nfail=$(sed -E 's/.* ([0-9]+) tests failed.*/\1/' <<<"$line")
	passed=$((passed + total - nfail))
	failed=$((failed + nfail))
	if [ "$nfail" -ne 0 ]; then
		sed -n '/tests passed, /,$p' "$log" >&2
		grep -B2 -A40 -E '\*\*\*(Failed|Timeout|Exception)|Failed  ' "$log" | head -n 300 >&2 || true
	fi
	# tests that skipped say so loudly
	grep -E 'Not Run|\*\*\*Skipped' "$log" >&2 || true
	echo "$tag: $line"
}

timed configure_and_build "$OPJIT_ROOT/build" -DOPJIT_WERROR=ON
# OPJIT_TEST_HOG=N: only the end-to-end tests, with N busy loops beside
# them (scripts/with-hog.sh), as on a machine shared with other work
if [ -n "${OPJIT_TEST_HOG:-}" ]; then
	ctest_wrap=("$OPJIT_ROOT/scripts/with-hog.sh" "$OPJIT_TEST_HOG")
	run_ctest "$OPJIT_ROOT/build" -L e2e
	echo "$passed passed, $failed failed, beside $OPJIT_TEST_HOG busy loops"
	[ "$failed" -eq 0 ]
	exit
fi
# The later passes' builds run at the lowest priority beside the tests
# of the pass before: ctest -j2 leaves a core idle for about a third of
# its time (tests wait on their workloads, on browsers and on each
# other), and a build there costs the run little.  Each build's status
# is read when its tests start.
# in_background NAME CMD...: CMD niced, its exit status in NAME.rc
in_background() {
	local name=$1; shift
	(
		renice -n 19 -p "$BASHPID" >/dev/null
		rc=0
		# a subshell: a step that dies still leaves its status
		("$@") || rc=$?
		echo "$rc" >"$OPJIT_LOGDIR/$name.rc"
	) &
}
# status NAME: wait for NAME's background step; its exit status
status() {
	while [ ! -s "$OPJIT_LOGDIR/$1.rc" ]; do sleep 1; done
	return "$(cat "$OPJIT_LOGDIR/$1.rc")"
}
rm -f "$OPJIT_LOGDIR"/*.rc
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT

asan_build() {
	configure_and_build "$OPJIT_ROOT/build-asan" -DOPJIT_WERROR=ON -DOPJIT_SANITIZE=ON
}
# ThreadSanitizer on what promises concurrency (the checker's threads
# against every shipped handler, the jitlog library), in a tree built for
# the tsan tests alone
tsan_build() {
	bash "$OPJIT_ROOT/scripts/tsan_check.sh" --build-only "$OPJIT_ROOT/build-tsan" \
		>"$OPJIT_LOGDIR/build-tsan.log" 2>&1
}
# the fuzz targets and what they link, no more; the rest of the tree
# gets clang's warnings from its front end only (scripts/check-clang.sh:
# clang warns from nothing later, so a full build would say no more).
# -U: each target's seconds are tests/fuzz/OpjitFuzz.cmake's, not those
# an older configure left in the cache.
fuzz_build() {
	CC=clang configure_only "$OPJIT_ROOT/build-fuzz" -DOPJIT_WERROR=ON -DOPJIT_FUZZ=ON \
		-DCMAKE_EXPORT_COMPILE_COMMANDS=ON -UOPJIT_FUZZ_SECONDS
	touch "$OPJIT_LOGDIR/build-fuzz.stamp"
	build_targets "$OPJIT_ROOT/build-fuzz" fuzz_targets
}
check_clang() {
	status fuzz || return 0 # the build's failure is counted once
	bash "$OPJIT_ROOT/scripts/check-clang.sh" "$OPJIT_ROOT/build-fuzz" \
		"$OPJIT_LOGDIR/build-fuzz.stamp" >"$OPJIT_LOGDIR/check-clang.log" 2>&1
}
# the Debian packages, from a clean copy of the tree: built beside the
# ASan tests, installed and profiled at the end, when nothing else runs
package_build() {
	bash "$OPJIT_ROOT/scripts/package_test.sh" "$OPJIT_ROOT/build-deb" build \
		>"$OPJIT_LOGDIR/package.log" 2>&1
}
later_builds() {
	in_background tsan timed tsan_build
	status tsan || true
	in_background fuzz timed fuzz_build
	status fuzz || true
	in_background clang timed check_clang
}

in_background asan timed asan_build
# The tests of the normal and ASan passes wait for most of their time
# (on their workloads' clocks, on daemons, browsers and JVMs starting):
# two a core leave the cores idle for half the pass or more.  Every test
# must pass beside two busy loops, so twice as many at once is safe.
ctest_jobs=$((2 * $(nproc)))
run_ctest "$OPJIT_ROOT/build"

later_builds &
in_background package timed package_build
if status asan; then
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		run_ctest "$OPJIT_ROOT/build-asan" -L 'unit|sanitize|asan'
else
	echo "build-asan: the build failed (log: $OPJIT_LOGDIR/build-asan-build.log)" >&2
	failed=$((failed + 1))
fi

ctest_jobs=$(nproc)
if status tsan; then
	run_ctest "$OPJIT_ROOT/build-tsan" -L tsan
else
	tail -n 40 "$OPJIT_LOGDIR/build-tsan.log" >&2
	echo "build-tsan: the build failed (log: $OPJIT_LOGDIR/build-tsan.log)" >&2
	failed=$((failed + 1))
fi

# the packages: lintian-clean, installed, the autopkgtest run through
# them, purged (one step with their build, one count).  Installed only
# once no test of the tree runs, but beside the fuzz targets, which run
# no installed program and take their seconds by the clock whatever the
# load (their floors are their seeds'): at their priority, so that the
# check does not wait for them.
t0=$SECONDS
package_check() {
	status package || return
	bash "$OPJIT_ROOT/scripts/package_test.sh" "$OPJIT_ROOT/build-deb" check \
		>>"$OPJIT_LOGDIR/package.log" 2>&1
}
(
	rc=0
	package_check || rc=$?
	echo "$rc" >"$OPJIT_LOGDIR/package-check.rc"
) &

if status fuzz; then
	# the fuzz targets first, with clang's warnings (niced) beside them:
	# each target runs its seconds by the clock, whatever the load, so
	# the check no longer waits at the end alone
	run_ctest "$OPJIT_ROOT/build-fuzz" -L fuzz
	if status clang; then
		passed=$((passed + 1))
		echo "check-clang: passed ($(tail -n 1 "$OPJIT_LOGDIR/check-clang.log"))"
	else
		tail -n 60 "$OPJIT_LOGDIR/check-clang.log" >&2
		echo "check-clang: failed (log: $OPJIT_LOGDIR/check-clang.log)" >&2
		failed=$((failed + 1))
	fi
else
	echo "build-fuzz: the build failed (log: $OPJIT_LOGDIR/build-fuzz-build.log)" >&2
	failed=$((failed + 1))
fi

rc=0
status package-check || rc=$?
if [ "$rc" -eq 0 ]; then
	passed=$((passed + 1))
	echo "package: passed, checked in $((SECONDS - t0)) s ($(grep -m1 'packages built in' "$OPJIT_LOGDIR/package.log"); $(grep -m1 'installed and profiled in' "$OPJIT_LOGDIR/package.log"))"
elif [ "$rc" -eq 77 ]; then
	grep SKIP "$OPJIT_LOGDIR/package.log" >&2 || true
	echo "package: skipped (log: $OPJIT_LOGDIR/package.log)" >&2
else
	tail -n 60 "$OPJIT_LOGDIR/package.log" >&2
	echo "package: failed (log: $OPJIT_LOGDIR/package.log)" >&2
	failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
