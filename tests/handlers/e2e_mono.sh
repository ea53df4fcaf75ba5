#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Mono's --jitmap perf map, when Mono is installed: the JIT-compiled
# Hot.hot must be named through the perfmap handler with the share Linux
# perf gives it from the same kind of run.
. "$(dirname "$0")/e2e_lib.sh"
need_cmd mono mono-runtime
need_cmd mcs mono-mcs
need_cmd perf linux-perf

mcs -out:"$tmp/hot.exe" "$here/hot.cs" >"$tmp/mcs.out" 2>&1 ||
	show_fail "$tmp/mcs.out" "mcs cannot compile hot.cs"
compare_with_perf Hot.hot 'Hot[.:]+hot' mono --jitmap "$tmp/hot.exe" 3
