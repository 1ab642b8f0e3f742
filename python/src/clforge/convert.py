"""convert: f32 <-> f16 <-> bf16 on the device (round to nearest even)."""
from ctypes import byref, c_void_p

import numpy as np

from ._arrays import Call, as_dtype, dtype_code
from ._capi import lib
from .errors import check
from .conv2d import _tight


def convert(x, dtype, *, out=None, ctx=None):
    """``x`` as ``dtype`` ("f32", "f16", "bf16", or a numpy dtype):
    nearest-even rounding, NaN and infinities kept, overflow to infinity."""
    target = as_dtype(dtype)
    dtype_code(target, "convert: dtype")
    with Call("convert", (x, out), ctx) as call:
        X = call.operand(x, "input")
        if not _tight(X.shape, X.strides):
            raise ValueError("convert: the input must be contiguous")
        if out is not None and np.dtype(out.dtype) != target:
            raise TypeError("convert: out is %s, the result is %s" % (np.dtype(out.dtype), target))
        Y = call.output(X.shape, target, out)
        if not _tight(Y.shape, Y.strides):
            raise ValueError("convert: out must be contiguous")
        n = 1
        for s in X.shape:
            n *= s
        event = c_void_p()
        nw, wl = call.wait_list()
        check(lib.clforge_convert(call.handle, n, X.buf, X.offset, X.code, Y.buf, Y.offset, Y.code, nw, wl,
                                  byref(event)), call.handle)
        return call.finish(event, Y)
