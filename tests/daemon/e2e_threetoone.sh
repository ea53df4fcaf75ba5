#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The recorded shares of heavy_work and light_work match the 3:1 truth
# within 3 points, and the summary line says what was recorded.
. "$(dirname "$0")/lib.sh"

bin=$WORKLOADS/threetoone
cd "$WORK"
"$OPROFILED" --session-dir=s -- "$bin" 3 2>err.txt || fail "oprofiled exited $?: $(cat err.txt)"
check_summary err.txt
dump s >d.txt

read -r hs he <<<"$(symbol_offsets "$bin" heavy_work)"
read -r ls le <<<"$(symbol_offsets "$bin" light_work)"
heavy=$(samples_in d.txt "$bin" "$hs" "$he")
light=$(samples_in d.txt "$bin" "$ls" "$le")
total=$((heavy + light))
echo "heavy_work $heavy, light_work $light samples"
[ "$total" -ge 400 ] || fail "only $total samples in the two functions"
# shares in tenths of a point: 750 is the truth
share=$((heavy * 1000 / total))
[ "$share" -ge 720 ] && [ "$share" -le 780 ] ||
	fail "heavy_work has $((share / 10)).$((share % 10))% of the two, not 75 +- 3"

# the totals agree with the histograms and the summary line
samples=$(info d.txt samples)
hist=$(awk '$1 == "hist" { n += $4 } END { print n + 0 }' d.txt)
anon=$(info d.txt anon)
unattr=$(info d.txt unattributed)
[ "$samples" -eq $((hist + anon + unattr)) ] ||
	fail "session says $samples samples, but holds $hist + $anon anon + $unattr unattributed"
grep -q "^oprofiled: $samples samples" err.txt || fail "summary disagrees with the session: $(cat err.txt)"
[ "$(info d.txt processes)" -ge 1 ] || fail "no process counted"
[ "$(info d.txt stop_ns)" -gt "$(info d.txt start_ns)" ] || fail "session not closed cleanly"
[ "$(info d.txt event)" = cpu-clock ] || fail "event is not cpu-clock"
[ "$(info d.txt frequency)" = 4000 ] || fail "frequency is not 4000"
# --separate=process names the process in every context; --no-kernel
# leaves the kernel out
"$OPROFILED" --session-dir=p --separate=process --no-kernel -- sh -c '"$0" 0.5 & "$0" 0.5; wait' "$bin" \
	2>perr.txt || fail "oprofiled --separate=process exited $?: $(cat perr.txt)"
dump p >pd.txt
tgids=$(awk -v p="$bin" '$1 == "image" && $4 == p { img[$2] = 1 }
	$1 == "context" && ($4 in img) && $5 > 0 { t[$5] = 1 }
	END { n = 0; for (k in t) n++; print n }' pd.txt)
[ "$tgids" -eq 2 ] || fail "--separate=process gave $tgids processes for two runs of threetoone"
awk '$1 == "context" && $5 == 0 { bad = 1 } END { exit bad }' pd.txt ||
	fail "--separate=process left a context without its process"
[ "$(info pd.txt kernel_excluded)" = 1 ] && [ "$(info pd.txt kernel)" = 0 ] ||
	fail "--no-kernel recorded kernel samples"
echo "pass: heavy_work $((share / 10)).$((share % 10))%"
