"""Contexts and devices: a clforge context over a device of its own, or over
the caller's pyopencl queue (same OpenCL context, same queue, same events)."""
import ctypes
import threading
from ctypes import byref, c_int, c_void_p

from . import _opencl
from ._capi import CacheStats, DeviceInfo, OwnedHandle, lib, text
from .errors import check, raise_status

_CLASS_NAMES = {0: "generic", 1: "cpu", 2: "nvidia", 3: "amd", 4: "intel_gpu", 5: "mali", 6: "adreno"}
_CAPS = {0x01: "half_storage", 0x02: "fp16", 0x04: "fp64", 0x08: "subgroups_khr", 0x10: "subgroups_intel",
         0x20: "integer_dot"}
_TYPES = {1: "default", 2: "cpu", 4: "gpu", 8: "accelerator", 16: "custom"}


def _info_dict(info):
    return {
        "name": text(info.name), "vendor": text(info.vendor), "platform": text(info.platform_name),
        "platform_version": text(info.platform_version), "driver_version": text(info.driver_version),
        "opencl_version": text(info.opencl_version), "opencl_c_version": text(info.opencl_c_version),
        "type": "|".join(v for k, v in _TYPES.items() if info.type & k) or str(info.type),
        "device_class": _CLASS_NAMES.get(info.device_class, str(info.device_class)),
        "compute_units": info.compute_units, "max_clock_mhz": info.max_clock_mhz,
        "global_mem_bytes": info.global_mem_bytes, "max_alloc_bytes": info.max_alloc_bytes,
        "local_mem_bytes": info.local_mem_bytes, "max_work_group_size": info.max_work_group_size,
        "caps": [v for k, v in _CAPS.items() if info.caps & k],
    }


class Device(dict):
    """One OpenCL device as clforge sees it: a dict of clforge_device_info's
    fields plus ``spec``, the "P:D" string Context(device=...) takes."""

    def __repr__(self):
        return "<clforge.Device %s %r (%s)>" % (self["spec"], self["name"], self["device_class"])


def devices():
    """Every OpenCL device of every platform, as Device dicts."""
    out = []
    for pi, di, dev in _opencl.platforms_and_devices():
        info = DeviceInfo()
        if lib.clforge_device_query(dev, byref(info)) != 0:
            continue
        d = Device(_info_dict(info))
        d["spec"] = "%d:%d" % (pi, di)
        out.append(d)
    return out


class Context(OwnedHandle):
    """A clforge context: ``Context()`` picks the device as the C library does
    (CLFORGE_DEVICE, else the first GPU, accelerator, then CPU);
    ``Context(device="0:1")`` or ``Context(device="nvidia")`` (a name
    substring) or a Device; ``Context(queue=q)`` wraps a pyopencl
    CommandQueue (or a raw cl_command_queue as an int) without copies: calls
    enqueue on it, wait on the arrays' events and attach their own."""

    _destroy = "clforge_context_destroy"

    def __init__(self, device=None, *, queue=None, validate=None):
        self._handle = c_void_p()
        self.pyqueue = None
        if queue is not None and device is not None:
            raise ValueError("Context: give device= or queue=, not both")
        if queue is not None:
            ptr = queue if isinstance(queue, int) else getattr(queue, "int_ptr", None)
            if ptr is None:
                raise TypeError("Context(queue=...) takes a pyopencl.CommandQueue or a cl_command_queue "
                                "as an int, not %s" % type(queue).__name__)
            if not isinstance(queue, int):
                self.pyqueue = queue  # kept alive: the context holds its queue
            st = lib.clforge_context_create_from_queue(c_void_p(ptr), byref(self._handle))
        else:
            if isinstance(device, dict):
                device = device["spec"]
            if device is not None and not isinstance(device, str):
                raise TypeError("Context(device=...) takes \"P:D\", a name substring or a clforge.Device")
            st = lib.clforge_context_create(device.encode() if device else None, byref(self._handle))
        if st != 0:
            raise_status(st, None, None)
        self._setup(validate)

    def _setup(self, validate=None):
        """What every context holds once its handle is made."""
        q, c, d = c_void_p(), c_void_p(), c_void_p()
        check(lib.clforge_context_queue(self._handle, byref(q)), self._handle)
        check(lib.clforge_context_cl_context(self._handle, byref(c)), self._handle)
        check(lib.clforge_context_device(self._handle, byref(d)), self._handle)
        self.queue_ptr, self.cl_context_ptr, self.device_ptr = q.value, c.value, d.value
        info = DeviceInfo()
        check(lib.clforge_context_device_info(self._handle, byref(info)), self._handle)
        self.device = Device(_info_dict(info))
        self.lock = threading.RLock()  # a clforge context is not thread-safe (re-entered by nested calls)
        # The events clforge attached to pyopencl arrays on this queue, by
        # cl_event (held, so an address is never reused while listed). On an
        # in-order queue later calls on it need not wait for them, and an
        # array's list can drop them once a newer one is attached.
        self.own_events = {}
        self.in_order = True
        if self.pyqueue is not None:
            self.in_order = not (self.pyqueue.properties & 1)  # CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
        if validate is not None:
            self.validation = validate

    def _lock(self):
        return getattr(self, "lock", None)

    @property
    def handle(self):
        if not self._handle:
            raise ValueError("clforge.Context: the context was closed")
        return self._handle

    def __repr__(self):
        return "<clforge.Context on %r>" % self.device.get("name")

    def last_error(self):
        return text(lib.clforge_last_error(self.handle))

    def finish(self):
        _opencl.check(_opencl.cl.clFinish(self.queue_ptr), "clFinish")

    @property
    def validation(self):
        v = c_int(0)
        with self.lock:
            check(lib.clforge_context_get_validation(self.handle, byref(v)), self._handle)
        return bool(v.value)

    @validation.setter
    def validation(self, enabled):
        with self.lock:
            check(lib.clforge_context_set_validation(self.handle, 1 if enabled else 0), self._handle)

    _COMPUTE = {"32f": 1, "32f_fast_16f": 2, "16f": 3}

    @property
    def compute_type(self):
        """The arithmetic calls may use: "32f" (strict, the default),
        "32f_fast_16f" (f16 products allowed) or "16f" (f16 partial sums
        too); torch's allow_fp16_reduced_precision_reduction. A device
        without f16 arithmetic runs f32 whatever this says."""
        v = c_int(0)
        with self.lock:
            check(lib.clforge_context_get_compute_type(self.handle, byref(v)), self._handle)
        return text(lib.clforge_compute_type_name(v.value))

    @compute_type.setter
    def compute_type(self, name):
        if name not in self._COMPUTE:
            raise ValueError("compute_type must be one of %s, got %r" % (", ".join(self._COMPUTE), name))
        with self.lock:
            check(lib.clforge_context_set_compute_type(self.handle, self._COMPUTE[name]), self._handle)

    def set_params(self, params):
        """Override kernel parameters (CLFORGE_PARAMS syntax); None clears."""
        with self.lock:
            check(lib.clforge_context_set_params(self.handle, params.encode() if params else None), self._handle)

    def reload_tuning(self):
        with self.lock:
            check(lib.clforge_context_reload_tuning(self.handle), self._handle)

    def cache_stats(self):
        s = CacheStats()
        with self.lock:
            check(lib.clforge_context_cache_stats(self.handle, byref(s)), self._handle)
        return {name: getattr(s, name) for name, _ in CacheStats._fields_}


_default = None
_by_queue = {}
_glock = threading.Lock()


class _BorrowedContext(Context):
    """A context clforge made and owns (a communicator's, over MPI): used
    like any, never destroyed from here; ``owner`` is kept alive with it."""

    def __init__(self, handle, owner):  # noqa: super().__init__ would make another context
        self.pyqueue = None
        self._handle = c_void_p(handle)
        self._owner = owner
        self._setup()

    def close(self):
        lock = getattr(self, "lock", None)  # never while another thread's call uses it
        if lock is not None:
            with lock:
                self._handle = c_void_p()
        else:
            self._handle = c_void_p()


def default_context():
    """The context numpy-only calls use (created on first use)."""
    global _default
    with _glock:
        if _default is None:
            _default = Context()
        return _default


def set_default_context(ctx):
    """Make ``ctx`` (a Context, or None to pick again) the one numpy-only calls use."""
    global _default
    with _glock:
        _default = ctx


def context_for_queue(pyqueue):
    """The context over a pyopencl queue (one per queue, kept for reuse)."""
    key = pyqueue.int_ptr
    ctx = _by_queue.get(key)
    if ctx is None:
        with _glock:
            ctx = _by_queue.get(key)
            if ctx is None:
                ctx = _by_queue[key] = Context(queue=pyqueue)
    return ctx


def pyopencl_queue(ctx=None, profiling=False):
    """A pyopencl CommandQueue on the device of the clforge context ``ctx``
    (default: default_context(), i.e. CLFORGE_DEVICE's), for pyopencl arrays
    clforge takes zero-copy. The device is found by its cl_device_id, not its
    name (two GPUs of one model share a name). The queue is in a pyopencl
    context of its own, which it keeps alive: the pattern
    ``CommandQueue(Context([dev]))`` drops the context's last application
    reference at once, and Intel's OpenCL runtime then treats that cl_context
    as invalid (INVALID_CONTEXT for every use, queue.context included) while
    PoCL keeps it usable; see docs/python.md."""
    import pyopencl as cl
    ctx = ctx or default_context()
    for p in cl.get_platforms():
        for d in p.get_devices():
            if d.int_ptr == ctx.device_ptr:
                props = cl.command_queue_properties.PROFILING_ENABLE if profiling else 0
                pctx = cl.Context([d])
                queue = cl.CommandQueue(pctx, properties=props)
                queue.clforge_context = pctx  # the queue holds its context (above)
                return queue
    raise RuntimeError("clforge's device %r (%s) is not visible to pyopencl"
                       % (ctx.device.get("name"), ctx.device.get("platform")))


def paths():
    """The files clforge uses: the kernel cache, the user and system tuning files."""
    out = {}
    for kind, name in ((1, "kernel_cache"), (2, "tuning_file"), (3, "system_tuning_file")):
        buf = ctypes.create_string_buffer(4096)
        out[name] = text(buf.value) if lib.clforge_path(kind, buf, 4096) == 0 else None
    return out
