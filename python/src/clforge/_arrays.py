"""Arrays in and out of a call: numpy arrays are copied to temporary device
buffers and back (convenience); pyopencl arrays are used where they are,
through their buffer, offset and strides, on their queue (never copied)."""
import ctypes

import numpy as np

from . import _opencl, _optional
from .context import context_for_queue, default_context

# bfloat16 as JAX and TensorFlow spell it. ml_dtypes is a dependency, but
# an environment may lack it or hold one built for another numpy: then
# everything but bfloat16 works, and asking for bfloat16 says why it can't.
_ml_dtypes, _ml_dtypes_error = _optional.load("ml_dtypes")
bfloat16 = np.dtype(_ml_dtypes.bfloat16) if _ml_dtypes is not None else None

F32, F16, BF16 = 1, 2, 3
_CODES = {np.dtype(np.float32): F32, np.dtype(np.float16): F16}
if bfloat16 is not None:
    _CODES[bfloat16] = BF16
# Integer arrays: quantized data, taken only where an op asks (ints=True).
S8, U8, S32 = 4, 5, 6
_INT_CODES = {np.dtype(np.int8): S8, np.dtype(np.uint8): U8, np.dtype(np.int32): S32}
_NAMES = {"f32": np.float32, "float32": np.float32, "float": np.float32, "f16": np.float16,
          "float16": np.float16, "half": np.float16, "bf16": "bfloat16", "bfloat16": "bfloat16"}


def as_dtype(d):
    """A numpy dtype from a dtype, a type or a name ("f32", "bf16", "bfloat16")."""
    if isinstance(d, str) and d.lower() in _NAMES:
        d = _NAMES[d.lower()]
        if d == "bfloat16":
            if bfloat16 is None:
                raise TypeError("bfloat16 needs the ml_dtypes package (pip install 'ml_dtypes<0.6' keeps numpy 1.x): %s"
                                % _optional.describe(_ml_dtypes_error, "ml_dtypes"))
            return bfloat16
    return np.dtype(d)


def dtype_code(dtype, what, what2=None):
    code = _CODES.get(dtype)
    if code is None:
        code = _CODES.get(np.dtype(dtype))
    if code is None:
        raise TypeError("%s: clforge takes float32, float16 and bfloat16 (ml_dtypes) arrays, got %s"
                        % (what if what2 is None else what + ": " + what2, np.dtype(dtype)))
    return code


_DEVICE_TYPES = set()


def is_device(x):
    """A pyopencl.array.Array (checked without importing pyopencl)."""
    t = type(x)
    if t in _DEVICE_TYPES:
        return True
    if t.__module__.startswith("pyopencl") and hasattr(x, "base_data") and hasattr(x, "queue"):
        _DEVICE_TYPES.add(t)
        return True
    return False


def _device_layout(x, op, what):
    """(shape, element strides, element offset) of a pyopencl array, checked."""
    item = x.dtype.itemsize
    if x.offset % item:
        raise ValueError("%s: %s's offset %d is not a multiple of its item size" % (op, what, x.offset))
    strides = []
    for s, n in zip(x.strides, x.shape):
        if n == 1:
            s = 0  # a unit axis' stride never matters
        if s < 0 or s % item:
            raise ValueError("%s: %s has a stride clforge cannot express (%d bytes); make it contiguous "
                             "first (clforge never copies a device array behind your back)" % (op, what, s))
        strides.append(s // item)
    return tuple(x.shape), tuple(strides), x.offset // item


class Operand:
    """One tensor of a call: buffer, offset and strides in elements."""
    __slots__ = ("array", "shape", "strides", "offset", "buf", "dtype", "code", "device")

    def __init__(self, array, shape, strides, offset, buf, dtype, device, code):
        self.array, self.shape, self.strides, self.offset = array, shape, strides, offset
        self.buf, self.dtype, self.device, self.code = buf, dtype, device, code


class Call:
    """Gathers a call's operands: picks the context (the device arrays' queue,
    else ``ctx`` or the default), uploads numpy inputs, allocates outputs,
    runs the C call with the device arrays' events, and hands results back
    as the kind of array that came in. Temporary buffers are released on
    every exit path."""

    def __init__(self, op, arrays, ctx=None):
        self.op = op
        self.temps = []
        self.temp_events = []
        self.waits = []
        self.reads = []
        self.locked = None
        q = None
        others = None
        for a in arrays:
            if a is not None and (type(a) in _DEVICE_TYPES or is_device(a)):
                if q is None:
                    q = a.queue
                    if q is None:
                        raise ValueError("%s: a pyopencl array without a queue; give it one "
                                         "(array.with_queue(q))" % op)
                elif a.queue is not q:
                    others = (others or []) + [a]
        self.device = q is not None
        self.pyqueue = q
        if q is not None:
            if ctx is not None:
                if ctx.cl_context_ptr != q.context.int_ptr:
                    raise ValueError("%s: ctx is on another OpenCL context than the arrays" % op)
                if ctx.queue_ptr != q.int_ptr:
                    ctx = None  # the arrays' queue orders the work
            self.ctx = ctx or context_for_queue(q)
            if others:  # arrays on other queues: same OpenCL context needed
                cl_ctx = q.context.int_ptr
                for a in others:
                    if a.queue is None or a.queue.context.int_ptr != cl_ctx:
                        raise ValueError("%s: the arrays are on different OpenCL contexts (expected all on %r)"
                                         % (op, q.context))
        else:
            self.ctx = ctx or default_context()
        self.handle = self.ctx.handle
        # A clforge context is not thread-safe (its last error, its caches):
        # threads sharing one take turns for the whole call.
        self.ctx.lock.acquire()
        self.locked = self.ctx.lock

    # ------------------------------------------------------------ inputs
    def operand(self, x, what, ints=False):
        """Wrap an input array (``ints``: int8, uint8 and int32 too). numpy arrays with negative or odd strides are
        made contiguous (they are copied anyway); device arrays must be
        expressible as offset + non-negative element strides."""
        if is_device(x):
            # A pyopencl array's layout never changes: worked out once per array.
            base = x.base_data
            meta = x.__dict__.get("_clforge_layout")
            if meta is None or meta[0] is not base:
                meta = (base, base.int_ptr) + _device_layout(x, self.op, what)
                x.__dict__["_clforge_layout"] = meta
            dt = x.dtype
            code = _CODES.get(dt) or (_INT_CODES.get(dt) if ints else None)
            if code is None:
                dtype_code(dt, self.op, what)
            if x.events:
                self.add_waits(x)
            return Operand(x, meta[2], meta[3], meta[4], meta[1], dt, True, code)
        if not isinstance(x, np.ndarray):
            x = np.asarray(x)
        code = (ints and _INT_CODES.get(x.dtype)) or dtype_code(x.dtype, self.op, what)
        if not x.flags.c_contiguous:
            x = np.ascontiguousarray(x)
        strides = tuple(s // x.itemsize if n > 1 else 0 for s, n in zip(x.strides, x.shape))
        buf = self._upload(x)
        return Operand(x, tuple(x.shape), strides, 0, buf, x.dtype, False, code)

    def add_waits(self, x):
        """Wait for a device array's events, except clforge's own on the
        context's in-order queue (the queue orders those already). Events
        found complete are dropped from the array's list: waiting on them is
        a no-op that still costs every later call (the upload's event of a
        to_device array stays there for good otherwise)."""
        own = self.ctx.own_events if (self.ctx.in_order and x.queue is self.pyqueue) else None
        keep = None
        for i, e in enumerate(x.events):
            p = e.int_ptr
            if own is not None and p in own:
                if keep is not None:
                    keep.append(e)
                continue
            if e.command_execution_status == 0:  # CL_COMPLETE
                if keep is None:
                    keep = list(x.events[:i])
                continue
            self.waits.append(p)
            if keep is not None:
                keep.append(e)
        if keep is not None:
            x.events[:] = keep

    def _upload(self, x):
        buf = _opencl.create_buffer(self.ctx.cl_context_ptr, x.nbytes)
        self.temps.append(buf)
        if x.nbytes:
            _opencl.check(_opencl.cl.clEnqueueWriteBuffer(self.ctx.queue_ptr, buf, 1, 0, x.nbytes,
                                                          x.ctypes.data, 0, None, None), "clEnqueueWriteBuffer")
        return buf

    # ----------------------------------------------------------- outputs
    def output(self, shape, dtype, out, what="out", read=False, zero=False, ints=False):
        """The result: ``out`` if given (checked: shape, dtype, kind), else a
        new array of the inputs' kind (zero-filled when ``zero``: the op may
        leave some elements unwritten). Returns an Operand over tight strides
        (a given device ``out`` may be strided where the op allows it; ops
        read out.strides themselves). ``read``: the op reads out (beta != 0),
        or leaves parts of it as they were."""
        shape = tuple(shape)
        if out is not None:
            if self.device and is_device(out):
                o = self.operand(out, what, ints)
                if o.shape != shape:
                    raise ValueError("%s: out has shape %s, the result has shape %s" % (self.op, o.shape, shape))
                if any(s == 0 and n > 1 for s, n in zip(o.strides, o.shape)):
                    raise ValueError("%s: out has a stride of 0 along an axis of length > 1: its elements "
                                     "overlap" % self.op)
                return o
            self.check_host_out(out, shape, ints)
            dtype = out.dtype
        dtype = np.dtype(dtype)
        code = (ints and _INT_CODES.get(dtype)) or dtype_code(dtype, self.op, what)
        strides = []
        acc = 1
        for n in reversed(shape):
            strides.append(acc if n > 1 else 0)
            acc *= n
        strides = tuple(reversed(strides))
        nbytes = acc * dtype.itemsize
        if self.device:
            import pyopencl.array as cla
            arr = (cla.zeros if zero else cla.empty)(self.pyqueue, shape, dtype)
            if arr.events:  # the fill (zero): the call waits for it on any queue
                self.add_waits(arr)
            o = Operand(arr, shape, strides, 0, arr.base_data.int_ptr, dtype, True, code)
        else:
            buf = _opencl.create_buffer(self.ctx.cl_context_ptr, nbytes)
            self.temps.append(buf)
            if zero and out is None:
                out = np.zeros(shape, dtype)
                read = True
            if read and out is not None and nbytes:  # the op reads out: its values go along
                host = np.ascontiguousarray(out)
                _opencl.check(_opencl.cl.clEnqueueWriteBuffer(self.ctx.queue_ptr, buf, 1, 0, nbytes,
                                                              host.ctypes.data, 0, None, None), "clEnqueueWriteBuffer")
            o = Operand(out, shape, strides, 0, buf, dtype, False, code)
            self.reads.append((o, nbytes))
        o.code = code
        return o

    def check_host_out(self, out, shape, ints=False):
        """A numpy ``out`` for a numpy call: the result's shape, a clforge
        dtype, writeable."""
        if tuple(np.shape(out)) != tuple(shape):
            raise ValueError("%s: out has shape %s, the result has shape %s" % (self.op, tuple(np.shape(out)),
                                                                             tuple(shape)))
        if not (ints and np.dtype(out.dtype) in _INT_CODES):
            dtype_code(np.dtype(out.dtype), self.op, "out")
        if is_device(out):
            raise ValueError("%s: out is a pyopencl array but the inputs are numpy arrays" % self.op)
        if self.device:
            raise ValueError("%s: out is a numpy array but the inputs are pyopencl arrays" % self.op)
        if not isinstance(out, np.ndarray) or not out.flags.writeable:
            raise ValueError("%s: out must be a writeable numpy array" % self.op)

    def prefill(self, dst, src):
        """Copy src's elements into dst (both tight, same dtype) before the
        call: the residual a beta = 1 epilogue adds."""
        nbytes = int(np.prod(dst.shape)) * dst.dtype.itemsize
        if nbytes == 0:
            return
        ev = ctypes.c_void_p()
        waits = (ctypes.c_void_p * len(self.waits))(*self.waits) if self.waits else None
        _opencl.check(_opencl.cl.clEnqueueCopyBuffer(
            self.ctx.queue_ptr, src.buf, dst.buf, src.offset * src.dtype.itemsize, dst.offset * dst.dtype.itemsize,
            nbytes, len(self.waits), waits, ctypes.byref(ev)), "clEnqueueCopyBuffer")
        self.waits = [ev.value]
        self.temp_events.append(ev.value)

    # -------------------------------------------------------------- run
    def wait_list(self):
        n = len(self.waits)
        return n, ((ctypes.c_void_p * n)(*self.waits) if n else None)

    def finish(self, event, result, also=()):
        """After a successful C call: attach the event to the device result
        (and to the device arrays of the operands in ``also``, the call's
        other outputs), or read the numpy results back. Returns the array
        the caller gets."""
        self._release_events()
        if self.device:
            if event.value:
                import pyopencl as pcl
                for o in also:
                    self.attach(o.array, pcl.Event.from_int_ptr(event.value, retain=True))
                evt = pcl.Event.from_int_ptr(event.value, retain=False)
                self.attach(result.array, evt)
            return result.array
        # The reads wait on the call's event: the queue may be out of order.
        ev = (ctypes.c_void_p * 1)(event.value) if event.value else None
        try:
            self._read_back(ev)
        finally:
            if event.value:
                _opencl.cl.clReleaseEvent(event)
        return result.array

    def _read_back(self, ev):
        for o, nbytes in self.reads:
            host = o.array
            if host is None or not host.flags.c_contiguous:
                tmp = np.empty(o.shape, o.dtype)
            else:
                tmp = host
            if nbytes:
                _opencl.check(_opencl.cl.clEnqueueReadBuffer(self.ctx.queue_ptr, o.buf, 1, 0, nbytes,
                                                             tmp.ctypes.data, 1 if ev else 0, ev, None),
                              "clEnqueueReadBuffer")
            if host is not None and tmp is not host:
                host[...] = tmp
            o.array = host if host is not None else tmp

    def _release_events(self):
        for ev in self.temp_events:
            _opencl.cl.clReleaseEvent(ev)
        self.temp_events = []

    def attach(self, arr, evt):
        """Record evt on a result array (pyopencl's convention), dropping the
        array's older clforge events on the same in-order queue."""
        if self.ctx.in_order and arr.queue is self.pyqueue:
            own = self.ctx.own_events
            if len(own) >= 256:  # forgetting one only makes a later call wait for it
                for p in list(own)[:128]:
                    del own[p]
            evs = arr.events
            if evs:
                evs[:] = [e for e in evs if e.int_ptr not in own]
            own[evt.int_ptr] = evt
            evs.append(evt)
        else:
            arr.add_event(evt)

    def close(self):
        for buf in self.temps:
            _opencl.cl.clReleaseMemObject(buf)
        self.temps = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            if exc[0] is not None:
                self._release_events()
                if self.temps and self.device:
                    # A failed call may still have enqueued uploads: let them end before freeing.
                    _opencl.cl.clFinish(self.ctx.queue_ptr)
            self.close()
        finally:
            if self.locked is not None:
                self.locked.release()
                self.locked = None
