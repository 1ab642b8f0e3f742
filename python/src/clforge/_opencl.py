"""The few OpenCL calls the package makes itself (ctypes over the ICD loader
libclforge links): device buffers for numpy arrays, copies, events, and the
platform/device list. pyopencl is optional; with it, arrays stay on its queue."""
import ctypes
from ctypes import POINTER, byref, c_char, c_int32, c_size_t, c_uint, c_ulonglong, c_void_p



def _load():
    for name in ("libOpenCL.so.1", "libOpenCL.so", "OpenCL"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise ImportError("clforge: the OpenCL ICD loader (libOpenCL.so.1) is not installed "
                      "(Debian: ocl-icd-libopencl1, and a driver such as pocl-opencl-icd)")


cl = _load()
_P = c_void_p
for _name, _res, _args in (
        ("clGetPlatformIDs", c_int32, (c_uint, POINTER(_P), POINTER(c_uint))),
        ("clGetDeviceIDs", c_int32, (_P, c_ulonglong, c_uint, POINTER(_P), POINTER(c_uint))),
        ("clCreateBuffer", _P, (_P, c_ulonglong, c_size_t, _P, POINTER(c_int32))),
        ("clReleaseMemObject", c_int32, (_P,)),
        ("clEnqueueWriteBuffer", c_int32, (_P, _P, c_uint, c_size_t, c_size_t, _P, c_uint, POINTER(_P), POINTER(_P))),
        ("clEnqueueReadBuffer", c_int32, (_P, _P, c_uint, c_size_t, c_size_t, _P, c_uint, POINTER(_P), POINTER(_P))),
        ("clEnqueueCopyBuffer", c_int32, (_P, _P, _P, c_size_t, c_size_t, c_size_t, c_uint, POINTER(_P), POINTER(_P))),
        ("clFinish", c_int32, (_P,)),
        ("clWaitForEvents", c_int32, (c_uint, POINTER(_P))),
        ("clReleaseEvent", c_int32, (_P,)),
        ("clGetEventProfilingInfo", c_int32, (_P, c_uint, c_size_t, _P, POINTER(c_size_t))),
        ("clGetMemObjectInfo", c_int32, (_P, c_uint, c_size_t, _P, POINTER(c_size_t))),
        ("clGetDeviceInfo", c_int32, (_P, c_uint, c_size_t, _P, POINTER(c_size_t))),
        ("clEnqueueMarkerWithWaitList", c_int32, (_P, c_uint, POINTER(_P), POINTER(_P)))):
    _fn = getattr(cl, _name)
    _fn.restype, _fn.argtypes = _res, _args

CL_DEVICE_TYPE_ALL = 0xFFFFFFFF
CL_MEM_READ_WRITE = 1
CL_MEM_SIZE = 0x1102
CL_MEM_CONTEXT = 0x1106
CL_PROFILING_COMMAND_START = 0x1282
CL_PROFILING_COMMAND_END = 0x1283


def check(code, what):
    if code != 0:
        from .errors import raise_status
        raise_status(int(code), "%s failed" % what)


def platforms_and_devices():
    """[(platform index, device index, cl_device_id)] for every device of every platform."""
    n = c_uint(0)
    if cl.clGetPlatformIDs(0, None, byref(n)) != 0 or n.value == 0:
        return []
    plats = (_P * n.value)()
    check(cl.clGetPlatformIDs(n.value, plats, None), "clGetPlatformIDs")
    out = []
    for pi, p in enumerate(plats):
        nd = c_uint(0)
        if cl.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, None, byref(nd)) != 0 or nd.value == 0:
            continue
        devs = (_P * nd.value)()
        check(cl.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd.value, devs, None), "clGetDeviceIDs")
        out.extend((pi, di, d) for di, d in enumerate(devs))
    return out


def create_buffer(cl_context, nbytes):
    err = c_int32(0)
    buf = cl.clCreateBuffer(cl_context, CL_MEM_READ_WRITE, max(int(nbytes), 1), None, byref(err))
    check(err.value, "clCreateBuffer(%d bytes)" % nbytes)
    return buf


def mem_size(buf):
    size = c_size_t(0)
    check(cl.clGetMemObjectInfo(buf, CL_MEM_SIZE, ctypes.sizeof(size), byref(size), None), "clGetMemObjectInfo")
    return size.value


def mem_context(buf):
    ctx = _P()
    check(cl.clGetMemObjectInfo(buf, CL_MEM_CONTEXT, ctypes.sizeof(ctx), byref(ctx), None), "clGetMemObjectInfo")
    return ctx.value


def event_seconds(event):
    """Profiled duration (end - start) of an event, in seconds."""
    start, end = ctypes.c_ulonglong(0), ctypes.c_ulonglong(0)
    check(cl.clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, 8, byref(start), None), "profiling info")
    check(cl.clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, 8, byref(end), None), "profiling info")
    return (end.value - start.value) * 1e-9


def event_end_ns(event):
    end = ctypes.c_ulonglong(0)
    check(cl.clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, 8, byref(end), None), "profiling info")
    return end.value


def device_string(device, param):
    size = c_size_t(0)
    if cl.clGetDeviceInfo(device, param, 0, None, byref(size)) != 0:
        return ""
    buf = (c_char * max(size.value, 1))()
    if cl.clGetDeviceInfo(device, param, size.value, buf, None) != 0:
        return ""
    return buf.value.decode("utf-8", "replace")
