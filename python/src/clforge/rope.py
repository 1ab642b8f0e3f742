"""rotary_embedding: rotary position embedding of Q or K over clforge_rope
(vLLM's name; Hugging Face's Llama applies the same rotation through
apply_rotary_pos_emb with cos/sin tables). x is (..., heads, head_dim), its
leading axes the tokens, each with its own position."""
from ctypes import byref, c_void_p

import numpy as np

from ._arrays import Call
from ._capi import RopeDesc, lib
from .conv2d import _tight
from .errors import check

STYLES = {"neox": 0, "gptj": 1}


def rotary_embedding(x, positions, *, theta=10000.0, rotary_dim=None, style="neox", inplace=False, out=None,
                     ctx=None):
    """Turns pair i of the first rotary_dim elements of every head by
    position * theta ** (-2i / rotary_dim): style "neox" pairs element i
    with i + rotary_dim / 2 (Hugging Face's rotate_half), "gptj" pairs 2i
    with 2i + 1 (llama.cpp's). positions: int32, one per token (x's shape
    without its last two axes). The angle is f32, as PyTorch's."""
    op = "rotary_embedding"
    if style not in STYLES:
        raise ValueError("%s: style must be 'neox' or 'gptj', got %r" % (op, style))
    if inplace:
        if out is not None:
            raise ValueError("%s: inplace and out together" % op)
        out = x
    pdt = getattr(positions, "dtype", None)
    if pdt is None or np.dtype(pdt) != np.int32:
        raise ValueError("%s: positions must be an int32 array (one per token), got %r"
                         % (op, pdt if pdt is not None else type(positions)))
    with Call(op, (x, positions, out), ctx) as call:
        X = call.operand(x, "x")
        if len(X.shape) < 2 or not _tight(X.shape, X.strides):
            raise ValueError("%s: x must be (..., heads, head_dim) and contiguous, got shape %s" % (op, X.shape))
        P = call.operand(positions, "positions", ints=True)
        lead = tuple(X.shape[:-2])
        if tuple(P.shape) != lead:
            raise ValueError("%s: positions must have shape %s (x's tokens), got %s" % (op, lead, tuple(P.shape)))
        if int(np.prod(lead)) and not _tight(P.shape, P.strides):
            raise ValueError("%s: positions must be contiguous (clforge never copies a device array behind your "
                             "back)" % op)
        if not np.float32(theta) >= 1:
            raise ValueError("%s: theta must be >= 1, got %r" % (op, theta))
        d = RopeDesc()
        d.style, d.tokens, d.heads, d.head_dim = STYLES[style], int(np.prod(lead)), X.shape[-2], X.shape[-1]
        d.rotary_dim, d.theta = int(rotary_dim or 0), float(theta)
        d.x_type, d.x_offset, d.positions_offset = X.code, X.offset, P.offset
        Y = call.output(tuple(X.shape), X.dtype if out is None else out.dtype, out)
        if not _tight(Y.shape, Y.strides):
            raise ValueError("%s: out must be contiguous" % op)
        d.y_type, d.y_offset = Y.code, Y.offset
        event = c_void_p()
        nw, wl = call.wait_list()
        check(lib.clforge_rope(call.handle, byref(d), X.buf, P.buf, Y.buf, nw, wl, byref(event)), call.handle)
        return call.finish(event, Y)
