#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# check-clang.sh BUILD_DIR STAMP: clang's warnings, as errors, on every C
# file of a clang build tree that its last build did not compile (whose
# object is missing or older than STAMP, a file touched before it).  test.sh's fuzz
# build compiles only the fuzz targets and what they link; this runs the
# compiler's front end (-fsyntax-only) on the rest, with the flags the
# tree's build would use.  clang warns from its front end only, never
# from its optimiser or code generator, so these are the warnings a full
# build would give, at a fraction of its time.  Needs the build
# configured with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON.  Prints the files
# it checked and the first errors; exits 1 on a warning.
set -euo pipefail
dir=${1:?usage: check-clang.sh BUILD_DIR STAMP}
stamp=${2:?usage: check-clang.sh BUILD_DIR STAMP}
db=$dir/compile_commands.json
[ -f "$db" ] || { echo "check-clang.sh: no $db (configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)" >&2; exit 1; }
exec python3 - "$db" "$stamp" <<'EOF'
import concurrent.futures, json, os, shlex, subprocess, sys

entries = json.load(open(sys.argv[1]))


def syntax_only(e):
    """the entry's command without its output, front end only"""
    args = shlex.split(e["command"]) if "command" in e else list(e["arguments"])
    out, i = [], 0
    while i < len(args):
        if args[i] == "-o":
            i += 2
            continue
        if args[i] in ("-c", "-MD", "-MMD"):
            i += 1
            continue
        if args[i] in ("-MF", "-MT", "-MQ"):
            i += 2
            continue
        out.append(args[i])
        i += 1
    return out + ["-fsyntax-only"]


def output_of(e):
    args = shlex.split(e["command"]) if "command" in e else e["arguments"]
    o = e.get("output") or args[args.index("-o") + 1]
    return os.path.join(e["directory"], o)


since = os.stat(sys.argv[2]).st_mtime


def compiled(e):
    try:
        return os.stat(output_of(e)).st_mtime >= since
    except OSError:
        return False


todo = [e for e in entries if not compiled(e)]


def run(e):
    r = subprocess.run(syntax_only(e), cwd=e["directory"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    return e["file"], r.returncode, r.stdout


bad = 0
with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
    for f, rc, text in pool.map(run, todo):
        if rc != 0 or text.strip():
            bad += 1
            print(text.rstrip())
            print("check-clang.sh: %s: clang warns (exit %d)" % (f, rc))
print("check-clang.sh: %d of %d files checked by clang's front end "
      "(the build compiled the others), %d with warnings"
      % (len(todo), len(entries), bad))
sys.exit(1 if bad else 0)
EOF
