#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The session keeps only the entries of node's perf map that its samples
# and stack frames fall in (samples/FORMAT.md, maps).  Every report of
# the session must come out the same as with node's whole map archived,
# and the copy must be a small part of the map.
. "$(dirname "$0")/e2e_lib.sh"
need_cmd node nodejs

cd "$tmp"
"$oprofiled" -g --frequency=4000 --session-dir=s -- \
	node --perf-basic-prof "$here/fib.js" 2 >out.txt 2>err.txt ||
	show_fail err.txt "oprofiled exited $?"
copy=$(find s/maps -name 'perf-*.map*')
pid=${copy##*/perf-}
pid=${pid%%.*}
[ -n "$pid" ] || fail "no perf map archived: $(find s)"
forget_maps_of "$pid"
map=/tmp/perf-$pid.map
[ -s "$map" ] || fail "node wrote no $map"
case $copy in
*.gz) ;;
*) fail "the archived map is '$copy', not perf-$pid.map.gz" ;;
esac
kept=$(gzip -dc "$copy" | wc -l)
whole=$(wc -l <"$map")
echo "archived $kept of $whole entries of $map"
[ "$kept" -gt 0 ] && [ $((kept * 10)) -lt "$whole" ] ||
	fail "kept $kept of $whole lines: not a trim"
# the kept lines are the map's own, in its order
gzip -dc "$copy" | awk 'NR == FNR { want[++n] = $0; next }
	$0 == want[i + 1] { i++ } END { exit i != n }' - "$map" ||
	fail "the copy holds lines that are not the map's, or in another order"

# the same session with the whole map archived
cp -a s w
wcopy=w/${copy#s/}
rm "$wcopy"
gzip -c "$map" >"$wcopy"
chown --reference="$copy" "$wcopy"
chmod --reference="$copy" "$wcopy"
touch -r "$copy" "$wcopy"
for args in "-l" "-l -g -d" "-c" "--format=folded" "--format=json"; do
	# shellcheck disable=SC2086
	"$opreport" --session-dir="$tmp/s" $args --anon-handler=perfmap \
		>trim.txt 2>trim.err || show_fail trim.err "opreport $args"
	# shellcheck disable=SC2086
	"$opreport" --session-dir="$tmp/w" $args --anon-handler=perfmap \
		>whole.txt 2>whole.err || show_fail whole.err "opreport $args"
	sed -i "s|$tmp/[sw]|X|g" trim.txt whole.txt trim.err whole.err
	diff whole.txt trim.txt >diff.txt ||
		show_fail diff.txt "opreport $args differs with the trimmed map"
	cmp -s whole.err trim.err || fail "opreport $args warns differently"
	grep -q 'JS:' trim.txt || show_fail trim.txt "opreport $args names no JS"
done
echo pass
