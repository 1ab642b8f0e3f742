"""python -m clforge info|tune|explain|bench|plot: the clforge command from Python.

info, tune, explain and the C benches run the clforge command that came with
the library (the wheel's, or the one beside CLFORGE_LIBRARY, or CLFORGE_COMMAND),
so they behave exactly as `clforge` does; `bench gemm` and `bench overhead`
are this package's own (clforge through Python next to pyclblast and numpy),
and `plot` draws any `clforge bench --json` output."""
import sys

from ._command import command_path, run_command  # noqa: F401 (command_path: clforge.cli's, for callers)

USAGE = """usage: python -m clforge <command> [options]

Commands:
  info       what clforge sees: library, devices, files (then `clforge info`)
  tune       tune the default device into the tuning file (`clforge tune`)
  explain    which kernels a call would use (`clforge explain`)
  bench      gemm: clforge from Python vs pyclblast and numpy (this package);
             overhead: per-call cost of the Python layer;
             conv, attention, softmax, peak: `clforge bench`
  plot       roofline and peer ratios from `clforge bench --json` output (PNG)

Run 'python -m clforge <command> --help' for a command's options.
"""


def info(args):
    if args and args[0] in ("-h", "--help"):
        return run_command(["info", "--help"])
    import numpy
    from . import __version__, devices, library_path, paths
    print("clforge (Python) %s" % __version__)
    print("  library       %s" % library_path)
    print("  command       %s" % (command_path() or "(not found)"))
    print("  numpy         %s" % numpy.__version__)
    from . import _optional
    for mod in ("ml_dtypes", "pyopencl", "pyclblast", "matplotlib"):
        m, err = _optional.load(mod)
        if err is None:
            print("  %-13s %s" % (mod, getattr(m, "__version__", getattr(m, "VERSION_TEXT", "installed"))))
        elif _optional.missing(err, mod):
            print("  %-13s (not installed)" % mod)
        else:
            print("  %-13s (%s)" % (mod, _optional.describe(err, mod)))
    for name, p in paths().items():
        print("  %-13s %s" % (name, p))
    for d in devices():
        print("  device %-6s %s (%s)" % (d["spec"], d["name"], d["device_class"]))
    print()
    sys.stdout.flush()
    return run_command(["info"] + list(args))


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE, end="")
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "info":
        return info(rest)
    if cmd in ("tune", "explain"):
        return run_command([cmd] + rest)
    if cmd == "bench":
        if rest and rest[0] in ("gemm", "overhead"):
            from . import bench
            return bench.main(rest)
        if not rest or rest[0] in ("-h", "--help"):
            print(USAGE, end="")
            return 0 if rest else 2
        return run_command(["bench"] + rest)
    if cmd == "plot":
        from . import plot
        return plot.main(rest)
    print("python -m clforge: unknown command %r\n\n%s" % (cmd, USAGE), end="", file=sys.stderr)
    return 2
