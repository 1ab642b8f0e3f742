"""fuse_conv_bn_weights: torch.nn.utils.fusion's folding of an inference
batch norm into the convolution before it, over clforge_batchnorm_fold."""
from ctypes import byref, c_void_p

import numpy as np

from ._arrays import Call, is_device
from ._capi import BatchnormFoldDesc, lib
from .conv2d import _tight
from .errors import check


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False, *, ctx=None):
    """(fused_w, fused_b): conv_w * s and (conv_b - bn_rm) * s + bn_b per
    output channel, s = bn_w / sqrt(bn_rv + bn_eps). conv_w (K, C/groups, R, S)
    contiguous (its output channel outermost); conv_b None is zeros; bn_w /
    bn_b None are ones / zeros (torch's). The running statistics and the
    affine parameters are read as float32."""
    op = "fuse_conv_bn_weights"
    if transpose:
        raise NotImplementedError("%s: transpose (ConvTranspose's weights) is not supported" % op)
    k = int(np.shape(conv_w)[0])

    def f32(a, one, name):
        if a is None:
            return np.full(k, one, np.float32)
        if is_device(a):
            if np.dtype(a.dtype) != np.float32:
                raise TypeError("%s: %s on the device must be float32, got %s" % (op, name, a.dtype))
            return a
        return np.ascontiguousarray(a, dtype=np.float32)

    rm, rv, g, be = f32(bn_rm, 0.0, "bn_rm"), f32(bn_rv, 1.0, "bn_rv"), f32(bn_w, 1.0, "bn_w"), f32(bn_b, 0.0, "bn_b")
    if any(tuple(a.shape) != (k,) for a in (rm, rv, g, be)):
        raise ValueError("%s: the batch norm's vectors must have %d (the output channels) elements each" % (op, k))
    if not float(bn_eps) > 0:
        raise ValueError("%s: bn_eps must be > 0 (0 reads as clforge's default 1e-5), got %r" % (op, bn_eps))
    with Call(op, (conv_w, conv_b), ctx) as call:
        Wt = call.operand(conv_w, "conv_w")
        if len(Wt.shape) < 2 or not _tight(Wt.shape, Wt.strides):
            raise ValueError("%s: conv_w must be a contiguous (K, C/groups, R, S) filter, got %s" % (op, Wt.shape))
        B = call.operand(conv_b, "conv_b") if conv_b is not None else None
        if B is not None and tuple(B.shape) != (k,):
            raise ValueError("%s: conv_b must have %d elements" % (op, k))
        P = [call.operand(a, name) for a, name in ((g, "bn_w"), (be, "bn_b"), (rm, "bn_rm"), (rv, "bn_rv"))]
        d = BatchnormFoldDesc()
        d.k, d.per_k, d.eps = k, int(np.prod(Wt.shape[1:])), float(bn_eps)
        d.w_type, d.w_offset = Wt.code, Wt.offset
        if B is not None:
            d.bias_type, d.bias_offset = B.code, B.offset
        WO = call.output(tuple(Wt.shape), Wt.dtype, None, "fused_w")
        bdt = B.dtype if B is not None else Wt.dtype
        BO = call.output((k,), bdt, None, "fused_b")
        d.w_out_type, d.bias_out_type = WO.code, BO.code
        event = c_void_p()
        nw, wl = call.wait_list()
        check(lib.clforge_batchnorm_fold(call.handle, byref(d), Wt.buf, B.buf if B is not None else None, P[0].buf,
                                         P[1].buf, P[2].buf, P[3].buf, WO.buf, BO.buf, nw, wl, byref(event)),
              call.handle)
        fw = call.finish(event, WO, also=(BO,))
        return fw, BO.array
