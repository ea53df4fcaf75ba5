#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every kind of page --format=html writes, by the sanitizer build's
# opreport: the flame graph of a -g and of a flat jitdemo session, of
# hostile JIT names, of a two-phase session (the timeline strip's data),
# and the differential page (--diff, and the same bytes from { } { }),
# each with no URL, the policy that forbids requests, and one end of
# its data block; the pages of made-up sessions without a word on
# stderr (a recording may have a stack cut at the depth limit).
# Registered in the sanitizer build only, in place of html.sh,
# html_diff.sh and html_firefox.sh there: what those add is a browser
# running the page's script, the same program on the same bytes in both
# builds, about 6 s of CPU a page in Chromium; the normal build loads
# every page.
. "$(dirname "$0")/lib.sh"
HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
[ -f "$HP/libperfmap.so" ] || fail "$HP/libperfmap.so is not built"
export OPJIT_HANDLER_PATH=$HP
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
JIT=$OPJIT_BUILD/tests/workloads/jitdemo
[ "$(uname -m)" = x86_64 ] || { echo "SKIP: jitdemo writes x86-64 code"; exit 77; }
[ -x "$OPROFILED" ] && [ -x "$JIT" ] || fail "oprofiled or jitdemo is not built"

. "$(dirname "$0")/page_check.sh"
echo "NOTE: pages written, not loaded: the browsers check them in the normal build (opreport_html, opreport_html_diff, opreport_html_firefox)"

cleanup_maps() {
	e2e_forget_jit_maps "$TMP/g" "$TMP/flat" "$TMP/phases"
	rm -rf "$TMP"
}
trap cleanup_maps EXIT

# html NAME OPREPORT-ARGS...: the page $TMP/NAME.html, whole; with
# QUIET=1, nothing on stderr
html() {
	local name=$1; shift
	"$OPREPORT" --anon-handler=perfmap --format=html -o "$TMP/$name.html" \
		"$@" 2>"$TMP/$name.err" ||
		{ cat "$TMP/$name.err"; fail "$name: opreport --format=html failed"; }
	[ -z "${QUIET:-}" ] || [ ! -s "$TMP/$name.err" ] || { cat "$TMP/$name.err"; fail "$name: opreport said something"; }
	no_url "$TMP/$name.html"
	# the data block ends once: at its own </script>
	[ "$(grep -c '</script>' "$TMP/$name.html")" = 2 ] ||
		fail "$name: a name ended a script block"
	grep -q '</html>' "$TMP/$name.html" || fail "$name: the page is cut short"
	echo "ok: $name: $(stat -c %s "$TMP/$name.html") bytes"
}

# record NAME ARGS...: jitdemo ARGS under oprofiled into $TMP/NAME
record() {
	local name=$1 opt=()
	shift
	[ "$name" = flat ] || opt=(-g)
	timeout 120 "$OPROFILED" "${opt[@]}" --session-dir="$TMP/$name" -- \
		"$JIT" "$@" >"$TMP/$name.out" 2>&1 ||
		{ cat "$TMP/$name.out"; fail "oprofiled $name failed"; }
}
record g --seconds 1 --threads 2
record flat --seconds 1 --threads 2
record phases --seconds 2 --phases 1
html g --session-dir="$TMP/g"
html flat --session-dir="$TMP/flat"
html phases --session-dir="$TMP/phases"
# a differential page of two real sessions
html gdiff --session-dir="$TMP/g" --diff="$TMP/phases"

# hostile names from a perf map, in a flame graph and in a differential
# page against a session of the same names at other counts
mkdir -p "$TMP/maps"
# hostile DIR PID COUNT...: a session of PID's five hostile names, with
# COUNT samples of each
hostile() {
	local dir=$1 pid=$2 t=1 i n
	shift 2
	perf_map "$TMP/maps/perf-$pid.map" 7f0000000100 "${hostile_names[@]}"
	{
		echo "separate process"
		echo "process p $pid $(id -u) jitdemo /usr/bin/jitdemo start_unix_ns 1 range 0x7f0000000000-0x7f0000100000"
		i=0
		for n in "$@"; do
			for _ in $(seq "$n"); do
				printf 'anon p %d 0x%x %d\n' $((t++)) $((0x7f0000000110 + 0x100 * i)) "$pid"
			done
			i=$((i + 1))
		done
		echo "archive p $TMP/maps/perf-$pid.map"
	} | "$MKSESSION" "$dir"
	[ -d "$dir" ] || fail "mksession $dir failed"
}
hostile "$TMP/h1" 300 1 2 3 4 5
hostile "$TMP/h2" 301 5 1 1 2 3
QUIET=1
html hostile --session-dir="$TMP/h1"
html diff --session-dir="$TMP/h2" --diff="$TMP/h1"
html braces { session:"$TMP/h1" } { session:"$TMP/h2" }
cmp -s "$TMP/diff.html" "$TMP/braces.html" ||
	fail "{ session:A } { session:B } differs from --diff"
echo PASS
