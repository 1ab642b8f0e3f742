"""cross_entropy over clforge_cross_entropy: PyTorch's F.cross_entropy for
(N, C) logits and class-index targets, with the gradient in the same call."""
from ctypes import byref, c_void_p

import numpy as np

from ._arrays import Call, is_device
from ._capi import CrossEntropyDesc, lib
from .errors import check

_REDUCTIONS = {"mean": 0, "sum": 1, "none": 2}


def _targets(call, target, n, op):
    """int32 class indices: numpy (uploaded) or a contiguous pyopencl int32 array."""
    if is_device(target):
        if target.dtype != np.int32 or target.shape != (n,) or (n > 1 and target.strides[0] != 4):
            raise ValueError("%s: a device target must be a contiguous int32 array of %d class indices" % (op, n))
        call.add_waits(target)
        return target.base_data.int_ptr, target.offset // 4
    t = np.asarray(target)
    if t.shape != (n,) or t.dtype.kind not in "iu":
        raise ValueError("%s: target must be %d integer class indices (shape (%d,)), got shape %s dtype %s"
                         % (op, n, n, t.shape, t.dtype))
    if t.size and (t.max() > 2**31 - 1 or t.min() < -2**31):
        raise ValueError("%s: target values must fit int32" % op)
    return call._upload(np.ascontiguousarray(t, dtype=np.int32)), 0


def cross_entropy(input, target, *, ignore_index=-100, reduction="mean", label_smoothing=0.0, return_grad=False,
                  grad_scale=1.0, grad_out=None, ctx=None):
    """F.cross_entropy(input, target, ignore_index=, reduction=,
    label_smoothing=) for (N, C) logits (f32/f16/bf16) and N class indices;
    the loss is f32 (a 0-d array, or N values for reduction='none'). Targets
    equal to ``ignore_index`` or negative do not count. With
    ``return_grad=True`` also returns d loss / d input (times ``grad_scale``,
    a loss scaler's scale), in input's dtype or ``grad_out``'s: (loss, grad)."""
    op = "cross_entropy"
    with Call(op, (input, target, grad_out), ctx) as call:
        if reduction not in _REDUCTIONS:
            raise ValueError("%s: %r is not a valid value for reduction" % (op, reduction))
        if len(input.shape) != 2:
            raise ValueError("%s: input must be (N, C) logits; got shape %s (move the class axis last and "
                             "flatten the rest)" % (op, tuple(input.shape)))
        if not 0.0 <= float(label_smoothing) <= 1.0:
            raise ValueError("%s: label_smoothing must be between 0.0 and 1.0. Got: %s" % (op, label_smoothing))
        X = call.operand(input, "input")
        rows, n = X.shape
        if n > 1 and X.strides[1] != 1:
            raise ValueError("%s: the class axis must be contiguous" % op)
        d = CrossEntropyDesc()
        d.rows, d.n = rows, n
        d.logits_type, d.logits_offset, d.logits_stride = X.code, X.offset, X.strides[0] or n
        d.reduction = _REDUCTIONS[reduction]
        d.label_smoothing = float(label_smoothing)
        if not -2**31 <= int(ignore_index) < 2**31:
            raise ValueError("%s: ignore_index %d does not fit int32" % (op, ignore_index))
        if grad_out is not None and not return_grad:
            raise ValueError("%s: grad_out is given but return_grad is False" % op)
        d.use_ignore_index, d.ignore_index = 1, int(ignore_index)
        d.grad_scale = float(grad_scale)
        if d.grad_scale == 0.0:
            raise ValueError("%s: grad_scale 0 would zero the gradient; clforge reads 0 as 1" % op)
        tbuf, d.targets_offset = _targets(call, target, rows, op)
        L = call.output((rows,) if reduction == "none" else (), np.float32, None, "loss")
        d.loss_offset = L.offset
        G = None
        if return_grad:
            G = call.output((rows, n), X.dtype if grad_out is None else grad_out.dtype, grad_out, "grad_out")
            if n > 1 and G.strides[1] not in (0, 1):
                raise ValueError("%s: grad_out's class axis must be contiguous" % op)
            d.dlogits_type, d.dlogits_offset, d.dlogits_stride = G.code, G.offset, G.strides[0] or n
        event = c_void_p()
        nw, wl = call.wait_list()
        check(lib.clforge_cross_entropy(call.handle, byref(d), X.buf if rows else None, tbuf if rows else None, L.buf,
                                        G.buf if G is not None else None, None, nw, wl, byref(event)), call.handle)
        if G is not None and call.device and event.value:
            import pyopencl as pcl
            call.attach(G.array, pcl.Event.from_int_ptr(event.value, retain=True))  # the loss's event ends both
        loss = call.finish(event, L)
        return (loss, G.array) if return_grad else loss
