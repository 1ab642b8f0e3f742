"""gated_linear: the gate and up projections of a Llama-style MLP (SwiGLU,
GeGLU) as one GEMM over a fused weight (clforge_gemm's gated epilogue,
CLFORGE_GEMM_GATE_INTERLEAVED), and fuse_gate_up, which builds that weight
from the two a checkpoint stores (gate_proj, up_proj)."""
from ctypes import byref, c_void_p

import numpy as np

from ._arrays import Call
from ._capi import GemmDesc, lib
from .conv2d import _tight
from .errors import check
from .matmul import activation_code, result_dtype

GATE_INTERLEAVED = 1


def fuse_gate_up(gate_weight, up_weight):
    """The fused weight gated_linear reads, from two (n, k) weights as
    torch.nn.Linear stores them: rows interleaved, row 2j of the result is
    gate row j and row 2j + 1 up row j. Works on host arrays of any dtype
    (biases too: two (n,) vectors give the fused (2n,) bias)."""
    g, u = np.asarray(gate_weight), np.asarray(up_weight)
    if g.shape != u.shape or g.dtype != u.dtype or g.ndim not in (1, 2):
        raise ValueError("fuse_gate_up: gate and up must be (n, k) weights or (n,) biases of one shape and dtype; "
                         "got %s %s and %s %s" % (g.shape, g.dtype, u.shape, u.dtype))
    return np.stack([g, u], axis=1).reshape((2 * g.shape[0],) + g.shape[1:])


def gated_linear(input, weight, bias=None, *, activation="silu", out=None, ctx=None):
    """``act(input @ W_gate.T + b_gate) * (input @ W_up.T + b_up)`` in one GEMM,
    with ``weight`` the (2n, k) fused weight of fuse_gate_up (``bias`` its
    (2n,) fused bias). activation: 'silu' (SwiGLU, Llama's), 'gelu' /
    'gelu_tanh' (GeGLU), 'relu' (ReGLU) or None (the bilinear gate). input
    (..., k) contiguous; result (..., n), the inputs' dtype (float32 for a
    mix) or out's. f32, f16 and bf16 storage, f32 accumulation."""
    op = "gated_linear"
    act = activation_code(activation, op)
    with Call(op, (input, weight, bias, out), ctx) as call:
        X = call.operand(input, "input")
        W = call.operand(weight, "weight")
        if len(X.shape) < 1 or len(W.shape) != 2:
            raise ValueError("gated_linear: input must be (..., k) and weight (2n, k); got %s and %s"
                             % (tuple(X.shape), tuple(W.shape)))
        k, (n2, kw) = X.shape[-1], W.shape
        if kw != k or n2 % 2:
            raise ValueError("gated_linear: weight must be (2n, k) with k = input's last axis (%d): the fused "
                             "gate and up rows of fuse_gate_up; got %s" % (k, tuple(W.shape)))
        if int(np.prod(X.shape)) and not _tight(X.shape, X.strides):
            raise ValueError("gated_linear: input must be contiguous")
        if W.strides[1] != 1 and n2 * k:
            raise ValueError("gated_linear: weight's rows must be contiguous")
        m, n = int(np.prod(X.shape[:-1])), n2 // 2
        dtype = result_dtype(X.dtype, W.dtype) if out is None else np.dtype(out.dtype)
        Y = call.output(tuple(X.shape[:-1]) + (n,), dtype, out)
        if m * n and not _tight(Y.shape, Y.strides):
            raise ValueError("gated_linear: out must be contiguous")
        d = GemmDesc()
        d.m, d.n, d.k = m, n, k
        d.trans_b, d.gate, d.activation = 1, GATE_INTERLEAVED, act
        d.a_type, d.b_type, d.c_type = X.code, W.code, Y.code
        d.lda, d.ldb, d.ldc = k or 1, max(W.strides[0], k, 1), n or 1
        d.a_offset, d.b_offset, d.c_offset = X.offset, W.offset, Y.offset
        bias_buf = None
        if bias is not None:
            Bi = call.operand(bias, "bias")
            if tuple(Bi.shape) != (n2,) or (n2 > 1 and Bi.strides[0] != 1):
                raise ValueError("gated_linear: bias must be the contiguous (%d,) fused bias of fuse_gate_up; got %s"
                                 % (n2, tuple(Bi.shape)))
            d.bias_mode, d.bias_type, d.bias_offset, bias_buf = 2, Bi.code, Bi.offset, Bi.buf
        event = c_void_p()
        if m == 0 or n == 0:
            return call.finish(event, Y)
        nw, wl = call.wait_list()
        check(lib.clforge_gemm(call.handle, byref(d), X.buf, W.buf, Y.buf, bias_buf, nw, wl, byref(event)),
              call.handle)
        return call.finish(event, Y)
