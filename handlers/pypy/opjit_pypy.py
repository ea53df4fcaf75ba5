# SPDX-License-Identifier: MIT
"""Name PyPy's JIT loops and bridges for opjit.

    pypy3 -m opjit_pypy (SCRIPT | -c CODE | -m MODULE | -) [ARGS...]

or, from a sitecustomize or the program itself, ``import opjit_pypy;
opjit_pypy.start()``.  Through PyPy's compile hook, every loop and bridge
the JIT compiles is written with its address, size, the time it was
compiled (CLOCK_MONOTONIC nanoseconds, the clock oprofiled stamps samples
with) and, for a loop, its Python function, file and lines, to
/tmp/anon.<pid>, where opreport --anon-handler=pypy finds it.  The format
is handlers/pypy/FORMAT.md of opjit.  Under CPython, or when the file
cannot be made safely, it says so on stderr and the program runs on.
"""
import errno
import os
import sys
import time

_fd = None


def _warn(msg):
    sys.stderr.write("opjit_pypy: %s\n" % msg)


def _create(path):
    """The map file, made without following a link and never appended to
    one another user left there; None when it cannot be."""
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
             os.O_APPEND | getattr(os, "O_CLOEXEC", 0))
    try:
        return os.open(path, flags, 0o644)
    except FileExistsError:
        pass
    except OSError as e:
        _warn("cannot create %s: %s" % (path, e.strerror))
        return None
    # a file of ours with this pid is an earlier process's: replace it
    try:
        st = os.lstat(path)
        if st.st_uid != os.geteuid():
            _warn("%s belongs to uid %d; not writing a map" %
                  (path, st.st_uid))
            return None
        os.unlink(path)
        return os.open(path, flags, 0o644)
    except OSError as e:
        _warn("cannot create %s: %s" % (path, e.strerror))
        return None


def _clean(text):
    return text.replace("\n", "?").replace("\r", "?")


def _lines(code):
    """First and last line of a code object."""
    first = last = code.co_firstlineno
    try:
        import dis
        for _, line in dis.findlinestarts(code):
            if line is not None and line > last:
                last = line
    except Exception:
        pass
    return first, last


def _record(info):
    now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    if info.type == "bridge":
        line = "%d bridge %x %x %d %d\n" % (
            now, info.bridge_no, info.asmaddr, info.asmlen, info.loop_no)
    else:
        key = info.greenkey
        code = key[0] if isinstance(key, tuple) and key else None
        if hasattr(code, "co_name"):
            first, last = _lines(code)
            line = "%d loop %d %x %d %d %d %s %s\n" % (
                now, info.loop_no, info.asmaddr, info.asmlen, first, last,
                _clean(code.co_name).replace(" ", "_"),
                _clean(code.co_filename))
        else:
            # a loop of another JIT driver (regular expressions, ...)
            line = "%d loop %d %x %d 0 0 %s\n" % (
                now, info.loop_no, info.asmaddr, info.asmlen,
                _clean(info.jitdriver_name).replace(" ", "_") or "?")
    return line.encode("utf-8", "replace")


def _hook(info):
    if _fd is None or not info.asmlen:
        return
    try:
        # one write a record: the file always ends at a record's end,
        # unless the process is killed inside the write
        os.write(_fd, _record(info))
    except Exception as e:
        _warn("cannot write the map: %s" % e)


def start():
    """Begin writing the map; True when the compile hook is set."""
    global _fd
    try:
        import pypyjit
    except ImportError:
        _warn("not running on PyPy: no JIT code to name")
        return False
    if _fd is not None:
        return True
    pid = os.getpid()
    _fd = _create("/tmp/anon.%d" % pid)
    if _fd is None:
        return False
    os.write(_fd, b"opjit-pypy 1 pid=%d start_ns=%d\n" %
             (pid, time.clock_gettime_ns(time.CLOCK_MONOTONIC)))
    pypyjit.set_compile_hook(_hook)
    return True


_USAGE = "usage: pypy3 -m opjit_pypy (SCRIPT | -c CODE | -m MODULE | -) [ARGS...]\n"


def _run_code(code, name, argv):
    """Run CODE as pypy3 -c or pypy3 - does: as __main__, the current
    directory first on the path."""
    import types
    main = types.ModuleType("__main__")
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    sys.argv = argv
    sys.path[0] = ""
    exec(compile(code, name, "exec"), main.__dict__)


def _module_problem(name):
    """Why pypy3 -m NAME would not run, in pypy3's words, or None: a
    module that is not there is one line, not a traceback."""
    import importlib.util
    try:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations is not None:
            # a package runs as its __main__
            main = name + ".__main__"
            if importlib.util.find_spec(main) is None:
                return ("No module named %s; '%s' is a package and cannot "
                        "be directly executed" % (main, name))
    except (ImportError, AttributeError, TypeError, ValueError) as e:
        return ("Error while finding module specification for %r (%s: %s)"
                % (name, type(e).__name__, e))
    if spec is None:
        return "No module named %s" % name
    return None


def _main(argv):
    """Run what follows like pypy3's command line: SCRIPT, -c CODE,
    -m MODULE or - (standard input), with their arguments."""
    import runpy
    args = argv[1:]
    script_only = bool(args) and args[0] == "--"
    if script_only:
        args = args[1:]
    elif args and args[0].startswith(("-c", "-m")):
        opt, val = args[0][:2], args[0][2:]
        rest = args[1:]
        if not val:
            if not rest:
                sys.stderr.write("opjit_pypy: %s needs an argument\n" % opt)
                return 2
            val, rest = rest[0], rest[1:]
        if opt == "-c":
            start()
            _run_code(val, "<string>", ["-c"] + rest)
        else:
            # as "pypy3 -m": the current directory first on the path
            sys.argv = [val] + rest
            sys.path[0] = os.getcwd()
            why = _module_problem(val)
            if why:
                _warn(why)
                return 1
            start()
            runpy.run_module(val, run_name="__main__", alter_sys=True)
        return 0
    elif args[:1] == ["-"]:
        start()
        _run_code(sys.stdin.read(), "<stdin>", args)
        return 0
    if not args or (args[0].startswith("-") and not script_only):
        sys.stderr.write(_USAGE)
        return 2
    path = os.path.abspath(args[0])
    if not os.path.exists(path):
        _warn("can't open file %s: [Errno %d] %s"
              % (path, errno.ENOENT, os.strerror(errno.ENOENT)))
        return 2
    start()
    sys.argv = args
    # as "pypy3 SCRIPT" does: the script's directory comes first
    sys.path[0] = os.path.dirname(os.path.abspath(args[0]))
    runpy.run_path(args[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
