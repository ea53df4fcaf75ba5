#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The suite's own arithmetic and parsers, on inputs whose answers are
known: medians and ranges, the completeness check (which must be able to
fail), the sample counts read from each profiler's output, the peak
resident set peak_rss.py reads, and which stacks stacks.py finds
complete."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
# no __pycache__ in the source tree
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import shares  # noqa: E402
import stats  # noqa: E402

PERF = """\
# Total Lost Samples: 7
#
# Samples: 5K of event 'cpu-clock'
# Overhead       Samples  Symbol
# ........  ............  ..................................
#
    74.00%           740  [.] heavy_work
    25.00%           250  [.] light_work
     0.60%             6  [.] JS:*benchFibHot /tmp/fib.js:9:21
     0.40%             4  [k] finish_task_switch.isra.0
"""

OPREPORT_TEXT = """\
CPU: cpu-clock, frequency 4000 Hz
samples  %        image name               symbol name
740      74.0000  threetoone               heavy_work
250      25.0000  threetoone               light_work
10        1.0000  [kernel.kallsyms]        finish_task_switch
"""

OPREPORT_JSON = """\
{"schema":"opjit-report","total_samples":1000,"symbols":[
{"samples":740,"percent":74.0,"image":"/t","symbol":"heavy_work"},
{"samples":250,"percent":25.0,"image":"/t","symbol":"light_work"},
{"samples":10,"percent":1.0,"image":"anon","symbol":null}
]}
"""

JFR = """\
jdk.ExecutionSample {
  stackTrace = [
    BenchHot.hotMethod(long) line: 17
    BenchHot.main(String[]) line: 36
  ]
}
jdk.ExecutionSample {
  stackTrace = [
    BenchHot.coldMethod(long) line: 21
    BenchHot.main(String[]) line: 37
  ]
}
jdk.ExecutionSample {
  stackTrace = [
    BenchHot.hotMethod(long) line: 17
  ]
}
"""


def run_shares(kind, text, *patterns):
    with tempfile.NamedTemporaryFile('w', suffix='.txt', delete=False) as f:
        f.write(text)
    try:
        return subprocess.run([sys.executable, os.path.join(HERE, 'shares.py'),
                               kind, f.name, *patterns],
                              capture_output=True, text=True)
    finally:
        os.unlink(f.name)


class Shares(unittest.TestCase):
    def test_perf(self):
        r = run_shares('perf', PERF, 'heavy_work', 'light_work')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split(), ['740', '250', '1000', '7'])

    def test_perf_jit_name(self):
        r = run_shares('perf', PERF, 'benchFibHot')
        self.assertEqual(r.stdout.split(), ['6', '1000', '7'])

    def test_opreport_text(self):
        r = run_shares('opreport', OPREPORT_TEXT, 'heavy_work', 'light_work')
        self.assertEqual(r.stdout.split(), ['740', '250', '1000', '-1'])

    def test_opreport_json_counts_unnamed_rows(self):
        r = run_shares('opreport-json', OPREPORT_JSON, 'heavy_work',
                       'light_work')
        self.assertEqual(r.stdout.split(), ['740', '250', '1000', '-1'])

    def test_jfr_top_frames(self):
        r = run_shares('jfr', JFR, 'hotMethod', 'coldMethod')
        self.assertEqual(r.stdout.split(), ['2', '1', '3', '-1'])

    def test_first_pattern_wins(self):
        rows, _ = shares.rows_perf(PERF)
        self.assertIn(('heavy_work', 740), rows)
        r = run_shares('perf', PERF, 'work', 'heavy_work')
        self.assertEqual(r.stdout.split()[:2], ['990', '0'])

    def test_no_samples_is_an_error_naming_the_file(self):
        r = run_shares('perf', '# nothing\n', 'x')
        self.assertEqual(r.returncode, 1)
        self.assertIn('no samples', r.stderr)

    def test_bad_json_is_an_error_naming_the_file(self):
        r = run_shares('opreport-json', '{"symbols": [', 'x')
        self.assertEqual(r.returncode, 1)
        self.assertIn('cannot read', r.stderr)


DETAILS = """\
{"symbols":[
{"samples":3,"symbol":"ChurnA.work(long)","handler":"javamap","details":[
 {"vma":"0x1000","samples":2},{"vma":"0x2000","samples":1}]},
{"samples":2,"symbol":"ChurnB.work(long)","handler":"javamap","details":[
 {"vma":"0x1000","samples":1},{"vma":"0x3000","samples":1}]},
{"samples":1,"symbol":"main","details":null}
]}
"""


class Rejit(unittest.TestCase):
    def run_rejit(self, text):
        with tempfile.NamedTemporaryFile('w', suffix='.json',
                                         delete=False) as f:
            f.write(text)
        try:
            return subprocess.run(
                [sys.executable, os.path.join(HERE, 'rejit.py'), f.name,
                 'ChurnA.work', 'ChurnB.work'],
                capture_output=True, text=True)
        finally:
            os.unlink(f.name)

    def test_one_address_two_names(self):
        r = self.run_rejit(DETAILS)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), '1')

    def test_not_a_details_report(self):
        r = self.run_rejit('{"mode": "symbols"}')
        self.assertEqual(r.returncode, 1)
        self.assertIn('cannot read', r.stderr)


def load(text):
    with tempfile.NamedTemporaryFile('w', suffix='.tsv', delete=False) as f:
        f.write(text)
    try:
        return stats.load(f.name)
    finally:
        os.unlink(f.name)


class Stats(unittest.TestCase):
    def test_median_and_range(self):
        _, _, sections = load(
            'v\tS\tF\topjit\t3\tx\n'
            'v\tS\tF\topjit\t1\tx\n'
            'v\tS\tF\topjit\t2\tx\n'
            'w\tS\tF\tref\tperf is not installed\n'
            'n\tS\tF\tcmp\t-\n')
        cells = sections['S']['F']
        self.assertEqual(cells['opjit'].render(), '2.000x (1.000x..3.000x)')
        self.assertEqual(cells['ref'].render(),
                         'not measured: perf is not installed')
        self.assertEqual(cells['cmp'].render(), '-')
        self.assertEqual(stats.check(sections), [])

    def test_some_runs_failed(self):
        _, _, sections = load('v\tS\tF\topjit\t0.5\ts\n'
                              'w\tS\tF\topjit\toprofiled crashed\n')
        self.assertEqual(sections['S']['F']['opjit'].render(),
                         '500.0 ms; 1 run(s) not measured: oprofiled crashed')

    def test_check_finds_an_empty_cell(self):
        _, _, sections = load('v\tS\tF\topjit\t1\tn\n'
                              'v\tS\tF\tref\t1\tn\n')
        problems = stats.check(sections)
        self.assertEqual(len(problems), 1)
        self.assertIn('cmp', problems[0])

    def test_check_finds_no_figures(self):
        self.assertEqual(stats.check({}), ['no figures at all'])

    def test_units_stay_the_same_within_a_cell(self):
        _, _, sections = load('v\tS\tF\topjit\t900\tB\n'
                              'v\tS\tF\topjit\t2048\tB\n'
                              'v\tS\tF\topjit\t4096\tB\n')
        self.assertEqual(sections['S']['F']['opjit'].render(),
                         '2.00 KiB (0.88 KiB..4.00 KiB)')

    def test_pipes_are_escaped_for_markdown(self):
        _, _, sections = load('w\tS\tF\topjit\ta|b\n')
        self.assertEqual(sections['S']['F']['opjit'].render(),
                         'not measured: a\\|b')

    def test_malformed_record_is_refused(self):
        with self.assertRaises(ValueError):
            load('v\tS\tF\topjit\n')
        with self.assertRaises(ValueError):
            load('v\tS\tF\tnowhere\t1\tx\n')


# writes its pid, waits to be traced, fills 40 MiB, has a child fill
# 120 MiB, exits 3
PEAK_PARENT = """\
import os, subprocess, sys, time
open(sys.argv[1], 'w').write(f'{os.getpid()}\\n')
for _ in range(2000):
    if 'TracerPid:\\t0\\n' not in open('/proc/self/status').read():
        break
    time.sleep(0.005)
own = b'x' * (40 << 20)
subprocess.run([sys.executable, '-c', "big = b'y' * (120 << 20)"])
sys.exit(3)
"""


class PeakRss(unittest.TestCase):
    def test_own_peak_not_the_childs_and_the_parent_still_reaps(self):
        with tempfile.TemporaryDirectory() as d:
            pidfile, out = os.path.join(d, 'pid'), os.path.join(d, 'out')
            tracer = subprocess.Popen(
                [sys.executable, os.path.join(HERE, 'peak_rss.py'),
                 pidfile, out])
            proc = subprocess.run([sys.executable, '-c', PEAK_PARENT,
                                   pidfile])
            tracer.wait(timeout=60)
            with open(out, encoding='ascii') as f:
                text = f.read().strip()
        if text.startswith('why: ptrace is not allowed'):
            self.skipTest(text)
        self.assertEqual(proc.returncode, 3)
        self.assertEqual(tracer.returncode, 0, text)
        kib = int(text)
        self.assertGreaterEqual(kib, 40 << 10)
        self.assertLess(kib, 120 << 10)


ENTRY = '_start [frameless];__libc_start_main@@GLIBC_2.34 [libc.so.6];' \
    '__libc_start_call_main [libc.so.6];main [frameless];'
# frameless: right through path_a (a kernel frame below is left out) and
# path_b, then broken (frame pointers), a frame missed, the loader's own
# copy (not the hot work) and a sample elsewhere (not the hot work)
FOLDED_FRAMELESS = f"""\
{ENTRY}path_a [frameless];hot [frameless];__memcpy_avx512 [libc.so.6] 30
{ENTRY}path_a [frameless];hot [frameless];__memcpy_avx512 [libc.so.6];\
asm_exc_page_fault_[k] 6
{ENTRY}path_b [frameless];hot [frameless];__memcpy_avx512 [libc.so.6] 12
[unknown];__memcpy_avx512 [libc.so.6] 40
{ENTRY}hot [frameless];__memcpy_avx512 [libc.so.6] 2
_start [ld.so];_dl_start [ld.so];dl_main [ld.so];memcpy [ld.so] 9
{ENTRY}__memset_avx512 [libc.so.6] 50
"""

PERF_FRAMELESS = """\
frameless 
\tffffffff81000c82 asm_exc_page_fault ([kernel.kallsyms])
\t          16da9b __memmove_avx512_unaligned_erms (/lib/libc.so.6)
\t            14a2 hot (/b/frameless)
\t            14dc path_b (/b/frameless)
\t            11c7 main (/b/frameless)
\t           27249 __libc_start_call_main (/lib/libc.so.6)
\t           27304 __libc_start_main_impl (/lib/libc.so.6)
\t            13b0 _start (/b/frameless)

frameless 
\t          16da9b __memmove_avx512_unaligned_erms (/lib/libc.so.6)
\t 101010101010101 [unknown] ([unknown])

frameless 
\t          16da9b __memmove_avx512_unaligned_erms (/lib/libc.so.6)
\t            14a2 hot (/b/frameless)
\t            14dc path_a (/b/frameless)
\t            11c7 main (/b/frameless)
"""

NODE_TOP = '__libc_start_call_main [libc.so.6];node::Start(int, char**) ' \
    '[node];Builtins_JSEntry [node];JS:~ /t/native_leaf.js:1:1 [perfmap]_[j];'
NODE_HOT = 'JS:*hot /t/native_leaf.js:11:13 [perfmap]_[j];' \
    'JS:*_copyActual node:buffer:241:21 [perfmap]_[j];'
# right through a and b; the builtin skipped (a frame-pointer walk);
# a JIT frame unnamed; node's own copy at start, counted as wrong
FOLDED_NODE = f"""\
{NODE_TOP}JS:^a /t/native_leaf.js:12:11 [perfmap]_[j];{NODE_HOT}\
Builtins_TypedArrayPrototypeSet [node];__memcpy_avx512 [libc.so.6] 21
{NODE_TOP}JS:~b /t/native_leaf.js:13:11 [perfmap]_[j];{NODE_HOT}\
Builtins_TypedArrayPrototypeSet [node];__memcpy_avx512 [libc.so.6] 7
{NODE_TOP}JS:^a /t/native_leaf.js:12:11 [perfmap]_[j];{NODE_HOT}\
__memcpy_avx512 [libc.so.6] 5
{NODE_TOP}[unknown];{NODE_HOT}\
Builtins_TypedArrayPrototypeSet [node];__memcpy_avx512 [libc.so.6] 3
__libc_start_call_main [libc.so.6];node::Start(int, char**) [node];\
__memmove_avx512 [libc.so.6] 1
"""

JVM_TOP = 'start_thread [libc.so.6];ThreadJavaMain [libjli.so];' \
    'JavaMain [libjli.so];JavaCalls::call_helper(JavaValue*) [libjvm.so];' \
    'call_stub [javamap]_[j];'
JVM_MAIN = 'Deep.main(java.lang.String[]) [javamap]_[j];'
JVM_LEAF = 'Deep.leaf(long) [javamap]_[j]'
# Deep: right through left (a kernel frame below is left out) and
# right; the interpreted frames only "Interpreter" (a frame-pointer
# walk); main missed; a frame between main and left; leaf's call into
# the JVM (not the hot work: its innermost frame is not leaf); a
# compiler thread (not the hot work)
FOLDED_JVM = f"""\
{JVM_TOP}{JVM_MAIN}Deep.left() [javamap]_[j];{JVM_LEAF} 30
{JVM_TOP}{JVM_MAIN}Deep.left() [javamap]_[j];{JVM_LEAF};\
asm_sysvec_apic_timer_interrupt_[k] 3
{JVM_TOP}{JVM_MAIN}Deep.right() [javamap]_[j];{JVM_LEAF} 11
{JVM_TOP}Interpreter [javamap]_[j];Interpreter [javamap]_[j];{JVM_LEAF} 20
{JVM_TOP}Deep.left() [javamap]_[j];{JVM_LEAF} 4
{JVM_TOP}{JVM_MAIN}Interpreter [javamap]_[j];Deep.right() [javamap]_[j];\
{JVM_LEAF} 2
{JVM_TOP}{JVM_MAIN}Deep.left() [javamap]_[j];{JVM_LEAF};\
counter_overflow Runtime1 stub [javamap]_[j] 5
start_thread [libc.so.6];thread_native_entry(Thread*) [libjvm.so];\
C2Compiler::compile_method(ciEnv*) [libjvm.so] 50
"""

PERF_JVM_TOP = """\
\t    7f00a8938cc9 StubRoutines (1) (/tmp/perf-18973.map)
\t          8282d2 JavaCalls::call_helper (/jvm/lib/server/libjvm.so)
\t            4592 JavaMain (/jvm/lib/libjli.so)
\t           891f5 start_thread (/lib/libc.so.6)
"""
# perf map names: right through right (a compiled main), then only
# "Interpreter" for the interpreted frames, then a dwarf unwind that
# stops at the JIT frame
PERF_JVM = f"""\
java 
\tffffffff81000c82 asm_sysvec_apic_timer_interrupt ([kernel.kallsyms])
\t    7f00a1407d11 long Deep.leaf(long) (/tmp/perf-18973.map)
\t    7f00a894132f Deep.right() (/tmp/perf-18973.map)
\t    7f00a8941400 void Deep.main(java.lang.String[]) (/tmp/perf-18973.map)
{PERF_JVM_TOP}
java 
\t    7f00a1407d11 long Deep.leaf(long) (/tmp/perf-18973.map)
\t    7f00a894132f Interpreter (/tmp/perf-18973.map)
\t    7f00a894132f Interpreter (/tmp/perf-18973.map)
{PERF_JVM_TOP}
java 
\t    7f00a1407d11 long Deep.leaf(long) (/tmp/perf-18973.map)
"""


def run_stacks(kind, workload, text):
    with tempfile.NamedTemporaryFile('w', suffix='.txt', delete=False) as f:
        f.write(text)
    try:
        r = subprocess.run([sys.executable, os.path.join(HERE, 'stacks.py'),
                            kind, workload, f.name],
                           capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    return r.returncode, r.stdout.split()


class Stacks(unittest.TestCase):
    def test_frameless_folded(self):
        self.assertEqual(run_stacks('opjit', 'frameless', FOLDED_FRAMELESS),
                         (0, ['48', '90', '36', '12']))

    def test_frameless_perf_script(self):
        # the last stack stops at main: not from the program's entry
        self.assertEqual(run_stacks('perf', 'frameless', PERF_FRAMELESS),
                         (0, ['1', '3', '0', '1']))

    def test_node_folded(self):
        self.assertEqual(run_stacks('opjit', 'node', FOLDED_NODE),
                         (0, ['28', '37', '21', '7']))

    def test_jvm_folded(self):
        self.assertEqual(run_stacks('opjit', 'jvm', FOLDED_JVM),
                         (0, ['44', '70', '33', '11']))

    def test_jvm_perf_script(self):
        self.assertEqual(run_stacks('perf', 'jvm', PERF_JVM),
                         (0, ['1', '3', '0', '1']))

    def test_bad_arguments(self):
        self.assertEqual(run_stacks('opjit', 'pypy', '')[0], 2)


if __name__ == '__main__':
    unittest.main()
