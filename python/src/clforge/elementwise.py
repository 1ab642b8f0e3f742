"""Elementwise ops over clforge_elementwise, with torch's names and NumPy's
broadcasting: add, sub, mul, div, maximum, minimum (each with an optional
fused ``activation=``, clforge's), and the activations relu, gelu, silu
(``inplace=`` as torch.nn.functional's: the result goes into the input)."""
from ctypes import byref, c_void_p

import numpy as np

from ._arrays import Call
from ._capi import ElementwiseDesc, lib
from .conv2d import _tight
from .errors import check
from .matmul import WITH_SILU, result_dtype

NONE, ADD, SUB, MUL, DIV, MAX, MIN = range(7)
MAX_DIMS = 8
_ACTS = WITH_SILU


def _act(act, op):
    try:
        return _ACTS[act.lower() if isinstance(act, str) else act]
    except (KeyError, AttributeError):
        raise ValueError("%s: activation must be None, 'relu', 'gelu', 'gelu_tanh' or 'silu'; got %r"
                         % (op, act)) from None


def _run(name, op, act, input, other, out, ctx):
    scalar = other is not None and np.isscalar(other)
    if scalar:  # f32 (the kernel's arithmetic), the result in the input's dtype: torch's rule
        other = np.array(other, dtype=np.float32)
    with Call(name, (input, other, out), ctx) as call:
        A = call.operand(input, "input")
        B = call.operand(other, "other") if op != NONE else None
        for T, what in ((A, "input"), (B, "other")):
            if T is not None and int(np.prod(T.shape)) and not _tight(T.shape, T.strides):
                raise ValueError("%s: the %s must be contiguous (clforge never copies a device array behind your "
                                 "back)" % (name, what))
        ashape, bshape = tuple(A.shape), tuple(B.shape) if B is not None else ()
        try:
            yshape = np.broadcast_shapes(ashape, bshape) if B is not None else ashape
        except ValueError:
            raise ValueError("%s: the shapes %s and %s do not broadcast" % (name, ashape, bshape)) from None
        nd = max(len(yshape), 1)
        if nd > MAX_DIMS:
            raise ValueError("%s: %d dimensions, clforge takes at most %d" % (name, nd, MAX_DIMS))
        d = ElementwiseDesc()
        d.op, d.activation, d.ndims = op, act, nd
        for i, v in enumerate((1,) * (nd - len(ashape)) + ashape):
            d.a_shape[i] = v
        d.a_type, d.a_offset = A.code, A.offset
        if B is not None:
            for i, v in enumerate((1,) * (nd - len(bshape)) + bshape):
                d.b_shape[i] = v
            d.b_type, d.b_offset = B.code, B.offset
        dt = result_dtype(A.dtype, B.dtype if B is not None and not scalar else None) if out is None else out.dtype
        Y = call.output(yshape, dt, out)
        if int(np.prod(yshape)) and not _tight(Y.shape, Y.strides):
            raise ValueError("%s: out must be contiguous" % name)
        d.y_type, d.y_offset = Y.code, Y.offset
        event = c_void_p()
        nw, wl = call.wait_list()
        check(lib.clforge_elementwise(call.handle, byref(d), A.buf, B.buf if B is not None else None, Y.buf, nw, wl,
                                      byref(event)), call.handle)
        return call.finish(event, Y)


def _binary(name, op, input, other, alpha, activation, out, ctx):
    if alpha != 1:
        raise NotImplementedError("%s: alpha other than 1 is not supported" % name)
    return _run(name, op, _act(activation, name), input, other, out, ctx)


def add(input, other, *, alpha=1, activation=None, out=None, ctx=None):
    """torch.add (alpha 1): input + other, broadcast; activation= fuses
    relu / gelu / gelu_tanh / silu on the sum (a residual's ReLU)."""
    return _binary("add", ADD, input, other, alpha, activation, out, ctx)


def sub(input, other, *, alpha=1, activation=None, out=None, ctx=None):
    """torch.sub (alpha 1): input - other, broadcast."""
    return _binary("sub", SUB, input, other, alpha, activation, out, ctx)


def mul(input, other, *, activation=None, out=None, ctx=None):
    """torch.mul: input * other, broadcast."""
    return _binary("mul", MUL, input, other, 1, activation, out, ctx)


def div(input, other, *, rounding_mode=None, activation=None, out=None, ctx=None):
    """torch.div (true division, IEEE's inf and NaN)."""
    if rounding_mode is not None:
        raise NotImplementedError("div: rounding_mode is not supported")
    return _binary("div", DIV, input, other, 1, activation, out, ctx)


def maximum(input, other, *, out=None, ctx=None):
    """torch.maximum: a NaN on either side wins."""
    return _binary("maximum", MAX, input, other, 1, None, out, ctx)


def minimum(input, other, *, out=None, ctx=None):
    """torch.minimum: a NaN on either side wins."""
    return _binary("minimum", MIN, input, other, 1, None, out, ctx)


def _unary(name, code, input, inplace, out, ctx):
    if inplace:
        if out is not None:
            raise ValueError("%s: inplace and out together" % name)
        out = input
    return _run(name, NONE, code, input, None, out, ctx)


def relu(input, inplace=False, *, out=None, ctx=None):
    """torch.nn.functional.relu (a NaN stays NaN)."""
    return _unary("relu", 1, input, inplace, out, ctx)


def gelu(input, approximate="none", *, out=None, ctx=None):
    """torch.nn.functional.gelu: the erf form, or approximate='tanh'."""
    if approximate not in ("none", "tanh"):
        raise ValueError("gelu: approximate must be 'none' or 'tanh', got %r" % (approximate,))
    return _unary("gelu", 2 if approximate == "tanh" else 3, input, False, out, ctx)


def silu(input, inplace=False, *, out=None, ctx=None):
    """torch.nn.functional.silu: x * sigmoid(x)."""
    return _unary("silu", 4, input, inplace, out, ctx)
