"""clforge: vendor-neutral GPU math on OpenCL, from Python.

A thin layer over the C library's ABI (ctypes): numpy arrays are copied to
the device and back; pyopencl arrays stay where they are, on their queue.
"""
from ._capi import library_path
from ._capi import lib as _lib
from ._arrays import bfloat16
from .context import Context, Device, default_context, devices, paths, pyopencl_queue, set_default_context
from .errors import (CommError, Error, InternalError, InvalidArgumentError, OpenCLError, OutOfMemoryError,
                     UnsupportedError, ValidationError)
from .matmul import matmul

__version__ = _lib.clforge_version().decode()

__all__ = ["CommError", "Context", "Device", "Error", "InternalError", "InvalidArgumentError", "OpenCLError",
           "OutOfMemoryError", "UnsupportedError", "ValidationError", "bfloat16", "default_context", "devices",
           "library_path", "matmul", "paths", "pyopencl_queue", "set_default_context"]
from .conv2d import Conv2dWeights, conv2d  # noqa: E402
__all__ += ["Conv2dWeights", "conv2d"]
from .conv2d_grad import conv2d_input, conv2d_weight  # noqa: E402
__all__ += ["conv2d_input", "conv2d_weight"]
from .norm import layer_norm, norm_backward, rms_norm  # noqa: E402
__all__ += ["layer_norm", "rms_norm", "norm_backward"]
from .pool import adaptive_avg_pool2d, adaptive_max_pool2d, avg_pool2d, max_pool2d  # noqa: E402
__all__ += ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d"]
from .elementwise import add, div, gelu, maximum, minimum, mul, relu, silu, sub  # noqa: E402
__all__ += ["add", "sub", "mul", "div", "maximum", "minimum", "relu", "gelu", "silu"]
from .rope import rotary_embedding  # noqa: E402
__all__ += ["rotary_embedding"]
from .embedding import embedding  # noqa: E402
__all__ += ["embedding"]
from .linear import fuse_gate_up, gated_linear, linear  # noqa: E402
__all__ += ["linear", "gated_linear", "fuse_gate_up"]
from .batchnorm import fuse_conv_bn_weights  # noqa: E402
__all__ += ["fuse_conv_bn_weights"]
from .softmax import log_softmax, log_softmax_backward, softmax, softmax_backward  # noqa: E402
from .attention import scaled_dot_product_attention  # noqa: E402
from .kv_cache import flash_attn_with_kvcache, reshape_and_cache  # noqa: E402
from .convert import convert  # noqa: E402
from .loss import cross_entropy  # noqa: E402
from . import optim  # noqa: E402  (clforge.optim.AdamW, clforge.optim.SGD)
__all__ += ["log_softmax", "log_softmax_backward", "softmax", "softmax_backward", "scaled_dot_product_attention",
            "flash_attn_with_kvcache", "reshape_and_cache", "convert", "cross_entropy", "optim"]
from .explain import explain  # noqa: E402
from .tuning import tune  # noqa: E402
__all__ += ["explain", "tune"]
from .quantize import (QuantizedConv2dWeights, dequantize, dequantize_q8_0, int_mm,  # noqa: E402
                       quantize_per_channel, quantize_per_tensor, quantize_per_tensor_dynamic, quantize_q8_0,
                       quantized_conv2d)
__all__ += ["int_mm", "quantized_conv2d", "QuantizedConv2dWeights", "quantize_per_tensor", "quantize_per_tensor_dynamic", "quantize_per_channel",
            "dequantize", "quantize_q8_0", "dequantize_q8_0"]
