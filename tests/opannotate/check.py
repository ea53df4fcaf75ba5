# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks of opannotate --format=json output, for the e2e scripts.

check.py generations JSON NAME FIRST_OLD FIRST_NEW MIN
    Two generations of NAME, told apart by their first instruction; in
    each, the loop holds at least 90% of at least MIN samples.

check.py jit JSON
    The session of jit_synthetic.sh: every count and byte as it wrote them.

check.py sums ANNOTATE_JSON REPORT_JSON HANDLER MIN LOOP NAME...
    Each NAME (a regular expression, matched whole) names the same
    functions in opreport's -l report (rows of HANDLER) and in the
    annotation; over all its code objects, the annotation's instructions
    hold exactly the samples opreport gives it, at least MIN, and every
    code object was disassembled (every sample on an instruction).  The
    hottest code object's samples lie at least LOOP% inside its loops
    (from the target of a backward branch to the branch).

check.py hottest JSON SOURCE MIN
    In --source, SOURCE has at least MIN samples, at least 90% of them on
    its loop's lines (marked HOT-LOOP, the body, or LOOP-HEAD, the
    header), and at least 10% on its body's.  Not "the body's line is the
    hottest": the clock's sample lands on the instruction after the one
    that held it up, and on some CPUs that is the header's increment.

check.py loop JSON SYMBOL SOURCE MIN
    In SYMBOL's disassembly, the loop (from the target of the one
    backward branch to that branch) holds at least 90% of its samples,
    which are at least MIN; in --source, the lines of SOURCE marked
    HOT-LOOP hold at least 90% of the samples of SOURCE.
"""
import json
import re
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def symbol(doc, name):
    syms = [s for s in doc.get("symbols", []) if s["name"] == name]
    if len(syms) != 1:
        fail("%d symbols named %s" % (len(syms), name))
    return syms[0]


def backward_loop(sym):
    insns = sym["instructions"]
    loops = []
    for ins in insns:
        m = re.match(r"j\w+\s+0x([0-9a-f]+)", ins["text"] or "")
        if m and int(m.group(1), 16) < ins["vma"]:
            loops.append((int(m.group(1), 16), ins["vma"]))
    if len(loops) != 1:
        fail("%d backward branches in %s, not 1" % (len(loops), sym["name"]))
    return loops[0]


def check_loop(path, name, source, minimum):
    doc = json.load(open(path))
    sym = symbol(doc, name)
    if not sym["disassembled"]:
        fail("%s was not disassembled: %s" % (name, sym.get("why")))
    lo, hi = backward_loop(sym)
    total = sum(i["samples"] for i in sym["instructions"])
    if total != sym["samples"]:
        fail("instructions hold %d samples, the symbol %d" % (total, sym["samples"]))
    if total < minimum:
        fail("%s has %d samples, fewer than %d" % (name, total, minimum))
    loop = sum(i["samples"] for i in sym["instructions"] if lo <= i["vma"] <= hi)
    print("%s: %d samples, %d in the loop 0x%x-0x%x (%.1f%%)" %
          (name, total, loop, lo, hi, 100.0 * loop / total))
    if loop * 10 < total * 9:
        fail("the loop holds under 90%")
    hot = {n + 1 for n, text in enumerate(open(source)) if "HOT-LOOP" in text}
    files = [f for f in doc.get("sources", []) if f["file"] == source]
    if len(files) != 1:
        fail("--source lists %s %d times" % (source, len(files)))
    ftotal = sum(l["samples"] for l in files[0]["lines"])
    fhot = sum(l["samples"] for l in files[0]["lines"] if l["line"] in hot)
    print("%s: %d samples, %d on the loop's lines %s (%.1f%%)" %
          (source, ftotal, fhot, sorted(hot), 100.0 * fhot / max(ftotal, 1)))
    if fhot * 10 < ftotal * 9:
        fail("the loop's lines hold under 90%")


def check_hottest(path, source, minimum):
    doc = json.load(open(path))
    marked = [(n + 1, text) for n, text in enumerate(open(source))]
    body = {n for n, text in marked if "HOT-LOOP" in text}
    loop = body | {n for n, text in marked if "LOOP-HEAD" in text}
    files = [f for f in doc.get("sources", []) if f["file"] == source]
    if len(files) != 1:
        fail("--source lists %s %d times" % (source, len(files)))
    lines = sorted(files[0]["lines"], key=lambda l: -l["samples"])
    total = sum(l["samples"] for l in lines)
    if total < minimum:
        fail("%s has %d samples, fewer than %d" % (source, total, minimum))
    print("%s: %d samples, by line: %s" % (source, total, ", ".join(
        "%d: %d" % (l["line"], l["samples"]) for l in lines[:4])))
    in_loop = sum(l["samples"] for l in lines if l["line"] in loop)
    in_body = sum(l["samples"] for l in lines if l["line"] in body)
    if in_loop * 10 < total * 9:
        fail("the loop's lines %s hold %d of %d samples, under 90%%" %
             (sorted(loop), in_loop, total))
    if in_body * 10 < total:
        fail("the loop body's lines %s hold %d of %d samples, under 10%%" %
             (sorted(body), in_body, total))


def insns(sym):
    return {i["vma"]: (i["samples"], i["text"]) for i in sym["instructions"]}


def check_jit(path):
    """The session of jit_synthetic.sh, annotated."""
    doc = json.load(open(path))
    a, b, c = 0x7f0000001000, 0x7f0000002000, 0x7f0000003000
    hot = sorted((s for s in doc["symbols"] if s["name"] == "hot"),
                 key=lambda s: s.get("load_ns", 0))
    if len(hot) != 2:
        fail("%d symbols named hot, not one per generation" % len(hot))
    want = [(1000, {a: 5, a + 5: 45, a + 7: 50}, "mov    $0x61a80,%ecx"),
            (1000000000, {a: 2, a + 2: 1, a + 7: 30, a + 9: 30, a + 11: 37},
             "xor    %eax,%eax")]
    for sym, (load, counts, first) in zip(hot, want):
        if sym.get("load_ns") != load or not sym["disassembled"]:
            fail("hot generation %s: load %s, disassembled %s" %
                 (load, sym.get("load_ns"), sym["disassembled"]))
        got = {v: n for v, (n, _) in insns(sym).items() if n}
        if got != counts:
            fail("hot generation %d: samples %s, want %s" % (load, got, counts))
        if sym["instructions"][0]["text"] != first:
            fail("hot generation %d starts %r" % (load, sym["instructions"][0]["text"]))
        lo, hi = backward_loop(sym)
        loop = sum(n for v, n in counts.items() if lo <= v <= hi)
        if loop * 10 < sum(counts.values()) * 9:
            fail("hot generation %d: the loop holds %d of %d" %
                 (load, loop, sum(counts.values())))
    junk = symbol(doc, "junk")
    if not any("(bad)" in (i["text"] or "") for i in junk["instructions"]) or \
       junk["samples"] != 7:
        fail("junk: %s" % junk)
    liar = insns(symbol(doc, "liar"))
    if liar.get(c + 5) != (6, "dec    %ecx") or liar.get(c + 40) != (2, None):
        fail("liar: %s" % liar)
    movers = sorted((s for s in doc["symbols"] if s["name"] == "mover"),
                    key=lambda s: s.get("load_ns", 0))
    got = [(m.get("load_ns"), {v: t for v, (n, t) in insns(m).items() if n})
           for m in movers]
    d, e = 0x7f0000004000, 0x7f0000005000
    if got != [(1000, {d + 7: "jne    0x7f0000004005"}),
               (4000, {e + 5: "dec    %ecx"})]:
        fail("moved code: %s" % got)
    mapped = symbol(doc, "JS:*mapped")
    if mapped["disassembled"] or "keeps no code" not in mapped.get("why", "") or \
       {v: n for v, (n, _) in insns(mapped).items()} != \
       {0x7e0000000010: 1, 0x7e0000000012: 2}:
        fail("the perf map's symbol: %s" % mapped)
    print("jit: two generations of hot, junk, liar and a perf map as expected")


def check_generations(path, name, first_old, first_new, minimum):
    """Two generations of NAME, oldest first starting with FIRST_OLD,
    then FIRST_NEW; in each the loop holds 90% of at least MINIMUM."""
    doc = json.load(open(path))
    gens = sorted((s for s in doc["symbols"] if s["name"] == name),
                  key=lambda s: s.get("load_ns", 0))
    if len(gens) != 2 or gens[0].get("load_ns") == gens[1].get("load_ns"):
        fail("%d generations of %s: %s" %
             (len(gens), name, [g.get("load_ns") for g in gens]))
    for sym, first in zip(gens, (first_old, first_new)):
        if not sym["disassembled"] or sym["instructions"][0]["text"] != first:
            fail("%s loaded at %s: %s" % (name, sym.get("load_ns"),
                                          sym["instructions"][:2]))
        lo, hi = backward_loop(sym)
        total = sum(i["samples"] for i in sym["instructions"])
        loop = sum(i["samples"] for i in sym["instructions"]
                   if lo <= i["vma"] <= hi)
        print("%s loaded at %d: %d samples, %d in the loop (%.1f%%)" %
              (name, sym["load_ns"], total, loop, 100.0 * loop / max(total, 1)))
        if total < minimum or loop * 10 < total * 9:
            fail("the loop does not hold 90% of at least %d samples" % minimum)


def loops_share(sym):
    """The share of SYM's samples inside its loops."""
    ranges = []
    for ins in sym["instructions"]:
        m = re.match(r"j\w+\s+0x([0-9a-f]+)", ins["text"] or "")
        if m and int(m.group(1), 16) < ins["vma"]:
            ranges.append((int(m.group(1), 16), ins["vma"]))
    total = sum(i["samples"] for i in sym["instructions"])
    inside = sum(i["samples"] for i in sym["instructions"]
                 if any(lo <= i["vma"] <= hi for lo, hi in ranges))
    return inside, total, len(ranges)


def check_sums(ann_path, rep_path, handler, minimum, loop_pct, names):
    ann = json.load(open(ann_path))
    rep = json.load(open(rep_path))
    for name in names:
        pat = re.compile(name + "$")
        want = sum(r["samples"] for r in rep["symbols"]
                   if r.get("handler") == handler and pat.match(r["symbol"] or ""))
        gens = [s for s in ann["symbols"] if pat.match(s["name"])]
        if not gens:
            fail("no code object of %s annotated" % name)
        got = 0
        for g in gens:
            if not g["disassembled"]:
                fail("%s (loaded at %s) not disassembled: %s" %
                     (g["name"], g.get("load_ns"), g.get("why")))
            on = sum(i["samples"] for i in g["instructions"] if i["text"])
            if on != g["samples"]:
                fail("%s (loaded at %s): %d of its %d samples on instructions" %
                     (g["name"], g.get("load_ns"), on, g["samples"]))
            got += on
        hot = max(gens, key=lambda g: g["samples"])
        inside, total, nloops = loops_share(hot)
        print("%s: opreport %d samples; %d code objects annotated, %d samples "
              "on their instructions; the hottest (%d instructions, %d loops) "
              "holds %d, %d in its loops" %
              (name, want, len(gens), got, len(hot["instructions"]), nloops,
               total, inside))
        if got != want:
            fail("%s: the annotation holds %d samples, opreport %d" %
                 (name, got, want))
        if want < minimum:
            fail("%s: %d samples, fewer than %d" % (name, want, minimum))
        if inside * 100 < total * loop_pct:
            fail("%s: its hottest code holds %d of %d samples in loops, "
                 "under %d%%" % (name, inside, total, loop_pct))


if __name__ == "__main__":
    if sys.argv[1] == "sums":
        check_sums(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]),
                   int(sys.argv[6]), sys.argv[7:])
        sys.exit(0)
    elif sys.argv[1] == "hottest":
        check_hottest(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1] == "loop":
        check_loop(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif sys.argv[1] == "generations":
        check_generations(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5],
                          int(sys.argv[6]))
    elif sys.argv[1] == "jit":
        check_jit(sys.argv[2])
    else:
        fail("unknown check " + sys.argv[1])
