#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A JIT vendor's view: install opjit into a fresh prefix, build the
# example handler out of tree from the installed header and pkg-config
# file alone, check it exports only its entry point, that opreport lists
# it, and that the installed opreport names samples through it, with the
# host's trust rules in front of its file.
. "${BASH_SOURCE[0]%/*}/../lib/e2e.sh"
: "${OPJIT_BUILD:?}" "${OPJIT_SOURCE:?}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$OPJIT_BUILD" --prefix "$tmp/prefix" \
	>"$tmp/install.log" 2>&1 ||
	show_fail "$tmp/install.log" "cmake --install failed"
pc=$(find "$tmp/prefix" -name opjit-handler.pc | head -n 1)
[ -n "$pc" ] || fail "no opjit-handler.pc under $tmp/prefix"
pcdir=${pc%/*}
PKG_CONFIG_PATH=$pcdir pkg-config --cflags opjit-handler |
	grep -q -- "-I$tmp/prefix/include" ||
	fail "opjit-handler.pc does not name $tmp/prefix/include"

# out of tree: a copy of the example, nothing from the source tree, built
# by the command handler-api/README.md gives, verbatim but for the prefix,
# with PKG_CONFIG_PATH on make's command line only (make before 4.4 does
# not pass it on to $(shell))
cp -r "$OPJIT_SOURCE/handler-api/example" "$tmp/example"
doc=$(sed -n '/^## The example/,$p' "$OPJIT_SOURCE/handler-api/README.md")
build=$(printf '%s\n' "$doc" | grep -m1 '^make -C example PKG_CONFIG_PATH=') ||
	fail "handler-api/README.md gives no make -C example command"
build=$(printf '%s\n' "$build" |
	sed "s|PKG_CONFIG_PATH=[^ ]*|PKG_CONFIG_PATH=$pcdir|")
(cd "$tmp" && env -u PKG_CONFIG_PATH sh -c "$build") \
	>"$tmp/make.log" 2>&1 ||
	show_fail "$tmp/make.log" "the README's '$build' fails"
[ -f "$tmp/example/libexample.so" ] ||
	show_fail "$tmp/make.log" "the README's '$build' made no libexample.so"
make -C "$tmp/example" PKG_CONFIG_PATH="$pcdir" clean >/dev/null
env -u PKG_CONFIG_PATH make -C "$tmp/example" PKG_CONFIG_PATH="$pcdir" \
	CFLAGS="-O2 -Wall -Wextra -Werror" >"$tmp/make.log" 2>&1 ||
	show_fail "$tmp/make.log" \
		"the example does not build against the installed prefix"
grep -q -- "-I$tmp/prefix/include" "$tmp/make.log" ||
	fail "the example was not compiled against the installed header"
grep -q -- "--version-script=$tmp/prefix/" "$tmp/make.log" ||
	fail "the example was not linked with the installed version script"

so=$tmp/example/libexample.so
[ -f "$so" ] || fail "make did not produce libexample.so"
# version nodes (type A) are not symbols a caller can bind to
exports=$(nm -D --defined-only --without-symbol-versions "$so" |
	awk '$2 != "A" {print $3}' | sort -u)
[ "$exports" = opjit_handler_entry ] ||
	fail "libexample.so exports more than opjit_handler_entry: $exports"

opreport=$OPJIT_BUILD/opreport/opreport
if [ ! -x "$opreport" ]; then
	echo "SKIP: $opreport is not built, so --list-handlers was not" \
		"checked (the example built and exports only its entry" \
		"point)" >&2
	exit 77
fi
out=$("$opreport" --list-handlers --handler-path="$tmp/example" 2>"$tmp/err") ||
	show_fail "$tmp/err" "opreport --list-handlers failed"
printf '%s\n' "$out" | grep -q "^example[[:space:]].*$so.*ABI 1\.[0-9]" ||
	{ printf '%s\n' "$out" >&2;
	  fail "opreport --list-handlers does not list $so"; }
if grep -q "libexample.so" "$tmp/err"; then
	cat "$tmp/err" >&2
	fail "opreport refused the example handler"
fi

# run from the build tree, opreport finds the handlers built next to it;
# installed, it never looks there
out=$(env -u OPJIT_HANDLER_PATH "$opreport" --list-handlers 2>/dev/null)
printf '%s\n' "$out" |
	grep -q "^perfmap[[:space:]]$OPJIT_BUILD/lib/opjit/handlers/" ||
	{ printf '%s\n' "$out" >&2;
	  fail "opreport run uninstalled does not list the built perfmap"; }
installed=$(find "$tmp/prefix" -path '*/bin/opreport' | head -n 1)
[ -x "$installed" ] || fail "opreport was not installed under $tmp/prefix"
out=$(env -u OPJIT_HANDLER_PATH "$installed" --list-handlers 2>&1 || true)
if printf '%s\n' "$out" | grep -q -- "$OPJIT_BUILD"; then
	printf '%s\n' "$out" >&2
	fail "an installed opreport looks into the build tree"
fi
# the README's listing command, verbatim, run where it builds the example
list=$(printf '%s\n' "$doc" |
	grep -m1 '^opreport --list-handlers --handler-path=example$') ||
	fail "handler-api/README.md gives no opreport --list-handlers command"
out=$(cd "$tmp" && PATH=${installed%/*}:$PATH env -u OPJIT_HANDLER_PATH \
	sh -c "$list" 2>&1) ||
	{ printf '%s\n' "$out" >&2; fail "the README's '$list' fails"; }
printf '%s\n' "$out" |
	grep -Eq "^example[[:space:]]+(example|$tmp/example)/libexample\.so[[:space:]]" ||
	{ printf '%s\n' "$out" >&2; fail "the README's '$list' lists no example"; }
# a report through it: a process whose pid no process can hold (above any
# pid_max), five samples, a perf map naming four of them with node's
# names and the JVM's (-XX:+DumpPerfMapAtExit: 0x-prefixed, the method
# with its return and parameter types), which hold spaces
mksession=$OPJIT_BUILD/tests/opreport/mksession
[ -x "$mksession" ] || fail "$mksession is not built"
pid=4194300
syms=/tmp/example-$pid.syms
[ ! -e "$syms" ] || fail "$syms is in the way; remove it and run again"
trap 'rm -rf "$tmp"; rm -f "$syms"' EXIT
# the README's report command, verbatim, where it builds the example: the
# session is ./oprofile_data there
report=$(printf '%s\n' "$doc" |
	grep -m1 '^opreport -l --anon-handler=example --handler-path=example$') ||
	fail "handler-api/README.md gives no opreport -l --anon-handler=example command"
run_report() {
	(cd "$tmp" && PATH=${installed%/*}:$PATH env -u OPJIT_HANDLER_PATH \
		sh -c "$report")
}
"$mksession" "$tmp/oprofile_data" <<EOS
process a $pid $(id -u) exjit /usr/bin/exjit start_unix_ns 1 range 0x7e0000000000-0x7e0000010000
anon a 1 0x7e0000000010 $pid
anon a 2 0x7e0000000020 $pid
anon a 3 0x7e0000000900 $pid
anon a 4 0x7e0000000a04 $pid
anon a 5 0x7e0000000b10 $pid
EOS
printf '%s\n' '7e0000000000 100 JS:*ex_fn /app/x.js:2:17' \
	'7e0000000a00 10 Function:~second /app/y.js:1:1' \
	'0x00007e0000000b00 0x0000000000000040 long Hot.hot(long, int)' >"$syms"
chmod 0644 "$syms"
run_report >"$tmp/rep.txt" 2>"$tmp/rep.err" ||
	show_fail "$tmp/rep.err" "the installed opreport failed with the example"
grep -Eq "^2 .* jit:example \(tgid:$pid exjit\) +JS:\*ex_fn /app/x\.js:2:17$" \
	"$tmp/rep.txt" ||
	show_fail "$tmp/rep.txt" "the example did not name JS:*ex_fn's two samples"
grep -Eq "^1 .* jit:example \(tgid:$pid exjit\) +Function:~second /app/y\.js:1:1$" \
	"$tmp/rep.txt" ||
	show_fail "$tmp/rep.txt" "the example stopped reading after a name with spaces"
grep -Eq "^1 .* jit:example \(tgid:$pid exjit\) +long Hot\.hot\(long, int\)$" \
	"$tmp/rep.txt" ||
	show_fail "$tmp/rep.txt" "the example did not name the JVM's Hot.hot"
want="opreport: tgid $pid (exjit): 1 of 5 JIT samples unnamed: 1 no entry"
[ "$(cat "$tmp/rep.err")" = "$want" ] ||
	show_fail "$tmp/rep.err" "want only: $want"
# the host's trust rules guard the example's file too
chmod 0666 "$syms"
run_report >"$tmp/rep.txt" 2>"$tmp/rep.err" ||
	show_fail "$tmp/rep.err" "the installed opreport failed with the example"
grep -qx "opreport: example: $syms: writable by group or others \
(trust rule: mode)" "$tmp/rep.err" ||
	show_fail "$tmp/rep.err" "no refusal of the world-writable $syms"
grep -qx "opreport: tgid $pid (exjit): 5 of 5 JIT samples unnamed: 5 map \
refused" "$tmp/rep.err" ||
	show_fail "$tmp/rep.err" "no summary line for the refused map"
grep -q ex_fn "$tmp/rep.txt" &&
	show_fail "$tmp/rep.txt" "samples named from the world-writable $syms"
echo "example handler built out of tree against $tmp/prefix, listed, and" \
	"named samples through the installed opreport"
