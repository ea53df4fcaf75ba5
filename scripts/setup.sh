# SPDX-License-Identifier: GPL-3.0-or-later
# Shared set-up for quickstart.sh and test.sh: Debian packages, configure,
# build.  Sourced, not run.  Quiet on success; on failure it prints what
# failed and the log that shows why.

OPJIT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OPJIT_LOGDIR="$OPJIT_ROOT/build/logs"

die() { printf '%s: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# run_logged NAME CMD...: run CMD with its output in a log; on failure
# show the log's tail and stop.
run_logged() {
	local name=$1; shift
	mkdir -p "$OPJIT_LOGDIR"
	local log="$OPJIT_LOGDIR/$name.log"
	if ! "$@" >"$log" 2>&1; then
		tail -n 60 "$log" >&2
		die "$name failed (full log: $log)"
	fi
}

pkg_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# need_packages PKG...: install what is missing; as non-root, print the
# exact command instead and stop.
need_packages() {
	local missing=() p
	for p in "$@"; do pkg_installed "$p" || missing+=("$p"); done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		die "missing Debian packages; run as root: apt-get install -y ${missing[*]}"
	fi
	run_logged apt-update apt-get update
	DEBIAN_FRONTEND=noninteractive run_logged apt-install \
		apt-get install -y --no-install-recommends "${missing[@]}"
}

OPJIT_BUILD_PACKAGES=(gcc make cmake pkg-config binutils-dev libpopt-dev check
	openjdk-17-jdk-headless libseccomp-dev libprotobuf-c-dev protobuf-c-compiler
	zlib1g-dev libdw-dev)

# configure_and_build DIR [CMAKE ARGS...]
# With ccache installed (test.sh installs it), a compile that was done
# before, in any build directory or clone, is taken from its cache.
configure_and_build() {
	configure_only "$@"
	build_targets "$1"
}
# configure_only DIR [CMAKE ARGS...]: configure_and_build's first half
configure_only() {
	local dir=$1; shift
	local launcher=()
	command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
	run_logged "${dir##*/}-configure" cmake -S "$OPJIT_ROOT" -B "$dir" "${launcher[@]}" "$@"
}
# build_targets DIR [TARGET...]: build TARGETs (default all) in DIR
build_targets() {
	local dir=$1; shift
	local targets=()
	[ $# -eq 0 ] || targets=(--target "$@")
	run_logged "${dir##*/}-build" cmake --build "$dir" -j "$(nproc)" "${targets[@]}"
}
