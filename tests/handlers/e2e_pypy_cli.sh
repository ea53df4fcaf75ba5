#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# opjit-pypy takes pypy3's own command line: --help is its own usage,
# -c CODE, -m MODULE and - run as under pypy3 (sys.argv, __main__) with
# the compile hook writing the map of their JIT loops, and PyPy's own
# options (-O) reach pypy3.  Each ended in a Python traceback before, and
# so did a module or script that is not there, which is one line now.
. "$(dirname "$0")/e2e_lib.sh"
need_cmd pypy3 pypy3
launcher=$OPJIT_BUILD/bin/opjit-pypy
[ -x "$launcher" ] || fail "$launcher is not built"

# a loop hot enough for PyPy's JIT to compile it
hot='s = 0
for i in range(300000):
    s += i % 7'

# map_has_loop PID WHAT: the run's map exists, is its, and has a loop
map_has_loop() {
	local map=/tmp/anon.$1
	forget_maps_of "$1"
	[ -f "$map" ] || fail "$2: no map $map"
	head -n 1 "$map" | grep -q "^opjit-pypy 1 pid=$1 " ||
		show_fail "$map" "$2: $map is not this run's map"
	grep -Eq '^[0-9]+ loop ' "$map" ||
		show_fail "$map" "$2: $map holds no JIT loop"
}

# launch DIR ARGS...: opjit-pypy ARGS in DIR, its exit status in $rc.
# The launcher execs pypy3, so $! is the pid whose /tmp/anon.<pid> the
# run may write (a run that fails early writes one too): ours to remove.
launch() {
	local dir=$1 pid
	shift
	(cd "$dir" && exec "$launcher" "$@") &
	pid=$!
	forget_maps_of "$pid"
	rc=0
	wait "$pid" || rc=$?
}

# --help: opjit-pypy's own usage, exit 0
"$launcher" --help >"$tmp/help.out" 2>"$tmp/help.err" ||
	show_fail "$tmp/help.err" "opjit-pypy --help failed"
grep -q '^usage: opjit-pypy .*-c CODE | -m MODULE' "$tmp/help.out" ||
	show_fail "$tmp/help.out" "opjit-pypy --help prints no usage"
[ ! -s "$tmp/help.err" ] || show_fail "$tmp/help.err" "--help wrote to stderr"

# -c CODE ARGS
"$launcher" -c "import os, sys
$hot
print(os.getpid(), __name__, sys.argv)" one -two \
	>"$tmp/c.out" 2>"$tmp/c.err" || show_fail "$tmp/c.err" "opjit-pypy -c failed"
read -r pid rest <"$tmp/c.out" || show_fail "$tmp/c.err" "-c printed nothing"
[ "$rest" = "__main__ ['-c', 'one', '-two']" ] ||
	show_fail "$tmp/c.out" "-c ran with the wrong __name__ or sys.argv"
map_has_loop "$pid" "-c"

# -m MODULE ARGS, found in the current directory as pypy3 -m finds it
mkdir "$tmp/mod"
printf 'import os, sys\n%s\nprint(os.getpid(), __name__, sys.argv[1:])\n' \
	"$hot" >"$tmp/mod/hotmod.py"
(cd "$tmp/mod" && "$launcher" -m hotmod x -y) >"$tmp/m.out" 2>"$tmp/m.err" ||
	show_fail "$tmp/m.err" "opjit-pypy -m failed"
read -r pid rest <"$tmp/m.out" || show_fail "$tmp/m.err" "-m printed nothing"
[ "$rest" = "__main__ ['x', '-y']" ] ||
	show_fail "$tmp/m.out" "-m ran with the wrong __name__ or sys.argv"
map_has_loop "$pid" "-m"

# PyPy's own options go to pypy3: -O drops asserts
launch "$tmp" -O -c 'assert False; print("optimized")' >"$tmp/o.out" \
	2>"$tmp/o.err"
[ "$rc" = 0 ] || show_fail "$tmp/o.err" "opjit-pypy -O -c failed"
[ "$(cat "$tmp/o.out")" = optimized ] ||
	show_fail "$tmp/o.err" "-O did not reach pypy3"

# - : the program from standard input
out=$(printf 'import os, sys\nprint(os.getpid(), sys.argv)\n' |
	"$launcher" - arg 2>"$tmp/s.err") ||
	show_fail "$tmp/s.err" "opjit-pypy - failed"
read -r pid rest <<<"$out"
forget_maps_of "$pid"
[ "$rest" = "['-', 'arg']" ] || show_fail "$tmp/s.err" "- got sys.argv $rest"

# the program's exit status is the launcher's
launch "$tmp" -c 'raise SystemExit(3)' 2>/dev/null
[ "$rc" = 3 ] || fail "opjit-pypy -c 'raise SystemExit(3)' exited $rc"
# a missing argument is one line, no traceback
rc=0
"$launcher" -c 2>"$tmp/e.err" || rc=$?
[ "$rc" = 2 ] && [ "$(cat "$tmp/e.err")" = "opjit-pypy: -c needs an argument" ] ||
	show_fail "$tmp/e.err" "opjit-pypy -c without code: exit $rc"
# a module or script that is not there is one line and pypy3's status,
# as pypy3 says it ("No module named", "can't open file"), no traceback
launch "$tmp/mod" -m nosuchmod >"$tmp/nm.out" 2>"$tmp/nm.err"
[ "$rc" = 1 ] && [ "$(cat "$tmp/nm.err")" = "opjit_pypy: No module named nosuchmod" ] ||
	show_fail "$tmp/nm.err" "opjit-pypy -m nosuchmod: exit $rc"
launch "$tmp/mod" -m nosuchpkg.sub >"$tmp/np.out" 2>"$tmp/np.err"
[ "$rc" = 1 ] && [ "$(wc -l <"$tmp/np.err")" = 1 ] &&
	grep -q "^opjit_pypy: Error while finding module specification for 'nosuchpkg.sub' (ModuleNotFoundError: No module named 'nosuchpkg')$" "$tmp/np.err" ||
	show_fail "$tmp/np.err" "opjit-pypy -m nosuchpkg.sub: exit $rc"
mkdir "$tmp/mod/pkg"
: >"$tmp/mod/pkg/__init__.py"
launch "$tmp/mod" -m pkg >"$tmp/pk.out" 2>"$tmp/pk.err"
[ "$rc" = 1 ] && [ "$(cat "$tmp/pk.err")" = "opjit_pypy: No module named pkg.__main__; 'pkg' is a package and cannot be directly executed" ] ||
	show_fail "$tmp/pk.err" "opjit-pypy -m pkg (no __main__): exit $rc"
launch "$tmp" "$tmp/nosuch.py" >"$tmp/ns.out" 2>"$tmp/ns.err"
[ "$rc" = 2 ] && [ "$(cat "$tmp/ns.err")" = "opjit_pypy: can't open file $tmp/nosuch.py: [Errno 2] No such file or directory" ] ||
	show_fail "$tmp/ns.err" "opjit-pypy nosuch.py: exit $rc"
# the program's own ImportError is the program's: its traceback, as
# pypy3 shows it
printf 'import nosuchmod\n' >"$tmp/mod/badimport.py"
launch "$tmp/mod" -m badimport >"$tmp/bi.out" 2>"$tmp/bi.log"
[ "$rc" = 1 ] && grep -q Traceback "$tmp/bi.log" && grep -q "No module named 'nosuchmod'" "$tmp/bi.log" ||
	show_fail "$tmp/bi.log" "opjit-pypy -m badimport: exit $rc"
for f in "$tmp"/*.err; do
	grep -q Traceback "$f" && show_fail "$f" "a Python traceback"
done
echo "opjit-pypy --help, -c, -m, - and PyPy options work as under pypy3"
