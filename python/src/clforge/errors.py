"""clforge's statuses as exceptions: one class per family, each carrying the
status name and the detailed message clforge_last_error kept for the call."""
from ._capi import lib, text


class Error(RuntimeError):
    """Any clforge failure. ``status`` is the numeric code, ``name`` its symbol
    ("CLFORGE_INVALID_ARGUMENT", "CL_OUT_OF_RESOURCES"), ``detail`` the message."""

    def __init__(self, status, name, detail):
        self.status, self.name, self.detail = status, name, detail
        super().__init__("%s: %s" % (name, detail) if detail else name)


class InvalidArgumentError(Error, ValueError):
    """Bad argument: shapes, sizes, strides, buffers too small, overflow, limits."""


class UnsupportedError(Error, NotImplementedError):
    """Valid, but not supported for these arguments on this device."""


class OutOfMemoryError(Error, MemoryError):
    """Device or host memory could not be had."""


class ValidationError(Error):
    """Validation mode: the device result differs from the CPU reference."""


class OpenCLError(Error):
    """An OpenCL error (CL_*), a kernel that failed to build, or no device."""


class CommError(Error, RuntimeError):
    """A communicator failed: a rank did not arrive in time, the ranks called
    different collectives, or it failed earlier and takes no more calls."""


class InternalError(Error):
    """clforge's own bug, an I/O failure, or a bad CLFORGE_* environment variable."""


_BASE = 1000
_FAMILY = {
    1: InvalidArgumentError, 2: InvalidArgumentError, 3: InvalidArgumentError, 13: InvalidArgumentError,
    4: UnsupportedError,
    5: OutOfMemoryError, 6: OutOfMemoryError,
    7: OpenCLError, 10: OpenCLError,
    8: ValidationError,
    9: InternalError, 11: InternalError, 12: InternalError,
    14: CommError, 15: CommError, 16: CommError,
}
# OpenCL's memory codes belong with the memory family.
_CL_MEMORY = {-4: OutOfMemoryError, -5: OutOfMemoryError, -6: OutOfMemoryError}


def error_class(status):
    if status > _BASE:
        return _FAMILY.get(status - _BASE, InternalError)
    return _CL_MEMORY.get(status, OpenCLError)


def raise_status(status, detail=None, ctx=None):
    """Raise the exception for a non-success status; ``detail`` defaults to
    clforge_last_error(ctx)."""
    name = text(lib.clforge_status_name(status))
    if detail is None:
        detail = text(lib.clforge_last_error(ctx))
    if not detail:
        detail = text(lib.clforge_status_string(status))
    raise error_class(status)(status, name, detail)


def check(status, ctx=None):
    if status != 0:
        raise_status(status, None, ctx)
