#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every bad option, pid or event gives exactly one clear line and exit 1.
. "$(dirname "$0")/lib.sh"

cd "$WORK"
# expect REGEX ARGS...: exit 1 and one line on stderr matching REGEX
expect() {
	local re=$1 rc=0
	shift
	"$OPROFILED" --session-dir="$WORK/s" "$@" >out.txt 2>err.txt </dev/null || rc=$?
	[ "$rc" -eq 1 ] || fail "oprofiled $* exited $rc, not 1: $(cat err.txt)"
	[ "$(wc -l <err.txt)" -eq 1 ] || fail "oprofiled $* printed not one line: $(cat err.txt)"
	grep -Eq "^oprofiled: $re\$" err.txt || fail "oprofiled $* said: $(cat err.txt)"
	[ ! -e "$WORK/s" ] || fail "oprofiled $* created a session"
}

expect "unknown option '--bogus'" --bogus -- true
expect "option '--pid' needs a value" --pid
expect "invalid --pid 'abc': not a process id" --pid=abc
expect "invalid --pid '0': not a process id" --pid=0
expect 'no process with pid 4194303' --pid=4194303
expect "unknown event 'no-such-event' \\(oprofiled --list-events lists them\\)" \
	--event=no-such-event -- true
expect "invalid --frequency 'fast': not a positive integer" --frequency=fast -- true
expect "invalid --period '0': not a positive integer" --period=0 -- true
expect "invalid --period '18446744073709551615': larger than 2\\^63-1" -c 18446744073709551615 -- true
expect '--frequency and --period exclude each other' --frequency=100 --period=1000 -- true
expect "invalid --duration '-1': not a positive number of seconds" --duration=-1 --system-wide
expect "invalid --separate 'threads': expected process, thread, cpu, all or none" --separate=threads -- true
expect "invalid --separate '': expected process, thread, cpu, all or none" -s '' -- true
expect "invalid --separate 'process,,cpu': empty item in the list" -s process,,cpu -- true
expect "invalid --separate 'cpu,': empty item in the list" -s cpu, -- true
expect 'nothing to profile: give a COMMAND, --pid or --system-wide'
# a bad value is named before what is missing
expect "invalid --frequency 'abc': not a positive integer" --frequency=abc
expect 'a COMMAND, --pid and --system-wide exclude each other' --pid=1 --system-wide
expect 'cannot [a-z]+ /etc/passwd/s: Not a directory' --session-dir=/etc/passwd/s -- true
expect '--frequency=[0-9]+ is above the kernel.s limit of [0-9]+ \(kernel.perf_event_max_sample_rate\)' \
	--frequency=999999999 -- true

# a hardware event this machine lacks: one line naming it
if "$OPROFILED" --session-dir="$WORK/hw" --event=cycles -- true 2>hw.txt; then
	echo "note: this machine has hardware events; the unsupported-event line is not tested"
	rm -rf "$WORK/hw"
else
	expect "event 'cycles' is not supported on this machine" --event=cycles -- true
fi

"$OPROFILED" --help >help.txt || fail "--help exited $?"
for o in --pid --system-wide --duration --separate --session-dir --frequency \
	--period --event --no-kernel --no-archive-maps; do
	grep -q -- "$o" help.txt || fail "--help does not mention $o"
done
# the man page documents every option --help lists
man=${OPJIT_SOURCE:?}/daemon/oprofiled.1
[ -f "$man" ] || fail "no man page at $man"
for o in $(grep -oE -- '--[a-z][a-z-]+' help.txt | sort -u); do
	[ "$o" = --usage ] && continue
	grep -q -- "$(sed 's/-/\\\\-/g' <<<"$o")" "$man" || fail "the man page does not document $o"
done

# --separate: --help, the man page and the error line (which the parser
# builds from its own table) list the same values, and each is accepted
# (a bad --frequency is checked after --separate, so nothing records)
"$OPROFILED" --separate=threads -- true 2>sep.txt && fail "--separate=threads was accepted"
sed -n 's/.*: expected //p' sep.txt | sed 's/, / /g; s/ or / /' | tr ' ' '\n' |
	sort >sep.code
grep -o -- '--separate=[a-z,]*' help.txt | cut -d= -f2 | tr , '\n' | sort >sep.help
grep -- '\\-\\-separate\\fR=' "$man" | sed 's/.*separate\\fR=//; s/\\f[BR]//g' |
	tr , '\n' | sort >sep.man
[ "$(wc -l <sep.code)" -ge 5 ] || fail "the --separate error lists $(cat sep.code)"
diff -u sep.code sep.help || fail "--help lists other --separate values than the code"
diff -u sep.code sep.man || fail "the man page lists other --separate values than the code"
for v in $(cat sep.code); do
	"$OPROFILED" --separate="$v" --frequency=0 -- true 2>err.txt && fail "--frequency=0 accepted"
	grep -q "invalid --frequency '0'" err.txt || fail "--separate=$v refused: $(cat err.txt)"
done

# --version names the command and the project version
"$OPROFILED" --version >ver.txt || fail "--version exited $?"
grep -Eqx 'oprofiled \(opjit\) [0-9]+\.[0-9]+\.[0-9]+' ver.txt || fail "--version said: $(cat ver.txt)"
echo pass
