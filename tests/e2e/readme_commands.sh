#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# First contact: the README's commands, the man pages' examples and the
# commands of the handlers' READMEs (jitdump, javamap, pypy),
# taken from README.md, oprofiled.1, opreport.1, opjit-pypy.1 and
# opannotate.1 as they are and run in
# order (the README's from a directory where build/ is this build, the
# man pages' with the programs on PATH), with small stand-ins for app.js,
# app.jar, app.py (bench.py), ./my-jit, ./my-program, ./myprog and ./server.  Each opreport command must give
# the whole profile: every process with JIT samples claimed, and the
# rows, folded lines or pprof samples adding up to the samples it selects;
# a command that does not ask for JIT code must say how many samples it
# hid, and those must make up the rest.  Each opannotate command must
# show JIT instructions or source lines with samples.  A line whose tool is missing
# here, or that starts a browser or a server or profiles the whole
# machine, is not run, and the test says which; a recording the same as
# one before it is made once, and the commands after it read a copy of
# its session (recording_key).
#   readme_commands.sh         run them
#   readme_commands.sh --list  only print them
. "${BASH_SOURCE[0]%/*}/../lib/e2e.sh"
: "${OPJIT_BUILD:?}" "${OPJIT_SOURCE:?}"
README=$OPJIT_SOURCE/README.md

need_cmd node nodejs

# the README's commands: indented lines that run opjit or the tools it
# feeds (or change directory), without their trailing comments
mapfile -t cmds < <(sed -nE 's/^    ((build\/|cd |java |go tool |speedscope |flamegraph\.pl ).*)$/\1/p' "$README" |
	sed -E 's/[[:space:]]+#.*$//')
[ "${#cmds[@]}" -ge 20 ] || fail "only ${#cmds[@]} commands found in README.md"
# the man pages' EXAMPLES, as a shell reads them
man_examples() {
	awk '/^\.SH/ {ex = ($2 == "EXAMPLES")} ex && /^\.nf/ {on = 1; next}
		/^\.fi/ {on = 0} on && !/^$/' "$1" | sed 's/\\-/-/g'
}
# (the agent's path as the packages install it is this build's)
mapfile -t mans < <(man_examples "$OPJIT_SOURCE/daemon/oprofiled.1"; man_examples "$OPJIT_SOURCE/opreport/opreport.1"
	man_examples "$OPJIT_SOURCE/handlers/pypy/opjit-pypy.1"
	man_examples "$OPJIT_SOURCE/opannotate/opannotate.1" |
		sed "s#/usr/lib/x86_64-linux-gnu/opjit/#$OPJIT_BUILD/lib/opjit/#")
[ "${#mans[@]}" -ge 10 ] || fail "only ${#mans[@]} examples found in the man pages"
# the folder READMEs' commands: indented lines, or the lines of sh
# fences, that run a program, without their trailing comments
folder_cmds() {
	awk '/^```sh/ { f = 1; next } /^```/ { f = 0 }
		f && NF { print; next }
		/^    [a-z]/ { sub(/^    /, ""); print }' "$1" |
		grep -E '^(cd |oprofiled |opreport |opannotate |jcmd |java )' |
		sed -E 's/[[:space:]]+#.*$//' |
		sed "s#/usr/lib/x86_64-linux-gnu/opjit/#$OPJIT_BUILD/lib/opjit/#"
}
mapfile -t folders < <(for f in handlers/jitdump/README.md \
	handlers/javamap/README.md handlers/pypy/README.md; do
	folder_cmds "$OPJIT_SOURCE/$f"; done)
[ "${#folders[@]}" -ge 12 ] || fail "only ${#folders[@]} commands found in the folders' READMEs"
if [ "${1:-}" = --list ]; then
	printf '%s\n' "${cmds[@]}" "${mans[@]}" "${folders[@]}"
	exit 0
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/readme.XXXXXX")
tgids=()
cleanup() {
	local t sessions
	for t in "${tgids[@]}"; do e2e_rm_maps "/tmp/perf-$t.map" "/tmp/anon.$t"; done
	# the maps of every process the commands recorded, reported or not
	# (a report to a file, json or folded, names no tgid here)
	mapfile -t sessions < <(find "$W" -type d -name maps -printf '%h\n')
	e2e_forget_jit_maps "${sessions[@]}"
	rm -rf "$W"
}
trap cleanup EXIT
mkdir "$W/readme" "$W/man"
ln -s "$OPJIT_BUILD" "$W/readme/build"
cd "$W/readme"

# the stand-ins: two functions, one heavier, for a second or two of CPU
cat >app.js <<'EOF'
function heavyJs(n) { let s = 0; for (let i = 0; i < n; i++) s += (i * 31) % 7; return s; }
function lightJs(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 3; return s; }
let t = 0;
for (let k = 0; k < 400; k++) t += heavyJs(300000) + lightJs(100000);
console.log(t > 0);
EOF
cat >app.py <<'EOF'
def heavy(n):
    s = 0
    for i in range(n):
        s += i * 3 % 7
    return s

def light(n):
    s = 0
    for i in range(n):
        s += i % 5
    return s

t = 0
for k in range(60):
    t += heavy(300000) + light(100000)
print(t > 0)
EOF
# (0.6 s of its CPU time: 0.2 s a phase, a couple of hundred samples each)
printf '#!/bin/sh\nexec "%s" 0.6\n' "$OPJIT_BUILD/tests/workloads/exprjit" >my-jit
chmod +x my-jit
# a C program built -O2 without frame pointers
printf '#!/bin/sh\nexec "%s" 1\n' "$OPJIT_BUILD/tests/workloads/frameless" >my-program
chmod +x my-program
java_ok=0
if command -v java >/dev/null && command -v javac >/dev/null && command -v jar >/dev/null; then
	mkdir jar
	cp "$OPJIT_SOURCE/tests/handlers/Hot.java" "$OPJIT_SOURCE/tests/javamap/java/Alloc.java" \
		"$OPJIT_SOURCE/tests/javamap/java/Contend.java" jar/
	# hot JIT code, then allocations and contended locks for --event=
	# (a second of Hot is plenty for the JIT to compile Hot.hot and
	# for its samples: the stand-in runs four times)
	cat >jar/App.java <<'EOF'
public class App {
	public static void main(String[] args) throws Exception {
		Hot.main(new String[] { "1" });
		Alloc.main(new String[] { "300000" });
		Contend.main(new String[] { "4" });
	}
}
EOF
	# and the folders' READMEs' program Main, whose hot(long) is hot
	# (one javac for both: each start of it costs seconds of CPU)
	mkdir main
	cat >main/Main.java <<'EOF'
public class Main {
	static long hot(long n) {
		long s = 0;
		for (long i = 0; i < n; i++) s += (i * 31) % 7;
		return s;
	}
	public static void main(String[] args) {
		long t = 0, end = System.nanoTime() + 1_000_000_000L;
		while (System.nanoTime() < end) t += hot(1_000_000);
		System.out.println(t > 0);
	}
}
EOF
	javac -d classes jar/*.java main/Main.java &&
		(cd classes && printf 'Main-Class: App\n' >m &&
			jar cfm ../app.jar m $(ls -- *.class | grep -vx Main.class) &&
			jar cf ../main.jar Main.class) ||
		fail "cannot build the JVM stand-ins"
	java_ok=1
fi

printf '#!/bin/sh\nexec node --perf-basic-prof "%s/app.js"\n' "$W/man" >server
chmod +x server
cp app.js app.py my-jit server "$W/man/"
[ "$java_ok" = 0 ] || cp app.jar "$W/man/"
# a C program built with -g, for opannotate --source
cp "$OPJIT_BUILD/tests/workloads/threetoone" "$W/man/myprog"
cp app.py "$W/man/bench.py"

# total CMD [WHICH]: the samples CMD selects (WHICH=base: of its
# baseline): its session's, under its profile specification, of the
# event it reports
total() {
	local w specs=()
	for w in $1; do
		case $w in image:*|tgid:*|--event=*) specs+=("$w") ;; esac
	done
	"$OPJIT_BUILD/opreport/opreport" --session-dir="$(session_of "$1" "${2:-}")" \
		--format=json "${specs[@]}" 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["total_samples"])'
}
# session_samples CMD: the samples of the event CMD reports in its
# whole session
session_samples() {
	local w ev=()
	for w in $1; do
		case $w in --event=*) ev+=("$w") ;; esac
	done
	"$OPJIT_BUILD/opreport/opreport" --session-dir="$(session_of "$1")" \
		--format=json "${ev[@]}" 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["session_samples"])'
}
# session_of CMD [WHICH]: the session a command reads (WHICH=base: its
# baseline)
session_of() {
	local s=./oprofile_data w
	for w in $1; do
		case $w in
		--session-dir=*) s=${w#--session-dir=} ;;
		session:*) [ "${2:-}" = base ] && { s=${w#session:}; break; } || s=${w#session:} ;;
		--diff=*) [ "${2:-}" = base ] && { s=${w#--diff=}; break; } ;;
		esac
	done
	echo "$s"
}
# out_file CMD OPTION: the file a command writes with -o or >
out_file() {
	local next=0 w
	for w in $1; do
		[ "$next" = 1 ] && { echo "$w"; return; }
		case $w in -o) next=1 ;; \>*) echo "${w#>}"; return ;; esac
	done
}

check_opreport() {
	local cmd=$1 out=$2 err=$3 diff=0 n want f hidden
	case $cmd in *--diff=*|*"{ session:"*) diff=1 ;; esac
	# the JVM's events are weighed by the agent's log, not CPU samples:
	# each report names the stand-in's allocating or locking code
	case $cmd in
	*--event=*--format=pprof*)
		[ -s "$(out_file "$cmd")" ] || fail "$cmd: no pprof file"
		return ;;
	*--event=alloc*)
		grep -qE 'Alloc\.(longs|doubles)' "$out" $(out_file "$cmd") ||
			{ cat "$out" "$err"; fail "$cmd: no allocation site of the stand-in"; }
		return ;;
	*--event=lock*)
		grep -q 'Contend' "$out" $(out_file "$cmd") ||
			{ cat "$out" "$err"; fail "$cmd: no contended monitor of the stand-in"; }
		return ;;
	esac
	# samples it hid, and said it hid
	hidden=$(sed -nE 's/^opreport: note: ([0-9]+) of [0-9]+ samples .* --anon-handler=auto names them$/\1/p' "$err" | head -1)
	case $cmd in
	*--anon-handler=*|*--anon-samples*)
		[ -z "$hidden" ] || { cat "$err"; fail "$cmd: hides JIT samples"; } ;;
	*)
		[ -n "$hidden" ] || { cat "$err"; fail "$cmd: hides JIT samples without a word"; } ;;
	esac
	hidden=${hidden:-0}
	! grep -qE 'none named|no handler claimed' "$out" ||
		{ cat "$out"; fail "$cmd: a process's JIT samples were left unnamed"; }
	tgids+=($(grep -oE 'tgid:? ?[0-9]+' "$out" | grep -oE '[0-9]+' | sort -u || true))
	case $cmd in
	*--format=folded*)
		f=$(out_file "$cmd")
		f=${f:-$out}
		if [ "$diff" = 1 ]; then
			n=$(awk '{b += $(NF - 1); a += $NF} END {print b + 0, a + 0}' "$f")
			want="$(total "$cmd" base) $(total "$cmd")"
		else
			n=$(awk -v h="$hidden" '{s += $NF} END {print s + h}' "$f")
			want=$(total "$cmd")
		fi
		[ "$n" = "$want" ] || fail "$cmd: the folded lines hold $n samples, the session $want"
		grep -qE '\[(perfmap|jitdump|javamap|jitlog|pypy|pypy-loops)\]' "$f" ||
			fail "$cmd: no JIT frame in $f" ;;
	*--format=pprof*)
		command -v go >/dev/null || { echo "not checked (no go): $cmd"; return; }
		f=$(out_file "$cmd")
		n=$(go tool pprof -top -sample_index=samples "$f" 2>/dev/null |
			sed -nE 's/.* of ([0-9]+) total.*/\1/p')
		n=$((n + hidden))
		want=$(total "$cmd")
		[ "$n" = "$want" ] || fail "$cmd: the pprof file holds $n samples, the session $want"
		if [ "$diff" = 1 ]; then
			n=$(go tool pprof -top -sample_index=samples "$f.base" 2>/dev/null |
				sed -nE 's/.* of ([0-9]+) total.*/\1/p')
			want=$(total "$cmd" base)
			[ "$n" = "$want" ] || fail "$cmd: the baseline holds $n samples, the session $want"
		fi ;;
	*--format=json*)
		f=$(out_file "$cmd")
		n=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(sum(r["samples"] for r in d["symbols"]) + d["anon_hidden"]["samples"])' "$f")
		want=$(total "$cmd")
		[ "$n" = "$want" ] || fail "$cmd: the JSON rows hold $n samples, the selection $want" ;;
	*" -c "*)
		grep -q 'jit:' "$out" || fail "$cmd: no JIT code in the call graph" ;;
	*" -l "*)
		[ "$hidden" != 0 ] || grep -q 'jit:' "$out" || { cat "$out" "$err"; fail "$cmd: no JIT rows"; }
		# a session of several events: the header counts each, the
		# reported one's as the JSON of the whole session does
		if grep -q '^Events recorded: ' "$out"; then
			n=$(sed -nE 's/^Events recorded: .* ([0-9]+) samples \(this report\).*/\1/p' "$out")
			want=$(session_samples "$cmd")
			[ "$n" = "$want" ] || { head -n 4 "$out"; fail "$cmd: the header counts $n samples of the event reported, the session $want"; }
			echo "header of several events: $n samples of the one reported, the session $want"
		fi
		if [ "$diff" = 0 ]; then
			n=$(awk -v h="$hidden" '/^samples/ {on = 1; next} on && /^[0-9]+ / {s += $1} /^$/ {on = 0} END {print s + h}' "$out")
			want=$(total "$cmd")
			[ "$n" = "$want" ] || { cat "$out"; fail "$cmd: the rows hold $n samples, the selection $want"; }
		fi ;;
	esac
}

# check_opannotate CMD OUT: --assembly shows JIT code disassembled, with
# samples on its instructions (in the symbol -i names, when it names
# one); --source shows lines with samples
check_opannotate() {
	local cmd=$1 out=$2 name
	case $cmd in
	*--assembly*)
		name=$(sed -nE "s/.* -i '?([^' ]+)'?.*/\1/p" <<<"$cmd")
		awk -v name="$name" '
			/^[^ ]/ { jit = index($0, "  [jit:") > 0 &&
				(name == "" || index($0, name "  [jit:") == 1) }
			jit && /^ +[0-9]+ +[0-9.]+% +[0-9a-f]+:  [a-z]/ { found = 1 }
			END { exit !found }' "$out" ||
			{ cat "$out"; fail "$cmd: no JIT instruction${name:+ of $name} with samples"; } ;;
	*--source*)
		grep -qE '^ +[0-9]+ +[0-9.]+% +[0-9]+(:|$)' "$out" ||
			{ cat "$out"; fail "$cmd: no source line with samples"; } ;;
	esac
}

ran=0 notrun=() same=()
# A recording the same as one made before (the same program and
# arguments, the same stand-ins, whatever the path it is run by) is not
# made again: its session is copied where this one would write it, and
# the commands after it read that.  The first run was checked; a second
# would check the same thing again, for seconds of CPU each.
declare -A recorded
# recording_key CMD: CMD with the programs' and the stand-ins' paths
# made alike, or nothing for what is not a recording in the foreground
# of a program started under oprofiled
recording_key() {
	local w key=
	case $1 in *'&'*|cd\ *|*--pid=*|*--session-dir=*) return ;; esac
	case $1 in build/daemon/oprofiled\ *--\ *|oprofiled\ *--\ *) ;; *) return ;; esac
	for w in $1; do
		w=${w#build/daemon/}
		w=${w#build/bin/}
		w=${w/#-agentpath:*\/libjavamap-agent.so/-agentpath:AGENT}
		# a stand-in by its content, not its name (bench.py is app.py)
		[ ! -f "$w" ] || w=$(cksum <"$w")
		key+=" $w"
	done
	echo "$key"
}

# run_doc CMD: run one documented command and check what it gave
run_doc() {
	local cmd=$1 why= rc=0 key
	case $cmd in
	speedscope*) why="opens a browser" ;;
	*-http=*) why="serves a web page" ;;
	*--system-wide*) why="profiles the whole machine" ;;
	*'$(pidof java)'*) why="needs a JVM running" ;;
	flamegraph.pl*) command -v flamegraph.pl >/dev/null || why="flamegraph.pl is not installed" ;;
	go\ *) command -v go >/dev/null || why="go is not installed" ;;
	java*|*javamap*|*--pid=\$!*) [ "$java_ok" = 1 ] || why="no JDK" ;;
	*opjit-pypy*|*=pypy*) command -v pypy3 >/dev/null || why="pypy3 is not installed" ;;
	esac
	if [ -n "$why" ]; then
		notrun+=("$cmd ($why)")
		return
	fi
	# the report before a tool that is not here is still checked
	case $cmd in
	*"| flamegraph.pl"*)
		command -v flamegraph.pl >/dev/null || {
			notrun+=("${cmd#*| } (flamegraph.pl is not installed)")
			cmd="${cmd%% |*} >flame.folded"
		} ;;
	*"&& speedscope"*)
		notrun+=("${cmd#*&& } (opens a browser)")
		cmd=${cmd%% &&*} ;;
	*"&& go tool"*)
		command -v go >/dev/null || {
			notrun+=("${cmd#*&& } (go is not installed)")
			cmd=${cmd%% &&*}
		} ;;
	esac
	key=$(recording_key "$cmd")
	if [ -n "$key" ] && [ -n "${recorded[$key]:-}" ]; then
		echo "same recording as before: $cmd (its session copied from ${recorded[$key]})"
		rm -rf oprofile_data
		cp -a "${recorded[$key]}" oprofile_data
		same+=("$cmd")
		return
	fi
	echo "run: $cmd"
	eval "$cmd" >out.txt 2>err.txt || rc=$?
	[ -z "$key" ] || [ "$rc" != 0 ] || recorded[$key]=$PWD/oprofile_data.first$ran
	[ -z "$key" ] || [ "$rc" != 0 ] || cp -a oprofile_data "${recorded[$key]}"
	[ "$rc" = 0 ] || { cat err.txt; fail "$cmd: exited $rc"; }
	case $cmd in
	build/opreport/opreport*|opreport*) check_opreport "${cmd%% &&*}" out.txt err.txt ;;
	build/daemon/oprofiled*|oprofiled*)
		case $cmd in *"&"|*"& ") ;; *)
			grep -qE 'oprofiled: [0-9]+ samples' err.txt || { cat err.txt; fail "$cmd: no summary"; } ;;
		esac ;;
	build/opannotate/opannotate*|opannotate*) check_opannotate "$cmd" out.txt ;;
	go\ tool\ pprof*) grep -q 'total' out.txt || fail "$cmd: no total" ;;
	esac
	ran=$((ran + 1))
}

for cmd in "${cmds[@]}"; do
	run_doc "$cmd"
done
wait
echo "ran $ran README commands"

cd "$W/man"
PATH=$OPJIT_BUILD/opreport:$OPJIT_BUILD/opannotate:$OPJIT_BUILD/daemon:$OPJIT_BUILD/bin:$PATH
n_readme=$ran
for cmd in "${mans[@]}"; do
	run_doc "$cmd"
done
echo "ran $((ran - n_readme)) man page examples"

# the folders' READMEs, from a directory holding app/ (the jitdump
# README's cd), with a JVM program Main whose hot(long) is hot
mkdir -p "$W/folders/app"
cd "$W/folders"
cp "$W/man/app.js" "$W/man/app.py" app/
[ "$java_ok" = 0 ] || cp "$W/readme/main.jar" app/app.jar
n_man=$ran
for cmd in "${folders[@]}"; do
	case $cmd in jcmd\ PID*) notrun+=("$cmd (needs a JVM running)"); continue ;; esac
	run_doc "$cmd"
done
echo "ran $((ran - n_man)) commands of the folders' READMEs"
for n in "${same[@]}"; do echo "recorded once, reported again: $n"; done
for n in "${notrun[@]}"; do echo "not run: $n"; done
