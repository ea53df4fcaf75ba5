#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A packager's install: cmake --install with DESTDIR puts every file where
# a Debian package expects it, and nothing outside DESTDIR.
. "${BASH_SOURCE[0]%/*}/../lib/e2e.sh"
: "${OPJIT_BUILD:?}"

dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
DESTDIR=$dest cmake --install "$OPJIT_BUILD" --prefix /usr >/dev/null ||
	fail "cmake --install failed"

# the build chose the library directory (lib, or lib/<multiarch> when
# configured for /usr); read it from its cache rather than guess
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$OPJIT_BUILD/CMakeCache.txt")
[ -n "$libdir" ] || fail "no CMAKE_INSTALL_LIBDIR in $OPJIT_BUILD/CMakeCache.txt"
for f in \
	usr/bin/oprofiled \
	usr/bin/opreport \
	usr/bin/opannotate \
	usr/include/opjit/anon_handler.h \
	"usr/$libdir/pkgconfig/opjit-handler.pc" \
	"usr/$libdir/opjit/handlers/libperfmap.so" \
	"usr/$libdir/opjit/handlers/libjavamap.so" \
	"usr/$libdir/opjit/libjavamap-agent.so" \
	usr/share/man/man1/oprofiled.1 \
	usr/share/man/man1/opreport.1 \
	usr/share/man/man1/opannotate.1; do
	[ -e "$dest/$f" ] || fail "$f is not installed"
done
# libopsamples is internal: no header or library of it is installed
for f in usr/include/opjit/samples.h "usr/$libdir/libopsamples.a"; do
	[ ! -e "$dest/$f" ] || fail "$f is installed, but libopsamples is internal"
done

# the pkg-config file points into the prefix it was installed to
PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_PATH=$dest/usr/$libdir/pkgconfig \
	pkg-config --cflags opjit-handler | grep -q -- "-I$dest/usr/include" ||
	fail "opjit-handler.pc does not name the installed include directory"

# installed handlers export their entry point and nothing else
for h in "$dest/usr/$libdir"/opjit/handlers/*.so; do
	# version nodes (type A) are not symbols a caller can bind to
	syms=$(nm -D --defined-only --without-symbol-versions "$h" |
		awk '$2 != "A" {print $3}' | sort -u)
	[ "$syms" = opjit_handler_entry ] ||
		fail "$h exports more than opjit_handler_entry: $syms"
done
echo "install layout ok under $dest"
