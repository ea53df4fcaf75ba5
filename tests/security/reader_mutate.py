#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Mutate every file of a recorded session many ways and run opreport on
each mutant under a time limit.

usage: reader_mutate.py SESSION WORKDIR COUNT SEED -- OPREPORT ARGS...

Each mutant changes one file of a copy of SESSION (truncation, bit flips,
runs of zeros or random bytes, a duplicated chunk), for the container
files (samples.hist, anon.samples) half the time with every block's
CRC-32C recomputed so that the damage reaches the parsers behind the
checksums.  The files take turns, and each file's mutants take the kinds
in turn, the containers' first without the checksums recomputed and then
with them: COUNT of ten times the number of files gives every file every
kind of damage, each container both ways.  Where the damage falls is
random.  Files whose names begin with a dot are left alone: a reader
ignores them (samples/FORMAT.md), so their mutants would all read as the
session itself.  opreport must finish within the time limit, exit 0 or 1,
print no sanitizer report, and, when the mutant is damage by the block
rules of samples/FORMAT.md, say so in a line naming the file.  Prints one
line per failure and a summary; exits 1 when anything failed.
"""
import os
import random
import shutil
import subprocess
import sys

TIMEOUT = 20
CONTAINERS = {"samples.hist": b"OPJITHST", "anon.samples": b"OPJITANO"}
BLOCK_MAGIC = 0x4B4C424F
BLOCK_MAX = 64 << 20


def crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


TABLE = crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def le32(b, off):
    return int.from_bytes(b[off:off + 4], "little")


def blocks_damaged(data, magic):
    """Whether DATA is damage by FORMAT.md's container rules."""
    if len(data) < 16 or data[:8] != magic or le32(data, 8) != 1:
        return True
    off = 16
    while off < len(data):
        if len(data) - off < 16 or le32(data, off) != BLOCK_MAGIC:
            return True
        n = le32(data, off + 8)
        if n > BLOCK_MAX or n > len(data) - off - 16:
            return True
        if crc32c(data[off + 16:off + 16 + n]) != le32(data, off + 12):
            return True
        off += 16 + n
    return False


def recompute_crcs(data):
    """Make every block whose frame still holds checksum-clean again."""
    data = bytearray(data)
    off = 16
    while len(data) - off >= 16 and le32(data, off) == BLOCK_MAGIC:
        n = le32(data, off + 8)
        if n > BLOCK_MAX or n > len(data) - off - 16:
            break
        c = crc32c(data[off + 16:off + 16 + n])
        data[off + 12:off + 16] = c.to_bytes(4, "little")
        off += 16 + n
    return bytes(data)


OPS = ["truncate", "flip", "zero", "random", "dup"]


def mutate(data, op, rng):
    data = bytearray(data)
    n = len(data)
    if n == 0:
        return op, bytes(rng.randbytes(rng.randint(1, 64)))
    if op == "truncate":
        del data[rng.randrange(n):]
    elif op == "flip":
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(n)] ^= 1 << rng.randrange(8)
    elif op in ("zero", "random"):
        off = rng.randrange(n)
        ln = min(n - off, rng.choice([1, 2, 4, 8, 16, 64, 4096]))
        data[off:off + ln] = (bytes(ln) if op == "zero"
                              else rng.randbytes(ln))
    else:
        off = rng.randrange(n)
        ln = min(n - off, rng.choice([4, 16, 100, 1000, 10000]))
        at = rng.randrange(n + 1)
        data[at:at] = data[off:off + ln]
    return op, bytes(data)


def main():
    sep = sys.argv.index("--")
    session, work, count, seed = sys.argv[1:sep]
    cmd = sys.argv[sep + 1:]
    rng = random.Random(int(seed))
    files = sorted(os.path.relpath(os.path.join(d, f), session)
                   for d, _, fs in os.walk(session) for f in fs
                   if not f.startswith("."))
    mutant = os.path.join(work, "mutant")
    failures = 0
    warned = 0
    for i in range(int(count)):
        rel = files[i % len(files)]
        turn = i // len(files)
        shutil.rmtree(mutant, ignore_errors=True)
        shutil.copytree(session, mutant, symlinks=True)
        path = os.path.join(mutant, rel)
        with open(path, "rb") as f:
            orig = f.read()
        op, data = mutate(orig, OPS[turn % len(OPS)], rng)
        base = os.path.basename(rel)
        crc = base in CONTAINERS and turn // len(OPS) % 2 == 1
        if crc:
            data = recompute_crcs(data)
            op += "+crc"
        with open(path, "wb") as f:
            f.write(data)
        damaged = (base in CONTAINERS and data != orig and
                   blocks_damaged(data, CONTAINERS[base]))
        what = f"mutant {i} ({rel}: {op})"
        try:
            r = subprocess.run(cmd + [f"--session-dir={mutant}"],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            print(f"FAIL: {what}: opreport did not finish in {TIMEOUT} s")
            failures += 1
            keep(mutant, work, i)
            continue
        err = r.stderr.decode("utf-8", "replace")
        bad = None
        if r.returncode not in (0, 1):
            bad = f"exit status {r.returncode}"
        elif ("Sanitizer" in err or "runtime error:" in err or
              "LeakSanitizer" in err):
            bad = "sanitizer report"
        elif damaged and path not in err:
            bad = "damaged checksummed file without a warning naming it"
        if bad:
            print(f"FAIL: {what}: {bad}\n{err[-3000:]}")
            failures += 1
            keep(mutant, work, i)
        elif damaged:
            warned += 1
    print(f"{count} mutants of {len(files)} files: {failures} failed, "
          f"{warned} damaged checksummed files warned about")
    return 1 if failures else 0


def keep(mutant, work, i):
    """Keep a failing mutant for the one who reads the log."""
    dst = os.path.join(work, f"failed-{i}")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(mutant, dst, symlinks=True)
    print(f"  kept as {dst}")


if __name__ == "__main__":
    sys.exit(main())
