"""Quantization: float arrays <-> int8 / uint8 (per tensor or per channel, scales
given or computed) and ggml's q8_0 blocks, on the device. The names and
arguments follow PyTorch's ``torch.quantize_per_tensor``,
``torch.quantize_per_tensor_dynamic`` and ``torch.quantize_per_channel``; numpy
has no quantized tensor, so the integer array comes back, with the scales and
zero points where they were computed. Rounding: halves to even (see
docs/inference-precision.md)."""
from ctypes import byref, c_void_p

import numpy as np

from ._arrays import Call, as_dtype, dtype_code
from types import SimpleNamespace

from ._capi import ConvQuant, GemmDesc, GemmQuant, OwnedHandle, QuantDesc, lib
from .conv2d import _build_desc, _out_size, _tight, _w_layout, _x_layout
from .matmul import activation_code
from .errors import check

PER_TENSOR, PER_ROW, PER_COLUMN, Q8_0 = 0, 1, 2, 3
_QTYPES = {"s8": np.int8, "qint8": np.int8, "int8": np.int8, "u8": np.uint8, "quint8": np.uint8,
           "uint8": np.uint8}


def _qtype(dtype, op):
    d = _QTYPES.get(dtype.lower(), None) if isinstance(dtype, str) else dtype
    d = np.dtype(d) if d is not None else None
    if d not in (np.dtype(np.int8), np.dtype(np.uint8)):
        raise TypeError("%s: dtype must be int8 (qint8, s8) or uint8 (quint8, u8), got %r" % (op, dtype))
    return d


def _matrix(shape, axis, op):
    """(rows, cols, scheme) of an array quantized per channel along axis
    (None: per tensor): the first axis is rows, the last columns."""
    nd = len(shape)
    size = int(np.prod(shape)) if nd else 1
    if axis is None:
        cols = shape[-1] if nd else 1
        return (size // cols if cols else 0), cols, PER_TENSOR
    if axis < 0:
        axis += nd
    if nd == 0 or not 0 <= axis < nd:
        raise IndexError("%s: axis %d is out of range for %d dimensions" % (op, axis, nd))
    if axis == 0:
        return shape[0], (size // shape[0] if shape[0] else 0), PER_ROW
    if axis == nd - 1:
        return (size // shape[-1] if shape[-1] else 0), shape[-1], PER_COLUMN
    raise ValueError("%s: clforge quantizes per channel along the first or the last axis (axis %d of %d)"
                     % (op, axis, nd))


def _contiguous(op, a):
    if not _tight(a.shape, a.strides):
        raise ValueError("%s: the input must be contiguous" % op)


def _per_channel(v, dtype, n, op):
    """A scalar broadcast to n values, or n values (a device array as it is)."""
    if hasattr(v, "queue"):
        return v
    a = np.asarray(v, dtype)
    if a.size == 1:
        return np.full((n,), a.reshape(()), dtype)
    if a.shape != (n,):
        raise ValueError("%s: %d float32 scales and int32 zero points expected, got shape %s" % (op, n, a.shape))
    return a


def _run(op, fn, x_arr, q_arr, rows, cols, scheme, compute, qt, scale, zero_point, out_shape, out_dtype, ctx,
         q_shape=None):
    """One quantize (fn = clforge_quantize) or dequantize call."""
    quantize = fn is lib.clforge_quantize
    with Call(op, (x_arr, q_arr, scale, zero_point), ctx) as call:
        if quantize:
            X = call.operand(x_arr, "input")
            _contiguous(op, X)
            Q = call.output(out_shape, out_dtype, None, ints=True)
        else:
            Q = call.operand(q_arr, "input", ints=True)
            _contiguous(op, Q)
            if Q.code not in (4, 5):
                raise TypeError("%s: the input must be int8 or uint8, got %s" % (op, Q.dtype))
            X = call.output(out_shape, out_dtype, None)
        nscales = {PER_TENSOR: 1, PER_ROW: rows, PER_COLUMN: cols}.get(scheme, 0)
        S = Z = None
        if scheme != Q8_0:
            if compute:
                S = call.output((nscales,), np.float32, None, what="scale")
                Z = call.output((nscales,), np.int32, None, what="zero_point", ints=True)
            else:
                S = call.operand(_per_channel(scale, np.float32, nscales, op), "scale")
                Z = call.operand(_per_channel(zero_point, np.int32, nscales, op), "zero_point", ints=True)
                if S.shape != (nscales,) or Z.shape != (nscales,) or S.code != 1 or Z.code != 6:
                    raise ValueError("%s: %d float32 scales and int32 zero points expected" % (op, nscales))
        d = QuantDesc(scheme=scheme, scales=1 if compute else 0, rows=rows, cols=cols, x_type=X.code,
                      q_type=(4 if np.dtype(qt) == np.int8 else 5), x_offset=X.offset, q_offset=Q.offset,
                      scale_offset=S.offset if S is not None else 0, zero_point_offset=Z.offset if Z is not None else 0)
        event = c_void_p()
        nw, wl = call.wait_list()
        sbuf = S.buf if S is not None else None
        zbuf = Z.buf if Z is not None else None
        if quantize:
            check(fn(call.handle, byref(d), X.buf, Q.buf, sbuf, zbuf, nw, wl, byref(event)), call.handle)
            result = call.finish(event, Q, (S, Z) if compute else ())
            return (result, S.array, Z.array) if compute else result
        check(fn(call.handle, byref(d), Q.buf, sbuf, zbuf, X.buf, nw, wl, byref(event)), call.handle)
        return call.finish(event, X)


def quantize_per_tensor(input, scale, zero_point, dtype, *, ctx=None):
    """``clamp(round(input / scale) + zero_point)`` as int8 or uint8 (one scale
    and zero point; halves to even, NaN to the zero point)."""
    qt = _qtype(dtype, "quantize_per_tensor")
    shape = tuple(np.shape(input))
    rows, cols, _ = _matrix(shape, None, "quantize_per_tensor")
    return _run("quantize_per_tensor", lib.clforge_quantize, input, None, rows, cols, PER_TENSOR, False, qt,
                float(scale), int(zero_point), shape, qt, ctx)


def quantize_per_tensor_dynamic(input, dtype, *, ctx=None):
    """Scale (and zero point) from the input's range, then quantize: int8
    symmetric (scale = max|x| / 127, zero point 0), uint8 asymmetric over
    [min(x, 0), max(x, 0)]. Returns (q, scale, zero_point) arrays."""
    qt = _qtype(dtype, "quantize_per_tensor_dynamic")
    shape = tuple(np.shape(input))
    rows, cols, _ = _matrix(shape, None, "quantize_per_tensor_dynamic")
    return _run("quantize_per_tensor_dynamic", lib.clforge_quantize, input, None, rows, cols, PER_TENSOR, True,
                qt, None, None, shape, qt, ctx)


def quantize_per_channel(input, scales, zero_points, axis, dtype, *, ctx=None):
    """Per-channel quantization along ``axis`` (the first or the last).
    ``scales`` / ``zero_points`` None: computed as quantize_per_tensor_dynamic
    does, per channel, and returned with q."""
    qt = _qtype(dtype, "quantize_per_channel")
    shape = tuple(np.shape(input))
    rows, cols, scheme = _matrix(shape, axis, "quantize_per_channel")
    compute = scales is None
    if compute != (zero_points is None):
        raise ValueError("quantize_per_channel: give both scales and zero_points, or neither (computed)")
    return _run("quantize_per_channel", lib.clforge_quantize, input, None, rows, cols, scheme, compute, qt,
                scales, zero_points, shape, qt, ctx)


def dequantize(input, scale, zero_point=0, *, axis=None, dtype="f32", ctx=None):
    """``scale * (input - zero_point)`` as dtype (f32, f16, bf16); per channel
    along ``axis`` when scale and zero_point are arrays."""
    shape = tuple(np.shape(input))
    rows, cols, scheme = _matrix(shape, axis, "dequantize")
    qt = np.dtype(getattr(input, "dtype", np.int8))
    xt = as_dtype(dtype)
    dtype_code(xt, "dequantize: dtype")
    return _run("dequantize", lib.clforge_dequantize, None, input, rows, cols, scheme, False, qt, scale, zero_point,
                shape, xt, ctx)


def quantize_q8_0(input, *, ctx=None):
    """ggml's q8_0 of ``input`` along its last axis (a multiple of 32): uint8
    bytes, each row's blocks of an f16 scale and 32 int8 (34 bytes)."""
    shape = tuple(np.shape(input))
    rows, cols, _ = _matrix(shape, None, "quantize_q8_0")
    if cols % 32:
        raise ValueError("quantize_q8_0: the last axis (%d) must be a multiple of 32" % cols)
    return _run("quantize_q8_0", lib.clforge_quantize, input, None, rows, cols, Q8_0, False, np.int8, None, None,
                shape[:-1] + (cols // 32 * 34,), np.uint8, ctx)


def dequantize_q8_0(input, *, dtype="f32", ctx=None):
    """The values of q8_0 bytes (last axis: blocks of 34 bytes) as dtype."""
    shape = tuple(np.shape(input))
    if np.dtype(getattr(input, "dtype", np.uint8)) != np.uint8 or not shape or shape[-1] % 34:
        raise ValueError("dequantize_q8_0: expected uint8 bytes whose last axis is a multiple of 34")
    cols = shape[-1] // 34 * 32
    rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    xt = as_dtype(dtype)
    dtype_code(xt, "dequantize_q8_0: dtype")
    return _run("dequantize_q8_0", lib.clforge_dequantize, None, input, rows, cols, Q8_0, False, np.int8, None,
                None, shape[:-1] + (cols,), xt, ctx)


def int_mm(a, b, *, a_zero_point=0, b_zero_point=0, out=None, ctx=None):
    """``torch._int_mm``: 2-D int8 (or uint8) a (m x k) times b (k x n) into
    int32, exact; clforge also subtracts per-tensor zero points first
    (``(a - a_zero_point) @ (b - b_zero_point)``; clforge_gemm_quantized with
    an s32 C)."""
    op = "int_mm"
    with Call(op, (a, b, out), ctx) as call:
        A = call.operand(a, "a", ints=True)
        B = call.operand(b, "b", ints=True)
        if A.code not in (4, 5) or B.code not in (4, 5):
            raise TypeError("int_mm: a and b must be int8 or uint8, got %s and %s" % (A.dtype, B.dtype))
        if len(A.shape) != 2 or len(B.shape) != 2 or A.shape[1] != B.shape[0]:
            raise ValueError("int_mm: a (m x k) and b (k x n) expected, got shapes %s and %s" % (A.shape, B.shape))
        m, k = A.shape
        n = B.shape[1]
        for X, name in ((A, "a"), (B, "b")):
            if X.shape[1] > 1 and X.strides[1] != 1:
                raise ValueError("int_mm: %s's rows must be contiguous" % name)
        C = call.output((m, n), np.int32, out, ints=True)
        lda = A.strides[0] if m > 1 else k
        ldb = B.strides[0] if k > 1 else n
        d = GemmDesc(m=m, n=n, k=k, a_type=A.code, b_type=B.code, c_type=6, lda=max(lda, k), ldb=max(ldb, n),
                     ldc=n, a_offset=A.offset, b_offset=B.offset, c_offset=C.offset)
        q = GemmQuant(a_zero_point=int(a_zero_point), b_zero_point=int(b_zero_point))
        event = c_void_p()
        nw, wl = call.wait_list()
        check(lib.clforge_gemm_quantized(call.handle, byref(d), byref(q), A.buf, B.buf, C.buf, None, nw, wl,
                                         byref(event)), call.handle)
        return call.finish(event, C)


class QuantizedConv2dWeights(OwnedHandle):
    """An int8 filter prepared once (clforge_conv2d_quantized_weights_create:
    transposed to the int8 GEMM's layout): pass it to quantized_conv2d as
    ``weight`` and the call neither transposes the filter again nor reads
    the original. ``weight`` (K, C, R, S) int8 or uint8, contiguous or
    channels-last, as quantized_conv2d takes it. Tied to its context."""

    _destroy = "clforge_conv2d_quantized_weights_release"

    def __init__(self, weight, *, ctx=None):
        self._handle = c_void_p()
        with Call("QuantizedConv2dWeights", (weight,), ctx) as call:
            W = call.operand(weight, "weight", ints=True)
            if W.code not in (4, 5) or len(W.shape) != 4:
                raise TypeError("QuantizedConv2dWeights: weight must be 4-D int8 or uint8, got %s %s"
                                % (W.dtype, W.shape))
            k, c, r, s = W.shape
            d = _build_desc(None, W, (1, c, r, s), 1, 1, 1, 0, 1, "auto", 0)
            d.x_type, d.y_type = 5, 6  # (any int8 input; the raw sums)
            nw, wl = call.wait_list()
            check(lib.clforge_conv2d_quantized_weights_create(call.handle, byref(d), W.buf, nw, wl,
                                                              byref(self._handle)), call.handle)
            if not call.device:
                call.ctx.finish()  # the upload of w is freed on leaving
        self.ctx = call.ctx
        self.shape = tuple(W.shape)
        self.code = W.code
        self.dtype = W.dtype
        self.layout = _w_layout(W.shape, W.strides)

    def _lock(self):
        ctx = getattr(self, "ctx", None)  # None while __init__ has not finished
        return ctx.lock if ctx is not None else None

    def release(self):
        """Free the prepared filter now (also done when collected)."""
        self.close()

    def _as_operand(self):
        """What the descriptor needs of the filter: shape, layout (as strides), type."""
        k, c, r, s = self.shape
        strides = (c * r * s, r * s, s, 1) if self.layout == 0 else (r * s * c, 1, s * c, c)
        return SimpleNamespace(shape=self.shape, strides=strides, code=self.code, offset=0, buf=None)

    def __repr__(self):
        return "<clforge.QuantizedConv2dWeights %s %s>" % (self.shape, self.dtype)


def quantized_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, input_scale=1.0,
                     input_zero_point=0, weight_scale=1.0, weight_zero_point=0, output_scale=None,
                     output_zero_point=0, dtype=np.int32, activation=None, out=None, ctx=None):
    """An int8 convolution (clforge_conv2d_quantized): the arithmetic of
    ``torch.ao.nn.quantized.functional.conv2d`` on plain integer arrays.

    ``input`` (N, H, W, C) uint8 or int8, channels-last (NHWC); ``weight``
    (K, C/groups, R, S) int8 or uint8, contiguous or channels-last; groups
    (one GEMM each; depthwise, groups = C, runs its own kernel);
    stride, padding, dilation as conv2d's (padding reads input_zero_point).
    ``weight_scale``: one number, or K (per output channel). ``dtype``:
    np.int32, the exact sums of (x - input_zero_point)(w - weight_zero_point)
    (no scales, bias or activation); float32/float16/bfloat16, those sums
    dequantized (input_scale * weight_scale), plus bias, then activation; or
    uint8/int8, that value requantized with output_scale and
    output_zero_point (halves to even). The result is NHWC (N, P, Q, K).
    ``weight`` may be a QuantizedConv2dWeights (the filter prepared once)."""
    op = "quantized_conv2d"
    act = activation_code(activation, op)
    prepared = weight if isinstance(weight, QuantizedConv2dWeights) else None
    if prepared is not None:
        ctx = prepared.ctx if ctx is None else ctx
    with Call(op, (input, bias, out) if prepared else (input, weight, bias, out), ctx) as call:
        X = call.operand(input, "input", ints=True)
        if prepared is not None and prepared.ctx is not call.ctx:
            raise ValueError("%s: the prepared weights belong to another context" % op)
        W = prepared._as_operand() if prepared is not None else call.operand(weight, "weight", ints=True)
        if X.code not in (4, 5) or W.code not in (4, 5):
            raise TypeError("%s: input and weight must be int8 or uint8, got %s and %s" % (op, X.dtype, W.dtype))
        if len(X.shape) != 4:
            raise ValueError("%s: input must be (N, H, W, C), got %s" % (op, X.shape))
        xshape, xl = _x_layout(X.shape, X.strides, "NHWC", "input")
        d = _build_desc(X, W, xshape, xl, groups, stride, padding, dilation, "auto", act)
        p, q = _out_size(d)
        yt = as_dtype(dtype)
        s32 = yt == np.dtype(np.int32)
        Y = call.output((d.n, p, q, d.k), yt if out is None else out.dtype, out, ints=True)
        d.y_type, d.y_offset = Y.code, Y.offset
        if s32 and (act or bias is not None):
            raise ValueError("%s: an int32 result holds the raw sums: no bias or activation" % op)
        quant = ConvQuant(x_zero_point=int(input_zero_point), w_zero_point=int(weight_zero_point),
                          y_zero_point=int(output_zero_point))
        if Y.code in (4, 5):
            if output_scale is None:
                raise ValueError("%s: an %s result needs output_scale" % (op, Y.dtype))
            quant.y_scale = float(output_scale)
        if not s32:
            ws = np.ascontiguousarray(np.asarray(weight_scale, np.float32).reshape(-1))
            if ws.size not in (1, d.k):
                raise ValueError("%s: weight_scale must be one value or %d (out_channels), got %d" % (op, d.k, ws.size))
            quant.w_scheme = 1 if ws.size > 1 else 0
            quant.x_scale = call.operand(np.array([input_scale], np.float32), "input_scale").buf
            quant.w_scale = call.operand(ws, "weight_scale").buf
        bias_buf = None
        if bias is not None:
            Bi = call.operand(bias, "bias")
            if Bi.shape != (d.k,) or (d.k > 1 and Bi.strides[0] != 1):
                raise ValueError("%s: bias must be %d contiguous values (out_channels), got shape %s" % (op, d.k, Bi.shape))
            d.bias_type, d.bias_offset, bias_buf = Bi.code, Bi.offset, Bi.buf
        event = c_void_p()
        if d.n == 0 or d.k == 0:
            return call.finish(event, Y)
        nw, wl = call.wait_list()
        check(lib.clforge_conv2d_quantized_ex(call.handle, byref(d), byref(quant), X.buf, W.buf,
                                              prepared._handle if prepared is not None else None, bias_buf, Y.buf,
                                              nw, wl, byref(event)), call.handle)
        return call.finish(event, Y)

