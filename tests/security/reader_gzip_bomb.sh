#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A gzip bomb in another user's session: the archived perf map is replaced
# by 2 MB that inflate to 2 GiB.  Root's opreport refuses it with one line
# naming the file, and its peak memory stays far below what inflating it
# would take (the kernel's count of the report's peak resident set, not
# its time).
. "$(dirname "$0")/reader_lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
make_user
JITDEMO=$OPJIT_BUILD/tests/workloads/jitdemo
[ -x "$JITDEMO" ] || fail "$JITDEMO is not built"
s=$udir/s
as_user "$OPROFILED" --session-dir="$s" -- "$JITDEMO" --seconds 1 \
	--map-file perf >"$tmp/rec.out" 2>&1 ||
	{ cat "$tmp/rec.out"; skip "the user cannot record (perf_event_paranoid?)"; }
map=$(ls "$s"/maps/*/perf-*.map.gz 2>/dev/null | head -1)
[ -n "$map" ] || fail "the session archived no perf map: $(ls -R "$s")"
f=${map##*/}
# the map the workload left behind is not what the report reads
rm -f "/tmp/${f%.gz}"

# as recorded, the archived map names the JIT code
report before -l --anon-handler=perfmap --session-dir="$s"
[ "$rc" = 0 ] || { cat "$tmp/before.err"; fail "before: exit $rc"; }
grep -q jit_hot "$tmp/before.out" || { cat "$tmp/before.out"; fail "before: jit_hot not named"; }

# the bomb, made here: one gzip stream of 2 GiB of zeros
as_user python3 - "$map" <<'PY'
import sys, zlib
z = zlib.compressobj(9, zlib.DEFLATED, 31)
zero = bytes(1 << 24)
with open(sys.argv[1], "wb") as f:
    for _ in range(128):
        f.write(z.compress(zero))
    f.write(z.flush())
PY
size=$(stat -c %s "$map")
[ "$size" -gt 1000000 ] && [ "$size" -lt 3000000 ] ||
	fail "the bomb is $size bytes, not about 2 MB"
ok "bomb: $size bytes inflating to 2147483648"

# the report's peak RSS, and its children's (the handler helpers), from
# the kernel's accounting of the waited-for process tree
python3 - "$tmp/bomb" "$OPREPORT" -l --anon-handler=perfmap \
	--session-dir="$s" <<'PY'
import resource, subprocess, sys
out = sys.argv[1]
with open(out + ".out", "wb") as o, open(out + ".err", "wb") as e:
    rc = subprocess.run(sys.argv[2:], stdout=o, stderr=e, timeout=120).returncode
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(out + ".rc", "w").write("%d %d\n" % (rc, peak))
PY
read -r rc peak_kib <"$tmp/bomb.rc"
[ "$rc" = 0 ] || { cat "$tmp/bomb.err"; fail "bomb: exit $rc"; }
want="compressed copy inflates past"
grep -F "$map" "$tmp/bomb.err" | grep -qF "$want" ||
	{ cat "$tmp/bomb.err"; fail "bomb: no line naming $map and saying '$want'"; }
[ "$(grep -c "$want" "$tmp/bomb.err")" = 1 ] ||
	{ cat "$tmp/bomb.err"; fail "bomb: not one line"; }
ok "bomb: $(grep -F "$want" "$tmp/bomb.err")"
# inflating would take 2 GiB; the bound lets 128 times 2 MB be counted,
# never held
[ "$peak_kib" -lt $((192 * 1024)) ] ||
	fail "bomb: opreport's peak resident set was $((peak_kib / 1024)) MiB"
ok "bomb: peak resident set $((peak_kib / 1024)) MiB"
grep -q jit_hot "$tmp/bomb.out" && fail "bomb: jit_hot named from a refused map"
true
