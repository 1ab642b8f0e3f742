"""explain: which kernels, parameters and algorithm a call would use, and why."""
from ctypes import byref, c_int

from ._arrays import as_dtype, dtype_code
from ._capi import AttentionChoice, AttentionDesc, ConvChoice, GemmDesc, KernelChoice, SoftmaxDesc, lib, text
from .attention import ALIGN
from .context import default_context
from .conv2d import ALGOS as CONV_ALGOS, _build_desc
from .errors import check

_SOURCES = {}


def _kernel(kc):
    src = text(lib.clforge_params_source_name(kc.source))
    d = {"family": text(kc.family), "provider": text(kc.provider), "shape_class": text(kc.shape_class),
         "dtypes": text(kc.dtypes), "layout": text(kc.layout), "source": src, "route": text(kc.route),
         "params": {text(kc.names[i].value): kc.values[i] for i in range(kc.nparams)},
         "compute_type": text(lib.clforge_compute_type_name(kc.compute_type)) or "32f"}
    if src in ("tuned", "nearest"):
        d["tuned_shape"] = list(kc.tuned_shape[:kc.tuned_ndims])
        d["tuned_gflops"] = kc.tuned_gflops
    return d


def _code(dtype, what):
    return dtype_code(as_dtype(dtype), "explain: " + what)


class _Shape:
    """Stands for an array in the descriptor builders: shape, strides, dtype."""

    def __init__(self, shape, code, strides=None):
        self.shape, self.code, self.offset = tuple(shape), code, 0
        acc, st = 1, []
        for n in reversed(self.shape):
            st.append(acc)
            acc *= n
        self.strides = tuple(reversed(st)) if strides is None else strides


def explain(op, ctx=None, **shape):
    """What a call would run, as a dict (nothing is built or run).

    explain("matmul", m=, n=, k=, dtype="f32", trans_a=False, trans_b=False, batch=1)
    explain("conv2d", n=, c=, h=, w=, k=, r=, s=, stride=1, padding=0, dilation=1, groups=1,
            layout="NCHW", dtype="f32", algo="auto")
    explain("softmax", rows=, n=, dtype="f32", log=False)
    explain("scaled_dot_product_attention", batch=1, heads_q=, heads_kv=None, seq_q=, seq_kv=, head_dim=,
            head_dim_v=None, dtype="f32", kv_dtype=None, is_causal=False, causal_alignment="top_left", window=None)
    """
    ctx = ctx or default_context()
    h = ctx.handle
    sh = dict(shape)
    dtype = sh.pop("dtype", "f32")
    if op in ("matmul", "gemm"):
        d = GemmDesc()
        d.m, d.n, d.k = sh.pop("m"), sh.pop("n"), sh.pop("k")
        d.a_type = d.b_type = d.c_type = _code(dtype, "dtype")
        d.trans_a, d.trans_b = int(bool(sh.pop("trans_a", False))), int(bool(sh.pop("trans_b", False)))
        d.batch = sh.pop("batch", 1)
        _no_more(op, sh)
        kcs = (KernelChoice * 8)()
        count = c_int()
        check(lib.clforge_gemm_explain(h, byref(d), kcs, 8, byref(count)), h)
        return {"op": "matmul", "kernels": [_kernel(kcs[i]) for i in range(min(count.value, 8))]}
    if op in ("conv2d", "conv"):
        layout = sh.pop("layout", "NCHW")
        n, c, hh, w = sh.pop("n", 1), sh.pop("c"), sh.pop("h"), sh.pop("w", None)
        w = hh if w is None else w
        k, r = sh.pop("k"), sh.pop("r")
        s = sh.pop("s", r)
        groups = sh.pop("groups", 1)
        code = _code(dtype, "dtype")
        W = _Shape((k, c // max(groups, 1), r, s), code)
        xshape = (n, c, hh, w)
        d = _build_desc(_Shape(xshape, code), W, xshape, 1 if layout == "NHWC" else 0, groups,
                        sh.pop("stride", 1), sh.pop("padding", 0), sh.pop("dilation", 1), sh.pop("algo", "auto"), 0)
        if layout == "NHWC":
            d.w_layout = 1
        d.y_type = code
        _no_more(op, sh)
        ch = ConvChoice()
        check(lib.clforge_conv2d_explain(h, byref(d), byref(ch)), h)
        return {"op": "conv2d", "algo": CONV_ALGOS[ch.algo], "source": text(lib.clforge_conv_algo_source_name(ch.source)),
                "why": text(ch.why), "workspace_bytes": ch.workspace_bytes, "output": [ch.p, ch.q],
                "kernels": [_kernel(ch.kernels[i]) for i in range(ch.nkernels)]}
    if op in ("softmax", "log_softmax"):
        d = SoftmaxDesc()
        d.kind = 1 if (op == "log_softmax" or sh.pop("log", False)) else 0
        d.rows, d.n = sh.pop("rows"), sh.pop("n")
        d.x_type = d.y_type = _code(dtype, "dtype")
        _no_more(op, sh)
        kc = KernelChoice()
        check(lib.clforge_softmax_explain(h, byref(d), byref(kc)), h)
        return {"op": op, "kernels": [_kernel(kc)]}
    if op in ("scaled_dot_product_attention", "attention", "sdpa"):
        d = AttentionDesc()
        d.batch = sh.pop("batch", 1)
        d.heads_q = sh.pop("heads_q")
        d.heads_kv = sh.pop("heads_kv", None) or d.heads_q
        d.seq_q, d.seq_kv, d.head_dim = sh.pop("seq_q"), sh.pop("seq_kv"), sh.pop("head_dim")
        d.head_dim_v = sh.pop("head_dim_v", None) or d.head_dim
        d.q_type = d.o_type = _code(dtype, "dtype")
        d.kv_type = _code(sh.pop("kv_dtype", None) or dtype, "kv_dtype")
        align = sh.pop("causal_alignment", "top_left")
        d.causal = ALIGN[align] if sh.pop("is_causal", False) else 0
        d.window = sh.pop("window", None) or 0
        _no_more(op, sh)
        ch = AttentionChoice()
        check(lib.clforge_attention_explain(h, byref(d), byref(ch)), h)
        return {"op": "scaled_dot_product_attention", "algo": text(lib.clforge_attention_algo_name(ch.algo)),
                "why": text(ch.why), "splits": ch.splits, "workspace_bytes": ch.workspace_bytes,
                "kernels": [_kernel(ch.kernels[i]) for i in range(ch.nkernels)]}
    raise ValueError("explain: op must be 'matmul', 'conv2d', 'softmax', 'log_softmax' or "
                     "'scaled_dot_product_attention', got %r" % (op,))


def _no_more(op, sh):
    if sh:
        raise TypeError("explain(%r): unexpected argument(s) %s" % (op, ", ".join(sorted(sh))))
