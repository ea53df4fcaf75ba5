#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The mutation loop: record a real node session and a real java session
# (javamap agent) once, then mutate every file of them many ways
# (reader_mutate.py) and run opreport built with ASan+UBSan on each under
# a time limit: no crash, no hang, no sanitizer report, and a warning for
# every damaged checksummed file.  OPJIT_MUTANTS sets how many per session
# (default ten turns of its files: each file gets every kind of damage,
# each container with its checksums recomputed and without),
# OPJIT_MUTATE_SEED the seed (default: a new one, printed).
# The rounds are few because the depth is elsewhere: every parser behind
# these files has a fuzz target that test.sh runs with a coverage floor
# (fuzz_samples_hist, _anon, _meta, _archive_inflate,
# fuzz_opreport_kallsyms, fuzz_perfmap, fuzz_jm_parse); this loop is the
# whole reader on real sessions, each mutant a start of opreport under
# ASan (a third of a second of CPU).
. "$(dirname "$0")/reader_lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null || skip "node is not installed (apt-get install nodejs)"
command -v javac >/dev/null || skip "javac is not installed (apt-get install openjdk-17-jdk-headless)"
AGENT=$OPJIT_BUILD/lib/opjit/libjavamap-agent.so
[ -f "$AGENT" ] || skip "$AGENT was not built (no JDK headers at configure time)"
ldd "$OPREPORT" | grep libasan >/dev/null ||
	skip "$OPREPORT is not built with ASan (configure with -DOPJIT_SANITIZE=ON)"
# the agent is built with ASan too: the JVM needs the runtime first, and
# handles its own SIGSEGVs
asan_rt=$(ldd "$AGENT" | awk '/libasan/ { print $3 }')
[ -f "$asan_rt" ] || fail "cannot find the ASan runtime the agent links"

seed=${OPJIT_MUTATE_SEED:-$RANDOM}
echo "seed $seed (OPJIT_MUTATE_SEED=$seed repeats this run)"

record() {
	local s=$1; shift
	"$OPROFILED" --session-dir="$s" -- "$@" >"$s.out" 2>&1 ||
		{ cat "$s.out"; fail "oprofiled $* failed"; }
}
# node may leave a V8 log in its working directory
cd "$tmp"
record "$tmp/node" node --perf-basic-prof \
	"$OPJIT_SOURCE/tests/handlers/fib.js" 1
mkdir "$tmp/classes"
javac -d "$tmp/classes" "$OPJIT_SOURCE/tests/handlers/Hot.java" ||
	fail "javac failed"
record "$tmp/java" env LD_PRELOAD="$asan_rt" \
	ASAN_OPTIONS=handle_segv=0:detect_leaks=0:allow_user_segv_handler=1 \
	java -agentpath:"$AGENT" -cp "$tmp/classes" Hot 1
# the runtimes' live maps are ours; the sessions keep their copies
rm -f $(ls "$tmp"/node/maps/*/ "$tmp"/java/maps/*/ 2>/dev/null |
	sed 's/\.gz$//' | grep -E '^(perf-[0-9]+\.map|anon\.[0-9]+)$' |
	sed 's|^|/tmp/|')
for s in node java; do
	ls "$tmp/$s"/maps/*/* >/dev/null 2>&1 ||
		fail "the $s session archived no JIT map"
done

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99
status=0
for s in node java; do
	echo "$s session: $(cd "$tmp/$s" && find . -type f | tr '\n' ' ')"
	n=${OPJIT_MUTANTS:-$((10 * $(find "$tmp/$s" -type f ! -name '.*' | wc -l)))}
	# ELF images are left out (libbfd on node costs seconds a run under
	# ASan, and no session file changes what it reads); every session
	# file is still read, the kallsyms copy and the maps through the
	# kernel and JIT rows
	python3 "$here/reader_mutate.py" "$tmp/$s" "$tmp" "$n" \
		"$seed" -- "$OPREPORT" -l --anon-handler=perfmap,javamap \
		'image:anon,?kernel.kallsyms?' || status=1
done
[ "$status" = 0 ] || fail "opreport mishandled a mutant (above)"
echo PASS
