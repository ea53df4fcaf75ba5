#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/bench/html_page.sh [--seconds LIST] [--node SECONDS] [--runs N]
#                          [--build DIR]
#
# opreport's html page at three sizes (jitdemo -g, 2 threads, 4 kHz, for
# each of LIST seconds, default "2 10 30"), and of node -g at 4 kHz for
# SECONDS (default 30; 0: none) running JS in two threads (main and a
# worker, workloads/page_node.js: about a million frames before
# deduplication at 30 s), beside the folded output of the same session
# and beside Linux perf recording the same workload in the same run:
#   - bytes: the page, its data block, the folded lines; perf script's
#     text and `perf script report flamegraph --format json` (the data a
#     d3 flame graph page embeds);
#   - opreport html and folded, perf script and perf's flamegraph json:
#     wall time and peak RSS (median of N runs, bench_rusage);
#   - headless Chromium: the page's load-to-first-draw and first draw
#     (its #selftest), and the redraw after a drag over the middle half
#     of the timeline (median of N loads).
# perf's own flamegraph page needs d3-flame-graph's template
# (libjs-d3-flame-graph), which Debian does not package: it has no load
# time here, and the script says so.  Prints a Markdown table and the
# ratios, and for each session the page's size rule: load-to-first-draw
# within 2 s, and the page within 2x the folded output plus the page's
# code (its bytes outside the data block); asserts nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$src/build
seconds="2 10 30"
node_seconds=30
runs=3
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=$2; shift ;;
	--node) node_seconds=$2; shift ;;
	--runs) runs=$2; shift ;;
	--build) build=$2; shift ;;
	*) echo "usage: html_page.sh [--seconds LIST] [--node SECONDS] [--runs N] [--build DIR]" >&2; exit 2 ;;
	esac
	shift
done
oprofiled=$build/daemon/oprofiled
opreport=$build/opreport/opreport
jitdemo=$build/tests/workloads/jitdemo
rusage=$build/tests/bench/bench_rusage
for f in "$oprofiled" "$opreport" "$jitdemo" "$rusage"; do
	[ -x "$f" ] || { echo "html_page.sh: $f is not built" >&2; exit 1; }
done
command -v chromium >/dev/null || { echo "html_page.sh: chromium is not installed" >&2; exit 77; }
have_perf=1
command -v perf >/dev/null || have_perf=
if [ "$node_seconds" != 0 ] && ! command -v node >/dev/null; then
	echo "html_page.sh: node is not installed: no node session" >&2
	node_seconds=0
fi
export OPJIT_HANDLER_PATH=${OPJIT_HANDLER_PATH:-$build/lib/opjit/handlers}
tmp=$(mktemp -d)
# the JIT maps our jitdemo runs left, by their process ids: no one
# else's
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		rm -f "/tmp/anon.$p" "/tmp/perf-$p.map"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

median() { python3 -c 'import statistics, sys; v = [float(x) for x in sys.argv[1:]]; print("%.3f" % statistics.median(v) if v else "-")' "$@"; }

# timed NAME CMD...: run CMD $runs times; sets T_WALL (s) and T_RSS (MB),
# medians, or T_WHY when it failed
timed() {
	local name=$1 i walls=() rss=() w u s r st
	shift
	T_WALL=- T_RSS=- T_WHY=
	for ((i = 0; i < runs; i++)); do
		"$rusage" -o "$tmp/ru" -- "$@" 2>"$tmp/$name.err" || true
		read -r w u s r st <"$tmp/ru"
		if [ "$st" != 0 ]; then
			T_WHY="$name failed (exit $st): $(tail -n 1 "$tmp/$name.err")"
			return 0
		fi
		walls+=("$w")
		rss+=("$(python3 -c "print($r / 1024)")")
	done
	T_WALL=$(median "${walls[@]}")
	T_RSS=$(median "${rss[@]}")
}

# page_times PAGE: "LOAD_MS DRAW_MS REDRAW_MS", medians of $runs loads
page_times() {
	local i loads=() draws=() redraws=() out
	for ((i = 0; i < runs; i++)); do
		timeout 300 chromium --headless --disable-gpu --no-sandbox \
			--user-data-dir="$tmp/chrome$i" --proxy-server=127.0.0.1:9 \
			--proxy-bypass-list='<-loopback>' --window-size=1280,900 \
			--virtual-time-budget=60000 \
			--dump-dom "file://$1#selftest&drag=0.25,0.75" >"$tmp/dom.html" 2>/dev/null || continue
		out=$(python3 - "$tmp/dom.html" <<'EOP'
import html, json, re, sys
m = re.search(r'<pre id="selftest">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
c = json.loads(html.unescape(m.group(1))) if m else None
d = c and c.get("drag") or {}
print("%.1f %.1f %s" % (c["loadToDrawMs"], c["firstDrawMs"], d.get("redrawMs", "-")) if c else "")
EOP
)
		[ -n "$out" ] || continue
		read -r l d r <<<"$out"
		loads+=("$l")
		draws+=("$d")
		[ "$r" = - ] || redraws+=("$r")
	done
	echo "$(median "${loads[@]}") $(median "${draws[@]}") $(median "${redraws[@]}")"
}

data_bytes() {
	python3 - "$1" <<'EOP'
import re, sys
t = open(sys.argv[1], "rb").read()
m = re.search(rb'<script type="application/json" id="opjit-data">(.*?)</script>', t, re.S)
print(len(m.group(1)) if m else 0)
EOP
}

rows=()
notes=()
# with_args OPJIT|PERF PIDFILE WORKLOAD...: sets W to WORKLOAD with the
# word @PID@ as PIDFILE and @MAP@ as the map kind the recorder reads
with_args() {
	local map=anon pidfile=$2 a
	[ "$1" = PERF ] && map=perf
	shift 2
	W=()
	for a in "$@"; do
		case $a in
		@PID@) W+=("$pidfile") ;;
		@MAP@) W+=("$map") ;;
		*) W+=("$a") ;;
		esac
	done
}

# measure LABEL DIR SECONDS WORKLOAD...: record WORKLOAD with -g at 4 kHz
# by oprofiled and by perf, and measure the page and folded output
measure() {
	local label=$1 d=$2 s=$3
	shift 3
	mkdir -p "$d"
	with_args OPJIT "$d/pid" "$@"
	# in DIR: node leaves its logs in the working directory
	(cd "$d" && timeout $((s + 120)) "$oprofiled" -g -F 4000 --session-dir="$d/session" -- \
		"${W[@]}" >/dev/null 2>"$d/rec.err") ||
		{ echo "html_page.sh: oprofiled failed: $(tail -n 1 "$d/rec.err")" >&2; exit 1; }
	[ ! -s "$d/pid" ] || pids+=("$(cat "$d/pid")")
	pids+=($("$opreport" --session-dir="$d/session" --format=timeline-csv 2>/dev/null |
		awk -F, '!n && ($2 == "jitdemo" || $2 == "node") && $3 { print $3; n = 1 }'))
	timed html "$opreport" --session-dir="$d/session" --anon-handler=perfmap \
		--format=html --force -o "$d/page.html"
	html_t="$T_WALL s, $T_RSS MB"
	[ -z "$T_WHY" ] || html_t=$T_WHY
	timed folded sh -c "'$opreport' --session-dir='$d/session' --anon-handler=perfmap --format=folded >'$d/folded' 2>/dev/null"
	folded_t="$T_WALL s, $T_RSS MB"
	[ -z "$T_WHY" ] || folded_t=$T_WHY
	page=$(stat -c %s "$d/page.html")
	data=$(data_bytes "$d/page.html")
	folded=$(stat -c %s "$d/folded")
	read -r samples frames <<<"$(awk '{ n += $NF; f += $NF * (gsub(/;/, ";") + 1) } END { print n + 0, f + 0 }' "$d/folded")"
	read -r load draw redraw <<<"$(page_times "$d/page.html")"
	pscript=- pjson=- pscript_t="perf is not installed" pjson_t=$pscript_t
	if [ -n "$have_perf" ]; then
		mkdir -p "$d/perf"
		with_args PERF "$d/perf/pid" "$@"
		if (cd "$d/perf" && timeout $((s + 120)) perf record -q -e cpu-clock -F 4000 -g \
			-o perf.data -- "${W[@]}" >/dev/null 2>"$d/perf.err"); then
			[ ! -s "$d/perf/pid" ] || pids+=("$(cat "$d/perf/pid")")
			pids+=($(cd "$d/perf" && perf script -F pid 2>/dev/null | awk 'NR == 1 { print $1 }'))
			timed pscript sh -c "cd '$d/perf' && perf script >'$d/script.txt' 2>/dev/null"
			pscript_t="$T_WALL s, $T_RSS MB"
			[ -z "$T_WHY" ] || pscript_t=$T_WHY
			pscript=$(stat -c %s "$d/script.txt")
			timed pjson sh -c "cd '$d/perf' && perf script report flamegraph --format json -o '$d/perf.json' </dev/null >/dev/null 2>&1"
			pjson_t="$T_WALL s, $T_RSS MB"
			[ -z "$T_WHY" ] || pjson_t=$T_WHY
			[ -s "$d/perf.json" ] && pjson=$(stat -c %s "$d/perf.json")
		else
			pscript_t="perf record failed: $(tail -n 1 "$d/perf.err")"
			pjson_t=$pscript_t
		fi
	fi
	rows+=("| $label | $samples | $page ($data data) | $folded | $(python3 -c "print('%.2f' % ($page / $folded))") | $html_t | $folded_t | $load / $draw / $redraw ms | $pscript | $pscript_t | $pjson | $pjson_t |")
	notes+=("$label: the page's data is $(python3 -c "print('%.2f' % ($data / $folded))")x the folded output; page $(python3 -c "print('%.2f' % ($page / $pjson))" 2>/dev/null || echo -)x perf's flamegraph json")
	# the size rule: within 2 s, and within 2x the folded output plus
	# the page's code (what is not its data)
	notes+=("$(python3 - "$label" "$load" "$page" "$data" "$folded" "$frames" <<'EOP'
import sys
label, load, page, data, folded, frames = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
code = page - data
limit = 2 * folded + code
ok_t = load != "-" and float(load) <= 2000
print("%s: %d frames before deduplication; load-to-first-draw %s ms (%s the 2 s rule); "
      "page %d bytes against 2 x folded %d + code %d = %d: %.2fx of the limit (%s)"
      % (label, frames, load, "meets" if ok_t else "misses", page, folded, code, limit,
         page / limit, "meets" if page <= limit else "misses"))
EOP
)")
	rm -rf "$d/session" "$d/perf" "$d/script.txt"
}

for s in $seconds; do
	measure "jitdemo $s s" "$tmp/s$s" "$s" "$jitdemo" --seconds "$s" --threads 2 --map-file @MAP@
done
# node, two threads of JS; its perf map, by the pid it writes
if [ "$node_seconds" != 0 ]; then
	measure "node $node_seconds s" "$tmp/node" "$node_seconds" node --perf-basic-prof \
		--interpreted-frames-native-stack "$here/workloads/page_node.js" "$node_seconds" @PID@
fi

echo "| session | samples | page bytes | folded bytes | page / folded | opreport html | opreport folded | Chromium load-to-draw / first draw / drag redraw | perf script bytes | perf script | perf flamegraph json bytes | perf flamegraph json |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
echo
printf '%s\n' "${notes[@]}"
echo "perf's flamegraph html needs d3-flame-graph's template (libjs-d3-flame-graph), which Debian does not package: no page to load beside ours."
