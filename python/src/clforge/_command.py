"""The clforge command (the C tool) beside the loaded library: found here
for both cli.py, which runs it, and bench.py, which asks it for the peak."""
import os
import shutil
import subprocess
import sys


def command_path():
    """The clforge command matching the loaded library, or None."""
    env = os.environ.get("CLFORGE_COMMAND")
    if env:
        return env
    from ._capi import library_path
    here = os.path.dirname(os.path.abspath(__file__))
    libdir = os.path.dirname(os.path.abspath(library_path))
    for cand in (os.path.join(here, "bin", "clforge"), os.path.join(libdir, "..", "bin", "clforge")):
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return os.path.normpath(cand)
    return shutil.which("clforge")


def run_command(args):
    """The clforge command with args, its exit status (1 when not found)."""
    path = command_path()
    if path is None:
        print("python -m clforge: the clforge command was not found (it comes with the wheel; or set "
              "CLFORGE_COMMAND to build/bin/clforge)", file=sys.stderr)
        return 1
    return subprocess.call([path] + list(args))
