#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A JVM killed with SIGKILL: the map on disk already holds what the agent
# logged, with no flush (the log is a shared mapping of the file), and a
# torn frame costs only itself, with one warning.
. "$(dirname "$0")/lib.sh"
jm_need_java
jm_workdir

java -agentpath:"$JM_AGENT" -cp "$JM_WORK/classes" Hot 60 \
	>"$JM_WORK/out" 2>"$JM_WORK/err" &
pid=$!
map=/tmp/anon.$pid
trap 'kill -9 $pid 2>/dev/null || true; rm -rf "$JM_WORK" "$map"' EXIT

# the JVM is alive and never flushed: what the reader sees, the agent
# wrote
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
expect_grep '^code .* Interpreter$' "$JM_WORK/dump" "the interpreter"
records=$(sed -n 's/^records=\([0-9]*\) .*/\1/p' "$JM_WORK/dump")
bytes=$(sed -n 's/^records=.* bytes=\([0-9]*\)$/\1/p' "$JM_WORK/dump")

# tear the last frame, as a disk that lost a block would: its last 8
# bytes hold record bytes whatever its padding
cp "$map" "$JM_WORK/torn"
python3 - "$JM_WORK/torn" $((bytes - 8)) <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2]))
    b = f.read(1)[0]
    f.seek(int(sys.argv[2]))
    f.write(bytes([b ^ 0xFF]))
PY
"$JM_DUMP" "$JM_WORK/torn" >"$JM_WORK/torn.dump" 2>"$JM_WORK/torn.err" ||
	fail "a torn map does not parse: $(cat "$JM_WORK/torn.err")"
[ "$(wc -l <"$JM_WORK/torn.err")" = 1 ] ||
	fail "want one warning for a torn map, got: $(cat "$JM_WORK/torn.err")"
expect_grep "^jmdump: $JM_WORK/torn: frame at offset [0-9]+ is torn \
\(its check fails\); keeping the $((records - 1)) records before it$" \
	"$JM_WORK/torn.err" "the torn map's warning"
expect_grep '^code .* Hot\.alpha\(long\)$' "$JM_WORK/torn.dump" \
	"what came before the tear"
echo "$JM_NAME: ok"
