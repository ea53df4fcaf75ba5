#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# private_tmp.sh PROGRAM [ARGS...]: run inside a new mount namespace (as
# unshare does), give it an empty tmpfs /tmp, as a container has, and
# exec PROGRAM there.  When PROGRAM itself lives under /tmp (a build tree
# in /tmp), it is bound back at the same path so that its exe and the
# mappings it makes keep the names the tests look for.
set -e
prog=$1
exec 3<"$prog"
mount -t tmpfs opjit-test /tmp
case $prog in
/tmp/*)
	mkdir -p "${prog%/*}"
	: >"$prog"
	# --no-canonicalize: the fd's link is followed by the kernel, not
	# resolved to its path name, which the new /tmp now hides
	mount --no-canonicalize --bind /proc/self/fd/3 "$prog"
	;;
esac
exec 3<&-
exec "$@"
