#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# oprofiled -g on the callchain workload: the stacks of hot's samples go
# through path_a and path_b 3:1 up to main, every sample has exactly one
# stack, kernel frames come before user frames; --callgraph-depth=2 cuts
# every chain and says so; without -g the session is version 1 with no
# stack block at all.
. "$(dirname "$0")/lib.sh"

bin=$WORKLOADS/callchain
[ -x "$bin" ] || fail "$bin is not built"
cd "$WORK"
"$OPROFILED" -g --session-dir=s -- "$bin" 3 2>err.txt ||
	fail "oprofiled -g exited $?: $(cat err.txt)"
check_summary err.txt
dump s >d.txt
# -g: version 6, whose JIT stacks are deltas of addresses (FORMAT.md, STACK_DELTAS)
[ "$(info d.txt format_version)" = 6 ] || fail "a session with call graphs is not version 6"
[ "$(info d.txt callgraph_depth)" = 127 ] || fail "-g did not record the default depth 127"
head -1 s/session.meta | grep -qx 'opjit-session 6' || fail "session.meta does not say version 6"

read -r hs he <<<"$(symbol_offsets "$bin" hot)"
read -r as ae <<<"$(symbol_offsets "$bin" path_a)"
read -r bs be <<<"$(symbol_offsets "$bin" path_b)"
read -r ms me <<<"$(symbol_offsets "$bin" main)"

# for every stack counted, by the function of its first three frames:
# "via_a N", "via_b N", "other N" for stacks whose leaf is in hot
awk -v p="$bin" -v hs="$hs" -v he="$he" -v as="$as" -v ae="$ae" \
	-v bs="$bs" -v be="$be" -v ms="$ms" -v me="$me" '
	function fn(fr,   a, off) {
		if (split(fr, a, ":") != 2 || !(a[1] in img)) return "?"
		off = a[2] + 0
		if (off >= hs && off < he) return "hot"
		if (off >= as && off < ae) return "a"
		if (off >= bs && off < be) return "b"
		if (off >= ms && off < me) return "main"
		return "?"
	}
	$1 == "image" && $4 == p { img[$2] = 1 }
	$1 == "stack" { path[$2] = fn($5) " " fn($6) " " fn($7) }
	$1 == "stackhist" { n[path[$3]] += $4 }
	END {
		print "via_a", n["hot a main"] + 0
		print "via_b", n["hot b main"] + 0
		for (k in n) if (k ~ /^hot / && k != "hot a main" && k != "hot b main") o += n[k]
		print "other", o + 0
	}' d.txt >paths.txt
cat paths.txt
via_a=$(awk '$1 == "via_a" { print $2 }' paths.txt)
via_b=$(awk '$1 == "via_b" { print $2 }' paths.txt)
other=$(awk '$1 == "other" { print $2 }' paths.txt)
total=$((via_a + via_b))
[ "$total" -ge 400 ] || fail "only $total samples of hot have the stack main > path_a|path_b > hot"
# the walk sees every frame, but for the few instructions before hot has
# set up its frame pointer
[ $((other * 100)) -le $((total * 5)) ] ||
	fail "$other samples of hot have another stack, against $total complete ones"
share=$((via_a * 1000 / total))
[ "$share" -ge 720 ] && [ "$share" -le 780 ] ||
	fail "path_a has $((share / 10)).$((share % 10))% of hot's stacks, not 75 +- 3"

# one stack a sample: the stack counts add up to the flat samples
flat=$(awk '$1 == "hist" || $1 == "anon" { n += ($1 == "hist" ? $4 : 1) } END { print n + 0 }' d.txt)
stacked=$(awk '$1 == "stackhist" { n += $4 } $1 == "anonstack" { n++ } END { print n + 0 }' d.txt)
[ "$flat" -eq "$stacked" ] || fail "$flat flat samples but $stacked stack samples"
# kernel frames first, all in the kernel image; user frames after them
awk '$1 == "image" && $3 == 1 { k[$2] = 1 }
	$1 == "stack" {
		for (i = 5; i <= NF; i++) {
			split($i, a, ":")
			kern = i - 5 < $3
			if (kern && !(a[1] in k) && a[1] != "unknown") bad = $0
			if (!kern && (a[1] in k)) bad = $0
		}
	}
	END { if (bad != "") { print bad; exit 1 } }' d.txt ||
	fail "a stack mixes kernel and user frames: $(tail -1 d.txt)"
if [ "$(info d.txt kernel)" -gt 0 ]; then
	awk '$1 == "stack" && $3 > 0 && NF - 4 > $3 { f = 1 } END { exit !f }' d.txt ||
		fail "kernel samples, but no stack with kernel and user frames"
fi
# The flag is set only where the chain met the cap.  A shallow workload
# reaches it only where the kernel's frame-pointer walk ran into a frame
# that code built without frame pointers left in rbp (libc, the loader):
# such a walk repeats or wanders until the cap.  hot's stacks never do.
# The table's nodes are listed as stacks, each the path from a node to
# its root, and the outermost part of a cut stack carries its flag too:
# only the stacks that samples name are checked.
awk '$1 == "stack" { line[$2] = $0; cut[$2] = $4 != 0; nf[$2] = NF - 4 }
	$1 == "stackhist" { named[$3] = 1 }
	$1 == "anonstack" { named[$4] = 1 }
	END { for (id in named) if (cut[id] && nf[id] < 120) { print line[id]; exit 1 } }' \
	d.txt >short_cut.txt ||
	fail "a stack of $(($(awk '{ print NF - 4 }' short_cut.txt))) frames says it was cut at depth 127: $(cat short_cut.txt)"
awk -v p="$bin" -v hs="$hs" -v he="$he" '$1 == "image" && $4 == p { img[$2] = 1 }
	$1 == "stack" && $4 != 0 && split($5, a, ":") == 2 && (a[1] in img) &&
	a[2] + 0 >= hs && a[2] + 0 < he { exit 1 }' d.txt ||
	fail "a stack of hot says it was cut at depth 127"
cutn=$(awk '$1 == "stack" && $4 != 0 { c[$2] = 1 } $1 == "stackhist" && ($3 in c) { n += $4 } END { print n + 0 }' d.txt)
[ $((cutn * 100)) -le "$total" ] ||
	fail "$cutn samples of a shallow workload have a stack cut at depth 127"

# --callgraph-depth=2: no stack deeper, and the deep ones say they were cut
"$OPROFILED" --callgraph-depth=2 --session-dir=t -- "$bin" 1 2>terr.txt ||
	fail "oprofiled --callgraph-depth=2 exited $?: $(cat terr.txt)"
dump t >t.txt
[ "$(info t.txt callgraph_depth)" = 2 ] || fail "--callgraph-depth=2 is not in the session"
awk '$1 == "stack" && NF - 4 > 2 { exit 1 }' t.txt || fail "a stack deeper than 2 frames"
cut=$(awk '$1 == "stack" && NF - 4 == 2 && $4 == 1 { n++ } END { print n + 0 }' t.txt)
uncut=$(awk '$1 == "stack" && NF - 4 == 2 && $4 != 1 { n++ } END { print n + 0 }' t.txt)
[ "$cut" -ge 1 ] && [ "$uncut" -eq 0 ] ||
	fail "at depth 2, $cut stacks flagged as cut and $uncut not"

# without -g: version 1 files, as before call graphs, with no stack block
"$OPROFILED" --session-dir=f -- "$bin" 0.5 2>ferr.txt ||
	fail "oprofiled exited $?: $(cat ferr.txt)"
dump f >f.txt
[ "$(info f.txt format_version)" = 1 ] || fail "a session without -g is not version 1"
head -1 f/session.meta | grep -qx 'opjit-session 1' || fail "session.meta does not say version 1"
! grep -q '^callgraph_depth' f/session.meta || fail "session.meta of a flat session names a depth"
grep -q '^stack' f.txt && fail "stacks in a session recorded without -g"
python3 - f/samples.hist f/anon.samples <<'PY' || fail "a session without -g is not in the version 1 format"
import struct, sys
# TOTALS (6) and TIME_SLICES (10) are not call graph blocks: every
# reader skips types it does not know, so a version 1 file may carry them
known = {"samples.hist": {1, 2, 3, 6, 10}, "anon.samples": {1, 2}}
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    magic, version, flags = struct.unpack_from("<8sII", data, 0)
    assert version == 1 and flags == 0, (path, version, flags)
    off = 16
    while off < len(data):
        bmagic, btype, bflags, blen, crc = struct.unpack_from("<IHHII", data, off)
        assert bmagic == 0x4b4c424f and btype in known[path.split("/")[-1]], (path, off, btype)
        off += 16 + blen
PY
echo "pass: path_a $((share / 10)).$((share % 10))% of $total stacks of hot, $other other"
