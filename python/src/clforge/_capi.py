"""The C ABI of libclforge, declared for ctypes (no compiled layer of our own).

Struct layouts mirror include/clforge/clforge.h field by field; the test
suite compares every size and offset with the C compiler's (tests/abi_layout.c),
so a header change that is not made here too fails the build's tests.
"""
import ctypes
import ctypes.util
import glob
import os
import subprocess
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_float, c_int, c_int32, c_size_t,
                    c_uint, c_uint64, c_ulonglong, c_void_p, CFUNCTYPE)

cl_mem = c_void_p
cl_event = c_void_p
cl_queue = c_void_p
status_t = c_int32
size_t4 = c_size_t * 4
_cl_ulong = c_ulonglong

# ------------------------------------------------------------------ structs
class _GateRoom(ctypes.Union):
    """clforge_gemm_desc's gate: an enum in a pointer's room."""
    _fields_ = [("gate", c_int), ("gate_room_", c_void_p)]


class GemmDesc(Structure):
    _fields_ = [("layout", c_int), ("trans_a", c_int), ("trans_b", c_int),
                ("m", c_size_t), ("n", c_size_t), ("k", c_size_t),
                ("alpha", c_float), ("beta", c_float),
                ("a_type", c_int), ("b_type", c_int), ("c_type", c_int),
                ("lda", c_size_t), ("ldb", c_size_t), ("ldc", c_size_t),
                ("a_offset", c_size_t), ("b_offset", c_size_t), ("c_offset", c_size_t),
                ("batch", c_size_t), ("stride_a", c_size_t), ("stride_b", c_size_t), ("stride_c", c_size_t),
                ("bias_mode", c_int), ("bias_type", c_int), ("bias_offset", c_size_t),
                ("activation", c_int), ("alpha_mode", c_int), ("aux_mode", c_int), ("aux_type", c_int),
                ("aux_offset", c_size_t), ("compute_type", c_int), ("gate_u", _GateRoom)]
    _anonymous_ = ("gate_u",)


class KernelChoice(Structure):
    _fields_ = [("family", c_char * 32), ("provider", c_char * 16), ("shape_class", c_char * 32),
                ("dtypes", c_char * 32), ("layout", c_char * 16), ("source", c_int),
                ("tuned_ndims", c_int), ("tuned_shape", size_t4), ("tuned_gflops", c_double),
                ("nparams", c_int), ("names", (c_char * 16) * 16), ("values", c_int * 16),
                ("route", c_char * 48), ("compute_type", c_int), ("reserved", ctypes.c_ubyte * 12)]


class QuantDesc(Structure):
    _fields_ = [("scheme", c_int), ("scales", c_int), ("rows", c_size_t), ("cols", c_size_t),
                ("x_type", c_int), ("q_type", c_int), ("ldx", c_size_t), ("ldq", c_size_t),
                ("x_offset", c_size_t), ("q_offset", c_size_t), ("scale_offset", c_size_t),
                ("zero_point_offset", c_size_t), ("reserved", c_void_p * 4)]


class GemmQuant(Structure):
    _fields_ = [("a_scheme", c_int), ("b_scheme", c_int), ("a_scale", c_void_p), ("b_scale", c_void_p),
                ("a_scale_offset", c_size_t), ("b_scale_offset", c_size_t), ("a_zero_point", ctypes.c_int32),
                ("b_zero_point", ctypes.c_int32), ("c_scale", c_float), ("c_zero_point", ctypes.c_int32),
                ("reserved", c_void_p * 4)]


class ConvQuant(Structure):
    _fields_ = [("w_scheme", c_int), ("x_scale", c_void_p), ("w_scale", c_void_p), ("x_scale_offset", c_size_t),
                ("w_scale_offset", c_size_t), ("x_zero_point", ctypes.c_int32), ("w_zero_point", ctypes.c_int32),
                ("y_scale", c_float), ("y_zero_point", ctypes.c_int32), ("reserved", c_void_p * 4)]


class NormDesc(Structure):
    _fields_ = [("kind", c_int), ("rows", c_size_t), ("n", c_size_t), ("eps", c_float),
                ("x_type", c_int), ("y_type", c_int), ("param_type", c_int),
                ("x_offset", c_size_t), ("x_stride", c_size_t), ("y_offset", c_size_t), ("y_stride", c_size_t),
                ("weight_offset", c_size_t), ("bias_offset", c_size_t), ("stats_offset", c_size_t),
                ("dy_type", c_int), ("dx_type", c_int),
                ("dy_offset", c_size_t), ("dy_stride", c_size_t), ("dx_offset", c_size_t), ("dx_stride", c_size_t),
                ("dweight_offset", c_size_t), ("dbias_offset", c_size_t), ("reserved", c_void_p * 4)]


class ElementwiseDesc(Structure):
    _fields_ = [("op", c_int), ("activation", c_int), ("ndims", c_size_t), ("a_shape", c_size_t * 8),
                ("b_shape", c_size_t * 8), ("a_type", c_int), ("b_type", c_int), ("y_type", c_int),
                ("a_offset", c_size_t), ("b_offset", c_size_t), ("y_offset", c_size_t), ("reserved", c_void_p * 4)]


class RopeDesc(Structure):
    _fields_ = [("style", c_int), ("tokens", c_size_t), ("heads", c_size_t), ("head_dim", c_size_t),
                ("rotary_dim", c_size_t), ("theta", c_float), ("x_type", c_int), ("y_type", c_int),
                ("x_offset", c_size_t), ("x_token_stride", c_size_t), ("x_head_stride", c_size_t),
                ("y_offset", c_size_t), ("y_token_stride", c_size_t), ("y_head_stride", c_size_t),
                ("positions_offset", c_size_t), ("reserved", c_void_p * 4)]


class EmbeddingDesc(Structure):
    _fields_ = [("tokens", c_size_t), ("vocab", c_size_t), ("dim", c_size_t), ("table_type", c_int),
                ("y_type", c_int), ("table_offset", c_size_t), ("ids_offset", c_size_t), ("y_offset", c_size_t),
                ("y_stride", c_size_t), ("reserved", c_void_p * 4)]


class KvAppendDesc(Structure):
    _fields_ = [("tokens", c_size_t), ("heads_kv", c_size_t), ("head_dim", c_size_t), ("head_dim_v", c_size_t),
                ("block_size", c_size_t), ("num_blocks", c_size_t), ("src_type", c_int), ("cache_type", c_int),
                ("k_offset", c_size_t), ("k_token_stride", c_size_t), ("k_head_stride", c_size_t),
                ("v_offset", c_size_t), ("v_token_stride", c_size_t), ("v_head_stride", c_size_t),
                ("k_cache_offset", c_size_t), ("v_cache_offset", c_size_t), ("slots_offset", c_size_t),
                ("cache_layout", c_int), ("reserved", c_void_p * 4)]


class BatchnormFoldDesc(Structure):
    _fields_ = [("k", c_size_t), ("per_k", c_size_t), ("eps", c_float), ("w_type", c_int), ("w_out_type", c_int),
                ("bias_type", c_int), ("bias_out_type", c_int), ("w_offset", c_size_t), ("w_out_offset", c_size_t),
                ("bias_offset", c_size_t), ("bias_out_offset", c_size_t), ("bn_offset", c_size_t),
                ("reserved", c_void_p * 4)]


class PoolDesc(Structure):
    _fields_ = [("kind", c_int), ("layout", c_int), ("n", c_size_t), ("c", c_size_t), ("h", c_size_t),
                ("w", c_size_t), ("kernel_h", c_size_t), ("kernel_w", c_size_t), ("stride_h", c_size_t),
                ("stride_w", c_size_t), ("pad_h", c_size_t), ("pad_w", c_size_t), ("dilation_h", c_size_t),
                ("dilation_w", c_size_t), ("ceil_mode", c_int), ("exclude_pad", c_int),
                ("divisor_override", c_size_t), ("global_pool", c_int), ("x_type", c_int), ("y_type", c_int),
                ("x_offset", c_size_t), ("y_offset", c_size_t), ("reserved", c_void_p * 4)]


class _ComputeTypeRoom(ctypes.Union):
    """The descriptors' compute_type: an enum in a size_t's room (conv2d, attention)."""
    _fields_ = [("compute_type", c_int), ("compute_type_room_", c_size_t)]


class ConvDesc(Structure):
    _fields_ = [("kind", c_int), ("spatial_dims", c_uint),
                ("n", c_size_t), ("c", c_size_t), ("h", c_size_t), ("w", c_size_t),
                ("k", c_size_t), ("r", c_size_t), ("s", c_size_t), ("groups", c_size_t),
                ("stride_h", c_size_t), ("stride_w", c_size_t), ("dilation_h", c_size_t), ("dilation_w", c_size_t),
                ("pad_top", c_size_t), ("pad_bottom", c_size_t), ("pad_left", c_size_t), ("pad_right", c_size_t),
                ("x_layout", c_int), ("y_layout", c_int), ("w_layout", c_int),
                ("x_type", c_int), ("w_type", c_int), ("y_type", c_int), ("bias_type", c_int),
                ("x_offset", c_size_t), ("w_offset", c_size_t), ("y_offset", c_size_t), ("bias_offset", c_size_t),
                ("alpha", c_float), ("beta", c_float), ("alpha_mode", c_int), ("activation", c_int),
                ("algo", c_int), ("compute_type_u", _ComputeTypeRoom), ("reserved_sizes", c_size_t * 7),
                ("aux_mode", c_int), ("aux_type", c_int),
                ("aux_offset", c_size_t), ("reserved", c_void_p * 2)]
    _anonymous_ = ("compute_type_u",)


class ConvChoice(Structure):
    _fields_ = [("algo", c_int), ("source", c_int), ("why", c_char * 96), ("workspace_bytes", c_size_t),
                ("p", c_size_t), ("q", c_size_t), ("nkernels", c_int), ("kernels", KernelChoice * 4),
                ("reserved", ctypes.c_ubyte * 64)]


class SoftmaxDesc(Structure):
    _fields_ = [("kind", c_int), ("rows", c_size_t), ("n", c_size_t),
                ("x_type", c_int), ("y_type", c_int), ("mask_type", c_int),
                ("x_offset", c_size_t), ("y_offset", c_size_t), ("mask_offset", c_size_t),
                ("x_stride", c_size_t), ("y_stride", c_size_t), ("mask_stride", c_size_t),
                ("scale", c_float), ("dy_type", c_int), ("dy_offset", c_size_t), ("dy_stride", c_size_t),
                ("reserved", c_void_p * 2)]


class CrossEntropyDesc(Structure):
    _fields_ = [("rows", c_size_t), ("n", c_size_t), ("logits_type", c_int), ("dlogits_type", c_int),
                ("logits_offset", c_size_t), ("logits_stride", c_size_t),
                ("dlogits_offset", c_size_t), ("dlogits_stride", c_size_t),
                ("targets_offset", c_size_t), ("loss_offset", c_size_t), ("grad_scale_offset", c_size_t),
                ("reduction", c_int), ("label_smoothing", c_float), ("grad_scale", c_float),
                ("use_ignore_index", c_int), ("ignore_index", c_int32), ("reserved", c_void_p * 4)]


class OptimizerTensor(Structure):
    _fields_ = [("count", c_size_t), ("param", c_void_p), ("master", c_void_p), ("grad", c_void_p),
                ("m", c_void_p), ("v", c_void_p), ("param_offset", c_size_t), ("master_offset", c_size_t),
                ("grad_offset", c_size_t), ("m_offset", c_size_t), ("v_offset", c_size_t),
                ("param_type", c_int), ("grad_type", c_int), ("reserved", c_void_p * 2)]


class OptimizerDesc(Structure):
    _fields_ = [("kind", c_int), ("lr", c_float), ("momentum", c_float), ("dampening", c_float),
                ("nesterov", c_int), ("beta1", c_float), ("beta2", c_float), ("eps", c_float),
                ("weight_decay", c_float), ("loss_scaling", c_int), ("growth_factor", c_float),
                ("backoff_factor", c_float), ("growth_interval", c_int), ("state_offset", c_size_t),
                ("reserved", c_void_p * 4)]


class AttentionDesc(Structure):
    _fields_ = [("kind", c_int), ("batch", c_size_t), ("heads_q", c_size_t), ("heads_kv", c_size_t),
                ("seq_q", c_size_t), ("seq_kv", c_size_t), ("head_dim", c_size_t), ("head_dim_v", c_size_t),
                ("q_type", c_int), ("kv_type", c_int), ("o_type", c_int), ("mask_type", c_int),
                ("q_offset", c_size_t), ("k_offset", c_size_t), ("v_offset", c_size_t), ("o_offset", c_size_t),
                ("mask_offset", c_size_t), ("lse_offset", c_size_t),
                ("q_strides", size_t4), ("k_strides", size_t4), ("v_strides", size_t4), ("o_strides", size_t4),
                ("mask_strides", size_t4), ("lse_strides", c_size_t * 3),
                ("kv_lens_offset", c_size_t), ("q_lens_offset", c_size_t),
                ("scale", c_float), ("softcap", c_float), ("causal", c_int), ("window", c_size_t),
                ("algo", c_int), ("kv_block_size", c_size_t), ("kv_num_blocks", c_size_t),
                ("block_table_stride", c_size_t), ("block_table_offset", c_size_t),
                ("compute_type_u", _ComputeTypeRoom),
                ("reserved_sizes", c_size_t * 3), ("reserved", c_void_p * 4)]
    _anonymous_ = ("compute_type_u",)


class AttentionBuffers(Structure):
    _fields_ = [("mask", cl_mem), ("kv_lens", cl_mem), ("q_lens", cl_mem), ("lse", cl_mem),
                ("block_table", cl_mem), ("reserved", c_void_p * 7)]


class AttentionChoice(Structure):
    _fields_ = [("algo", c_int), ("why", c_char * 96), ("splits", c_int), ("workspace_bytes", c_size_t),
                ("nkernels", c_int), ("kernels", KernelChoice * 2), ("reserved", ctypes.c_ubyte * 64)]


class DeviceInfo(Structure):
    _fields_ = [("platform_name", c_char * 128), ("platform_version", c_char * 128), ("vendor", c_char * 128),
                ("name", c_char * 256), ("driver_version", c_char * 128), ("opencl_version", c_char * 128),
                ("opencl_c_version", c_char * 128), ("type", _cl_ulong), ("device_class", c_int),
                ("compute_units", c_uint), ("max_clock_mhz", c_uint), ("global_mem_bytes", _cl_ulong),
                ("max_alloc_bytes", _cl_ulong), ("local_mem_bytes", _cl_ulong),
                ("max_work_group_size", c_size_t), ("caps", c_uint)]


class CacheStats(Structure):
    _fields_ = [("memory_hits", c_uint64), ("disk_hits", c_uint64), ("disk_misses", c_uint64),
                ("disk_rejected", c_uint64), ("disk_writes", c_uint64), ("source_builds", c_uint64),
                ("disk_enabled", c_int)]


class TuneEvent(Structure):
    _fields_ = [("kind", c_int), ("op", c_char_p), ("family", c_char_p), ("shape_class", c_char_p),
                ("dtypes", c_char_p), ("layout", c_char_p), ("shape", size_t4), ("ndims", c_int),
                ("problem", c_int), ("problems", c_int), ("tried", c_size_t), ("total", c_size_t),
                ("elapsed_s", c_double), ("left_s", c_double), ("outcome", c_int),
                ("params", c_char_p), ("message", c_char_p), ("gflops", c_double), ("build_s", c_double),
                ("best_gflops", c_double), ("default_gflops", c_double), ("tuned_gflops", c_double),
                ("clblast_gflops", c_double), ("provider", c_char_p), ("failures", c_int), ("rank", c_int)]


TUNE_PROGRESS = CFUNCTYPE(None, POINTER(TuneEvent), c_void_p)


class _TuneComputeTypeRoom(ctypes.Union):
    """clforge_tune_options's compute_type: an enum in a pointer's room."""
    _fields_ = [("compute_type", c_int), ("compute_type_room_", c_void_p)]


class TuneOptions(Structure):
    _fields_ = [("ops", c_char_p), ("shapes", c_char_p), ("dtypes", c_char_p), ("layouts", c_char_p),
                ("strategy", c_int), ("budget_s", c_double), ("max_evals", c_int), ("seed", c_uint),
                ("space", c_char_p), ("file", c_char_p), ("dry_run", c_int), ("skip_peers", c_int),
                ("progress", TUNE_PROGRESS), ("user", c_void_p), ("stop", c_void_p),
                ("compute_type_u", _TuneComputeTypeRoom), ("reserved", c_void_p * 7)]
    _anonymous_ = ("compute_type_u",)


class CommOptions(Structure):
    _fields_ = [("timeout_ms", ctypes.c_uint32), ("chunk_bytes", c_size_t), ("algo", c_int),
                ("reserved", ctypes.c_uint32 * 7)]


class CommTuneResult(Structure):
    _fields_ = [("crossover_bytes", c_size_t), ("sizes", c_int), ("bytes", c_size_t * 16),
                ("owner_s", ctypes.c_double * 16), ("gather_s", ctypes.c_double * 16), ("seconds", ctypes.c_double)]


class CollectiveDesc(Structure):
    _fields_ = [("dtype", c_int), ("op", c_int), ("count", c_size_t), ("root", c_int),
                ("reserved", ctypes.c_uint32 * 8)]


STRUCTS = {"clforge_gemm_desc": GemmDesc, "clforge_kernel_choice": KernelChoice,
           "clforge_conv2d_desc": ConvDesc, "clforge_conv_choice": ConvChoice, "clforge_norm_desc": NormDesc,
           "clforge_pool_desc": PoolDesc, "clforge_elementwise_desc": ElementwiseDesc,
           "clforge_rope_desc": RopeDesc, "clforge_embedding_desc": EmbeddingDesc,
           "clforge_kv_append_desc": KvAppendDesc, "clforge_batchnorm_fold_desc": BatchnormFoldDesc,
           "clforge_softmax_desc": SoftmaxDesc, "clforge_cross_entropy_desc": CrossEntropyDesc,
           "clforge_optimizer_tensor": OptimizerTensor, "clforge_optimizer_desc": OptimizerDesc,
           "clforge_attention_desc": AttentionDesc,
           "clforge_attention_buffers": AttentionBuffers, "clforge_attention_choice": AttentionChoice,
           "clforge_device_info": DeviceInfo, "clforge_cache_stats": CacheStats,
           "clforge_tune_event": TuneEvent, "clforge_tune_options": TuneOptions, "clforge_quant_desc": QuantDesc,
           "clforge_gemm_quant": GemmQuant, "clforge_conv_quant": ConvQuant,
           "clforge_comm_options": CommOptions, "clforge_collective_desc": CollectiveDesc,
           "clforge_comm_tune_result": CommTuneResult}

# ------------------------------------------------------------ the library
_WAIT = (c_uint, POINTER(cl_event), POINTER(cl_event))  # wait list in, event out
_PROTOTYPES = {
    "clforge_version": (c_char_p, ()),
    "clforge_status_string": (c_char_p, (status_t,)),
    "clforge_status_name": (c_char_p, (status_t,)),
    "clforge_last_error": (c_char_p, (c_void_p,)),
    "clforge_device_query": (status_t, (c_void_p, POINTER(DeviceInfo))),
    "clforge_device_class_name": (c_char_p, (c_int,)),
    "clforge_context_create": (status_t, (c_char_p, POINTER(c_void_p))),
    "clforge_context_create_from_queue": (status_t, (c_void_p, POINTER(c_void_p))),
    "clforge_context_destroy": (None, (c_void_p,)),
    "clforge_context_queue": (status_t, (c_void_p, POINTER(c_void_p))),
    "clforge_context_cl_context": (status_t, (c_void_p, POINTER(c_void_p))),
    "clforge_context_device": (status_t, (c_void_p, POINTER(c_void_p))),
    "clforge_context_device_info": (status_t, (c_void_p, POINTER(DeviceInfo))),
    "clforge_context_cache_stats": (status_t, (c_void_p, POINTER(CacheStats))),
    "clforge_context_set_validation": (status_t, (c_void_p, c_int)),
    "clforge_context_get_validation": (status_t, (c_void_p, POINTER(c_int))),
    "clforge_context_set_params": (status_t, (c_void_p, c_char_p)),
    "clforge_context_reload_tuning": (status_t, (c_void_p,)),
    "clforge_path": (status_t, (c_int, c_char_p, c_size_t)),
    "clforge_params_source_name": (c_char_p, (c_int,)),
    "clforge_registry_count": (status_t, (c_int, POINTER(c_int))),
    "clforge_registry_name": (status_t, (c_int, c_int, POINTER(c_char_p))),
    "clforge_compute_type_name": (c_char_p, (c_int,)),
    "clforge_context_set_compute_type": (status_t, (c_void_p, c_int)),
    "clforge_context_get_compute_type": (status_t, (c_void_p, POINTER(c_int))),
    "clforge_convert": (status_t, (c_void_p, c_size_t, cl_mem, c_size_t, c_int, cl_mem, c_size_t, c_int) + _WAIT),
    "clforge_quantize": (status_t, (c_void_p, POINTER(QuantDesc), cl_mem, cl_mem, cl_mem, cl_mem) + _WAIT),
    "clforge_dequantize": (status_t, (c_void_p, POINTER(QuantDesc), cl_mem, cl_mem, cl_mem, cl_mem) + _WAIT),
    "clforge_gemm": (status_t, (c_void_p, POINTER(GemmDesc), cl_mem, cl_mem, cl_mem, cl_mem) + _WAIT),
    "clforge_gemm_quantized": (status_t, (c_void_p, POINTER(GemmDesc), POINTER(GemmQuant), cl_mem, cl_mem, cl_mem,
                                          cl_mem) + _WAIT),
    "clforge_gemm_explain": (status_t, (c_void_p, POINTER(GemmDesc), POINTER(KernelChoice), c_int, POINTER(c_int))),
    "clforge_tune": (status_t, (c_void_p, POINTER(TuneOptions))),
    "clforge_conv_algo_name": (c_char_p, (c_int,)),
    "clforge_conv_algo_from_name": (status_t, (c_char_p, POINTER(c_int))),
    "clforge_conv_algo_source_name": (c_char_p, (c_int,)),
    "clforge_conv2d_output_size": (status_t, (POINTER(ConvDesc), POINTER(c_size_t), POINTER(c_size_t))),
    "clforge_conv2d": (status_t, (c_void_p, POINTER(ConvDesc), cl_mem, cl_mem, cl_mem, cl_mem) + _WAIT),
    "clforge_conv2d_quantized": (status_t, (c_void_p, POINTER(ConvDesc), POINTER(ConvQuant), cl_mem, cl_mem, cl_mem,
                                            cl_mem) + _WAIT),
    "clforge_conv2d_quantized_ex": (status_t, (c_void_p, POINTER(ConvDesc), POINTER(ConvQuant), cl_mem, cl_mem,
                                               c_void_p, cl_mem, cl_mem) + _WAIT),
    "clforge_conv2d_quantized_weights_create": (status_t, (c_void_p, POINTER(ConvDesc), cl_mem, c_uint,
                                                           POINTER(cl_event), POINTER(c_void_p))),
    "clforge_conv2d_quantized_weights_release": (status_t, (c_void_p,)),
    "clforge_conv2d_ex": (status_t, (c_void_p, POINTER(ConvDesc), cl_mem, cl_mem, c_void_p, cl_mem, cl_mem,
                                     cl_mem, c_size_t) + _WAIT),
    "clforge_conv2d_weights_create": (status_t, (c_void_p, POINTER(ConvDesc), cl_mem, c_uint, POINTER(cl_event),
                                                 POINTER(c_void_p))),
    "clforge_conv2d_weights_algo": (status_t, (c_void_p, POINTER(c_int))),
    "clforge_conv2d_weights_release": (status_t, (c_void_p,)),
    "clforge_conv2d_explain": (status_t, (c_void_p, POINTER(ConvDesc), POINTER(ConvChoice))),
    "clforge_elementwise": (status_t, (c_void_p, POINTER(ElementwiseDesc), cl_mem, cl_mem, cl_mem) + _WAIT),
    "clforge_elementwise_explain": (status_t, (c_void_p, POINTER(ElementwiseDesc), POINTER(KernelChoice))),
    "clforge_rope": (status_t, (c_void_p, POINTER(RopeDesc), cl_mem, cl_mem, cl_mem) + _WAIT),
    "clforge_rope_explain": (status_t, (c_void_p, POINTER(RopeDesc), POINTER(KernelChoice))),
    "clforge_embedding": (status_t, (c_void_p, POINTER(EmbeddingDesc), cl_mem, cl_mem, cl_mem) + _WAIT),
    "clforge_embedding_explain": (status_t, (c_void_p, POINTER(EmbeddingDesc), POINTER(KernelChoice))),
    "clforge_kv_cache_append": (status_t, (c_void_p, POINTER(KvAppendDesc), cl_mem, cl_mem, cl_mem, cl_mem, cl_mem)
                                + _WAIT),
    "clforge_kv_cache_append_explain": (status_t, (c_void_p, POINTER(KvAppendDesc), POINTER(KernelChoice))),
    "clforge_batchnorm_fold": (status_t, (c_void_p, POINTER(BatchnormFoldDesc)) + (cl_mem,) * 8 + _WAIT),
    "clforge_batchnorm_fold_explain": (status_t, (c_void_p, POINTER(BatchnormFoldDesc), POINTER(KernelChoice))),
    "clforge_pool_output_size": (status_t, (POINTER(PoolDesc), POINTER(c_size_t), POINTER(c_size_t))),
    "clforge_pool": (status_t, (c_void_p, POINTER(PoolDesc), cl_mem, cl_mem) + _WAIT),
    "clforge_pool_explain": (status_t, (c_void_p, POINTER(PoolDesc), POINTER(KernelChoice))),
    "clforge_norm": (status_t, (c_void_p, POINTER(NormDesc), cl_mem, cl_mem, cl_mem, cl_mem, cl_mem) + _WAIT),
    "clforge_norm_backward": (status_t, (c_void_p, POINTER(NormDesc), cl_mem, cl_mem, cl_mem, cl_mem, cl_mem, cl_mem,
                                         cl_mem) + _WAIT),
    "clforge_conv2d_backward_data": (status_t, (c_void_p, POINTER(ConvDesc), cl_mem, cl_mem, cl_mem) + _WAIT),
    "clforge_conv2d_aux": (status_t, (c_void_p, POINTER(ConvDesc), cl_mem, cl_mem, cl_mem, cl_mem, cl_mem) + _WAIT),
    "clforge_conv2d_backward_data_aux": (status_t,
                                         (c_void_p, POINTER(ConvDesc), cl_mem, cl_mem, cl_mem, cl_mem, cl_mem) + _WAIT),
    "clforge_conv2d_backward_filter": (status_t, (c_void_p, POINTER(ConvDesc), cl_mem, cl_mem, cl_mem, cl_mem)
                                       + _WAIT),
    "clforge_softmax": (status_t, (c_void_p, POINTER(SoftmaxDesc), cl_mem, cl_mem, cl_mem) + _WAIT),
    "clforge_softmax_explain": (status_t, (c_void_p, POINTER(SoftmaxDesc), POINTER(KernelChoice))),
    "clforge_softmax_backward": (status_t, (c_void_p, POINTER(SoftmaxDesc), cl_mem, cl_mem, cl_mem) + _WAIT),
    "clforge_softmax_backward_explain": (status_t, (c_void_p, POINTER(SoftmaxDesc), POINTER(KernelChoice))),
    "clforge_cross_entropy": (status_t, (c_void_p, POINTER(CrossEntropyDesc), cl_mem, cl_mem, cl_mem, cl_mem,
                                         cl_mem) + _WAIT),
    "clforge_cross_entropy_explain": (status_t, (c_void_p, POINTER(CrossEntropyDesc), POINTER(KernelChoice))),
    "clforge_optimizer_step": (status_t, (c_void_p, POINTER(OptimizerDesc), c_size_t, POINTER(OptimizerTensor),
                                          cl_mem) + _WAIT),
    "clforge_attention_algo_name": (c_char_p, (c_int,)),
    "clforge_attention": (status_t, (c_void_p, POINTER(AttentionDesc), cl_mem, cl_mem, cl_mem, cl_mem,
                                     POINTER(AttentionBuffers)) + _WAIT),
    "clforge_attention_explain": (status_t, (c_void_p, POINTER(AttentionDesc), POINTER(AttentionChoice))),
    "clforge_comm_create_mpi_fint": (status_t, (c_int32, c_void_p, POINTER(CommOptions), POINTER(c_void_p))),
    "clforge_comm_mpi_library": (c_char_p, ()),
    "clforge_reduce_op_name": (c_char_p, (c_int,)),
    "clforge_comm_destroy": (None, (c_void_p,)),
    "clforge_comm_rank": (status_t, (c_void_p, POINTER(c_int))),
    "clforge_comm_size": (status_t, (c_void_p, POINTER(c_int))),
    "clforge_comm_context": (status_t, (c_void_p, POINTER(c_void_p))),
    "clforge_comm_status": (status_t, (c_void_p,)),
    "clforge_comm_last_error": (c_char_p, (c_void_p,)),
    "clforge_comm_allreduce_algo": (status_t, (c_void_p, c_size_t, POINTER(c_int), POINTER(c_size_t),
                                               POINTER(c_char_p))),
    "clforge_comm_tune": (status_t, (c_void_p, POINTER(TuneOptions), POINTER(CommTuneResult))),
    "clforge_allreduce": (status_t, (c_void_p, POINTER(CollectiveDesc), cl_mem, c_size_t, cl_mem, c_size_t) + _WAIT),
    "clforge_broadcast": (status_t, (c_void_p, POINTER(CollectiveDesc), cl_mem, c_size_t, cl_mem, c_size_t) + _WAIT),
    "clforge_reduce_scatter": (status_t, (c_void_p, POINTER(CollectiveDesc), cl_mem, c_size_t, cl_mem,
                                          c_size_t) + _WAIT),
    "clforge_all_gather": (status_t, (c_void_p, POINTER(CollectiveDesc), cl_mem, c_size_t, cl_mem, c_size_t) + _WAIT),
    "clforge_comm_barrier": (status_t, (c_void_p,) + _WAIT),
}

_here = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    """Where libclforge may be, in the order the README documents."""
    env = os.environ.get("CLFORGE_LIBRARY")
    if env:
        yield env, "CLFORGE_LIBRARY"
        return
    # The wheel carries the library it was built with (scikit-build-core).
    for pattern in ("lib/libclforge.so*", "lib64/libclforge.so*", "lib/libclforge*.dylib"):
        for path in sorted(glob.glob(os.path.join(_here, pattern))):
            # The library's built-in system tuning file is where the wheel was
            # built; the wheel's own share/ stands in for it (the clforge
            # command started from Python inherits this too).
            os.environ.setdefault("CLFORGE_SYSTEM_TUNING_FILE", os.path.join(_here, "share", "clforge", "tuning.json"))
            yield path, "the wheel"
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "clforge"], capture_output=True,
                                text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        libdir = ""
    if libdir:
        for path in sorted(glob.glob(os.path.join(libdir, "libclforge.so*"))):
            yield path, "pkg-config"
    found = ctypes.util.find_library("clforge")
    if found:
        yield found, "the system library path"


def _load():
    tried = []
    for path, how in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s): %s" % (path, how, e))
            continue
        missing = [name for name in _PROTOTYPES if not hasattr(lib, name)]
        if missing:  # an older libclforge: look further
            tried.append("%s (%s): lacks %s" % (path, how, ", ".join(missing[:3])))
            continue
        for name, (res, args) in _PROTOTYPES.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        return lib, path
    raise ImportError("clforge: libclforge not found (looked at: %s). Install the package with "
                      "`pip install ./python`, or point CLFORGE_LIBRARY at libclforge.so, or install the C "
                      "library where pkg-config finds it." % ("; ".join(tried) or "CLFORGE_LIBRARY, the wheel, "
                                                                 "pkg-config clforge, the system library path"))


lib, library_path = _load()


def text(b):
    return b.decode("utf-8", "replace") if b is not None else ""


# clforge_registry: the library's lists of names (include/clforge/clforge.h).
REGISTRY_FAMILIES, REGISTRY_TUNED_FAMILIES, REGISTRY_TUNE_OPS, REGISTRY_CONV_ALGOS, REGISTRY_ATTENTION_ALGOS = range(5)


def registry_names(which):
    """The names of one of the library's lists, in its order (for conv and
    attention algorithms, by enum value): read from the library, never a
    copy of its own."""
    count, name = c_int(0), c_char_p()
    if lib.clforge_registry_count(which, ctypes.byref(count)) != 0:
        raise ValueError("clforge: no registry list %r" % (which,))
    out = []
    for i in range(count.value):
        if lib.clforge_registry_name(which, i, ctypes.byref(name)) != 0:
            raise ValueError("clforge: registry list %r has no name %d" % (which, i))
        out.append(text(name.value))
    return tuple(out)


class OwnedHandle:
    """A C object this Python object owns: released once, by close() or when
    the object is collected (Context, Conv2dWeights). Subclasses name the C
    function that frees it in ``_destroy``."""
    _destroy = None
    _handle = c_void_p()

    def _lock(self):
        return None

    def close(self):
        if not self._handle:
            return
        lock = self._lock()  # never while another thread's call uses it
        if lock is not None:
            lock.acquire()
        try:
            h = self._handle
            if h:
                self._handle = c_void_p()
                getattr(lib, self._destroy)(h)
        finally:
            if lock is not None:
                lock.release()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
