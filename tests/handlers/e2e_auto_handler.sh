#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# First contact, finding 2: nothing was named unless the user knew which
# handler to ask for.  Two node processes in one session, one writing a
# perf map (--perf-basic-prof), one a jitdump (--perf-prof):
# --anon-handler=auto names each through the handler its own files call
# for, and the block after -l names the handler of each; a third writing
# both is named by jitdump, which auto offers it first (a jitdump knows
# what code lived at an address when, a perf map only the last); under
# --anon-handler=perfmap the jitdump process is unclaimed and the block
# says which handler would read it.
. "$(dirname "$0")/e2e_lib.sh"
need_cmd node nodejs

mkdir -p "$tmp/run" "$tmp/both"
(cd "$tmp/run" && "$oprofiled" --session-dir="$tmp/s" -- sh -c \
	"node --perf-basic-prof '$here/fib.js' 2 & node --perf-prof '$here/fib.js' 2 &
	(cd '$tmp/both' && node --perf-prof --perf-basic-prof '$here/fib.js' 1); wait") \
	>"$tmp/rec.out" 2>&1 || show_fail "$tmp/rec.out" "oprofiled failed on node"
ls "$tmp/run"/jit-*.dump >/dev/null 2>&1 ||
	fail "node --perf-prof wrote no jit-<pid>.dump"
dump_pid=$(ls "$tmp/run"/jit-*.dump | head -1 | sed 's/.*jit-\([0-9]*\)\.dump/\1/')
both_pid=$(ls "$tmp/both"/jit-*.dump | head -1 | sed 's/.*jit-\([0-9]*\)\.dump/\1/')
[ -n "$both_pid" ] || fail "node --perf-prof --perf-basic-prof wrote no jit-<pid>.dump"
forget_maps_of "$both_pid"
[ -f "/tmp/perf-$both_pid.map" ] || fail "node --perf-prof --perf-basic-prof wrote no perf map"

"$opreport" --session-dir="$tmp/s" -l --anon-handler=auto >"$tmp/auto.txt" \
	2>"$tmp/auto.err" || show_fail "$tmp/auto.err" "--anon-handler=auto failed"
report_pids_txt() { grep -o 'tgid [0-9]* (node)' "$1" | cut -d' ' -f2 | sort -u; }
forget_maps_of $(report_pids_txt "$tmp/auto.txt")
sed -n '/^names of anonymous samples, by process:$/,$p' "$tmp/auto.txt" >"$tmp/block"
grep -qE "^tgid $dump_pid \(node\): [0-9]+ samples, [0-9]+ named by jitdump" "$tmp/block" ||
	show_fail "$tmp/auto.txt" "auto: the --perf-prof process (tgid $dump_pid) is not named by jitdump"
grep -E '^tgid [0-9]+ \(node\): [0-9]+ samples, [0-9]+ named by perfmap' "$tmp/block" |
	grep -Ev "^tgid ($dump_pid|$both_pid) " | grep -q . ||
	show_fail "$tmp/auto.txt" "auto: the --perf-basic-prof process is not named by perfmap"
grep -qE "^tgid $both_pid \(node\): [0-9]+ samples, [0-9]+ named by jitdump" "$tmp/block" ||
	show_fail "$tmp/auto.txt" "auto: the process with a jitdump and a perf map (tgid $both_pid) is not named by jitdump"
grep -qE 'jit:jitdump \(tgid:[0-9]+ node\) +node +JS:[*~^+]?fib' "$tmp/auto.txt" ||
	show_fail "$tmp/auto.txt" "auto: no fib row named by jitdump"
grep -qE 'jit:perfmap \(tgid:[0-9]+ node\) +node +JS:[*~^+]?fib' "$tmp/auto.txt" ||
	show_fail "$tmp/auto.txt" "auto: no fib row named by perfmap"
echo "ok: --anon-handler=auto names each process by its own files"

"$opreport" --session-dir="$tmp/s" -l --anon-handler=perfmap >"$tmp/pm.txt" \
	2>"$tmp/pm.err" || show_fail "$tmp/pm.err" "--anon-handler=perfmap failed"
grep -qxE "tgid $dump_pid \(node\): [0-9]+ samples, none named: no handler claimed the process; its jitdump would be read by --anon-handler=jitdump" "$tmp/pm.txt" ||
	show_fail "$tmp/pm.txt" "perfmap: the unclaimed process does not say which handler would read it"
"$opreport" --session-dir="$tmp/s" -l --format=json --anon-handler=perfmap \
	>"$tmp/pm.json" 2>/dev/null || fail "--format=json --anon-handler=perfmap failed"
python3 - "$tmp/pm.json" "$dump_pid" <<'EOP' || fail "json: naming.would_claim is not jitdump"
import json, sys
nm = {n["tgid"]: n for n in json.load(open(sys.argv[1]))["naming"]}
n = nm[int(sys.argv[2])]
assert n["status"] == "unclaimed" and n["would_claim"] == "jitdump", n
EOP
echo "ok: an unclaimed process says which handler would claim it"

# the order is documented, and the man page and --help say auto
grep -q 'jitdump, jitlog, javamap, pypy, perfmap' "$OPJIT_SOURCE/opreport/opreport.1" ||
	fail "opreport.1 does not give auto's order"
# read whole first: grep -q would stop the pipe early, and pipefail
# would count opreport's broken pipe as a failure
help=$("$OPJIT_BUILD/opreport/opreport" --help)
grep -q 'auto' <<<"$help" ||
	fail "opreport --help does not mention auto"
echo "ok: auto's order is documented"
