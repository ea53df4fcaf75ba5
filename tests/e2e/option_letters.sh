#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# First contact, finding 10: option letters that mean something else to
# perf or to OProfile were nowhere explained.  Each letter oprofiled and
# opreport take (read from their --help) is held against the letters of
# perf record and perf report (perf 6.1's -h) and of OProfile's operf and
# opreport (their man pages): where the other tool's letter is another
# option, the man page's OPTION LETTERS section must list the letter.  A
# letter that means the same by another long name counts as the same
# only when the program takes that name too ("the same as --X" in its
# --help), so a missing perf spelling (--all-cpus for -a) is caught
# unless the letter is explained.
. "${BASH_SOURCE[0]%/*}/../lib/e2e.sh"
: "${OPJIT_BUILD:?}" "${OPJIT_SOURCE:?}"

# LETTER:LONG, as each tool's help or manual gives them.  perf record's
# -g has no long name of its own: it records call graphs.
perf_record="a:all-cpus b:branch-any B:no-buildid c:count C:cpu d:data
D:delay e:event F:freq g:callgraph G:cgroup i:no-inherit I:intr-regs
j:branch-filter k:clockid m:mmap-pages n:no-samples N:no-buildid-cache
o:output p:pid P:period q:quiet r:realtime R:raw-samples s:stat
S:snapshot t:tid T:timestamp u:uid v:verbose W:weight z:compression-level"
perf_report="b:branch-stack c:comms C:cpu d:dsos D:dump-raw-trace f:force
F:fields g:call-graph G:inverted i:input I:show-info k:vmlinux
M:disassembler-style m:modules n:show-nr-samples p:parent q:quiet s:sort
S:symbols t:field-separator T:threads U:hide-unresolved v:verbose
w:column-widths x:exclude-other"
# operf's -e takes NAME:COUNT[:UNITMASK...] specifications, not names
operf="a:append c:separate-cpu d:session-dir e:event-specs g:callgraph
k:vmlinux l:lazy-conversion p:pid s:system-wide t:separate-thread
V:verbose v:version"
oprofile_opreport="a:accumulated c:callgraph D:demangle d:details
e:exclude-symbols x:exclude-dependent g:debug-info %:global-percent
i:include-symbols p:image-path f:long-filenames m:merge n:no-header
o:output-file r:reverse-sort w:show-address s:sort l:symbols t:threshold
V:verbose v:version X:xml"

# check PROGRAM MANPAGE TOOL TABLE [TOOL TABLE...]
check() {
	local prog=$1 man=$2 help
	shift 2
	help=$(mktemp)
	"$prog" --help >"$help" || { rm -f "$help"; fail "$prog --help failed"; }
	python3 - "$help" "$man" "$@" <<'EOP' || { rm -f "$help"; fail "${prog##*/}: letters not explained in ${man#"$OPJIT_SOURCE"/}"; }
import re, sys
helpfile, man, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
letters, alias = {}, {}
for line in open(helpfile).read().splitlines():
    m = re.match(r"^  -(\S), --([a-z][a-z-]*)", line)
    if m:
        letters[m.group(1)] = m.group(2)
        alias.setdefault(m.group(2), m.group(2))
        continue
    m = re.match(r"^      --([a-z][a-z-]*)", line)
    if m:
        same = re.search(r"the same as --([a-z][a-z-]*)", line)
        alias[m.group(1)] = same.group(1) if same else m.group(1)
letters.pop("?", None)
resolve = lambda n: alias.get(alias.get(n, n), alias.get(n, n))
# the letters OPTION LETTERS lists: .B or .BR lines after .TP
text = open(man).read()
sec = re.search(r'^\.SH "OPTION LETTERS"\n(.*?)^\.SH ', text, re.S | re.M)
if not sec:
    sys.exit("no OPTION LETTERS section in " + man)
listed = set()
lines = sec.group(1).splitlines()
for prev, line in zip(lines, lines[1:]):
    if prev == ".TP" and re.match(r"^\.BR? ", line):
        listed |= set(re.findall(r"\\-([A-Za-z%])(?![A-Za-z\\])", line))
bad = 0
for tool, table in zip(rest[0::2], rest[1::2]):
    for item in table.split():
        l, other = item.split(":", 1)
        if l not in letters:
            continue
        ours = letters[l]
        if resolve(other) == resolve(ours):
            continue
        if l in listed:
            print("ok: -%s: --%s here, --%s in %s: explained" % (l, ours, other, tool))
        else:
            print("FAIL: -%s: --%s here, --%s in %s: not in OPTION LETTERS" % (l, ours, other, tool))
            bad = 1
sys.exit(bad)
EOP
	rm -f "$help"
}

check "$OPJIT_BUILD/daemon/oprofiled" "$OPJIT_SOURCE/daemon/oprofiled.1" \
	"perf record" "$perf_record" operf "$operf"
check "$OPJIT_BUILD/opreport/opreport" "$OPJIT_SOURCE/opreport/opreport.1" \
	"perf report" "$perf_report" "OProfile's opreport" "$oprofile_opreport"
echo "every letter that means another thing to perf or OProfile is explained"
