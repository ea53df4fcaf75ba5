#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# node --perf-basic-prof, a runtime we did not write: the share of the
# JS fib rows opreport names through the perfmap handler must match the
# share Linux perf reports for the same workload (perf reads the same
# kind of /tmp/perf-<pid>.map itself).
. "$(dirname "$0")/e2e_lib.sh"
need_cmd node nodejs
need_cmd perf linux-perf

# V8's names for fib at any tier: JS:*fib (optimised), JS:~fib, ...
compare_with_perf fib '^(JS|LazyCompile|Function):[*~^+]?fib( |$)' \
	node --perf-basic-prof "$here/fib.js" 4
