#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Resolution tests: samples placed at each function's file offset, as nm
and readelf compute it, must come back under that function's name, for
images with and without debug info, stripped, PIE and non-PIE, with a far
code segment, with split debug files, changed or missing."""
import json
import os
import re
import shutil
import subprocess
import sys

BUILD = os.environ["OPJIT_BUILD"]
OPREPORT = os.path.join(BUILD, "opreport", "opreport")
MKSESSION = os.path.join(BUILD, "tests", "opreport", "mksession")
RT = os.path.join(BUILD, "tests", "opreport")
TMP = sys.argv[1]
FUNCS = ["main", "rt_alpha", "rt_local_beta", "rt_gamma", "rt_far_delta"]
failures = []


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True,
                          **kw).stdout


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def functions(binary):
    """name -> (vma, size) of the test's functions, from nm."""
    out = {}
    for line in run(["nm", "-S", "--defined-only", binary]).splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "Tt" and p[3] in FUNCS:
            out[p[3]] = (int(p[0], 16), int(p[1], 16))
    return out


def sections(binary):
    out = []
    for line in run(["readelf", "-SW", binary]).splitlines():
        m = re.search(r"\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+"
                      r"([0-9a-f]+)", line)
        if m and m.group(2) != "NOBITS":
            out.append((m.group(1), int(m.group(3), 16),
                        int(m.group(4), 16), int(m.group(5), 16)))
    return out


def file_offset(secs, vma):
    for name, addr, off, size in secs:
        if addr and addr <= vma < addr + size:
            return off + vma - addr
    raise ValueError("vma %#x in no section" % vma)


def build_id(binary):
    m = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "-n", binary]))
    return m.group(1) if m else None


def session(name, lines):
    d = os.path.join(TMP, name)
    subprocess.run([MKSESSION, d], input="\n".join(lines) + "\n", text=True,
                   check=True)
    return d


def report(sdir, *args):
    p = subprocess.run([OPREPORT, "--session-dir=" + sdir, "--format=json",
                        "-l"] + list(args), capture_output=True, text=True)
    if p.returncode:
        raise SystemExit("opreport failed: " + p.stderr)
    return json.loads(p.stdout), p.stderr


def samples_for(ref):
    """Two samples in each function: near its start and at its last
    byte; function i gets 10*(i+1)+1 samples."""
    funcs, secs = functions(ref), sections(ref)
    hist, want = [], {}
    for i, name in enumerate(FUNCS):
        vma, size = funcs[name]
        hist.append((file_offset(secs, vma + 2), 10 * (i + 1)))
        hist.append((file_offset(secs, vma + size - 1), 1))
        want[name] = 10 * (i + 1) + 1
    return hist, want, funcs


def by_symbol(doc):
    out = {}
    for row in doc["symbols"]:
        out[row["symbol"]] = out.get(row["symbol"], 0) + row["samples"]
    return out


def oracle_line(ref, vma):
    out = run(["addr2line", "-e", ref, "%#x" % vma]).split()[0]
    f, _, line = out.rpartition(":")
    return os.path.basename(f), int(line) if line.isdigit() else None


def case(label, image, ref, named, lines=False, extra=(), image_attrs=""):
    hist, want, funcs = samples_for(ref)
    desc = ["image app file %s %s" % (image, image_attrs), "ctx c app app"]
    desc += ["hist c %#x %d" % h for h in hist]
    sdir = session(label, desc)
    doc, err = report(sdir, *(["-g", "-d"] if lines else []) + list(extra))
    got = by_symbol(doc)
    nosyms = sum(want[f] for f in FUNCS if f not in named)
    for f in FUNCS:
        if f in named:
            check(got.get(f) == want[f],
                  "%s: %s has %s samples, want %d" % (label, f, got.get(f),
                                                      want[f]))
        else:
            check(f not in got, "%s: %s is not named" % (label, f))
    if nosyms:
        check(got.get("(no symbols)") == nosyms,
              "%s: (no symbols) has %s samples, want %d"
              % (label, got.get("(no symbols)"), nosyms))
    if lines:
        for row in doc["symbols"]:
            if row["symbol"] not in funcs:
                continue
            vma = funcs[row["symbol"]][0]
            wfile, wline = oracle_line(ref, vma)
            check(row["file"] and os.path.basename(row["file"]) == wfile
                  and row["line"] == wline,
                  "%s: %s at %s:%s, addr2line says %s:%s"
                  % (label, row["symbol"], row["file"], row["line"], wfile,
                     wline))
            dv = sorted(int(d["vma"], 16) for d in row["details"])
            size = funcs[row["symbol"]][1]
            check(dv == [vma + 2, vma + size - 1],
                  "%s: %s details at %s" % (label, row["symbol"],
                                            [hex(v) for v in dv]))
    return doc, err


def main():
    os.makedirs(TMP, exist_ok=True)
    g_pie = os.path.join(RT, "rt_g_pie")
    case("debug-pie", g_pie, g_pie, FUNCS, lines=True)
    nog = os.path.join(RT, "rt_nog_nopie")
    doc, _ = case("nodebug-nopie", nog, nog, FUNCS)
    check(all(r["line"] is None for r in report(
        session("nodebug-lines", ["image app file " + nog, "ctx c app app",
                                  "hist c 0x1000 1"]), "-g")[0]["symbols"]),
          "nodebug-nopie: -g gives no lines without debug info")

    seg = os.path.join(RT, "rt_segments")
    secs = {s[0]: s for s in sections(seg)}
    check(secs[".fartext"][1] - secs[".fartext"][2]
          != secs[".text"][1] - secs[".text"][2],
          "segments: .fartext maps with another offset-to-address delta")
    case("segments", seg, seg, FUNCS, lines=True)

    case("stripped", g_pie + ".stripped", g_pie, [])
    dyn = os.path.join(RT, "rt_dyn")
    case("stripped-dynsym", dyn + ".stripped", dyn,
         ["main", "rt_alpha", "rt_gamma", "rt_far_delta"])
    # a stripped image's versioned dynamic symbols ("rt_alpha@@RT_1" to
    # nm -D) show by their names alone, as perf shows them
    ver = os.path.join(RT, "rt_ver")
    check("rt_alpha@@RT_1" in run(["nm", "-D", ver + ".stripped"]),
          "versioned: rt_ver exports rt_alpha@@RT_1")
    case("stripped-versioned", ver + ".stripped", ver,
         ["main", "rt_alpha", "rt_gamma", "rt_far_delta"])
    split = os.path.join(RT, "rt_split")
    case("debuglink", split + ".linked", split, FUNCS, lines=True)

    bid = build_id(g_pie)
    droot = os.path.join(TMP, "debugroot")
    os.makedirs(os.path.join(droot, ".build-id", bid[:2]))
    run(["objcopy", "--only-keep-debug", g_pie,
         os.path.join(droot, ".build-id", bid[:2], bid[2:] + ".debug")])
    case("build-id", g_pie + ".stripped", g_pie, FUNCS, lines=True,
         extra=["--debug-dir=" + droot])

    # printf@plt comes from the synthetic symbol table
    m = re.search(r"^([0-9a-f]+) <printf@plt>:",
                  run(["objdump", "-d", g_pie]), re.M)
    plt = int(m.group(1), 16)
    doc, _ = report(session("plt", [
        "image app file " + g_pie, "ctx c app app",
        "hist c %#x 9" % file_offset(sections(g_pie), plt + 4)]))
    check(by_symbol(doc).get("printf@plt") == 9, "plt: printf@plt named")

    # C++ names are demangled unless --demangle=none
    out = run(["nm", "--defined-only", g_pie])
    mangled = int(re.search(r"^([0-9a-f]+) T _Z10rt_mangledi$", out,
                            re.M).group(1), 16)
    sdir = session("demangle", [
        "image app file " + g_pie, "ctx c app app",
        "hist c %#x 4" % file_offset(sections(g_pie), mangled + 1)])
    check(by_symbol(report(sdir)[0]).get("rt_mangled(int)") == 4,
          "demangle: _Z10rt_mangledi shows as rt_mangled(int)")
    check(by_symbol(report(sdir, "--demangle=none")[0]).get(
        "_Z10rt_mangledi") == 4, "demangle: --demangle=none keeps the name")
    check(by_symbol(report(sdir, "-i", "rt_mangled(int)")[0]) ==
          {"rt_mangled(int)": 4}, "demangle: -i takes the demangled name")

    # a copy found through -p when the recorded path is gone
    doc, _ = case("image-path", "/nonexistent/dir/rt_g_pie", g_pie, FUNCS,
                  extra=["-p", RT])

    # changed since recording: by build-id, then by size and mtime
    changed = os.path.join(TMP, "changed", "app")
    os.makedirs(os.path.dirname(changed))
    shutil.copy(nog, changed)
    hist, _, _ = samples_for(g_pie)
    sdir = session("changed-bid", [
        "image app file %s build_id %s" % (changed, bid),
        "image lib file %s build_id %s" % (changed, bid),
        "ctx c app app", "ctx d lib app"] +
        ["hist c %#x %d" % h for h in hist] +
        ["hist d %#x %d" % h for h in hist])
    doc, err = report(sdir)
    check(err.count("changed since the session was recorded (build-id "
                    "differs)") == 1 and err.count("\n") == 1,
          "changed-bid: warned once for the image: %r" % err)
    check(set(by_symbol(doc)) == {"(no symbols)"},
          "changed-bid: no sample pinned on a symbol: %s" % by_symbol(doc))
    st = os.stat(g_pie)
    sdir = session("changed-size", [
        "image app file %s size %d mtime_ns %d" % (g_pie, st.st_size + 1,
                                                   st.st_mtime_ns),
        "ctx c app app"] + ["hist c %#x %d" % h for h in hist])
    doc, err = report(sdir)
    check("size and mtime differ" in err and err.count("\n") == 1,
          "changed-size: one warning: %r" % err)
    check(set(by_symbol(doc)) == {"(no symbols)"},
          "changed-size: no sample pinned on a symbol")
    sdir = session("same-size", [
        "image app file %s size %d mtime_ns %d build_id %s"
        % (g_pie, st.st_size, st.st_mtime_ns, bid),
        "ctx c app app"] + ["hist c %#x %d" % h for h in hist])
    doc, err = report(sdir)
    check(err == "" and "rt_alpha" in by_symbol(doc),
          "unchanged image with build-id, size and mtime: resolved, no "
          "warning (%r)" % err)

    # the kernel and a module through the session's kallsyms copy
    ks = os.path.join(TMP, "kallsyms")
    with open(ks, "w") as f:
        f.write("ffffffff81000000 T _stext\nffffffff81000100 t do_work\n"
                "ffffffff81000200 T schedule\n"
                "ffffffffc0001000 t ext4_fn\t[ext4]\n"
                "ffffffffc0001100 t ext4_other\t[ext4]\n")
    mods = os.path.join(TMP, "modules")
    with open(mods, "w") as f:
        f.write("ext4 12288 1 - Live 0xffffffffc0001000\n")
    sdir = session("kernel", [
        "kallsyms " + ks, "modules " + mods, "image app file " + g_pie,
        "image k kernel [kernel.kallsyms]", "image m module [ext4]",
        "ctx ck app k", "ctx cm app m",
        "hist ck 0xffffffff81000104 7", "hist ck 0xffffffff81000210 2",
        "hist cm 0xffffffffc0001010 5", "hist cm 0xffffffffc0003800 6",
        "hist cm 0xffffffffc0004000 1"])
    doc, _ = report(sdir)
    got = by_symbol(doc)
    check(got.get("do_work") == 7 and got.get("schedule") == 2 and
          got.get("ext4_fn") == 5, "kernel: kallsyms names %s" % got)
    check(got.get("ext4_other") == 6 and got.get("(no symbols)") == 1,
          "kernel: the module list bounds a module's last symbol")
    kinds = {r["symbol"]: r["kind"] for r in doc["symbols"]}
    check(kinds.get("do_work") == "kernel", "kernel: rows are kind kernel")

    if failures:
        print("%d checks failed" % len(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
