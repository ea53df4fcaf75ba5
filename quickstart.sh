#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# From a fresh Debian 12 machine to a report that names JIT code:
# installs what is missing, builds into build/, profiles the bundled JIT
# demo under oprofiled and prints opreport's symbol list.
set -euo pipefail
. "$(dirname "$0")/scripts/setup.sh"

need_packages "${OPJIT_BUILD_PACKAGES[@]}"
configure_and_build "$OPJIT_ROOT/build" -DOPJIT_WERROR=ON

exec "$OPJIT_ROOT/scripts/demo.sh" "$OPJIT_ROOT/build"
