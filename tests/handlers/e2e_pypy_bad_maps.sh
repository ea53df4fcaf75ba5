#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Damaged and hostile PyPy maps: malformed lines, a torn last line (map
# and log), a map another process wrote, a planted symbolic link.  Each
# gives one warning line naming the file, and what can still be named
# is named.
. "$(dirname "$0")/e2e_lib.sh"
mksession=$OPJIT_BUILD/tests/opreport/mksession
[ -x "$mksession" ] || fail "$mksession is not built"

# tgids past the kernel's pid limit (2^22): no live process has them, so
# their /tmp maps are this test's alone
base=$((4194304 + 2000 + $$ % 1000 * 10))
map() { echo "/tmp/anon.$((base + $1))"; }
for i in 1 2 3 4 5; do
	forget_maps_of $((base + i))
	rm -f "$(map "$i")"
done
good="2000000000 loop 1 7f0000001000 256 2 9 hot /srv/app.py"

{ echo "opjit-pypy 1 pid=$((base + 1)) start_ns=1"; echo "$good"
  echo "2000000000 loop 2 not-an-address 256 2 9 hot /srv/app.py"
  echo "garbage"; } >"$(map 1)"
{ echo "opjit-pypy 1 pid=$((base + 2)) start_ns=1"; echo "$good"
  printf '2000000000 loop 2 7f00000020'; } >"$(map 2)"
{ echo "opjit-pypy 1 pid=1234 start_ns=1"; echo "$good"; } >"$(map 3)"
{ echo "opjit-pypy 1 pid=$((base + 4)) start_ns=1"; echo "$good"; } >"$tmp/real"
ln -s "$tmp/real" "$(map 4)"
{ echo "[1a] {jit-backend-addr"
  echo "Loop 1 (hot;/srv/app.py:2-4~#4 LOAD_FAST) has address 0x7f0000001000 to 0x7f0000001100 (bootstrap 0x7f0000001000)"
  printf 'bridge out of Guard 0x7f00aa000200 has addr'; } >"$(map 5)"
chmod 644 "$tmp/real" /tmp/anon.$((base + 1)) /tmp/anon.$((base + 2)) \
	/tmp/anon.$((base + 3)) /tmp/anon.$((base + 5))

uid=$(id -u)
for i in 1 2 3 4 5; do
	echo "process p$i $((base + i)) $uid pypy3 /usr/bin/pypy3 start_unix_ns 1 range 0x7f0000000000-0x7f0000100000"
	echo "anon p$i 2500000000 0x7f0000001010 $((base + i))"
done | "$mksession" "$tmp/s" || fail "mksession failed"

"$opreport" --session-dir="$tmp/s" -l --anon-handler=pypy \
	>"$tmp/out.txt" 2>"$tmp/err.txt" ||
	show_fail "$tmp/err.txt" "opreport --anon-handler=pypy failed"
cat "$tmp/err.txt"
# one_warning REGEX WHAT: exactly one stderr line matches
one_warning() {
	local n
	n=$(grep -cE "$1" "$tmp/err.txt" || true)
	[ "$n" -eq 1 ] || show_fail "$tmp/err.txt" "$2: $n warning lines, not 1"
}
one_warning "$(map 1): 2 malformed lines \(first at line 3\)$" "malformed lines"
one_warning "$(map 2): the last line is incomplete" "a torn map"
one_warning "$(map 3): written by process 1234, not by $((base + 3))$" "another process's map"
one_warning "$(map 4): is a symbolic link" "a planted symbolic link"
one_warning "$(map 5): the last line is incomplete" "a torn log"
for i in 1 2 5; do
	grep -Eq "jit:pypy \(tgid:$((base + i)) pypy3\) +loop 1 hot \(app\.py:[0-9]+-[0-9]+\)$" "$tmp/out.txt" ||
		show_fail "$tmp/out.txt" "map $i: its good loop is not named"
done
for i in 3 4; do
	grep -q "anon (tgid:$((base + i)) " "$tmp/out.txt" ||
		show_fail "$tmp/out.txt" "map $i: a refused map named the samples"
done
# nothing but the lines above, and the naming summary
extra=$(grep -vE "^opreport: (pypy: /tmp/anon\.|tgid [0-9]+ \(pypy3\): [0-9]+ of [0-9]+ JIT samples unnamed)" "$tmp/err.txt" || true)
[ -z "$extra" ] || fail "other lines on stderr: $extra"
echo PASS
