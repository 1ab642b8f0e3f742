"""Linear layers over clforge_gemm with the weight as torch.nn.Linear (or
llama.cpp) stores it, (n, k): linear (F.linear, its epilogue fused) and
gated_linear, the gate and up projections of a Llama-style MLP (SwiGLU,
GeGLU) as one GEMM over a fused weight (CLFORGE_GEMM_GATE_INTERLEAVED),
which fuse_gate_up builds from the two a checkpoint stores. Weights in
f32, f16, bf16, or ggml's q8_0 rows (``weight_dtype="q8_0"``:
quantize_q8_0's uint8 (n, k / 32 * 34), dequantized inside the GEMM)."""
from ctypes import byref, c_void_p

import numpy as np

from ._arrays import Call
from ._capi import GemmDesc, lib
from .conv2d import _tight
from .errors import check
from .matmul import WITH_SILU, activation_code, result_dtype

GATE_INTERLEAVED = 1
Q8_0 = 7


def fuse_gate_up(gate_weight, up_weight):
    """The fused weight gated_linear reads, from two (n, k) weights as
    torch.nn.Linear stores them: rows interleaved, row 2j of the result is
    gate row j and row 2j + 1 up row j. Works on host arrays of any dtype
    (q8_0 rows too; biases too: two (n,) vectors give the fused (2n,) bias)."""
    g, u = np.asarray(gate_weight), np.asarray(up_weight)
    if g.shape != u.shape or g.dtype != u.dtype or g.ndim not in (1, 2):
        raise ValueError("fuse_gate_up: gate and up must be (n, k) weights or (n,) biases of one shape and dtype; "
                         "got %s %s and %s %s" % (g.shape, g.dtype, u.shape, u.dtype))
    return np.stack([g, u], axis=1).reshape((2 * g.shape[0],) + g.shape[1:])


def _linear(op, input, weight, bias, act, gate, weight_dtype, out, ctx):
    if weight_dtype not in (None, "q8_0"):
        raise ValueError("%s: weight_dtype must be None or 'q8_0', got %r" % (op, weight_dtype))
    q8 = weight_dtype == "q8_0"
    with Call(op, (input, weight, bias, out), ctx) as call:
        X = call.operand(input, "input")
        W = call.operand(weight, "weight", ints=q8)
        if len(X.shape) < 1 or len(W.shape) != 2:
            raise ValueError("%s: input must be (..., k) and weight 2-D; got %s and %s"
                             % (op, tuple(X.shape), tuple(W.shape)))
        if q8 and (W.dtype != np.uint8 or W.shape[1] % 34):
            raise ValueError("%s: a q8_0 weight is uint8 (n, k / 32 * 34) (quantize_q8_0's rows), got %s %s"
                             % (op, W.dtype, tuple(W.shape)))
        k, rows = X.shape[-1], W.shape[0]
        kw = W.shape[1] // 34 * 32 if q8 else W.shape[1]
        if kw != k or (gate and rows % 2):
            raise ValueError("%s: weight must be (%s, k) with k = input's last axis (%d)%s; got %s"
                             % (op, "2n" if gate else "n", k, ": fuse_gate_up's rows" if gate else "",
                                tuple(W.shape)))
        if int(np.prod(X.shape)) and not _tight(X.shape, X.strides):
            raise ValueError("%s: input must be contiguous" % op)
        if W.shape[1] > 1 and W.strides[1] != 1 and rows:
            raise ValueError("%s: weight's rows must be contiguous" % op)
        m, n = int(np.prod(X.shape[:-1])), rows // 2 if gate else rows
        wdt = np.dtype(np.float32) if q8 else W.dtype
        dtype = result_dtype(X.dtype, wdt) if out is None else np.dtype(out.dtype)
        Y = call.output(tuple(X.shape[:-1]) + (n,), dtype, out)
        if m * n and not _tight(Y.shape, Y.strides):
            raise ValueError("%s: out must be contiguous" % op)
        d = GemmDesc()
        d.m, d.n, d.k = m, n, k
        d.trans_b, d.gate, d.activation = 1, gate, act
        d.a_type, d.b_type, d.c_type = X.code, Q8_0 if q8 else W.code, Y.code
        d.lda, d.ldb, d.ldc = k or 1, max(W.strides[0], W.shape[1], 1), n or 1
        d.a_offset, d.b_offset, d.c_offset = X.offset, W.offset, Y.offset
        bias_buf = None
        if bias is not None:
            Bi = call.operand(bias, "bias")
            if tuple(Bi.shape) != (rows,) or (rows > 1 and Bi.strides[0] != 1):
                raise ValueError("%s: bias must be contiguous, of shape (%d,)%s; got %s"
                                 % (op, rows, " (fuse_gate_up's fused bias)" if gate else "", tuple(Bi.shape)))
            d.bias_mode, d.bias_type, d.bias_offset, bias_buf = 2, Bi.code, Bi.offset, Bi.buf
        event = c_void_p()
        if m == 0 or n == 0:
            return call.finish(event, Y)
        nw, wl = call.wait_list()
        check(lib.clforge_gemm(call.handle, byref(d), X.buf, W.buf, Y.buf, bias_buf, nw, wl, byref(event)),
              call.handle)
        return call.finish(event, Y)


def linear(input, weight, bias=None, *, activation=None, weight_dtype=None, out=None, ctx=None):
    """torch.nn.functional.linear: ``input @ weight.T + bias`` with weight (n, k)
    and bias (n,), and clforge's ``activation=`` ('relu', 'gelu', 'gelu_tanh',
    'silu') fused. input (..., k) contiguous; result (..., n), the inputs'
    dtype (float32 for a mix or a q8_0 weight) or out's."""
    return _linear("linear", input, weight, bias, activation_code(activation, "linear", WITH_SILU), 0, weight_dtype,
                   out, ctx)


def gated_linear(input, weight, bias=None, *, activation="silu", weight_dtype=None, out=None, ctx=None):
    """``act(input @ W_gate.T + b_gate) * (input @ W_up.T + b_up)`` in one GEMM,
    with ``weight`` the (2n, k) fused weight of fuse_gate_up (``bias`` its
    (2n,) fused bias). activation: 'silu' (SwiGLU, Llama's), 'gelu' /
    'gelu_tanh' (GeGLU), 'relu' (ReGLU) or None (the bilinear gate). input
    (..., k) contiguous; result (..., n)."""
    return _linear("gated_linear", input, weight, bias, activation_code(activation, "gated_linear", WITH_SILU),
                   GATE_INTERLEAVED, weight_dtype, out, ctx)
