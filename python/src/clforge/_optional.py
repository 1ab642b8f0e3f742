"""Optional packages (matplotlib, pyopencl, ml_dtypes, pyclblast): imported
on demand, and when one fails, the reason is the real one. "Not installed"
only when the package itself is missing; a package that is installed but
breaks on import (a C extension built for another numpy, a missing library)
says so with its exception, since installing it again would not help."""
import importlib


def missing(exc, name):
    """Whether exc (from importing ``name``) means that ``name`` is not installed."""
    top = name.split(".")[0]
    return isinstance(exc, ModuleNotFoundError) and exc.name in (top, name)


def describe(exc, name):
    """Why importing ``name`` failed, as a sentence for the user."""
    if missing(exc, name):
        return "%s is not installed" % name.split(".")[0]
    why = "%s: %s" % (type(exc).__name__, exc)
    # A failed numpy C-API import is a numpy mismatch: say which numpy was loaded.
    if "numpy" in why or "_ARRAY_API" in why:
        try:
            import numpy
            why += " (numpy %s from %s is loaded; the package was built for another numpy)" % (
                numpy.__version__, numpy.__file__)
        except Exception:  # noqa: BLE001 - the report is best effort
            pass
    return "%s is installed but failed to import: %s" % (name.split(".")[0], why)


def load(name):
    """(module, None), or (None, exception) for any failure of the import."""
    try:
        return importlib.import_module(name), None
    except Exception as e:  # noqa: BLE001 - any failure is reported, with its reason
        return None, e
