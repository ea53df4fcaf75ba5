#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What a new user sees at the end of ./quickstart.sh: the demo's two JIT
# functions named by the perfmap handler, with the 3:1 split they do.
. "${BASH_SOURCE[0]%/*}/../lib/e2e.sh"
: "${OPJIT_BUILD:?} ${OPJIT_SOURCE:?}"

# the demo's map in /tmp is ours: the session demo.sh records names it
trap 'e2e_forget_jit_maps "$OPJIT_BUILD/demo_session"' EXIT
out=$(bash "$OPJIT_SOURCE/scripts/demo.sh" "$OPJIT_BUILD" 2>&1) ||
	fail "demo.sh exited $?: $out"
echo "$out"

# share of a symbol: the % column of its row (samples  %  image  symbol)
share() { awk -v s="$1" '$NF == s { print $2; exit }' <<<"$out"; }
hot=$(share jit_hot); cold=$(share jit_cold)
[ -n "$hot" ] || fail "no jit_hot row in the report"
[ -n "$cold" ] || fail "no jit_cold row in the report"
grep -q 'jit:perfmap (tgid:[0-9]* jitdemo)' <<<"$out" ||
	fail "the image column does not say jit:perfmap (tgid:N jitdemo)"

# the truth is 75/25 of the JIT code on an idle machine, and what the
# demo's own clock says on a busy one; allow 3 points
truth=$(sed -n "s/^The demo's own clock: jit_hot \([0-9.]*\)% .*/\1/p" <<<"$out")
[ -n "$truth" ] || fail "demo.sh did not print the demo's own clock"
python3 - "$hot" "$cold" "$truth" <<'PY'
import sys
hot, cold, truth = map(float, sys.argv[1:])
share = 100 * hot / (hot + cold)
print(f"jit_hot is {share:.1f}% of the JIT samples, {truth:.1f}% of the demo's clock")
sys.exit(0 if abs(share - truth) <= 3 else 1)
PY
