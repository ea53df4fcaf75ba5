#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole chain for the two hard ways a map is made: an agent attached
# to a JVM that was already running under oprofiled (its code from before
# the attach is replayed and still names the early samples), and a JVM
# killed with SIGKILL (the map ends wherever the last flush left it).
. "$(dirname "$0")/lib.sh"
jm_need_java
jm_need_profiler
command -v jcmd >/dev/null ||
	skip "no jcmd on PATH (install openjdk-17-jdk-headless)"
jm_workdir
cd "$JM_WORK"
tgids=()
cleanup() {
	local t
	rm -rf "$JM_WORK"
	for t in "${tgids[@]}"; do rm -f "/tmp/anon.$t"; done
}
trap cleanup EXIT

# check_hot SESSION WHAT: alpha and beta named, about 3:1
check_hot() {
	local s=$1 what=$2
	jm_report "$s" -l --format=json >"$s.json" 2>"$s.rep.err" ||
		fail "$what: opreport failed: $(cat "$s.rep.err")"
	local tgid
	tgid=$(jm_tgid "$s.json") ||
		fail "$what: no JVM rows named by javamap: $(cat "$s.rep.err")"
	tgids+=("$tgid")
	local why="$what: alpha and beta not named 3:1"
	python3 - "$s.json" "$what" <<'PY' || fail "$why"
import json, sys
rep = json.load(open(sys.argv[1]))
n = {}
for r in rep["symbols"]:
    if r.get("handler") == "javamap":
        n[r["symbol"]] = n.get(r["symbol"], 0) + r["samples"]
a, b = n.get("Hot.alpha(long)", 0), n.get("Hot.beta(long)", 0)
total = sum(n.values())
print(f"{sys.argv[2]}: alpha {a}, beta {b} of {total} samples "
      "named by javamap")
sys.exit(0 if b and a + b > total / 2 and 2 <= a / b <= 4.5 else 1)
PY
}

# 1. attach while oprofiled records
jm_profile "$JM_WORK/att" bash -c '
	java -cp classes Hot 5 & p=$!
	for i in $(seq 1 100); do
		jcmd $p VM.version >/dev/null 2>&1 && break
		sleep 0.1
	done
	sleep 1.5
	jcmd $p JVMTI.agent_load "$0" >/dev/null || exit 1
	wait $p' "$JM_AGENT"
expect_grep '^hot done$' "$JM_WORK/att.out" "Hot did not run to its end"
check_hot "$JM_WORK/att" "attached"

# 2. SIGKILL while oprofiled records, once the JVM has had 3 s of CPU
# (its own clock: on a busy machine 3 s of wall time can end before Hot
# has run at all)
jm_profile "$JM_WORK/kill" bash -c '
	java -agentpath:"$0" -cp classes Hot 60 & p=$!
	hz=$(getconf CLK_TCK)
	for i in $(seq 1 600); do
		read -r -a st 2>/dev/null </proc/$p/stat || break
		# utime and stime, fields 14 and 15 (the name has no spaces)
		[ $((st[13] + st[14])) -ge $((3 * hz)) ] && break
		sleep 0.1
	done
	kill -9 $p
	wait $p
	exit 0' "$JM_AGENT"
check_hot "$JM_WORK/kill" "killed"
n=$(grep -c 'javamap' "$JM_WORK/kill.rep.err" || true)
[ "$n" -le 1 ] || fail "more than one javamap warning for a killed" \
	"JVM's map: $(cat "$JM_WORK/kill.rep.err")"
echo "$JM_NAME: ok"
