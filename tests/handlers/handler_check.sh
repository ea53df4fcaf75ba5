#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# opjit-handler-check on every handler we ship (each rule held, status 0)
# and on test handlers that each break one rule (that rule BROKEN, status
# 1).  $1 $2 $3: the fake, fake3 and bad test handler directories.
. "$(dirname "$0")/e2e_lib.sh"
fake=${1:?usage: handler_check.sh FAKE_DIR FAKE_DIR3 BAD_DIR}
fake3=${2:?} bad=${3:?}
check=$OPJIT_BUILD/handler-api/check/opjit-handler-check
hp=$OPJIT_BUILD/lib/opjit/handlers
[ -x "$check" ] || fail "$check is not built"

# a perf map of our own, as a JIT would write it
map=$tmp/perf-4242.map
printf '1000 800 jit_lo\n1800 800 jit_hi\n7f0000000000 400 jit_far\n' >"$map"
chmod 0644 "$map"

# run NAME WANT_STATUS ARGS...: the checker, bounded in time, its table kept
run() {
	local name=$1 want=$2; shift 2
	local rc=0
	timeout 300 "$check" --timeout=5 "$@" >"$tmp/$name.out" \
		2>"$tmp/$name.err" || rc=$?
	[ "$rc" -eq "$want" ] ||
		{ cat "$tmp/$name.out" >&2; show_fail "$tmp/$name.err" \
			"$name: status $rc, expected $want"; }
}

# every shipped handler holds every rule it can be shown
n=0
for so in "$hp"/lib*.so; do
	name=$(basename "$so" .so)
	run "$name" 0 "$so"
	grep -q '^BROKEN' "$tmp/$name.out" && fail "$name: a rule broken"
	[ "$(grep -c '^held' "$tmp/$name.out")" -ge 10 ] ||
		show_fail "$tmp/$name.out" "$name: too few rules held"
	n=$((n + 1))
done
[ "$n" -ge 5 ] || fail "only $n shipped handlers found in $hp"
# perfmap is shown a map of its own: it claims and names it soundly
run perfmap-map 0 "$hp/libperfmap.so" "$map"
for rule in 'claims a process with the given maps' \
	'resolves a sorted batch soundly' \
	'resolves repeated addresses, times unsorted'; do
	grep -q "^held *$rule" "$tmp/perfmap-map.out" ||
		show_fail "$tmp/perfmap-map.out" "perfmap: '$rule' not held"
done
# the table says which handlers each rule was checked on
cat "$tmp/perfmap-map.out"

# broken NAME SO RULE [ARGS...]: RULE broken and no earlier rule
broken() {
	local name=$1 so=$2 rule=$3; shift 3
	run "$name" 1 "$@" "$so"
	grep -q "^BROKEN *$rule" "$tmp/$name.out" ||
		show_fail "$tmp/$name.out" "$name: '$rule' not broken"
	[ "$(grep -c '^BROKEN' "$tmp/$name.out")" -eq 1 ] ||
		show_fail "$tmp/$name.out" "$name: more than '$rule' broken"
}
broken noentry "$fake/libnoentry.so" 'exports opjit_handler_entry'
broken nulltable "$fake/libnulltable.so" 'exports opjit_handler_entry'
broken wrongmajor "$fake/libwrongmajor.so" "table's ABI major"
broken tiny "$fake/libtiny.so" "table's abi_minor and struct_size"
broken disagrees "$fake3/libdisagrees.so" "table's abi_minor and struct_size"
broken legacy "$fake3/liblegacy.so" "table's abi_minor and struct_size"
broken requires "$fake3/librequires.so" 'requires no feature'
broken misnamed "$fake/libmisnamed.so" "table's name"
broken noclaim "$fake/libnoclaim.so" 'claim, resolve and release'
broken segv-claim "$bad/libsegv-claim.so" 'claim answers' --comm=any
# (it spins until the deadline: a second tells a hang, and the last
# --timeout given is the one taken)
broken loop-claim "$bad/libloop-claim.so" 'claim answers' --comm=any --timeout=1
broken exit-claim "$bad/libexit-claim.so" 'claim answers' --comm=any
# keeps what claim made in globals: processes claimed at once name each
# other's code
broken shared "$fake3/libshared.so" 'claims and resolves from threads' --comm=any
grep -Eq "^BROKEN .* tgid [0-9]+: 0x1000 named 'shared:[0-9]+' at once, 'shared:[0-9]+' alone$" \
	"$tmp/shared.out" || show_fail "$tmp/shared.out" "shared: no names compared"
# an address given that no map names
run unnamed 1 --addr=0x10,1800 "$hp/libperfmap.so" "$map"
grep -q '^BROKEN *names every address given with --addr *0x10 named by no map given$' \
	"$tmp/unnamed.out" || show_fail "$tmp/unnamed.out" "unnamed: 0x10 not seen"
run named 0 --addr=0x1000,1800,7f0000000100 "$hp/libperfmap.so" "$map"
grep -q '^held *names every address given' "$tmp/named.out" ||
	show_fail "$tmp/named.out" "named: the addresses given not named"
# resolving breaks the batch rules, given a map to claim
run segv-resolve 1 --comm=any "$bad/libsegv-resolve.so" "$map"
grep -q '^BROKEN *resolves a sorted batch' "$tmp/segv-resolve.out" ||
	show_fail "$tmp/segv-resolve.out" "segv-resolve: batch rule not broken"
run null-name 1 --comm=any "$bad/libnull-name.so" "$map"
grep -q '^BROKEN *resolves a sorted batch soundly *symbol at 0x[0-9a-f]* has no name' \
	"$tmp/null-name.out" ||
	show_fail "$tmp/null-name.out" "null-name: nameless symbol not seen"
echo "PASS: $n shipped handlers held every rule; each broken handler broke its rule"
