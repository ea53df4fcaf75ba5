#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Attaching to a running JVM with jcmd: the agent replays the code that
# was compiled before it came (flagged as replayed), then records the
# rest; a second attach says so and changes nothing.
. "$(dirname "$0")/lib.sh"
jm_need_java
command -v jcmd >/dev/null ||
	skip "no jcmd on PATH (install openjdk-17-jdk-headless)"
jm_workdir
w=$JM_WORK

java -cp "$w/classes" Hot 6 >"$w/out" 2>"$w/err" &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true; rm -rf "$w"' EXIT
for _ in $(seq 1 100); do
	jcmd $pid VM.version >/dev/null 2>&1 && break
	sleep 0.1
done
# give the JIT time to compile the hot methods before the agent arrives
sleep 1.5
# jcmd splits NAME=VALUE arguments itself: quote the agent's options
jcmd $pid JVMTI.agent_load "$JM_AGENT" "\"file=$w/attach.map\"" \
	>"$w/jcmd1" 2>&1 || fail "jcmd agent_load failed: $(cat "$w/jcmd1")"
jcmd $pid JVMTI.agent_load "$JM_AGENT" "\"file=$w/second.map\"" \
	>"$w/jcmd2" 2>&1 ||
	fail "the second agent_load failed: $(cat "$w/jcmd2")"
wait $pid ||
	fail "the JVM exited with $? after the attach ($(cat "$w/err"))"
expect_grep '^hot done$' "$w/out" "the JVM did not run to its end"
[ ! -e "$w/second.map" ] || fail "a second attach opened a second map"
expect_grep "^javamap-agent: already recording to $w/attach\.map$" \
	"$w/err" "the second attach's line"

"$JM_DUMP" "$w/attach.map" >"$w/dump" 2>"$w/dump.err" ||
	fail "the attached agent's map does not parse: $(cat "$w/dump.err")"
[ ! -s "$w/dump.err" ] || fail "damaged: $(cat "$w/dump.err")"
expect_grep "^header version=2\.1 pid=$pid " "$w/dump" "header"
expect_grep '^code .* replayed Hot\.alpha\(long\)$' "$w/dump" \
	"alpha's code compiled before the attach, replayed"
expect_grep '^code .* replayed Interpreter$' "$w/dump" \
	"the interpreter, replayed"
expect_grep '^method Hot\.alpha\(long\) file=Hot\.java lines=[1-9]' \
	"$w/dump" "alpha's lines after an attach"
echo "$JM_NAME: ok"
