"""clforge.distributed: collectives across MPI processes, one rank per
process, through mpi4py (Debian's python3-mpi4py): the C library's
communicator (docs/collectives.md) with PyTorch's names.

    from mpi4py import MPI          # initializes MPI (MPI_THREAD_MULTIPLE)
    import clforge.distributed as dist
    comm = dist.Communicator()      # MPI.COMM_WORLD; a context on this rank's device
    g = dist.all_reduce(grad, "mean", comm=comm)   # or comm.all_reduce(grad, "mean")

numpy arrays are copied to the device and back; pyopencl arrays on the
communicator's context are used where they are, on their queue, and the
result carries the collective's event. Every rank gets the same bits: the
ranks' values are added in rank order, in f32, a mean divided last.
"""
import atexit
import ctypes
import os
import weakref
from ctypes import byref, c_int, c_void_p

import numpy as np

from . import _optional
from ._arrays import Call
from ._capi import CollectiveDesc, CommOptions, CommTuneResult, OwnedHandle, TuneOptions, lib, text
from .context import Context, _BorrowedContext
from .errors import CommError, UnsupportedError, check

# The library's names (clforge_reduce_op_name), and PyTorch's "avg" for the mean.
_OPS = {text(lib.clforge_reduce_op_name(i)): i for i in range(4)}
_OPS["avg"] = _OPS["mean"]
_ALGOS = {"auto": 0, "owner": 1, "gather": 2}


def mpi_library():
    """The MPI the C library was built with ("" without MPI)."""
    return text(lib.clforge_comm_mpi_library())


def _mpi():
    mpi, err = _optional.load("mpi4py.MPI")
    if mpi is None:
        raise UnsupportedError(0, "CLFORGE_UNSUPPORTED", "clforge.distributed needs mpi4py (Debian: python3-mpi4py): %s"
                               % _optional.describe(err, "mpi4py"))
    return mpi


class Communicator(OwnedHandle):
    """This process's rank of an MPI communicator (``comm``: an mpi4py
    communicator, default ``MPI.COMM_WORLD``; collective over it). ``ctx``:
    a clforge.Context for the rank's collectives, default one made on this
    rank's local device (the C library's rule: CLFORGE_DEVICE, else GPU
    local_rank mod count, else the CPU). ``timeout_ms``, ``chunk_bytes`` and
    ``algo`` ("auto", "owner", "gather") are clforge_comm_options'.
    Close it (or leave the ``with`` block) before MPI finalizes."""

    _destroy = "clforge_comm_destroy"

    def __init__(self, comm=None, *, ctx=None, timeout_ms=0, chunk_bytes=0, algo="auto"):
        self._handle = c_void_p()
        mpi = _mpi()
        if not mpi_library():
            raise UnsupportedError(0, "CLFORGE_UNSUPPORTED", "clforge.distributed: libclforge (%s) was built without "
                                   "MPI" % lib._name)
        mine, theirs = mpi_library().split(",")[0], mpi.Get_library_version().split(",")[0]
        if mine.split()[:2] != theirs.split()[:2]:  # e.g. "Open MPI" against "MPICH"
            raise UnsupportedError(0, "CLFORGE_UNSUPPORTED", "clforge.distributed: libclforge uses %s, mpi4py %s"
                                   % (mine, theirs))
        if algo not in _ALGOS:
            raise ValueError("Communicator: algo is auto, owner or gather, not %r" % (algo,))
        self.mpi_comm = comm if comm is not None else mpi.COMM_WORLD
        opts = CommOptions(timeout_ms=timeout_ms, chunk_bytes=chunk_bytes, algo=_ALGOS[algo])
        if ctx is not None and not isinstance(ctx, Context):
            raise TypeError("Communicator(ctx=...) takes a clforge.Context")
        st = lib.clforge_comm_create_mpi_fint(self.mpi_comm.py2f(), ctx.handle if ctx is not None else None,
                                              byref(opts), byref(self._handle))
        check(st, ctx.handle if ctx is not None else None)
        if ctx is None:
            h = c_void_p()
            check(lib.clforge_comm_context(self._handle, byref(h)))
            ctx = _BorrowedContext(h.value, self)
        self.ctx = ctx
        _open.add(self)
        r, n = c_int(), c_int()
        lib.clforge_comm_rank(self._handle, byref(r))
        lib.clforge_comm_size(self._handle, byref(n))
        self.rank, self.size = r.value, n.value

    def _lock(self):
        return self.ctx.lock if getattr(self, "ctx", None) is not None else None

    def close(self):
        """Destroy the rank (and the context it made: ``ctx`` is closed too).
        Also run at exit for every communicator still open, before mpi4py
        finalizes MPI."""
        ctx = getattr(self, "ctx", None)
        super().close()
        if isinstance(ctx, _BorrowedContext):
            ctx.close()

    @property
    def handle(self):
        if not self._handle:
            raise ValueError("clforge.distributed.Communicator: closed")
        return self._handle

    def status(self):
        """None while it works, else the CommError of its failure (a rank that
        did not take part in time, calls that differ): found after a call
        returned, a failure does not raise there; results hold NaN."""
        st = lib.clforge_comm_status(self.handle)
        if st == 0:
            return None
        from .errors import error_class
        return error_class(st)(st, text(lib.clforge_status_name(st)), text(lib.clforge_comm_last_error(self.handle)))

    def __repr__(self):
        return "<clforge.distributed.Communicator rank %d of %d on %r>" % (self.rank, self.size,
                                                                            self.ctx.device.get("name"))

    # ------------------------------------------------------------ the crossover
    def allreduce_algo(self, nbytes):
        """Which all-reduce a call of ``nbytes`` runs: ("owner" or "gather",
        the crossover in bytes, where it came from: "built-in", "tuned",
        "nearest", "rank 0's", "clforge_comm_tune" or "options")."""
        algo, cross, source = c_int(), ctypes.c_size_t(), ctypes.c_char_p()
        check(lib.clforge_comm_allreduce_algo(self.handle, int(nbytes), byref(algo), byref(cross), byref(source)),
              self.ctx.handle)
        return ({v: k for k, v in _ALGOS.items()}[algo.value], cross.value, text(source.value))

    def tune(self, file=None, *, dry_run=False):
        """Measure all-reduce's crossover on this job's ranks (every rank calls
        it, with the same dry_run; clforge_comm_tune): unless ``dry_run``,
        rank 0 saves it to ``file`` (default the user's tuning file) and this
        communicator uses it from then on. Returns
        {"crossover_bytes", "seconds", "sizes": [(bytes, owner_s, gather_s)]}."""
        o = TuneOptions(dry_run=int(bool(dry_run)))
        keep = None
        if file is not None:
            keep = os.fsencode(file)
            o.file = keep
        r = CommTuneResult()
        with self.ctx.lock:
            check(lib.clforge_comm_tune(self.handle, byref(o), byref(r)), self.ctx.handle)
        return {"crossover_bytes": r.crossover_bytes, "seconds": r.seconds,
                "sizes": [(r.bytes[i], r.owner_s[i], r.gather_s[i]) for i in range(r.sizes)]}

    # ------------------------------------------------------------ collectives
    def _run(self, fn, name, x, out, shape, op=0, root=0, count=None):
        with Call(name, (x, out), self.ctx) as call:
            if call.ctx is not self.ctx:
                raise ValueError("%s: the arrays are on another context than the communicator's" % name)
            X = call.operand(x, "input")
            if X.strides and any(s != d for s, d in zip(X.strides, _tight_strides(X.shape))):
                raise ValueError("%s: the input must be contiguous" % name)
            Y = call.output(shape, X.dtype, out)
            if np.dtype(Y.dtype) != np.dtype(X.dtype):
                raise TypeError("%s: out is %s, the input %s" % (name, np.dtype(Y.dtype), np.dtype(X.dtype)))
            if Y.strides and any(s != d for s, d in zip(Y.strides, _tight_strides(Y.shape))):
                raise ValueError("%s: out must be contiguous" % name)
            n = int(np.prod(X.shape)) if count is None else count
            desc = CollectiveDesc(dtype=X.code, op=op, count=n, root=root)
            event = c_void_p()
            nw, wl = call.wait_list()
            check(fn(self.handle, byref(desc), X.buf, X.offset, Y.buf, Y.offset, nw, wl, byref(event)), call.handle)
            result = call.finish(event, Y)
        failure = self.status()
        if failure is not None and not hasattr(result, "events"):  # numpy: the result is on the host, known now
            raise failure
        return result

    def all_reduce(self, x, op="sum", *, out=None):
        """The reduction of every rank's ``x`` ("sum", "mean", "max", "min"),
        on every rank; ``out=x`` works in place."""
        if op not in _OPS:
            raise ValueError("all_reduce: op is sum, mean, max or min, not %r" % (op,))
        return self._run(lib.clforge_allreduce, "all_reduce", x, out, tuple(np.shape(x)), op=_OPS[op])

    def broadcast(self, x, src=0, *, out=None):
        """Rank ``src``'s ``x`` on every rank (``x`` gives the shape and dtype
        everywhere)."""
        return self._run(lib.clforge_broadcast, "broadcast", x, out, tuple(np.shape(x)), root=src)

    def reduce_scatter(self, x, op="sum", *, out=None):
        """Block ``rank`` (of ``size`` along the first axis) of the reduction of
        every rank's ``x``."""
        shape = tuple(np.shape(x))
        if not shape or shape[0] % self.size:
            raise ValueError("reduce_scatter: the first axis (%s) must divide into %d ranks"
                             % (shape[0] if shape else "a scalar", self.size))
        if op not in _OPS:
            raise ValueError("reduce_scatter: op is sum, mean, max or min, not %r" % (op,))
        block = (shape[0] // self.size,) + shape[1:]
        return self._run(lib.clforge_reduce_scatter, "reduce_scatter", x, out, block, op=_OPS[op],
                         count=int(np.prod(block)))

    def all_gather(self, x, *, out=None):
        """Every rank's ``x``, concatenated along the first axis in rank order."""
        shape = tuple(np.shape(x)) or (1,)
        return self._run(lib.clforge_all_gather, "all_gather", x, out, (shape[0] * self.size,) + shape[1:])

    def barrier(self):
        """Returns once every rank has called it."""
        event = c_void_p()
        with self.ctx.lock:
            check(lib.clforge_comm_barrier(self.handle, 0, None, byref(event)), self.ctx.handle)
        from . import _opencl
        try:
            _opencl.check(_opencl.cl.clWaitForEvents(1, byref(event)), "clWaitForEvents")
        finally:
            _opencl.cl.clReleaseEvent(event)
        failure = self.status()
        if failure is not None:
            raise failure


# Communicators still open at exit are closed first: mpi4py finalizes MPI
# at exit too, and a duplicate communicator must be freed before that (atexit
# runs in reverse order of registration, and mpi4py registered first).
_open = weakref.WeakSet()


@atexit.register
def _close_all():
    for c in list(_open):
        c.close()


def _tight_strides(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step if n > 1 else 0)
        step *= n
    return tuple(reversed(strides))


def all_reduce(x, op="sum", *, comm, out=None):
    return comm.all_reduce(x, op, out=out)


def broadcast(x, src=0, *, comm, out=None):
    return comm.broadcast(x, src, out=out)


def reduce_scatter(x, op="sum", *, comm, out=None):
    return comm.reduce_scatter(x, op, out=out)


def all_gather(x, *, comm, out=None):
    return comm.all_gather(x, out=out)


__all__ = ["Communicator", "CommError", "all_gather", "all_reduce", "barrier", "broadcast", "mpi_library",
           "reduce_scatter"]


def barrier(*, comm):
    comm.barrier()
