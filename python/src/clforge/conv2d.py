"""conv2d: torch.nn.functional.conv2d over clforge_conv2d, and prepared weights."""
from ctypes import byref, c_int, c_size_t, c_void_p

import numpy as np

from ._arrays import Call, as_dtype, dtype_code
from ._capi import REGISTRY_CONV_ALGOS, ConvChoice, ConvDesc, OwnedHandle, lib, registry_names, text
from .errors import check
from .matmul import activation_code

# The algorithms by enum value ("auto" first), as the library names them.
ALGOS = registry_names(REGISTRY_CONV_ALGOS)


def _pair(v, name):
    v = (int(v),) if isinstance(v, int) else tuple(int(x) for x in v)
    if len(v) == 1:
        v = v * 2
    if len(v) != 2:
        raise ValueError("conv2d: %s must be an int or 2 ints, got %r" % (name, v))
    if min(v) < 1:
        raise ValueError("conv2d: %s must be positive, got %r" % (name, v))
    return v


def _geometry(d):
    return ((d.stride_h, d.stride_w), (d.dilation_h, d.dilation_w),
            (d.pad_top, d.pad_bottom, d.pad_left, d.pad_right), d.groups)


def _check_prepared(prepared, stride, padding, dilation, groups, algo):
    """Arguments given with prepared weights must be the ones they were
    prepared with (they are fixed in the filter's transform)."""
    d = prepared.desc
    st0, di0, pad0, g0 = _geometry(d)
    st = st0 if stride is None else _pair(stride, "stride")
    di = di0 if dilation is None else _pair(dilation, "dilation")
    for name, given, fixed in (("stride", st, st0), ("dilation", di, di0),
                               ("padding", pad0 if padding is None else _padding(padding, d.r, d.s, di, st), pad0),
                               ("groups", g0 if groups is None else int(groups), g0)):
        if given != fixed:
            raise ValueError("conv2d: %s is fixed by the prepared weights (%s); got %s" % (name, fixed, given))
    if algo not in ("auto", prepared.algo, prepared.requested_algo):
        raise ValueError("conv2d: the prepared weights are for algorithm %r, got algo=%r" % (prepared.algo, algo))


def _padding(padding, r, s, dil, stride):
    """(top, bottom, left, right). An int or (ph, pw) pads both sides as
    PyTorch does; 4 ints are (left, right, top, bottom), the order of
    torch.nn.functional.pad; "valid" is 0; "same" keeps the size (stride 1),
    the odd extra on the bottom/right as PyTorch puts it."""
    if isinstance(padding, str):
        if padding == "valid":
            return 0, 0, 0, 0
        if padding == "same":
            if stride != (1, 1):
                raise ValueError("conv2d: padding='same' is not supported for strided convolutions")
            th, tw = dil[0] * (r - 1), dil[1] * (s - 1)
            return th // 2, th - th // 2, tw // 2, tw - tw // 2
        raise ValueError("conv2d: Invalid padding string %r, should be one of {'valid', 'same'}" % padding)
    if isinstance(padding, int):
        return padding, padding, padding, padding
    p = tuple(int(x) for x in padding)
    if len(p) == 1:
        return p * 4
    if len(p) == 2:
        return p[0], p[0], p[1], p[1]
    if len(p) == 4:
        return p[2], p[3], p[0], p[1]
    raise ValueError("conv2d: padding must be an int, 2 ints (h, w), 4 ints (left, right, top, bottom), "
                     "'valid' or 'same'; got %r" % (padding,))


def _x_layout(shape, strides, layout, what, op="conv2d"):
    """(N, C, H, W) and the C API layout (0 NCHW, 1 NHWC) of an input shape."""
    if layout not in ("NCHW", "NHWC"):
        raise ValueError("%s: layout must be 'NCHW' or 'NHWC', got %r" % (op, layout))
    if len(shape) != 4:
        raise ValueError("%s: Expected 4-D input %s (%s), but got %d-D input of size %s"
                         % (op, what, layout, len(shape), list(shape)))
    if strides is not None and not _tight(shape, strides):
        raise ValueError("%s: the %s must be contiguous in its layout (%s), got element strides %s "
                         "(clforge never copies a device array behind your back)" % (op, what, layout, strides))
    if layout == "NHWC":
        n, h, w, c = shape
        return (n, c, h, w), 1
    return tuple(shape), 0


def _tight(shape, strides):
    acc = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n > 1 and s != acc:
            return False
        acc *= n
    return True


def _w_layout(shape, strides):
    """0 KCRS or 1 KRSC memory for a (K, C/g, R, S) filter, or None."""
    if _tight(shape, strides):
        return 0
    k, c, r, s = shape
    if _tight((k, r, s, c), (strides[0], strides[2], strides[3], strides[1])):
        return 1
    return None


def _build_desc(X, W, xshape, xl, groups, stride, padding, dilation, algo, act):
    n, c, h, w = xshape
    if len(W.shape) != 4:
        raise ValueError("conv2d: weight must be 4-D (K, C/groups, R, S), got %d-D %s" % (len(W.shape), W.shape))
    k, cg, r, s = W.shape
    groups = int(groups)
    if groups < 1 or c % groups or k % groups:
        raise ValueError("conv2d: groups=%d must divide both in_channels (%d) and out_channels (%d)" % (groups, c, k))
    if cg * groups != c:
        raise ValueError("conv2d: Given groups=%d, weight of size %s, expected input%s to have %d channels, but got "
                         "%d channels instead" % (groups, list(W.shape), list(xshape), cg * groups, c))
    wl = _w_layout(W.shape, W.strides)
    if wl is None:
        raise ValueError("conv2d: the weight must be contiguous as (K, C/g, R, S) or as channels-last (K, R, S, C/g)")
    d = ConvDesc()
    d.n, d.c, d.h, d.w, d.k, d.r, d.s = n, c, h, w, k, r, s
    d.groups = groups
    d.stride_h, d.stride_w = _pair(stride, "stride")
    d.dilation_h, d.dilation_w = _pair(dilation, "dilation")
    d.pad_top, d.pad_bottom, d.pad_left, d.pad_right = _padding(
        padding, r, s, (d.dilation_h, d.dilation_w), (d.stride_h, d.stride_w))
    d.x_layout = d.y_layout = xl
    d.w_layout = wl
    d.x_type, d.w_type = X.code if X is not None else 1, W.code
    d.x_offset, d.w_offset = (X.offset if X is not None else 0), W.offset
    d.alpha, d.alpha_mode, d.activation = 1.0, 1, act
    if algo not in ALGOS:
        raise ValueError("conv2d: algo must be one of %s, got %r" % (", ".join(ALGOS), algo))
    d.algo = ALGOS.index(algo)
    return d


def _out_size(d):
    p, q = c_size_t(), c_size_t()
    st = lib.clforge_conv2d_output_size(byref(d), byref(p), byref(q))
    if st != 0:
        raise ValueError("conv2d: %s" % text(lib.clforge_last_error(None)))
    return p.value, q.value


class Conv2dWeights(OwnedHandle):
    """A filter prepared once for the algorithm a layer runs (Winograd tiles,
    FFT spectra, GEMM layouts): ``Conv2dWeights(w, x_shape, ...)`` takes
    conv2d's arguments with the input's shape (and dtype) instead of the input;
    pass it to conv2d as ``w``. Tied to that shape, dtype, layout and context."""

    _destroy = "clforge_conv2d_weights_release"

    def __init__(self, w, input_shape, stride=1, padding=0, dilation=1, groups=1, *, layout="NCHW",
                 dtype=np.float32, algo="auto", ctx=None):
        self._handle = c_void_p()
        with Call("Conv2dWeights", (w,), ctx) as call:
            W = call.operand(w, "weight")
            xshape, xl = _x_layout(tuple(int(v) for v in input_shape), None, layout, "input shape")
            d = _build_desc(None, W, xshape, xl, groups, stride, padding, dilation, algo, 0)
            d.x_type = d.y_type = dtype_code(as_dtype(dtype), "Conv2dWeights: dtype")
            self.p, self.q = _out_size(d)
            nw, wl = call.wait_list()
            check(lib.clforge_conv2d_weights_create(call.handle, byref(d), W.buf, nw, wl, byref(self._handle)),
                  call.handle)
            algo_code = c_int()
            check(lib.clforge_conv2d_weights_algo(self._handle, byref(algo_code)), call.handle)
            if not call.device:
                call.ctx.finish()  # the upload of w is freed on leaving
        self.ctx = call.ctx
        self.algo = ALGOS[algo_code.value]
        self.desc = d
        self.dtype = as_dtype(dtype)
        self.weight_shape = tuple(W.shape)
        self.input_shape = tuple(int(v) for v in input_shape)
        self.layout = layout
        self.requested_algo = algo

    def _lock(self):
        ctx = getattr(self, "ctx", None)  # None while __init__ has not finished
        return ctx.lock if ctx is not None else None

    def release(self):
        """Free the prepared filter now (also done when collected)."""
        self.close()

    def __repr__(self):
        return "<clforge.Conv2dWeights %s for input %s, %s>" % (self.weight_shape, self.input_shape, self.algo)


def conv2d(input, weight, bias=None, stride=None, padding=None, dilation=None, groups=None, *, layout=None,
           activation=None, residual=None, algo="auto", out=None, ctx=None):
    """torch.nn.functional.conv2d (cross-correlation) with clforge's fused
    epilogue: ``act(conv(input, weight) + bias + residual)``.

    ``input`` is (N, C, H, W) for layout "NCHW" or (N, H, W, C) for "NHWC",
    contiguous in that layout; the result has the same layout. ``weight``
    is PyTorch's (K, C/groups, R, S), contiguous or channels-last (memory
    K, R, S, C/g), or a Conv2dWeights (whose layout is then the default;
    stride, padding, dilation and groups, each if given, must be the
    prepared ones). Defaults as PyTorch's: stride 1, padding 0, dilation 1,
    groups 1; ``layout`` "NCHW". padding: an int, (ph, pw), 4 ints
    (left, right, top, bottom: torch.nn.functional.pad's order) or
    'valid'/'same'. ``residual`` (the output's shape and dtype) is added
    before the activation (ResNet's relu(conv + identity)); with out given
    and residual the same array, nothing is copied. ``algo`` forces an
    algorithm ("direct", "winograd_4x4", ...; "auto" chooses)."""
    act = activation_code(activation, "conv2d")
    prepared = weight if isinstance(weight, Conv2dWeights) else None
    if prepared is not None:
        ctx = prepared.ctx if ctx is None else ctx
        layout = prepared.layout if layout is None else layout
        _check_prepared(prepared, stride, padding, dilation, groups, algo)
    elif layout is None:
        layout = "NCHW"
    arrays = (input, bias, residual, out) if prepared else (input, weight, bias, residual, out)
    with Call("conv2d", arrays, ctx) as call:
        X = call.operand(input, "input")
        xshape, xl = _x_layout(X.shape, X.strides, layout, "input")
        if prepared is not None:
            if prepared.ctx is not call.ctx:
                raise ValueError("conv2d: the prepared weights belong to another context")
            if tuple(X.shape) != prepared.input_shape or layout != prepared.layout:
                raise ValueError("conv2d: the prepared weights are for input %s (%s), got %s (%s)"
                                 % (prepared.input_shape, prepared.layout, X.shape, layout))
            d = ConvDesc.from_buffer_copy(prepared.desc)
            if X.code != d.x_type:
                raise TypeError("conv2d: the prepared weights are for %s inputs, got %s" % (prepared.dtype, X.dtype))
            d.x_offset, d.activation = X.offset, act
            W = None
        else:
            W = call.operand(weight, "weight")
            d = _build_desc(X, W, xshape, xl, 1 if groups is None else groups, 1 if stride is None else stride,
                            0 if padding is None else padding, 1 if dilation is None else dilation, algo, act)
        p, q = _out_size(d)
        n, k = d.n, d.k
        oshape = (n, p, q, k) if layout == "NHWC" else (n, k, p, q)
        dtype = X.dtype if out is None else np.dtype(out.dtype)
        C = call.output(oshape, dtype, out)
        if not _tight(C.shape, C.strides):
            raise ValueError("conv2d: out must be contiguous in the %s layout" % layout)
        d.y_type, d.y_offset = C.code, C.offset
        bias_buf = None
        if bias is not None:
            Bi = call.operand(bias, "bias")
            if Bi.shape != (k,):
                raise ValueError("conv2d: bias must have %d values (out_channels), got shape %s" % (k, Bi.shape))
            if k > 1 and Bi.strides[0] != 1:
                raise ValueError("conv2d: bias must be contiguous (element stride %d)" % Bi.strides[0])
            d.bias_type, d.bias_offset, bias_buf = Bi.code, Bi.offset, Bi.buf
        if residual is not None:
            R = call.operand(residual, "residual")
            if R.shape != oshape or R.dtype != C.dtype or not _tight(R.shape, R.strides):
                raise ValueError("conv2d: residual must be a contiguous %s array of the output's shape %s, got %s %s"
                                 % (C.dtype, oshape, R.dtype, R.shape))
            d.beta = 1.0
            if not (R.device and C.device and R.buf == C.buf and R.offset == C.offset):
                # Checked first, so that a refused call leaves out untouched.
                check(lib.clforge_conv2d_explain(call.handle, byref(d), byref(ConvChoice())), call.handle)
                call.prefill(C, R)
        event = c_void_p()
        if n == 0 or k == 0:
            return call.finish(event, C)
        nw, wl = call.wait_list()
        check(lib.clforge_conv2d_ex(call.handle, byref(d), X.buf, W.buf if W else None,
                                    prepared._handle if prepared else None, bias_buf, C.buf, None, 0,
                                    nw, wl, byref(event)), call.handle)
        return call.finish(event, C)
