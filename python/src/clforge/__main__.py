"""python -m clforge ... (see clforge.cli)."""
import os
import sys

# numpy's OpenBLAS reads OPENBLAS_CORETYPE when it loads; the host peer of the
# benches runs without it (as `clforge bench` does), so drop it before import.
if len(sys.argv) > 1 and sys.argv[1] == "bench" and "OPENBLAS_CORETYPE" in os.environ:
    env = dict(os.environ)
    env["CLFORGE_DROPPED_OPENBLAS_CORETYPE"] = env.pop("OPENBLAS_CORETYPE")
    os.execve(sys.executable, [sys.executable, "-m", "clforge"] + sys.argv[1:], env)

from .cli import main  # noqa: E402

sys.exit(main())
