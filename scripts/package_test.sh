#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# package_test.sh OUTDIR [build|check]: build the Debian packages from a
# clean copy of the source tree (nothing from build/), run lintian on them
# (any E: or W: fails), install them with dpkg, run the autopkgtest's
# script, then purge them, leaving the machine as it was.  Needs root for
# dpkg.  "build" stops once the packages are built, "check" takes them
# from OUTDIR and does the rest, so that test.sh can build them while
# other tests run and install them only once nothing else does.
# Exit 0 passes, 77 skips (says why), anything else fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: package_test.sh OUTDIR [build|check]}
mode=${2:-all}
fail() { echo "FAIL: $*" >&2; exit 1; }
case $mode in all | build | check) ;; *) fail "unknown step '$mode': build or check" ;; esac
skip() { echo "SKIP: $*" >&2; exit 77; }
pkgs=(opjit libopjit-jitlog1 libopjit-jitlog-dev opjit-handler-dev)
# present: installed, or purged of nothing yet (config files left)
present() {
	local s
	s=$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)
	[ -n "$s" ] && [ "$s" != not-installed ]
}

[ "$(id -u)" -eq 0 ] || skip "dpkg -i needs root"
for p in "${pkgs[@]}"; do
	if present "$p"; then
		skip "$p is installed already; purging it afterwards would change this machine"
	fi
done

version=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Version)
src=$out/opjit-$version
if [ "$mode" != check ]; then
	rm -rf "$out"
	mkdir -p "$src"
	# the tracked and new files, as a fresh clone has them; no build trees
	(cd "$root" && git ls-files -co --exclude-standard | grep -v '^build' |
		tar -cf - -T -) | tar -xf - -C "$src"
	start=$SECONDS
	# through ccache where it is installed, as test.sh's builds: the
	# package's flags differ from theirs, but not from the last run's
	command -v ccache >/dev/null && export CMAKE_C_COMPILER_LAUNCHER=ccache
	(cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 ||
		{ tail -n 60 "$out/build.log" >&2; fail "dpkg-buildpackage failed (log: $out/build.log)"; }
	echo "packages built in $((SECONDS - start)) s"
fi
[ "$mode" != build ] || exit 0
[ -e "$out/build.log" ] || fail "no packages in $out: run the build step first"

changes=$(echo "$out"/opjit_*.changes)
# lintian only reads the packages: it runs while they are installed and
# profiled, and its verdict is read before the end
lintian --fail-on none "$changes" >"$out/lintian.log" 2>&1 &
lintian_pid=$!
lintian_verdict() {
	wait "$lintian_pid" ||
		{ cat "$out/lintian.log" >&2; fail "lintian did not run"; }
	grep -v '^running with root privileges' "$out/lintian.log" || true
	if grep -Eq '^[EW]: ' "$out/lintian.log"; then
		fail "lintian reports errors or warnings"
	fi
}

start=$SECONDS
debs=()
for p in "${pkgs[@]}"; do debs+=("$out/${p}_${version}_$(dpkg --print-architecture).deb"); done
cleanup() { dpkg --purge "${pkgs[@]}" >"$out/purge.log" 2>&1 || cat "$out/purge.log" >&2; }
trap 'kill "$lintian_pid" 2>/dev/null; cleanup' EXIT
dpkg -i "${debs[@]}" >"$out/install.log" 2>&1 ||
	{ cat "$out/install.log" >&2; fail "dpkg -i failed"; }
files=$(dpkg -L opjit)
grep -q "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/opjit/handlers/libperfmap.so" <<<"$files" ||
	fail "opjit does not hold the perfmap handler in the multiarch directory"
# the autopkgtest, from a directory outside the build: only the package
env -u OPJIT_HANDLER_PATH PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	"$src/debian/tests/profile-jit" || fail "the autopkgtest failed"
profiled=$SECONDS
cleanup
trap - EXIT
purged=$SECONDS
lintian_verdict
echo "installed and profiled in $((profiled - start)) s, purged in" \
	"$((purged - profiled)) s, lintian done $((SECONDS - start)) s after the install began"
for p in "${pkgs[@]}"; do
	if present "$p"; then
		fail "$p is still installed after dpkg --purge"
	fi
done
echo "packages built, lintian clean, installed, profiled a JIT, purged"
