#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A relocated install works: `cmake --install --prefix P` into a prefix
# the build was not configured for, then a JIT profiled through P/bin
# alone (profile_installed.sh), with the build tree out of sight.
. "${BASH_SOURCE[0]%/*}/../lib/e2e.sh"
: "${OPJIT_BUILD:?}" "${OPJIT_SOURCE:?}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$OPJIT_BUILD" --prefix "$tmp/p" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "cmake --install failed"; }

# no installed text file (pkg-config, launcher) may name the build tree;
# the programs find P's handlers, not the configured prefix's
configured=$(sed -n 's/^CMAKE_INSTALL_PREFIX:[A-Z]*=//p' "$OPJIT_BUILD/CMakeCache.txt")
if grep -rlI -- "$OPJIT_BUILD" "$tmp/p" >"$tmp/hits"; then
	cat "$tmp/hits" >&2
	fail "installed files name the build tree $OPJIT_BUILD"
fi
out=$(env -u OPJIT_HANDLER_PATH "$tmp/p/bin/opreport" --list-handlers 2>&1) ||
	fail "installed opreport --list-handlers failed: $out"
printf '%s\n' "$out" | grep -q "^perfmap[[:space:]]$tmp/p/" ||
	{ printf '%s\n' "$out" >&2;
	  fail "opreport installed in $tmp/p does not list $tmp/p's perfmap" \
		"(configured prefix $configured)"; }

env -u OPJIT_HANDLER_PATH PATH="$tmp/p/bin:/usr/bin:/bin" \
	JITDEMO="$OPJIT_BUILD/tests/workloads/jitdemo" \
	bash "$OPJIT_SOURCE/tests/e2e/profile_installed.sh"
