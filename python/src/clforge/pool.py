"""max_pool2d, avg_pool2d, adaptive_avg_pool2d and adaptive_max_pool2d
(torch.nn.functional's signatures; the adaptive ones to 1 x 1) over
clforge_pool, in NCHW or NHWC (``layout=``, as conv2d: the array's shape is
(N, H, W, C) for NHWC). A 3-D input is one image (C, H, W) or (H, W, C)."""
from ctypes import byref, c_size_t, c_void_p

import numpy as np

from ._arrays import Call
from ._capi import PoolDesc, lib
from .conv2d import _tight, _x_layout
from .errors import check

MAX, AVG = 0, 1


def _pair(v, op, name, least=0):
    p = (int(v),) * 2 if isinstance(v, (int, np.integer)) else tuple(int(x) for x in v)
    if len(p) == 1:
        p = p * 2
    if len(p) != 2 or min(p) < least:
        raise ValueError("%s: %s must be an int >= %d or 2 of them, got %r" % (op, name, least, v))
    return p


def _given(stride):
    return stride is not None and not (isinstance(stride, (tuple, list)) and len(stride) == 0)


def _pool(op, kind, input, kernel_size, stride, padding, dilation, ceil_mode, exclude_pad, divisor, whole, layout,
          out, ctx):
    with Call(op, (input, out), ctx) as call:
        X = call.operand(input, "input")
        shape, strides = tuple(X.shape), tuple(X.strides)
        batched = len(shape) == 4
        if len(shape) not in (3, 4):
            raise ValueError("%s: expected a 3-D or 4-D input, got shape %s" % (op, list(shape)))
        if len(shape) == 3:
            shape, strides = (1,) + shape, (0,) + strides
        (n, c, h, w), xl = _x_layout(shape, strides, layout, "input", op)
        d = PoolDesc()
        d.kind, d.layout, d.n, d.c, d.h, d.w = kind, xl, n, c, h, w
        if whole:
            d.global_pool = 1
        else:
            d.kernel_h, d.kernel_w = _pair(kernel_size, op, "kernel_size", 1)
            d.stride_h, d.stride_w = _pair(stride, op, "stride (should not be zero)", 1) if _given(stride) else (0, 0)
            d.pad_h, d.pad_w = _pair(padding, op, "padding")
            d.dilation_h, d.dilation_w = _pair(dilation, op, "dilation", 1)
        d.ceil_mode, d.exclude_pad = int(bool(ceil_mode)), int(bool(exclude_pad))
        if divisor is not None:
            if not isinstance(divisor, (int, np.integer)) or divisor <= 0:
                raise ValueError("%s: divisor_override must be a positive integer (clforge), got %r" % (op, divisor))
            d.divisor_override = int(divisor)
        d.x_type, d.x_offset = X.code, X.offset
        p, q = c_size_t(), c_size_t()
        check(lib.clforge_pool_output_size(byref(d), byref(p), byref(q)))
        oshape = (n, c, p.value, q.value) if xl == 0 else (n, p.value, q.value, c)
        if not batched:
            oshape = oshape[1:]
        Y = call.output(oshape, X.dtype if out is None else out.dtype, out)
        if not _tight(Y.shape, Y.strides):
            raise ValueError("%s: out must be contiguous in its layout" % op)
        d.y_type, d.y_offset = Y.code, Y.offset
        event = c_void_p()
        nw, wl = call.wait_list()
        check(lib.clforge_pool(call.handle, byref(d), X.buf, Y.buf, nw, wl, byref(event)), call.handle)
        return call.finish(event, Y)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False, *,
               layout="NCHW", out=None, ctx=None):
    """torch.nn.functional.max_pool2d (a NaN in a window wins it; padding is
    never the max). return_indices is not supported (inference)."""
    if return_indices:
        raise NotImplementedError("max_pool2d: return_indices is not supported (clforge_pool has no indices)")
    return _pool("max_pool2d", MAX, input, kernel_size, stride, padding, dilation, ceil_mode, False, None, False,
                 layout, out, ctx)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None, *, layout="NCHW", out=None, ctx=None):
    """torch.nn.functional.avg_pool2d: the window's sum over its size
    (clipped to the padded input with count_include_pad, else to the input)
    or over divisor_override."""
    return _pool("avg_pool2d", AVG, input, kernel_size, stride, padding, 1, ceil_mode, not count_include_pad,
                 divisor_override, False, layout, out, ctx)


def _one(output_size, op):
    sz = (output_size,) if isinstance(output_size, (int, np.integer)) else tuple(output_size)
    if sz not in ((1,), (1, 1)):
        raise NotImplementedError("%s: clforge pools to 1 x 1 only (global pooling), got output_size %r"
                                  % (op, output_size))


def adaptive_avg_pool2d(input, output_size, *, layout="NCHW", out=None, ctx=None):
    """torch.nn.functional.adaptive_avg_pool2d to output_size 1: the mean of
    each plane (the CNNs' heads)."""
    _one(output_size, "adaptive_avg_pool2d")
    return _pool("adaptive_avg_pool2d", AVG, input, None, None, 0, 1, False, False, None, True, layout, out, ctx)


def adaptive_max_pool2d(input, output_size, return_indices=False, *, layout="NCHW", out=None, ctx=None):
    """torch.nn.functional.adaptive_max_pool2d to output_size 1."""
    _one(output_size, "adaptive_max_pool2d")
    if return_indices:
        raise NotImplementedError("adaptive_max_pool2d: return_indices is not supported")
    return _pool("adaptive_max_pool2d", MAX, input, None, None, 0, 1, False, False, None, True, layout, out, ctx)
