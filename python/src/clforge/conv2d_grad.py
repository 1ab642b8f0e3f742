"""The convolution's gradients with torch.nn.grad's signatures:
conv2d_input (clforge_conv2d_backward_data) and conv2d_weight
(clforge_conv2d_backward_filter, optionally with the bias gradient)."""
from ctypes import byref, c_void_p

import numpy as np

from ._arrays import Call
from ._capi import lib
from .conv2d import _build_desc, _out_size, _tight, _x_layout
from .errors import check

BACKWARD_DATA, BACKWARD_FILTER = 1, 2


def _grad_output(call, grad_output, d, layout, op):
    """The checked grad_output operand: (N, K, P, Q), or (N, P, Q, K) for NHWC."""
    G = call.operand(grad_output, "grad_output")
    p, q = _out_size(d)
    want = (d.n, p, q, d.k) if layout == "NHWC" else (d.n, d.k, p, q)
    if tuple(G.shape) != want:
        raise ValueError("%s: grad_output must have shape %s (%s), got %s" % (op, want, layout, tuple(G.shape)))
    if not _tight(G.shape, G.strides):
        raise ValueError("%s: grad_output must be contiguous in the %s layout" % (op, layout))
    d.y_type, d.y_offset = G.code, G.offset
    return G


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1, *, layout="NCHW",
                 algo="auto", out=None, ctx=None):
    """torch.nn.grad.conv2d_input: the gradient of conv2d with respect to
    its input, of logical shape ``input_size`` (N, C, H, W), from ``weight``
    (K, C/groups, R, S) and ``grad_output``; in ``layout`` like the forward
    (NHWC: the result is (N, H, W, C)). The same is a transposed
    convolution's forward. ``algo``: "auto", "direct" (the gather), "im2col"
    (GEMM + col2im with a stride above 1), or a forward algorithm run on
    grad_output (stride 1)."""
    op = "conv2d_input"
    with Call(op, (weight, grad_output, out), ctx) as call:
        W = call.operand(weight, "weight")
        n, c, h, w = (int(v) for v in input_size)
        xshape, xl = _x_layout((n, h, w, c) if layout == "NHWC" else (n, c, h, w), None, layout, "input_size")
        d = _build_desc(None, W, xshape, xl, groups, stride, padding, dilation, algo, 0)
        d.kind = BACKWARD_DATA
        G = _grad_output(call, grad_output, d, layout, op)
        oshape = (n, h, w, c) if layout == "NHWC" else (n, c, h, w)
        R = call.output(oshape, G.dtype if out is None else out.dtype, out)
        if not _tight(R.shape, R.strides):
            raise ValueError("%s: out must be contiguous in the %s layout" % (op, layout))
        d.x_type, d.x_offset = R.code, R.offset
        event = c_void_p()
        nw, wl = call.wait_list()
        check(lib.clforge_conv2d_backward_data(call.handle, byref(d), G.buf, W.buf, R.buf, nw, wl, byref(event)),
              call.handle)
        return call.finish(event, R)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1, *, layout="NCHW",
                  algo="auto", bias_grad=False, out=None, ctx=None):
    """torch.nn.grad.conv2d_weight: the gradient of conv2d with respect to
    its weight, of shape ``weight_size`` (K, C/groups, R, S), from ``input``
    and ``grad_output`` (in ``layout``). ``bias_grad=True`` also returns the
    bias's gradient (the sum of grad_output over N, P, Q) from the same call:
    (grad_weight, grad_bias). Sums in a fixed order: the same bits every run.
    ``algo``: "auto", "direct", "im2col" or "gemm_1x1"."""
    op = "conv2d_weight"
    with Call(op, (input, grad_output, out), ctx) as call:
        X = call.operand(input, "input")
        xshape, xl = _x_layout(X.shape, X.strides, layout, "input")
        G0 = np.asarray(grad_output) if not hasattr(grad_output, "base_data") else grad_output
        dtype = G0.dtype if out is None else np.dtype(out.dtype)
        Wt = call.output(tuple(int(v) for v in weight_size), dtype, out)
        if len(Wt.shape) != 4 or not _tight(Wt.shape, Wt.strides):
            raise ValueError("%s: weight_size must be 4 sizes (K, C/groups, R, S) and out contiguous" % op)
        d = _build_desc(X, Wt, xshape, xl, groups, stride, padding, dilation, algo, 0)
        d.kind = BACKWARD_FILTER
        G = _grad_output(call, grad_output, d, layout, op)
        B = None
        if bias_grad:
            B = call.output((d.k,), dtype, None, "grad_bias")
            d.bias_type, d.bias_offset = B.code, B.offset
        event = c_void_p()
        nw, wl = call.wait_list()
        check(lib.clforge_conv2d_backward_filter(call.handle, byref(d), X.buf, G.buf, Wt.buf,
                                                 B.buf if B is not None else None, nw, wl, byref(event)), call.handle)
        if B is not None and call.device and event.value:
            import pyopencl as pcl
            call.attach(B.array, pcl.Event.from_int_ptr(event.value, retain=True))  # one event ends both
        dw = call.finish(event, Wt)
        return (dw, B.array) if bias_grad else dw
