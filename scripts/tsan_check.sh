#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# ThreadSanitizer on the code that promises concurrency, affordably: a
# -DOPJIT_TSAN=ON tree in which only the target tsan_check_deps is built
# (the jitlog library's threaded unit test, opjit-handler-check, every
# shipped handler, the thread-unsafe test handler, the kit's handler and
# the workloads whose maps they read), then `ctest -L tsan` in it:
#   test_jitlog         eight writer threads, threads attaching and
#                       detaching, under ThreadSanitizer
#   tsan_handler_check  the checker's threads in step on every shipped
#                       handler with real maps, and the thread-unsafe
#                       handler caught by ThreadSanitizer's report
# Usage: scripts/tsan_check.sh [--build-only] [BUILD_DIR]
# (default build-tsan); --build-only leaves the ctest run to the caller
# (test.sh's run_ctest, which counts the tests).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

build_only=
[ "${1:-}" != --build-only ] || { build_only=1; shift; }
dir=${1:-$OPJIT_ROOT/build-tsan}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
run_logged tsan-configure cmake -S "$OPJIT_ROOT" -B "$dir" "${launcher[@]}" \
	-DOPJIT_WERROR=ON -DOPJIT_TSAN=ON
run_logged tsan-build cmake --build "$dir" -j "$(nproc)" \
	--target tsan_check_deps
[ -z "$build_only" ] || exit 0
# both tests must have run: a tree without them is a failure, not a pass
ctest --test-dir "$dir" -L tsan -j1 --output-on-failure --no-tests=error
n=$(ctest --test-dir "$dir" -L tsan -N | sed -n 's/^Total Tests: //p')
[ "${n:-0}" -ge 2 ] || die "only ${n:-0} tsan tests in $dir, 2 expected"
