#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Complete stacks, for tests/bench/stacks.sh.

stacks.py opjit WORKLOAD FOLDED
stacks.py perf WORKLOAD SCRIPT
    Count the samples of WORKLOAD's hot work whose whole stack is right.
    FOLDED is `opreport --format=folded`, SCRIPT is
    `perf script -F comm,ip,sym,dso` of a recording with call chains.
    Prints "CORRECT TOTAL A B": TOTAL samples of the hot work (their
    innermost user frame is memcpy/memmove, or hot itself), CORRECT of
    them with the true caller chain from the program's entry, A and B of
    those through path A and path B (for the 3:1 split).

WORKLOAD is
    frameless  tests/workloads/frameless: _start; __libc_start_*; main;
               path_a | path_b; hot; memcpy (perf's inline frames and
               glibc's memmove alias for memcpy accepted)
    node       tests/opreport/native_leaf.js: from the program's entry
               (_start, __libc_start_* or main) through node down to the
               script's top level, then a | b, hot, the copy's JS frames
               and node's builtin, then memcpy; the frame above memcpy is
               Builtins_TypedArrayPrototypeSet, which node 20 calls
               memcpy from (a frame-pointer walk skips it, since memcpy
               keeps no frame)
    jvm        tests/javamap/java/Deep.java on HotSpot with
               -XX:+PreserveFramePointer, left and right kept
               interpreted: the Java chain Deep.main; Deep.left |
               Deep.right; Deep.leaf, each frame named as that method
               (opjit's "Deep.leaf(long)" or a perf map's "long
               Deep.leaf(long)"; HotSpot's "Interpreter" is no name), and
               no other frame between main and leaf.  The native frames
               above Deep.main (the launcher, JavaCalls, the call stub)
               are the JVM's own and are not judged.  The hot work is
               every sample whose innermost user frame is Deep.leaf.
Kernel frames are left out of both: a sample taken in the kernel counts
by its user stack.  An [unknown] frame anywhere makes a stack wrong.
The hot work's samples are all those whose innermost user frame is
memcpy (or hot), but the dynamic loader's at start: a broken stack
cannot say where it came from, so it counts, as a wrong one; node's
own copies outside the script's loop (a few at start) count as wrong
too, for every recorder alike.
"""
import re
import sys

MEM = re.compile(r'^_*mem(cpy|move)')
ENTRY = re.compile(r'^(_start|__libc_start_\w*|main)(@.*)?$')


def opjit_stacks(path):
    """(user frames root first, count) from opjit's folded output."""
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            stack, _, count = line.rstrip('\n').rpartition(' ')
            if not stack or not count.isdigit():
                continue
            frames = []
            for fr in stack.split(';'):
                if fr.endswith('_[k]'):
                    continue
                if fr.endswith('_[j]'):
                    fr = fr[:-4]
                frames.append(fr.rsplit(' [', 1)[0] if ' [' in fr else fr)
            yield frames, int(count)


def perf_stacks(path):
    """(user frames root first, 1) from perf script's call chains."""
    def one(block):
        frames = []
        for line in block[1:]:
            w = line.strip()
            # ADDR SYM (DSO); SYM may hold spaces and parentheses
            m = re.match(r'^[0-9a-f]+ (.*) \((.*)\)$', w)
            if not m:
                continue
            if m.group(2) == 'kernel.kallsyms' or \
               m.group(2) == '[kernel.kallsyms]':
                continue
            frames.append(m.group(1))
        frames.reverse()
        return frames

    block = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            if line.strip():
                block.append(line)
            elif block:
                yield one(block), 1
                block = []
    if block:
        yield one(block), 1


def js(frame, name, script):
    return re.match(r'^JS:[*~^+]?%s \S*%s:\d+:\d+$' % (name, script),
                    frame) is not None


LOADER = re.compile(r'^_?dl_|^_dl_')


def hot_work(frames, hot_leaf):
    """Whether a stack is one of the hot work's samples: its innermost
    user frame is memcpy (or hot), and it is not the dynamic loader's
    copying at start.  Nothing else is asked of it, so that a broken
    stack still counts, as a wrong one."""
    if not frames or not (MEM.match(frames[-1]) or frames[-1] == hot_leaf):
        return False
    return not any(LOADER.match(f) for f in frames)


def judge_frameless(frames):
    """None: not hot's work; else (correct, path)."""
    if not hot_work(frames, 'hot'):
        return None
    try:
        i = frames.index('main')
    except ValueError:
        return False, None
    above, below = frames[:i], frames[i + 1:]
    ok = bool(above) and above[0] == '_start' and \
        all(ENTRY.match(f) for f in above)
    ok = ok and len(below) >= 2 and below[0] in ('path_a', 'path_b') and \
        below[1] == 'hot' and all(MEM.match(f) for f in below[2:])
    return ok, below[0] if ok else None


def judge_node(frames):
    if not hot_work(frames, None):
        return None
    script = r'native_leaf\.js'
    hot = [i for i, f in enumerate(frames) if js(f, 'hot', script)]
    callers_ok = len(frames) >= 2 and \
        frames[-2] == 'Builtins_TypedArrayPrototypeSet'
    if len(hot) != 1 or not callers_ok or '[unknown]' in frames or \
       hot[0] < 2:
        return False, None
    h = hot[0]
    path, top = frames[h - 1], frames[h - 2]
    p = 'path_a' if js(path, 'a', script) else \
        'path_b' if js(path, 'b', script) else None
    ok = p is not None and \
        re.match(r'^JS:\S* \S*%s:1:1$' % script, top) is not None and \
        ENTRY.match(frames[0]) is not None
    # below hot: the copy's own JS frames and the builtin, nothing else
    for f in frames[h + 1:-1]:
        if not (f.startswith('JS:') and 'node:buffer:' in f) and \
           f != 'Builtins_TypedArrayPrototypeSet':
            ok = False
    return ok, p if ok else None


def java(name, method):
    """Whether frame NAME is Deep.METHOD, in opjit's spelling
    (Deep.leaf(long)) or a perf map's (long Deep.leaf(long))."""
    return re.match(r'^(?:[\w.$\[\]]+ )?Deep\.%s\([\w.,$\[\] ]*\)$'
                    % method, name) is not None


def judge_jvm(frames):
    if not frames or not java(frames[-1], 'leaf'):
        return None
    mains = [i for i, f in enumerate(frames) if java(f, 'main')]
    if len(mains) != 1:
        return False, None
    below = frames[mains[0] + 1:]
    if len(below) != 2:
        return False, None
    p = 'path_a' if java(below[0], 'left') else \
        'path_b' if java(below[0], 'right') else None
    return p is not None, p


JUDGES = {'frameless': judge_frameless, 'node': judge_node,
          'jvm': judge_jvm}


def main(argv):
    if len(argv) != 4 or argv[1] not in ('opjit', 'perf') or \
       argv[2] not in JUDGES:
        print(__doc__, file=sys.stderr)
        return 2
    stacks = opjit_stacks if argv[1] == 'opjit' else perf_stacks
    judge = JUDGES[argv[2]]
    correct = total = 0
    paths = {'path_a': 0, 'path_b': 0}
    try:
        for frames, count in stacks(argv[3]):
            r = judge(frames)
            if r is None:
                continue
            total += count
            if r[0]:
                correct += count
                paths[r[1]] += count
    except OSError as e:
        print(f'stacks.py: cannot read {argv[3]}: {e.strerror}',
              file=sys.stderr)
        return 1
    print(correct, total, paths['path_a'], paths['path_b'])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
