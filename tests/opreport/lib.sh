# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by opreport's end-to-end scripts.  Sourced, not run.
. "${BASH_SOURCE[0]%/*}/../lib/e2e.sh"

: "${OPJIT_BUILD:?OPJIT_BUILD must name the build directory}"
: "${OPJIT_SOURCE:?OPJIT_SOURCE must name the source directory}"
OPREPORT=$OPJIT_BUILD/opreport/opreport
MKSESSION=$OPJIT_BUILD/tests/opreport/mksession
RT=$OPJIT_BUILD/tests/opreport
HERE=$OPJIT_SOURCE/tests/opreport
for f in "$OPREPORT" "$MKSESSION" "$RT/rt_g_pie"; do
	[ -x "$f" ] || fail "$f is not built"
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/opreport-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# golden NAME ARGS...: compare "opreport --session-dir=$S ARGS" with
# golden/NAME.txt, temporary paths and 64-bit addresses masked (not with
# GOLDEN_MASK=0, for addresses the test chose; with GOLDEN_SQUEEZE=1,
# runs of spaces as one, for columns as wide as a path of this checkout).  Sets
# status=1 on a difference.  OPJIT_UPDATE_GOLDEN=1 rewrites the file.
GOLDEN=$HERE/golden
status=0
golden() {
	local name=$1; shift
	"$OPREPORT" --session-dir="$S" "$@" >"$TMP/raw" 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "$name: opreport $* exited $?"; }
	local mask='s/\b[0-9a-f]\{16\}\b/XXXXXXXXXXXXXXXX/g'
	[ "${GOLDEN_MASK:-1}" = 1 ] || mask='s/^$//'
	local squeeze='s/^$//'
	[ "${GOLDEN_SQUEEZE:-0}" = 0 ] || squeeze='s/  */ /g'
	sed -e "s|$TMP|TMP|g" -e "s|$RT|RT|g" -e "$mask" -e "$squeeze" \
		-e 's/,0x[0-9a-f]*,/,0xVMA,/' "$TMP/raw" >"$TMP/$name.txt"
	if [ "${OPJIT_UPDATE_GOLDEN:-}" = 1 ]; then
		cp "$TMP/$name.txt" "$GOLDEN/$name.txt"
		echo "updated: $name"
	elif diff -u "$GOLDEN/$name.txt" "$TMP/$name.txt"; then
		echo "ok: $name (opreport $*)"
	else
		echo "FAIL: $name (opreport $*) differs from golden/$name.txt"
		status=1
	fi
}

# cg_synthetic: what the synthetic call-graph sessions of
# callgraph_golden.sh and callgraph_forget.sh share: the perfmap handler,
# the program APP with its functions' offsets A, G and B, the perf map of
# tgid 300 in $TMP/maps and the kernel's symbols in $TMP/kallsyms
cg_synthetic() {
	HP=${OPJIT_HANDLER_PATH:-$OPJIT_BUILD/lib/opjit/handlers}
	[ -f "$HP/libperfmap.so" ] || fail "$HP/libperfmap.so is not built"
	export OPJIT_HANDLER_PATH=$HP
	APP=$RT/rt_g_pie
	A=$(off "$APP" rt_alpha) G=$(off "$APP" rt_gamma)
	B=$(off "$APP" rt_local_beta)
	mkdir "$TMP/maps"
	printf '7f0000000100 80 JS:*fib\n7f0000000200 80 JS:~loop\n' \
		>"$TMP/maps/perf-300.map"
	chmod 644 "$TMP/maps/perf-300.map"
	printf 'ffffffff81000000 T _stext\nffffffff81000100 t do_work\n' \
		>"$TMP/kallsyms"
}

# cg_golden_stacks: the stacks s1 to s8 of callgraph_golden.sh's session,
# lines of a mksession script (after cg_synthetic)
cg_golden_stacks() {
	cat <<EOS
stack s1 app:$A app:$(ret main)
stack s2 app:$G app:$(ret main)
stack s3 app:$B app:$(ret rt_gamma) app:$(ret main)
stack s4 kernel 1 k:0xffffffff81000104 app:$(ret rt_alpha) app:$(ret main)
stack s5 truncated app:$A app:$(ret rt_gamma)
stack s6 anon:0x7f0000000110 anon:0x7f0000000211 app:$(ret main)
stack s7 app:$A anon:0x7f0000000121 unknown:0x1234
stack s8 anon:0x7f0000000120 anon:0x7f0000000131 anon:0x7f0000000131 anon:0x7f0000000211 app:$(ret main)
EOS
}
