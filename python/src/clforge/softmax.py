"""softmax and log_softmax over clforge_softmax (rows along any axis)."""
from ctypes import byref, c_void_p

import numpy as np

from ._arrays import Call, as_dtype, is_device
from ._capi import SoftmaxDesc, lib
from .errors import check


def collapse_rows(shape, strides):
    """(rows, row stride) when every axis but the last merges into one
    uniformly strided axis (or none); None otherwise. A row stride of 0 is a
    row broadcast over all rows."""
    lead = [(n, s) for n, s in zip(shape[:-1], strides[:-1]) if n != 1]
    if not lead:
        return 1, 0
    rows, stride = lead[-1]
    for n, s in reversed(lead[:-1]):
        if s != stride * rows:
            return None
        rows *= n
    return rows, stride


def _mask_rows(xshape, mshape, mstrides):
    """(rows, row stride) of a mask broadcast over the input's rows, or None."""
    nd = len(xshape)
    mshape = (1,) * (nd - len(mshape)) + tuple(mshape)
    mstr = (0,) * (nd - len(mstrides)) + tuple(mstrides)
    # size-1 axes broadcast: stride 0 along the input's axes
    return collapse_rows(xshape, tuple(0 if a == 1 else st for a, st in zip(mshape, mstr)))


def additive_mask(mask, dtype, op):
    """A boolean numpy mask (True takes part, as in PyTorch's attention) as
    an additive 0 / -inf mask; device masks must be additive already."""
    if is_device(mask):
        if mask.dtype == np.bool_:
            raise TypeError("%s: a boolean device mask would need a conversion on the device; pass an additive "
                            "float mask (0 and -inf)" % op)
        return mask
    mask = np.asarray(mask)
    if mask.dtype == np.bool_:
        return np.where(mask, np.float32(0), np.float32(-np.inf)).astype(np.float32)
    return mask


def _softmax(kind, x, dim, mask, scale, out, ctx, op):
    with Call(op, (x, mask, out), ctx) as call:
        nd = len(x.shape)
        if nd == 0:
            raise ValueError("%s: a 0-d input has no axis to normalize" % op)
        if not -nd <= dim < nd:
            raise IndexError("%s: Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                             % (op, -nd, nd - 1, dim))
        dim %= nd
        if dim != nd - 1:
            if call.device:
                raise ValueError("%s: on a device array, dim must be the last axis (or move it there with a "
                                 "copy of your own); got dim=%d of %d" % (op, dim, nd))
            # numpy: normalize along the last axis of a moved copy, move back
            xm = np.moveaxis(np.asarray(x), dim, -1)
            mm = None if mask is None else np.moveaxis(np.broadcast_to(additive_mask(mask, x.dtype, op), x.shape),
                                                       dim, -1)
            if out is not None:
                call.check_host_out(out, x.shape)
            y = _softmax(kind, np.ascontiguousarray(xm), -1, mm, scale, None, call.ctx, op)
            y = np.moveaxis(y, -1, dim)
            if out is not None:
                out[...] = y
                return out
            return np.ascontiguousarray(y)
        X = call.operand(x, "input")
        if X.strides[-1] not in (0, 1) and X.shape[-1] > 1:
            raise ValueError("%s: the last axis must be contiguous (stride %d)" % (op, X.strides[-1]))
        rx = collapse_rows(X.shape, X.strides)
        if rx is None:
            raise ValueError("%s: the input's leading axes do not merge into evenly spaced rows (strides %s)"
                             % (op, X.strides))
        Y = call.output(X.shape, X.dtype if out is None else out.dtype, out)
        ry = collapse_rows(Y.shape, Y.strides)
        if ry is None or (Y.strides[-1] not in (0, 1) and Y.shape[-1] > 1):
            raise ValueError("%s: out's rows are not evenly spaced" % op)
        n = X.shape[-1]
        d = SoftmaxDesc()
        d.kind, d.rows, d.n = kind, rx[0], n
        d.x_type, d.y_type = X.code, Y.code
        d.x_offset, d.y_offset = X.offset, Y.offset
        d.x_stride, d.y_stride = rx[1] or n, ry[1] or n
        d.scale = float(scale)
        if d.scale == 0.0:
            raise ValueError("%s: scale 0 would give every element the same weight; clforge reads 0 as 1" % op)
        mbuf = None
        if mask is not None:
            mask = additive_mask(mask, X.dtype, op)
            try:
                fits = np.broadcast_shapes(tuple(mask.shape), X.shape) == X.shape
            except ValueError:
                fits = False
            if not fits:
                raise ValueError("%s: the mask of shape %s does not broadcast to the input's %s"
                                 % (op, tuple(mask.shape), X.shape))
            if is_device(mask):
                M = call.operand(mask, "mask")
                if M.shape[-1:] != (n,) or (n > 1 and M.strides[-1] != 1):
                    raise ValueError("%s: a device mask needs the input's last axis (%d), contiguous; got shape %s, "
                                     "element strides %s" % (op, n, M.shape, M.strides))
                rm = _mask_rows(X.shape, M.shape, M.strides)
                if rm is None:
                    raise ValueError("%s: the mask's broadcast over the input does not give evenly spaced rows; "
                                     "give it the input's shape or one row" % op)
            else:
                # The mask as given is uploaded when its rows are evenly spaced
                # over the input's; otherwise (e.g. one value per row) its
                # broadcast to the input's shape.
                base = np.ascontiguousarray(mask)
                tight = tuple(s // base.itemsize for s in base.strides)
                rm = _mask_rows(X.shape, base.shape, tight) if base.shape[-1:] == (n,) else None
                if rm is None:
                    base = np.ascontiguousarray(np.broadcast_to(base, X.shape))
                    rm = (d.rows, n)
                M = call.operand(base, "mask")
            d.mask_type, d.mask_offset, d.mask_stride, mbuf = M.code, M.offset, rm[1], M.buf
        event = c_void_p()
        if d.rows == 0 or n == 0:
            return call.finish(event, Y)
        nw, wl = call.wait_list()
        check(lib.clforge_softmax(call.handle, byref(d), X.buf, mbuf, Y.buf, nw, wl, byref(event)), call.handle)
        return call.finish(event, Y)


def softmax(input, dim=-1, *, mask=None, scale=1.0, out=None, ctx=None):
    """softmax(scale * input + mask) along ``dim`` (torch.softmax's dim; -1
    by default), f32 arithmetic, any of f32/f16/bf16 in and out. ``mask``
    broadcasts to the input (additive, or boolean: True takes part)."""
    return _softmax(0, input, int(dim), mask, scale, out, ctx, "softmax")


def log_softmax(input, dim=-1, *, mask=None, scale=1.0, out=None, ctx=None):
    """log(softmax(scale * input + mask)) along ``dim``, computed directly."""
    return _softmax(1, input, int(dim), mask, scale, out, ctx, "log_softmax")


def _softmax_backward(kind, grad_output, output, dim, scale, out, ctx, op):
    with Call(op, (grad_output, output, out), ctx) as call:
        if tuple(grad_output.shape) != tuple(output.shape):
            raise ValueError("%s: grad_output's shape %s differs from output's %s"
                             % (op, tuple(grad_output.shape), tuple(output.shape)))
        nd = len(output.shape)
        if nd == 0:
            raise ValueError("%s: a 0-d output has no axis" % op)
        if not -nd <= dim < nd:
            raise IndexError("%s: Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                             % (op, -nd, nd - 1, dim))
        dim %= nd
        if dim != nd - 1:
            if call.device:
                raise ValueError("%s: on device arrays, dim must be the last axis; got dim=%d of %d" % (op, dim, nd))
            if out is not None:
                call.check_host_out(out, output.shape)
            g = np.ascontiguousarray(np.moveaxis(np.asarray(grad_output), dim, -1))
            y = np.ascontiguousarray(np.moveaxis(np.asarray(output), dim, -1))
            dx = np.moveaxis(_softmax_backward(kind, g, y, -1, scale, None, call.ctx, op), -1, dim)
            if out is not None:
                out[...] = dx
                return out
            return np.ascontiguousarray(dx)
        Yo = call.operand(output, "output")
        G = call.operand(grad_output, "grad_output")
        rows = []
        for a, what in ((Yo, "output"), (G, "grad_output")):
            if a.strides[-1] not in (0, 1) and a.shape[-1] > 1:
                raise ValueError("%s: %s's last axis must be contiguous (stride %d)" % (op, what, a.strides[-1]))
            r = collapse_rows(a.shape, a.strides)
            if r is None:
                raise ValueError("%s: %s's leading axes do not merge into evenly spaced rows (strides %s)"
                                 % (op, what, a.strides))
            rows.append(r)
        X = call.output(Yo.shape, G.dtype if out is None else out.dtype, out)
        rx = collapse_rows(X.shape, X.strides)
        if rx is None or (X.strides[-1] not in (0, 1) and X.shape[-1] > 1):
            raise ValueError("%s: out's rows are not evenly spaced" % op)
        n = Yo.shape[-1]
        d = SoftmaxDesc()
        d.kind, d.rows, d.n = kind, rows[0][0], n
        d.y_type, d.dy_type, d.x_type = Yo.code, G.code, X.code
        d.y_offset, d.dy_offset, d.x_offset = Yo.offset, G.offset, X.offset
        d.y_stride, d.dy_stride, d.x_stride = rows[0][1] or n, rows[1][1] or n, rx[1] or n
        d.scale = float(scale)
        if d.scale == 0.0:
            raise ValueError("%s: scale 0 would zero the gradient; clforge reads 0 as 1" % op)
        event = c_void_p()
        if d.rows == 0 or n == 0:
            return call.finish(event, X)
        nw, wl = call.wait_list()
        check(lib.clforge_softmax_backward(call.handle, byref(d), Yo.buf, G.buf, X.buf, nw, wl, byref(event)),
              call.handle)
        return call.finish(event, X)


def softmax_backward(grad_output, output, dim=-1, *, scale=1.0, out=None, ctx=None):
    """The gradient of softmax(scale * x) with respect to x, from its output
    and the output's gradient (torch's _softmax_backward_data(grad_output,
    output, dim, ...) times scale): scale * output * (grad_output -
    sum(output * grad_output)) along ``dim``. The result has grad_output's
    dtype unless ``out`` says otherwise."""
    return _softmax_backward(0, grad_output, output, int(dim), scale, out, ctx, "softmax_backward")


def log_softmax_backward(grad_output, output, dim=-1, *, scale=1.0, out=None, ctx=None):
    """The gradient of log_softmax(scale * x): scale * (grad_output -
    exp(output) * sum(grad_output)) along ``dim`` (torch's
    _log_softmax_backward_data)."""
    return _softmax_backward(1, grad_output, output, int(dim), scale, out, ctx, "log_softmax_backward")


del as_dtype
