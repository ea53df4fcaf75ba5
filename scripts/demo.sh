#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The quickstart's main job: profile the bundled JIT demo and print the
# report with its JIT functions named by the perfmap handler.
set -euo pipefail
build=${1:?usage: demo.sh BUILD_DIR}
session=$build/demo_session
# the demo session is scratch: start afresh rather than keep old ones aside
rm -rf "$session" "$session".previous-*

"$build/daemon/oprofiled" --session-dir="$session" -- \
	"$build/tests/workloads/jitdemo" --seconds 2 >"$session.out"
echo
echo "\$ opreport -l --anon-handler=perfmap --session-dir=$session"
"$build/opreport/opreport" --session-dir="$session" -l --anon-handler=perfmap
# what the demo's own clock says, to read the report's split against
awk '$1 == "cpu" { ns[$2] = $3 }
     END { if (ns["jit_hot"] + ns["jit_cold"] > 0)
		printf "\nThe demo'"'"'s own clock: jit_hot %.1f%% of its time in the two functions.\n",
			100 * ns["jit_hot"] / (ns["jit_hot"] + ns["jit_cold"]) }' "$session.out"
rm -f "$session.out"
