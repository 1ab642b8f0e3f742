"""layer_norm and rms_norm (torch.nn.functional's signatures) over
clforge_norm, and their backward over clforge_norm_backward."""
from ctypes import byref, c_void_p

import numpy as np

from ._arrays import Call
from ._capi import NormDesc, lib
from .errors import check
from .softmax import collapse_rows

LAYER, RMS = 0, 1


def _rows(op, x, X, normalized_shape):
    """(rows, n, row stride) of x normalized over its trailing normalized_shape."""
    ns = (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) else tuple(
        int(v) for v in normalized_shape)
    if not ns or tuple(X.shape[len(X.shape) - len(ns):]) != ns:
        raise ValueError("%s: normalized_shape %s must be the input's trailing shape, got input %s"
                         % (op, ns, tuple(X.shape)))
    n = int(np.prod(ns))
    tail = X.strides[len(X.shape) - len(ns):]
    acc = 1
    for dim, st in zip(reversed(ns), reversed(tail)):
        if dim > 1 and st != acc:
            raise ValueError("%s: the normalized axes must be contiguous" % op)
        acc *= dim
    lead = X.shape[:len(X.shape) - len(ns)]
    rs = collapse_rows(lead + (n,), X.strides[:len(lead)] + (1,)) if lead else (1, n)
    if rs is None:
        raise ValueError("%s: the leading axes must merge into one strided axis" % op)
    rows, stride = rs
    return rows, n, stride or n


def _params(call, d, weight, bias, n, op):
    W = B = None
    if weight is not None:
        W = call.operand(weight, "weight")
        if int(np.prod(W.shape)) != n:
            raise ValueError("%s: weight must have %d elements, got shape %s" % (op, n, W.shape))
        d.param_type, d.weight_offset = W.code, W.offset
    if bias is not None:
        B = call.operand(bias, "bias")
        if int(np.prod(B.shape)) != n or (W is not None and B.code != W.code):
            raise ValueError("%s: bias must have %d elements of weight's dtype" % (op, n))
        d.param_type, d.bias_offset = B.code, B.offset
    return W, B


def _norm(kind, op, input, normalized_shape, weight, bias, eps, out, ctx):
    with Call(op, (input, weight, bias, out), ctx) as call:
        X = call.operand(input, "input")
        rows, n, stride = _rows(op, input, X, normalized_shape)
        d = NormDesc()
        d.kind, d.rows, d.n, d.eps = kind, rows, n, float(eps)
        if d.eps == 0.0:
            raise ValueError("%s: eps 0 would read as clforge's default 1e-5; give a small positive eps" % op)
        d.x_type, d.x_offset, d.x_stride = X.code, X.offset, stride
        W, B = _params(call, d, weight, bias, n, op)
        Y = call.output(tuple(X.shape), X.dtype if out is None else out.dtype, out)
        d.y_type, d.y_offset, d.y_stride = Y.code, Y.offset, n
        event = c_void_p()
        nw, wl = call.wait_list()
        check(lib.clforge_norm(call.handle, byref(d), X.buf, W.buf if W else None, B.buf if B else None, Y.buf, None,
                               nw, wl, byref(event)), call.handle)
        return call.finish(event, Y)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, *, out=None, ctx=None):
    """torch.nn.functional.layer_norm: (x - mean) / sqrt(var + eps) * weight
    + bias over the trailing normalized_shape (biased variance, f32 math)."""
    return _norm(LAYER, "layer_norm", input, normalized_shape, weight, bias, eps, out, ctx)


def rms_norm(input, normalized_shape, weight=None, eps=1e-5, *, out=None, ctx=None):
    """torch.nn.functional.rms_norm: x / sqrt(mean(x^2) + eps) * weight
    (eps None in PyTorch means the dtype's epsilon; clforge takes a value)."""
    return _norm(RMS, "rms_norm", input, normalized_shape, weight, None, eps, out, ctx)


def norm_backward(grad_output, input, normalized_shape, weight=None, eps=1e-5, *, rms=False, bias_grad=False,
                  ctx=None):
    """The backward of layer_norm (or rms_norm with rms=True): returns
    (grad_input, grad_weight, grad_bias), grad_weight None without a weight,
    grad_bias only with bias_grad=True; the statistics are recomputed from
    input; sums in a fixed order."""
    op = "rms_norm_backward" if rms else "layer_norm_backward"
    with Call(op, (grad_output, input, weight), ctx) as call:
        X = call.operand(input, "input")
        rows, n, stride = _rows(op, input, X, normalized_shape)
        G = call.operand(grad_output, "grad_output")
        if tuple(G.shape) != tuple(X.shape):
            raise ValueError("%s: grad_output's shape %s is not the input's %s" % (op, tuple(G.shape), tuple(X.shape)))
        _, _, gstride = _rows(op, grad_output, G, normalized_shape)
        d = NormDesc()
        d.kind, d.rows, d.n, d.eps = (RMS if rms else LAYER), rows, n, float(eps)
        d.x_type, d.x_offset, d.x_stride = X.code, X.offset, stride
        d.dy_type, d.dy_offset, d.dy_stride = G.code, G.offset, gstride
        W, _ = _params(call, d, weight, None, n, op)
        DX = call.output(tuple(X.shape), X.dtype, None, "grad_input")
        d.dx_type, d.dx_offset, d.dx_stride = DX.code, DX.offset, n
        pdt = W.dtype if W is not None else X.dtype
        DW = call.output((n,), pdt, None, "grad_weight") if W is not None else None
        DB = call.output((n,), pdt, None, "grad_bias") if bias_grad else None
        if W is None and DB is not None:
            d.param_type = DB.code
        event = c_void_p()
        nw, wl = call.wait_list()
        check(lib.clforge_norm_backward(call.handle, byref(d), X.buf, W.buf if W else None, None, G.buf, DX.buf,
                                        DW.buf if DW else None, DB.buf if DB else None, nw, wl, byref(event)),
              call.handle)
        if call.device and event.value:
            import pyopencl as pcl
            for extra in (DW, DB):
                if extra is not None:
                    call.attach(extra.array, pcl.Event.from_int_ptr(event.value, retain=True))
        dx = call.finish(event, DX)
        shape = tuple(np.shape(weight)) if weight is not None else (n,)
        dw = DW.array.reshape(shape) if DW is not None else None
        db = DB.array.reshape(shape) if DB is not None else None
        return dx, dw, db
