#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A JIT in its own pid and mount namespaces, with a private /tmp: the
# session records its namespace pid and other mount namespace, and
# archives the map it wrote under its own root and pid, even though that
# /tmp vanishes with the namespace.
. "$(dirname "$0")/lib.sh"

[ "$(uname -m)" = x86_64 ] || skip "jitdemo writes x86-64 code; this is $(uname -m)"
[ "$(id -u)" -eq 0 ] || skip "needs root to create namespaces"
command -v unshare >/dev/null || skip "no unshare(1) to make a container"
unshare --mount --pid --fork --mount-proc true 2>/dev/null ||
	skip "cannot create pid and mount namespaces here"
cd "$WORK"
"$OPROFILED" --session-dir=s -- unshare --mount --pid --fork --mount-proc \
	sh "$OPJIT_SOURCE/tests/private_tmp.sh" "$WORKLOADS/jitdemo" \
	--seconds 1 --map-file perf >out.txt 2>err.txt ||
	fail "oprofiled exited $?: $(cat err.txt)"
check_summary err.txt
read -r _ lo _ <<<"$(grep '^jit-range ' out.txt)"
[ -n "$lo" ] || fail "jitdemo printed no range: $(cat out.txt)"
dump s >d.txt
read -r proc tgid nspid flags <<<"$(awk -v e="$WORKLOADS/jitdemo" \
	'$1 == "process" && $8 == e { print $2, $3, $4, $6; exit }' d.txt)"
[ -n "$proc" ] || fail "no process record for the contained jitdemo"
echo "jitdemo: pid $tgid, $nspid in its namespace, flags $flags"
[ "$nspid" -eq 1 ] || fail "namespace pid $nspid, not 1"
[ "$tgid" -ne 1 ] || fail "host pid recorded as 1"
[ $((flags & 1)) -eq 1 ] || fail "not marked as living in another mount namespace"
copy=$(awk -v p="$proc" '$1 == "archived" && $2 == p { print $3 }' d.txt)
case $copy in
*/perf-1.map.gz) ;;
*) fail "archived '$copy', not the container's perf-1.map, compressed" ;;
esac
case $copy in /*) ;; *) copy=$WORK/$copy ;; esac
printf '%x 40 jit_hot\n%x 40 jit_cold\n' $((lo)) $((lo + 64)) >want.map
gzip -dc "$copy" | cmp -s want.map - ||
	fail "archived map differs from what jitdemo wrote: $(gzip -dc "$copy")"
echo pass
