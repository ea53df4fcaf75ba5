#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The agent alone: run the workloads with it, then read the map back with
# the handler's own parser (jmdump) and check what a user would rely on:
# Java names, source files and lines, inlined frames, stubs, CLOCK_MONOTONIC
# times, the file's mode, and inline=no.  The agent writes through
# libopjit-jitlog, so this is also that library on a real JIT.
. "$(dirname "$0")/lib.sh"
jm_need_java
jm_workdir

t0=$(mono_ns)
# frame pointers kept: the agent has nothing to say on stderr
java -XX:+PreserveFramePointer -agentpath:"$JM_AGENT" -cp "$JM_WORK/classes" Hot 2 \
	>"$JM_WORK/out" 2>"$JM_WORK/err" &
pid=$!
wait $pid || fail "java exited with $? (stderr: $(cat "$JM_WORK/err"))"
t1=$(mono_ns)
map=/tmp/anon.$pid
trap 'rm -rf "$JM_WORK" "$map"' EXIT
expect_grep '^hot done$' "$JM_WORK/out" "the workload did not finish"
[ ! -s "$JM_WORK/err" ] ||
	fail "the agent wrote to stderr: $(cat "$JM_WORK/err")"
[ -f "$map" ] || fail "no map at $map"
mode=$(stat -c %a "$map")
[ "$mode" = 644 ] || fail "$map has mode $mode, want 644"
[ "$(stat -c %u "$map")" = "$(id -u)" ] ||
	fail "$map is not owned by uid $(id -u)"

"$JM_DUMP" --pcs "$map" >"$JM_WORK/dump" 2>"$JM_WORK/dump.err" ||
	fail "jmdump cannot read $map: $(cat "$JM_WORK/dump.err")"
[ ! -s "$JM_WORK/dump.err" ] ||
	fail "a whole map reads as damaged: $(cat "$JM_WORK/dump.err")"
expect_grep "^header version=2\.1 pid=$pid " "$JM_WORK/dump" "header"
expect_grep '^method Hot\.alpha\(long\) file=Hot\.java lines=[1-9]' \
	"$JM_WORK/dump" "alpha's name, file and line table"
expect_grep '^method Hot\.beta\(long\) file=Hot\.java ' "$JM_WORK/dump" "beta"
expect_grep '^code 0x[0-9a-f]+ size=[1-9][0-9]* .* Interpreter$' \
	"$JM_WORK/dump" "the interpreter"
expect_grep '^code 0x[0-9a-f]+ size=[1-9].* Hot\.alpha\(long\)$' \
	"$JM_WORK/dump" "alpha's compiled code"

# the lines of alpha's compiled code lie within alpha's body
src=$JM_JAVA_SRC/Hot.java
first=$(line_of "$src" 'static long alpha')
last=$(line_of "$src" 'static long beta')
lines=$(awk '/^code .* Hot\.alpha\(long\)$/ {on = 1; next}
	     /^code/ {on = 0}
	     on && / Hot\.alpha\(long\):[0-9]+$/ {sub(/.*:/, ""); print}' \
	     "$JM_WORK/dump" | sort -un)
[ -n "$lines" ] || fail "alpha's code has no pc with a line"
for l in $lines; do
	[ "$l" -gt "$first" ] && [ "$l" -lt "$last" ] ||
		fail "alpha's code maps to line $l," \
			"outside its body ($first-$last)"
done

# every time lies between the JVM's start and end, on CLOCK_MONOTONIC
start=$(sed -n 's/^header .* start_ns=\([0-9]*\)$/\1/p' "$JM_WORK/dump")
[ "$start" -ge "$t0" ] && [ "$start" -le "$t1" ] ||
	fail "start_ns $start is not within [$t0, $t1]"
bad=$(sed -n 's/^code .* load=\([0-9]*\) .*/\1/p' "$JM_WORK/dump" |
	awk -v a="$t0" -v b="$t1" '$1 < a || $1 > b' | head -n 3)
[ -z "$bad" ] || fail "load times outside [$t0, $t1]: $bad"

# inlining: square() inside sum()'s compiled code, innermost first
noinline_leaf=-XX:CompileCommand=quiet,dontinline,Inline::leaf
java -agentpath:"$JM_AGENT=file=$JM_WORK/inline.map" "$noinline_leaf" \
	-cp "$JM_WORK/classes" Inline >/dev/null ||
	fail "Inline failed with the agent"
"$JM_DUMP" --pcs "$JM_WORK/inline.map" >"$JM_WORK/inline.dump"
sq=$(line_of "$JM_JAVA_SRC/Inline.java" 'return leaf(x) * x')
inner="Inline\.square\(long\):$sq"
outer='Inline\.sum\(int\):[0-9]+'
expect_grep "^  pc \+[0-9]+  $inner < $outer" \
	"$JM_WORK/inline.dump" "square() inlined in sum() at its source line"

# inline=no: only the compiled method's own frames
java -agentpath:"$JM_AGENT=file=$JM_WORK/noinline.map,inline=no" \
	"$noinline_leaf" -cp "$JM_WORK/classes" Inline >/dev/null ||
	fail "Inline failed with inline=no"
"$JM_DUMP" --pcs "$JM_WORK/noinline.map" >"$JM_WORK/noinline.dump"
expect_grep '^  pc \+[0-9]+  Inline\.sum\(int\):[0-9]+$' \
	"$JM_WORK/noinline.dump" \
	"sum()'s own lines with inline=no"
! grep -q ' < ' "$JM_WORK/noinline.dump" ||
	fail "inline=no still wrote inlined frames"
echo "$JM_NAME: ok"
