"""embedding: torch.nn.functional.embedding's forward over clforge_embedding
(float tables, or ggml's q8_0 rows with ``weight_dtype="q8_0"``)."""
from ctypes import byref, c_void_p

import numpy as np

from ._arrays import Call, as_dtype, is_device
from ._capi import EmbeddingDesc, lib
from .conv2d import _tight
from .errors import check

Q8_0 = 7  # clforge_dtype's CLFORGE_Q8_0


def embedding(input, weight, padding_idx=None, max_norm=None, *, weight_dtype=None, dtype=None, out=None, ctx=None):
    """Rows of weight (vocab, dim) for the ids in input (any shape): the
    result is input.shape + (dim,). padding_idx only matters to the
    gradient (accepted, unused); max_norm is not supported. An id outside
    [0, vocab) raises before anything runs. ``weight_dtype="q8_0"``: weight
    is uint8 (vocab, dim / 32 * 34), ``clforge.quantize_q8_0``'s rows; the
    result is ``dtype`` (default float32; float tables: the table's)."""
    op = "embedding"
    if max_norm is not None:
        raise NotImplementedError("embedding: max_norm is not supported")
    if out is not None and dtype is not None and np.dtype(as_dtype(dtype)) != np.dtype(out.dtype):
        raise ValueError("embedding: dtype %s and out's %s differ" % (dtype, out.dtype))
    if weight_dtype not in (None, "q8_0"):
        raise ValueError("embedding: weight_dtype must be None or 'q8_0', got %r" % (weight_dtype,))
    if not is_device(input):
        ids = np.asarray(input)
        if ids.dtype.kind not in "iu":
            raise ValueError("embedding: the ids must be integers, got %s" % ids.dtype)
        if ids.dtype != np.int32:
            if ids.size and (ids.min() < np.iinfo(np.int32).min or ids.max() > np.iinfo(np.int32).max):
                raise ValueError("embedding: an id does not fit int32")
            ids = ids.astype(np.int32)
        input = ids
    elif np.dtype(input.dtype) != np.int32:
        raise ValueError("embedding: device ids must be int32, got %s" % input.dtype)
    q8 = weight_dtype == "q8_0"
    with Call(op, (input, weight, out), ctx) as call:
        I = call.operand(input, "input", ints=True)
        W = call.operand(weight, "weight", ints=q8)
        if len(W.shape) != 2 or not _tight(W.shape, W.strides):
            raise ValueError("embedding: weight must be a contiguous (vocab, dim) table, got shape %s" % (W.shape,))
        if q8 and (W.dtype != np.uint8 or W.shape[1] % 34):
            raise ValueError("embedding: a q8_0 weight is uint8 (vocab, dim / 32 * 34), got %s %s" % (W.dtype, W.shape))
        vocab, dim = W.shape[0], (W.shape[1] // 34 * 32 if q8 else W.shape[1])
        if padding_idx is not None and not -vocab <= int(padding_idx) < vocab:
            raise ValueError("embedding: padding_idx must be within the vocabulary [-%d, %d), got %r"
                             % (vocab, vocab, padding_idx))
        if int(np.prod(I.shape)) and not _tight(I.shape, I.strides):
            raise ValueError("embedding: the ids must be contiguous")
        d = EmbeddingDesc()
        d.tokens, d.vocab, d.dim = int(np.prod(I.shape)), vocab, dim
        d.table_type, d.table_offset, d.ids_offset = (Q8_0 if q8 else W.code), W.offset, I.offset
        rdt = as_dtype(dtype) if dtype is not None else (np.dtype(np.float32) if q8 else W.dtype)
        Y = call.output(tuple(I.shape) + (dim,), rdt if out is None else out.dtype, out)
        if d.tokens and not _tight(Y.shape, Y.strides):
            raise ValueError("embedding: out must be contiguous")
        d.y_type, d.y_offset = Y.code, Y.offset
        event = c_void_p()
        nw, wl = call.wait_list()
        check(lib.clforge_embedding(call.handle, byref(d), W.buf, I.buf, Y.buf, nw, wl, byref(event)), call.handle)
        return call.finish(event, Y)
