#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The JVM writing its own perf map at exit (-XX:+DumpPerfMapAtExit, the
# jcmd Compiler.perfmap dialect): the JIT-compiled Hot.hot must be named
# through the perfmap handler with the share Linux perf gives it from the
# same kind of run and the same kind of map.
. "$(dirname "$0")/e2e_lib.sh"
need_cmd perf linux-perf
jdk=/usr/lib/jvm/java-17-openjdk-amd64/bin
java=$(command -v java || echo "$jdk/java")
javac=$(command -v javac || echo "$jdk/javac")
[ -x "$java" ] && [ -x "$javac" ] ||
	skip "no JDK found (apt-get install openjdk-17-jdk-headless)"

# compiled first, so that javac's own time is in neither profile
"$javac" -d "$tmp" "$here/Hot.java" || fail "javac cannot compile Hot.java"
compare_with_perf Hot.hot 'Hot[.:]+hot' "$java" \
	-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -cp "$tmp" Hot 4
