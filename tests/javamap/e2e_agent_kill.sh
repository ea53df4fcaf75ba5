#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A JVM killed with SIGKILL: the map on disk already holds what the agent
# saw up to its last timed flush, and a torn tail costs only itself, with
# one warning.
. "$(dirname "$0")/lib.sh"
jm_need_java
jm_workdir

java -agentpath:"$JM_AGENT" -cp "$JM_WORK/classes" Hot 60 \
	>"$JM_WORK/out" 2>"$JM_WORK/err" &
pid=$!
map=/tmp/anon.$pid
trap 'kill -9 $pid 2>/dev/null || true; rm -rf "$JM_WORK" "$map"' EXIT

# the JVM is alive and its buffer far from full: only the timed flush
# can bring alpha's code to disk
for _ in $(seq 1 100); do
	if [ -f "$map" ] && "$JM_DUMP" "$map" 2>/dev/null |
		grep -q '^code .* Hot\.alpha(long)$'; then
		break
	fi
	sleep 0.1
done
kill -0 $pid 2>/dev/null || fail "the JVM ended before it was killed"
kill -9 $pid
wait $pid 2>/dev/null && fail "the JVM was not killed"

"$JM_DUMP" "$map" >"$JM_WORK/dump" 2>"$JM_WORK/dump.err" ||
	fail "the killed JVM's map does not parse: $(cat "$JM_WORK/dump.err")"
[ "$(wc -l <"$JM_WORK/dump.err")" -le 1 ] ||
	fail "more than one warning: $(cat "$JM_WORK/dump.err")"
expect_grep '^code .* Hot\.alpha\(long\)$' "$JM_WORK/dump" \
	"alpha's code in the killed JVM's map"
expect_grep '^stub .* Interpreter$' "$JM_WORK/dump" "the interpreter"
records=$(sed -n 's/^records=\([0-9]*\) .*/\1/p' "$JM_WORK/dump")

# tear the last record as a crash in the middle of a write would
size=$(stat -c %s "$map")
head -c $((size - 5)) "$map" >"$JM_WORK/torn"
"$JM_DUMP" "$JM_WORK/torn" >"$JM_WORK/torn.dump" 2>"$JM_WORK/torn.err" ||
	fail "a torn map does not parse: $(cat "$JM_WORK/torn.err")"
[ "$(wc -l <"$JM_WORK/torn.err")" = 1 ] ||
	fail "want one warning for a torn map, got: $(cat "$JM_WORK/torn.err")"
expect_grep "^jmdump: $JM_WORK/torn: record at offset [0-9]+ runs 5 bytes \
past the end; keeping the $((records - 1)) records before it$" \
	"$JM_WORK/torn.err" "the torn map's warning"
expect_grep '^code .* Hot\.alpha\(long\)$' "$JM_WORK/torn.dump" \
	"what came before the tear"
echo "$JM_NAME: ok"
