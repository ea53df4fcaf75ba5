#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A program that has exec'd, run JIT code and ended before the recorder
# read a single record of it (a short run whose -g ring was read once, at
# the end) is still named by its executable: its process record gives
# the path /proc/PID/exe no longer has, so that `opreport image:NAME`
# selects its JIT samples, and the owner and start time by which a
# handler trusts its map.  The recorder is stopped (SIGSTOP) from
# before the exec until the program is a zombie, which makes the late
# read certain rather than a matter of the machine's load.
. "$(dirname "$0")/lib.sh"

jit=$WORKLOADS/jitdemo
[ "$(uname -m)" = x86_64 ] || skip "jitdemo writes x86-64 code; this is $(uname -m)"
cd "$WORK"
mkfifo go
"$OPROFILED" -g --session-dir=s -- bash -c 'echo $$ >child.pid; read -r _ <go; exec "$0" --seconds 0.3' "$jit" >out.txt 2>err.txt &
dpid=$!
cleanup_pids+=("$dpid")
for _ in $(seq 100); do [ -s child.pid ] && break; sleep 0.1; done
[ -s child.pid ] || fail "the workload did not start: $(cat err.txt)"
child=$(cat child.pid)
cleanup_pids+=("$child")
kill -STOP "$dpid"
echo go >go
# jitdemo runs 0.3 s of CPU time, then ends; the stopped recorder cannot
# reap it, and a zombie has no /proc/PID/exe
for _ in $(seq 600); do
	[ "$(sed 's/.*) //' "/proc/$child/stat" 2>/dev/null | cut -d' ' -f1)" = Z ] && break
	sleep 0.1
done
state=$(sed 's/.*) //' "/proc/$child/stat" 2>/dev/null | cut -d' ' -f1)
kill -CONT "$dpid"
[ "$state" = Z ] || fail "jitdemo did not end within 60 s (state '$state')"
! readlink "/proc/$child/exe" >/dev/null 2>&1 ||
	fail "a zombie's /proc/$child/exe still reads: this test proves nothing here"
wait "$dpid" || fail "oprofiled exited $?: $(cat err.txt)"
check_summary err.txt
dump s >d.txt
awk -v t="$child" '$1 == "process" && $3 == t' d.txt >proc.txt
[ -s proc.txt ] || fail "no process record for jitdemo (pid $child): $(grep '^process' d.txt)"
exe=$(awk '{ print $8 }' proc.txt)
[ "$exe" = "$jit" ] || fail "jitdemo's process record names '$exe' as its executable, not $jit"
echo "jitdemo, read after it ended: its executable $exe"
# its owner and start time from the zombie's /proc entry: the recorder
# reaps its command only after reading the command's last records
read -r uid start <<<"$(awk '{ print $5, $10 }' proc.txt)"
[ "$uid" = "$(id -u)" ] || fail "jitdemo's process record gives uid $uid, not $(id -u)"
[ "$start" -gt 0 ] || fail "jitdemo's process record has no start time"

# image:jitdemo selects its JIT samples, as it does for a run read live
n=$(awk -v p="$(awk '{ print $2 }' proc.txt)" '$1 == "anon" && $2 == p' d.txt | wc -l)
[ "$n" -gt 0 ] || fail "no JIT samples of jitdemo recorded"
"$OPJIT_BUILD/opreport/opreport" --session-dir=s --format=json "image:$jit" \
	>r.json 2>r.err || fail "opreport image:$jit failed: $(cat r.err)"
sel=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["anon_hidden"]["samples"])' r.json)
[ "$sel" = "$n" ] || fail "image:$jit selects $sel of jitdemo's $n JIT samples"
echo "image:$jit selects all $n of its JIT samples"
