# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the oprofiled end-to-end tests.  Sourced, not run.
. "${BASH_SOURCE[0]%/*}/../lib/e2e.sh"

: "${OPJIT_BUILD:?OPJIT_BUILD must name the build directory}"
OPROFILED=$OPJIT_BUILD/daemon/oprofiled
SESSIONDUMP=$OPJIT_BUILD/tests/daemon/sessiondump
WORKLOADS=$OPJIT_BUILD/tests/workloads

for f in "$OPROFILED" "$SESSIONDUMP" "$WORKLOADS/threetoone"; do
	[ -x "$f" ] || fail "$f is not built"
done

# perf_event must work here at all, or every test would only say so
if [ "$(id -u)" -ne 0 ] &&
	[ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)" -gt 2 ]; then
	skip "perf_event_paranoid > 2 forbids perf_event_open for non-root users"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/opjit-$TEST_NAME.XXXXXX")
cleanup_pids=()
cleanup() {
	local p
	for p in "${cleanup_pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT

# dump SESSION: the session as text (sessiondump), failing loudly
dump() {
	"$SESSIONDUMP" "$1" >"$WORK/dump.txt" 2>"$WORK/dump.err" ||
		fail "sessiondump $1: $(cat "$WORK/dump.err")"
	cat "$WORK/dump.txt"
}

# info DUMPFILE KEY
info() { awk -v k="$2" '$1 == "info" && $2 == k { print $3 }' "$1"; }

# image_samples DUMPFILE PATH: samples counted in image PATH
image_samples() {
	awk -v p="$2" '
		$1 == "image" && $4 == p { img[$2] = 1 }
		$1 == "context" && ($4 in img) { ctx[$2] = 1 }
		$1 == "hist" && ($2 in ctx) { n += $4 }
		END { print n + 0 }' "$1"
}

# file offset range of function SYM in ELF file BIN: "START END"
# (decimal)
symbol_offsets() {
	local bin=$1 sym=$2 line addr size type off va fa fsz _
	line=$(nm -S "$bin" | awk -v s="$sym" '$4 == s { print $1, $2 }')
	[ -n "$line" ] || fail "no symbol $sym in $bin"
	read -r addr size <<<"$line"
	addr=$((16#$addr)) size=$((16#$size))
	while read -r type off va _ fsz _; do
		[ "$type" = LOAD ] || continue
		off=$((off)) va=$((va)) fsz=$((fsz))
		if [ "$addr" -ge "$va" ] && [ "$addr" -lt $((va + fsz)) ]; then
			echo $((addr - va + off)) $((addr - va + off + size))
			return
		fi
	done < <(readelf -lW "$bin")
	fail "$sym of $bin is in no LOAD segment"
}

# samples_in DUMPFILE PATH START END: samples of image PATH at file
# offsets [START, END)
samples_in() {
	awk -v p="$2" -v lo="$3" -v hi="$4" '
		$1 == "image" && $4 == p { img[$2] = 1 }
		$1 == "context" && ($4 in img) { ctx[$2] = 1 }
		$1 == "hist" && ($2 in ctx) && $3 + 0 >= lo + 0 && $3 + 0 < hi + 0 { n += $4 }
		END { print n + 0 }' "$1"
}

# the one summary line oprofiled prints at exit
check_summary() {
	grep -Eq '^oprofiled: [0-9]+ samples, [0-9]+ lost \([0-9.]+%\), [0-9]+ unattributed \([0-9.]+%\), [0-9]+ process(es)?, session .+$' "$1" ||
		fail "no summary line in: $(cat "$1")"
}
