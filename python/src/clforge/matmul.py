"""matmul: numpy's / PyTorch's matmul over clforge_gemm (strided-batched)."""
import itertools
from ctypes import byref, c_void_p

import numpy as np

from . import _opencl
from ._arrays import Call, as_dtype
from ._capi import GemmDesc, lib
from .errors import check

ACTIVATIONS = {None: 0, "none": 0, "relu": 1, "gelu": 3, "gelu_erf": 3, "gelu_tanh": 2}
# The float GEMM's epilogues (matmul, gated_linear) and elementwise also take SiLU.
WITH_SILU = dict(ACTIVATIONS, silu=4)


def activation_code(act, op, table=ACTIVATIONS):
    try:
        return table[act.lower() if isinstance(act, str) else act]
    except (KeyError, AttributeError):
        raise ValueError("%s: activation must be one of None, 'relu', 'gelu' (erf, PyTorch's default), "
                         "'gelu_tanh' (PyTorch's approximate='tanh')%s; got %r"
                         % (op, ", 'silu'" if "silu" in table else "", act)) from None


def result_dtype(*dtypes):
    """Equal dtypes give that dtype; a mix gives float32 (clforge accumulates in f32)."""
    ds = {np.dtype(d) for d in dtypes if d is not None}
    return ds.pop() if len(ds) == 1 else np.dtype(np.float32)


def _matrix(shape, strides, what):
    """(transposed, leading dimension) of a matrix's element strides (rows,
    cols); 0 strides only on unit axes (a broadcast row or column would be
    read as a tight matrix: a leading dimension of 0 means that)."""
    sr, sc = strides
    if any(s == 0 and n > 1 for s, n in zip(strides, shape)):
        raise ValueError("matmul: %s repeats its rows or columns (a stride of 0 along its last two axes), "
                         "which a GEMM cannot read; materialize it first" % what)
    if sc in (0, 1):
        return 0, sr
    if sr in (0, 1):
        return 1, sc
    raise ValueError("matmul: %s is strided along both of its last two axes (%d, %d elements); clforge "
                     "needs one of them contiguous — copy it (it stays on the device: .copy())"
                     % (what, sr, sc))


def _batch_plan(shape, ops_strides):
    """Split the broadcast batch axes into (outer loop axes, one inner batch
    axis the GEMM strides over) by merging axes whose strides chain."""
    dims = [(n, [s[i] for s in ops_strides]) for i, n in enumerate(shape)]
    merged = []
    for n, st in dims:
        if merged:
            pn, pst = merged[-1]
            # the previous (outer) axis chains into this one for every operand
            if all(p == c * n for p, c in zip(pst, st)):
                merged[-1] = (pn * n, st)
                continue
        merged.append((n, st))
    if not merged:
        return [], (1, [0] * len(ops_strides))
    return merged[:-1], merged[-1]


def matmul(a, b, *, bias=None, activation=None, alpha=1.0, beta=0.0, out=None, ctx=None):
    """``act(alpha * a @ b + beta * out + bias)`` with numpy's matmul rules:
    1-D operands are promoted and the unit axis removed again, leading axes
    broadcast (a strided-batched GEMM underneath, no copies), transposes come
    from the arrays' strides. ``bias`` has n values (one per output column)
    or shape (m, 1) (one per row). f32, f16 and bf16 storage in any mix, f32
    accumulation; the result has the inputs' dtype (float32 for a mix) or
    ``out``'s. ``beta`` != 0 reads ``out``. numpy in, numpy out; pyopencl in,
    pyopencl out (on the arrays' queue)."""
    op = "matmul"
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        raise ValueError("matmul: Input operand %d does not have enough dimensions (a scalar)"
                         % (0 if np.ndim(a) == 0 else 1))
    beta = float(beta)
    if beta != 0.0 and out is None:
        raise ValueError("matmul: beta != 0 reads out, so out must be given")
    act = activation_code(activation, op, WITH_SILU)
    with Call(op, (a, b, bias, out), ctx) as call:
        A = call.operand(a, "a")
        B = call.operand(b, "b")
        a_shape, a_str = list(A.shape), list(A.strides)
        b_shape, b_str = list(B.shape), list(B.strides)
        squeeze_m = squeeze_n = False
        if len(a_shape) == 1:
            a_shape, a_str, squeeze_m = [1] + a_shape, [0] + a_str, True
        if len(b_shape) == 1:
            b_shape, b_str, squeeze_n = b_shape + [1], b_str + [0], True
        m, k = a_shape[-2:]
        k2, n = b_shape[-2:]
        if k != k2:
            raise ValueError("matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                             "signature (n?,k),(k,m?)->(n?,m?) (size %d is different from %d)" % (k2, k))
        try:
            batch = np.broadcast_shapes(tuple(a_shape[:-2]), tuple(b_shape[:-2]))
        except ValueError:
            raise ValueError("matmul: operands could not be broadcast together with remapped shapes "
                             "[original->remapped]: %s->%s %s->%s" % (tuple(A.shape), tuple(a_shape),
                                                                      tuple(B.shape), tuple(b_shape))) from None
        out_shape = list(batch) + ([] if squeeze_m else [m]) + ([] if squeeze_n else [n])
        dtype = result_dtype(A.dtype, B.dtype) if out is None else np.dtype(out.dtype)
        if out is not None:
            as_dtype(out.dtype)
        C = call.output(out_shape, dtype, out, read=beta != 0.0)
        c_str = list(C.strides)
        if squeeze_m:
            c_str.insert(len(batch), 0)
        if squeeze_n:
            c_str.append(0)

        def bstr(shape, strides):
            pad = len(batch) - (len(shape) - 2)
            return [0] * pad + [s if n > 1 else 0 for n, s in zip(shape[:-2], strides[:-2])]

        sa, sb, sc = bstr(a_shape, a_str), bstr(b_shape, b_str), c_str[:len(batch)]
        d = GemmDesc()
        d.m, d.n, d.k = m, n, k
        d.a_type, d.b_type, d.c_type = A.code, B.code, C.code
        ta, lda = _matrix((m, k), a_str[-2:], "a")
        tb, ldb = _matrix((k, n), b_str[-2:], "b")
        tc, ldc = _matrix((m, n), c_str[-2:], "out")
        if tc:  # C column-major: compute C^T = op(B)^T op(A)^T, row-major
            d.m, d.n = n, m
            ta, tb, lda, ldb, A, B = 1 - tb, 1 - ta, ldb, lda, B, A
            sa, sb = sb, sa
        d.trans_a, d.trans_b = ta, tb
        # A leading dimension of 0 (a broadcast or unit axis) means "tight" to
        # the C API: spell out the smallest valid one instead.
        d.lda = lda or (d.k if not ta else d.m) or 1
        d.ldb = ldb or (d.n if not tb else d.k) or 1
        d.ldc = ldc or d.n or 1
        d.alpha, d.beta = float(alpha), beta
        d.alpha_mode = 1
        d.activation = act
        bias_buf = None
        if bias is not None:
            Bi = call.operand(bias, "bias")
            if Bi.shape in ((n,), (1, n)) or (len(Bi.shape) == 1 and squeeze_m and Bi.shape == (n,)):
                d.bias_mode = 2 if not tc else 1
            elif Bi.shape == (m, 1) and not squeeze_m:
                d.bias_mode = 1 if not tc else 2
            else:
                raise ValueError("matmul: bias must have shape (%d,) (one per column) or (%d, 1) (one per row), "
                                 "got %s" % (n, m, tuple(Bi.shape)))
            if any(s not in (0, 1) for s, e in zip(Bi.strides, Bi.shape) if e > 1):
                raise ValueError("matmul: bias must be contiguous")
            d.bias_type, d.bias_offset, bias_buf = Bi.code, Bi.offset, Bi.buf
        outer, (nb, (s_a, s_b, s_c)) = _batch_plan(batch, [sa, sb, sc])
        if nb > 1 and s_c == 0:
            raise ValueError("matmul: out's batch axes overlap (stride 0)")
        d.batch, d.stride_a, d.stride_b, d.stride_c = nb, s_a, s_b, s_c
        event = c_void_p()
        if m == 0 or n == 0 or any(x == 0 for x in batch):
            return call.finish(event, C)
        ranges = [range(x[0]) for x in outer]
        base = (A.offset, B.offset, C.offset)
        for idx in itertools.product(*ranges):
            offs = [base[j] + sum(i * x[1][j] for i, x in zip(idx, outer)) for j in range(3)]
            d.a_offset, d.b_offset, d.c_offset = offs
            ev_prev = event
            if ev_prev.value:  # each GEMM of the outer loop after the one before (out-of-order queues)
                call.waits = [ev_prev.value]
            nw, wl = call.wait_list()
            event = c_void_p()
            try:
                check(lib.clforge_gemm(call.handle, byref(d), A.buf, B.buf, C.buf, bias_buf, nw, wl,
                                       byref(event)), call.handle)
            finally:
                if ev_prev.value:
                    _opencl.cl.clReleaseEvent(ev_prev)
        return call.finish(event, C)
