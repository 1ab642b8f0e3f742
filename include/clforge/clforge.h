/* clforge: vendor-neutral GPU math on OpenCL.
 *
 * The one public header. Everything here is C11 and also compiles as C++.
 * Conventions (see docs/ARCHITECTURE.md):
 *   - every function returns clforge_status; details of the last failure are
 *     kept per context and read with clforge_last_error();
 *   - OpenCL's own error codes pass through unchanged, clforge's own codes
 *     are positive and sit above CLFORGE_STATUS_BASE;
 *   - buffers are cl_mem plus element offsets; enqueuing follows OpenCL's
 *     event convention (wait list in, optional event out);
 *   - a context is not thread-safe: use one per thread, or serialize calls.
 */
#ifndef CLFORGE_CLFORGE_H
#define CLFORGE_CLFORGE_H

/* The application chooses CL_TARGET_OPENCL_VERSION (define it before this
 * include); clforge itself needs only 1.2. Left undefined, it is set here
 * to 300 — what the OpenCL headers assume anyway — so that they do not
 * print their "CL_TARGET_OPENCL_VERSION is not defined" note on every
 * compile. An application that includes <CL/cl.h> first keeps whatever
 * the headers chose. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CLFORGE_STATIC_DEFINE)
#define CLFORGE_API
#elif defined(_WIN32)
#ifdef CLFORGE_BUILDING
#define CLFORGE_API __declspec(dllexport)
#else
#define CLFORGE_API __declspec(dllimport)
#endif
#else
#define CLFORGE_API __attribute__((visibility("default")))
#endif

/* ------------------------------------------------------------------ version */
#define CLFORGE_VERSION_MAJOR 0
#define CLFORGE_VERSION_MINOR 1
#define CLFORGE_VERSION_PATCH 0
#define CLFORGE_VERSION_NUMBER \
  (CLFORGE_VERSION_MAJOR * 10000 + CLFORGE_VERSION_MINOR * 100 + CLFORGE_VERSION_PATCH)
#define CLFORGE_VERSION_STRING "0.1.0"

/** Run-time version string of the library actually linked, e.g. "0.1.0". */
CLFORGE_API const char *clforge_version(void);
/** Run-time version as MAJOR*10000 + MINOR*100 + PATCH. */
CLFORGE_API unsigned clforge_version_number(void);

/* ------------------------------------------------------------------- status */
typedef int32_t clforge_status;

#define CLFORGE_SUCCESS 0
/** clforge's own codes are CLFORGE_STATUS_BASE + n; OpenCL's are <= 0. */
#define CLFORGE_STATUS_BASE 1000

/* Each clforge code and its message, defined once: X(name, offset, message). */
#define CLFORGE_STATUS_LIST(X)                                                          \
  X(CLFORGE_INVALID_ARGUMENT, 1, "invalid argument")                                    \
  X(CLFORGE_BUFFER_TOO_SMALL, 2, "buffer too small for the requested extent")           \
  X(CLFORGE_SIZE_OVERFLOW, 3, "size computation overflows")                             \
  X(CLFORGE_UNSUPPORTED, 4, "operation not supported for these arguments on this device") \
  X(CLFORGE_OUT_OF_DEVICE_MEMORY, 5, "out of device memory")                            \
  X(CLFORGE_OUT_OF_HOST_MEMORY, 6, "out of host memory")                                \
  X(CLFORGE_BUILD_FAILED, 7, "OpenCL program build failed")                             \
  X(CLFORGE_VALIDATION_FAILED, 8, "device result differs from the reference")           \
  X(CLFORGE_IO_ERROR, 9, "file input/output error")                                     \
  X(CLFORGE_DEVICE_NOT_FOUND, 10, "no matching OpenCL platform or device")              \
  X(CLFORGE_INVALID_ENVIRONMENT, 11, "invalid value in a CLFORGE_* environment variable") \
  X(CLFORGE_INTERNAL_ERROR, 12, "internal error")                                       \
  X(CLFORGE_LIMIT_EXCEEDED, 13, "a size exceeds a limit of clforge (on every device)")        \
  X(CLFORGE_COMM_TIMEOUT, 14, "a rank of the communicator did not arrive in time")     \
  X(CLFORGE_COMM_MISMATCH, 15, "the ranks called different collectives")              \
  X(CLFORGE_COMM_BROKEN, 16, "the communicator failed earlier and takes no more calls")

enum {
#define CLFORGE_STATUS_ENUM_(name, off, msg) name = CLFORGE_STATUS_BASE + (off),
  CLFORGE_STATUS_LIST(CLFORGE_STATUS_ENUM_)
#undef CLFORGE_STATUS_ENUM_
};

/** Short, static message for any status, OpenCL's codes included. Never NULL;
 *  unknown codes get "unknown status code". */
CLFORGE_API const char *clforge_status_string(clforge_status status);
/** Symbolic name ("CLFORGE_BUFFER_TOO_SMALL", "CL_INVALID_VALUE"); never NULL. */
CLFORGE_API const char *clforge_status_name(clforge_status status);

/* --------------------------------------------------------------- data types */
typedef enum clforge_dtype {
  CLFORGE_F32 = 1,  /* IEEE binary32 */
  CLFORGE_F16 = 2,  /* IEEE binary16, storage only unless cl_khr_fp16 */
  CLFORGE_BF16 = 3, /* bfloat16: the top 16 bits of a binary32 */
  /* Integer types: quantized data. Only the ops that say so take them
   * (clforge_quantize, clforge_dequantize, clforge_gemm_quantized); every
   * float op refuses them. */
  CLFORGE_S8 = 4,   /* int8_t */
  CLFORGE_U8 = 5,   /* uint8_t */
  CLFORGE_S32 = 6,  /* int32_t (zero points, integer accumulations) */
  /* A block format: ggml's q8_0, each run of 32 values stored as 34 bytes
   * (an f16 scale d, then 32 s8 q; value = d * q), as clforge_quantize's
   * CLFORGE_QUANT_Q8_0 writes it. Taken by clforge_attention's K and V
   * (a quantized KV cache), clforge_gemm's B (weights, see
   * clforge_gemm_desc), clforge_embedding's table and
   * clforge_kv_cache_append's caches. */
  CLFORGE_Q8_0 = 7
} clforge_dtype;

/** Bytes per element; 0 for an unknown dtype and for q8_0 (32 values
 *  share 34 bytes). */
CLFORGE_API size_t clforge_dtype_size(clforge_dtype dtype);
/** "f32", "f16", "bf16", "s8", "u8", "s32", "q8_0", or NULL for an unknown dtype. */
CLFORGE_API const char *clforge_dtype_name(clforge_dtype dtype);
/** The dtype clforge_dtype_name calls `name`: exactly one of its names
 *  (lower case, NUL-terminated, no blanks), so that command lines, the tuner's
 *  lists and the tuning file all spell a dtype one way. A token of a longer
 *  string ("f32,f16") must be copied out first. Returns CLFORGE_SUCCESS, or
 *  CLFORGE_INVALID_ARGUMENT for a NULL argument or an unknown name (*out is
 *  then unchanged; clforge_last_error(NULL) says why). */
CLFORGE_API clforge_status clforge_dtype_from_name(const char *name, clforge_dtype *out);

/* -------------------------------------------------------- device fingerprint */
typedef enum clforge_device_class {
  CLFORGE_DEVICE_CLASS_GENERIC = 0,
  CLFORGE_DEVICE_CLASS_CPU = 1,       /* any CPU device, PoCL included */
  CLFORGE_DEVICE_CLASS_NVIDIA = 2,
  CLFORGE_DEVICE_CLASS_AMD = 3,       /* AMD GPU */
  CLFORGE_DEVICE_CLASS_INTEL_GPU = 4,
  CLFORGE_DEVICE_CLASS_MALI = 5,
  CLFORGE_DEVICE_CLASS_ADRENO = 6,
  CLFORGE_DEVICE_CLASS_COUNT = 7
} clforge_device_class;

/** Lower-case name of a device class ("cpu", "nvidia", …); NULL if unknown. */
CLFORGE_API const char *clforge_device_class_name(clforge_device_class cls);

/* Capability bits in clforge_device_info.caps */
#define CLFORGE_CAP_HALF_STORAGE 0x01u    /* vload_half/vstore_half: always */
#define CLFORGE_CAP_FP16 0x02u            /* cl_khr_fp16 arithmetic */
#define CLFORGE_CAP_FP64 0x04u            /* cl_khr_fp64 */
#define CLFORGE_CAP_SUBGROUPS_KHR 0x08u   /* cl_khr_subgroups */
#define CLFORGE_CAP_SUBGROUPS_INTEL 0x10u /* cl_intel_subgroups */
#define CLFORGE_CAP_INTEGER_DOT 0x20u     /* cl_khr_integer_dot_product */

/** What clforge knows about a device; strings are NUL-terminated, truncated
 *  if longer than their field. */
typedef struct clforge_device_info {
  char platform_name[128];
  char platform_version[128];
  char vendor[128];
  char name[256];
  char driver_version[128];
  char opencl_version[128];     /* CL_DEVICE_VERSION */
  char opencl_c_version[128];   /* CL_DEVICE_OPENCL_C_VERSION */
  cl_device_type type;
  clforge_device_class device_class;
  cl_uint compute_units;
  cl_uint max_clock_mhz;
  cl_ulong global_mem_bytes;
  cl_ulong max_alloc_bytes;
  cl_ulong local_mem_bytes;
  size_t max_work_group_size;
  unsigned caps;                /* CLFORGE_CAP_* bits */
} clforge_device_info;

/** Fill *info for any OpenCL device (used by tools to list all devices). */
CLFORGE_API clforge_status clforge_device_query(cl_device_id device, clforge_device_info *info);

/* ------------------------------------------------------------------ context */
typedef struct clforge_context_s *clforge_context;

/** Create a context, its OpenCL context and an in-order queue with profiling.
 *  `device` chooses the device: "P:D" (platform and device index) or a
 *  case-insensitive substring of the device name. NULL means the
 *  CLFORGE_DEVICE environment variable, and when that is unset or empty, the
 *  first GPU, else the first accelerator, else the first CPU device.
 *  On failure *out is set to NULL and clforge_last_error(NULL) tells why. */
CLFORGE_API clforge_status clforge_context_create(const char *device, clforge_context *out);

/** n contexts (out[0..n-1]), one on each of n equal sub-devices of the
 *  device `device` selects (as clforge_context_create: NULL reads
 *  CLFORGE_DEVICE): the stand-in for n devices of one machine on a CPU
 *  (clforge_comm_create_local's ranks). CLFORGE_UNSUPPORTED, with nothing
 *  made, where its driver cannot partition it so. */
CLFORGE_API clforge_status clforge_context_create_subdevices(const char *device, int n, clforge_context *out);

/** Wrap the application's own queue: no copies, the application keeps its
 *  reference (clforge takes and later drops one of its own). */
CLFORGE_API clforge_status clforge_context_create_from_queue(cl_command_queue queue,
                                                             clforge_context *out);

/** Release everything the context holds; NULL is a no-op. Does not wait for
 *  work still in the queue beyond what clReleaseCommandQueue implies. */
CLFORGE_API void clforge_context_destroy(clforge_context ctx);

/** Detailed message of the last failure on ctx (a build log, which argument
 *  was wrong and why), or "" when the last call succeeded. With ctx == NULL:
 *  the last failure on this thread that had no context to record it in
 *  (e.g. a failed clforge_context_create). Valid until the next call. */
CLFORGE_API const char *clforge_last_error(clforge_context ctx);

CLFORGE_API clforge_status clforge_context_queue(clforge_context ctx, cl_command_queue *queue);
CLFORGE_API clforge_status clforge_context_cl_context(clforge_context ctx, cl_context *cl_ctx);
CLFORGE_API clforge_status clforge_context_device(clforge_context ctx, cl_device_id *device);
CLFORGE_API clforge_status clforge_context_device_info(clforge_context ctx, clforge_device_info *info);

/** Counters of the program caches, to see where kernels come from. */
typedef struct clforge_cache_stats {
  uint64_t memory_hits;    /* program found in this context's memory cache */
  uint64_t disk_hits;      /* binary loaded from the on-disk cache */
  uint64_t disk_misses;    /* no usable file: built from source */
  uint64_t disk_rejected;  /* file found but corrupt/foreign: deleted and rebuilt */
  uint64_t disk_writes;    /* binaries written to disk */
  uint64_t source_builds;  /* programs compiled from source */
  int disk_enabled;        /* 1 while the on-disk cache is in use */
} clforge_cache_stats;

CLFORGE_API clforge_status clforge_context_cache_stats(clforge_context ctx, clforge_cache_stats *stats);

/** Turn validation mode on (1) or off (0) for this context. It starts as the
 *  CLFORGE_VALIDATE environment variable says. In validation mode each op
 *  waits for its result, runs the CPU reference on the same inputs, and
 *  returns CLFORGE_VALIDATION_FAILED when the result is out of tolerance. */
CLFORGE_API clforge_status clforge_context_set_validation(clforge_context ctx, int enabled);
/** Whether validation mode is on for this context (*enabled = 1 or 0). */
CLFORGE_API clforge_status clforge_context_get_validation(clforge_context ctx, int *enabled);

/** What arithmetic a call may use (cuBLAS's compute types). Nothing changes
 *  unless the caller allows it: strict f32 is the default, and a call that
 *  allows less runs a reduced-precision kernel only where the device has
 *  the arithmetic (cl_khr_fp16) and a half variant was chosen for it (a
 *  tuned or forced parameter: the built-in defaults are f32). The error
 *  bounds are in docs/inference-precision.md; `explain` says which ran. */
typedef enum clforge_compute_type {
  CLFORGE_COMPUTE_DEFAULT = 0,      /* a descriptor: the context's; a context: 32F */
  CLFORGE_COMPUTE_32F = 1,          /* f32 products and sums (f16/bf16 storage widened) */
  CLFORGE_COMPUTE_32F_FAST_16F = 2, /* f16 products allowed (inputs rounded to f16), sums in f32 */
  CLFORGE_COMPUTE_16F = 3           /* f16 products and partial sums, each partial added into f32
                                       after at most 32 products */
} clforge_compute_type;

/** "32f", "32f_fast_16f", "16f" (NULL for DEFAULT or an unknown value). */
CLFORGE_API const char *clforge_compute_type_name(clforge_compute_type type);
/** The context's default compute type, which descriptors leaving
 *  compute_type 0 get (GEMM, convolution, attention). It starts as CLFORGE_COMPUTE_TYPE says (32f, 32f_fast_16f or 16f;
 *  unset: 32F). DEFAULT resets it to 32F. */
CLFORGE_API clforge_status clforge_context_set_compute_type(clforge_context ctx, clforge_compute_type type);
CLFORGE_API clforge_status clforge_context_get_compute_type(clforge_context ctx, clforge_compute_type *type);

/* -------------------------------------------------------------------- paths */
typedef enum clforge_path_kind {
  CLFORGE_PATH_BINARY_CACHE = 1,  /* directory of the on-disk program cache */
  CLFORGE_PATH_TUNING_FILE = 2,   /* the user's tuning file */
  CLFORGE_PATH_SYSTEM_TUNING_FILE = 3
} clforge_path_kind;

/** Write the path clforge uses for `kind` into buf (NUL-terminated).
 *  The binary cache path is "off" when CLFORGE_CACHE_DIR=off. */
CLFORGE_API clforge_status clforge_path(clforge_path_kind kind, char *buf, size_t buf_size);

/* ---------------------------------------------------------------------- ops */
/** Convert n elements between f32, f16 and bf16 on the device.
 *  Offsets are in elements of each buffer's dtype. Rounding is to nearest
 *  even; NaN stays NaN (narrowing keeps its sign and quiets it; widening keeps
 *  the payload), infinities stay infinite, overflow becomes infinity. src and dst must not overlap unless they are the same range
 *  with the same dtype. n == 0 is a no-op (an event, if asked for, is still
 *  returned as a marker). */
CLFORGE_API clforge_status clforge_convert(clforge_context ctx, size_t n,
                                           cl_mem src, size_t src_offset, clforge_dtype src_type,
                                           cl_mem dst, size_t dst_offset, clforge_dtype dst_type,
                                           cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list, cl_event *event);

/* ------------------------------------------------------------- quantization */
/** How a tensor's values map to 8-bit integers: x = scale * (q - zero_point). */
typedef enum clforge_quant_scheme {
  CLFORGE_QUANT_PER_TENSOR = 0, /* one scale (and zero point) for the whole tensor */
  CLFORGE_QUANT_PER_ROW = 1,    /* one per row: weights stored [out][in] get one per output channel */
  CLFORGE_QUANT_PER_COLUMN = 2, /* one per column: NHWC activations get one per channel */
  /* ggml's q8_0: each row cut into blocks of 32 values, a block stored as its
   * f16 scale d then 32 int8 (34 bytes, no padding); d = max|x| / 127, no
   * zero point. cols must be a multiple of 32, q_type s8. */
  CLFORGE_QUANT_Q8_0 = 3
} clforge_quant_scheme;

/** Where clforge_quantize's scales (and zero points) come from. */
typedef enum clforge_quant_scales {
  CLFORGE_QUANT_SCALES_GIVEN = 0,   /* read from the scale / zero_point buffers (calibrated, static) */
  /* computed from x and written to those buffers first (dynamic quantization):
   * s8 symmetric, scale = max|x| / 127 and zero point 0; u8 asymmetric over
   * [lo, hi] = [min(min x, 0), max(max x, 0)], scale = (hi - lo) / 255,
   * zero point = round(-lo / scale) (0 when scale is 0). NaN is passed over. */
  CLFORGE_QUANT_SCALES_COMPUTE = 1
} clforge_quant_scales;

/** A rows x cols tensor (row-major, row strides ldx / ldq) and its
 *  quantization. Leave out what does not apply; 0 means: f32 x, s8 q, tight
 *  rows, offsets 0. q8_0 keeps its scales inside the blocks (no scale or
 *  zero-point buffer, `scales` must be left 0: they are always computed). */
typedef struct clforge_quant_desc {
  clforge_quant_scheme scheme;
  clforge_quant_scales scales;
  size_t rows, cols;
  clforge_dtype x_type;     /* f32, f16 or bf16; 0 = f32 */
  clforge_dtype q_type;     /* s8 or u8; 0 = s8 */
  size_t ldx;               /* elements between x's rows; 0 = cols */
  size_t ldq;               /* bytes between q's rows; 0 = cols (q8_0: cols / 32 * 34) */
  size_t x_offset;          /* elements */
  size_t q_offset;          /* bytes */
  size_t scale_offset;      /* elements of the f32 scale buffer: 1, rows or cols scales from there */
  size_t zero_point_offset; /* elements of the s32 zero-point buffer (same count) */
  void *reserved[4];        /* leave zero (refused otherwise) */
} clforge_quant_desc;

/** Quantize x into q: q = clamp(round(x * (1 / scale)) + zero_point) to the
 *  q type's range, rounding halves to even; 1 / scale is one f32 division (a
 *  scale of 0 quantizes everything to the zero point), NaN becomes the zero
 *  point, infinities saturate. `scale` (f32) and `zero_point` (s32, NULL =
 *  all 0) are read (SCALES_GIVEN) or written (SCALES_COMPUTE; zero_point may
 *  be NULL for s8, which writes none, and is required for u8); both NULL for
 *  q8_0. The integer results are exact: clforge_ref_quantize gives the same
 *  bytes on devices with correctly rounded f32 division (see docs/inference-precision.md).
 *  rows or cols of 0 is a no-op. x must not overlap q, scale or zero_point. */
CLFORGE_API clforge_status clforge_quantize(clforge_context ctx, const clforge_quant_desc *desc, cl_mem x, cl_mem q,
                                            cl_mem scale, cl_mem zero_point, cl_uint num_events_in_wait_list,
                                            const cl_event *event_wait_list, cl_event *event);

/** Dequantize q into x: x = scale * (q - zero_point) in f32 (one rounding),
 *  then stored as x_type (rounded to nearest even). desc->scales is not
 *  used (leave it 0). x must not overlap q, scale or zero_point. */
CLFORGE_API clforge_status clforge_dequantize(clforge_context ctx, const clforge_quant_desc *desc, cl_mem q,
                                              cl_mem scale, cl_mem zero_point, cl_mem x,
                                              cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                              cl_event *event);

/* --------------------------------------------------------------------- GEMM */
typedef enum clforge_layout {
  CLFORGE_ROW_MAJOR = 0,
  CLFORGE_COL_MAJOR = 1
} clforge_layout;

typedef enum clforge_transpose {
  CLFORGE_NO_TRANS = 0,
  CLFORGE_TRANS = 1
} clforge_transpose;

typedef enum clforge_bias_mode {
  CLFORGE_BIAS_NONE = 0,
  CLFORGE_BIAS_ROW = 1,    /* bias[i] added to row i of C (m values) */
  CLFORGE_BIAS_COLUMN = 2  /* bias[j] added to column j of C (n values) */
} clforge_bias_mode;

typedef enum clforge_activation {
  CLFORGE_ACT_NONE = 0,
  CLFORGE_ACT_RELU = 1,      /* max(x, 0); NaN becomes 0 */
  CLFORGE_ACT_GELU_TANH = 2, /* 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))) */
  CLFORGE_ACT_GELU_ERF = 3,  /* 0.5x(1 + erf(x / sqrt(2))) */
  CLFORGE_ACT_SILU = 4       /* x / (1 + exp(-x)); clforge_elementwise, clforge_gemm's epilogues and gate, the backward */
} clforge_activation;

/** How a descriptor's alpha is read (GEMM now, every op with an alpha later). */
typedef enum clforge_alpha_mode {
  /* The zero-initialized state: an alpha of +0.0 means "not given", i.e. 1,
   * so a descriptor that leaves alpha out computes the product (-0.0 stays
   * a zero alpha). A computed alpha that may be +0.0 needs AS_GIVEN. */
  CLFORGE_ALPHA_DEFAULT_ONE = 0,
  /* alpha exactly as written, 0 included (BLAS semantics): for code that
   * passes alpha through from elsewhere (computed, or a BLAS shim). */
  CLFORGE_ALPHA_AS_GIVEN = 1
} clforge_alpha_mode;

/** The GEMM's auxiliary output or input (cuBLASLt's epilogue model: a
 *  layer's backward is then one call). aux has C's shape, leading
 *  dimension and batch stride in its own buffer (aux_offset, aux_type). */
typedef enum clforge_gemm_aux {
  CLFORGE_GEMM_AUX_NONE = 0,
  /* forward: also store z = alpha op(A) op(B) + beta C + bias, the
   * pre-activation, into aux (C gets act(z)) */
  CLFORGE_GEMM_AUX_STORE = 1,
  /* backward: C = (alpha op(A) op(B) + beta C) * act'(aux), with act' the
   * derivative of `activation` (dReLU, dGELU; for ReLU aux may be the
   * forward's output; NONE: aux not read); with a bias_mode, the call also
   * writes the bias gradient into `bias`: C summed along the bias's axis
   * and over the batch (overwritten, in bias_type; a fixed-order sum) */
  CLFORGE_GEMM_AUX_BACKWARD = 2
} clforge_gemm_aux;

/** A gated epilogue (the MLP of Llama-style models, SwiGLU and GeGLU):
 *  the gate and up projections as one GEMM over fused weights, C getting
 *  act(gate) * up. */
typedef enum clforge_gemm_gate {
  CLFORGE_GEMM_GATE_NONE = 0,
  /* op(B) has 2n columns, the gate's and the up projection's interleaved:
   * column 2j of op(B) is gate column j, 2j + 1 up column j (the rows of a
   * [2n, k] weight W = op(B)^T interleaved likewise: row 2j gate row j, row
   * 2j + 1 up row j; clforge_gemm_gate_interleave builds it from the
   * two weights a checkpoint stores). With z = alpha op(A) op(B) + bias
   * (a column bias then has 2n values, interleaved as op(B)'s columns),
   * C[i][j] = act(z[i][2j]) * z[i][2j+1], act the descriptor's activation:
   * SILU is SwiGLU, GELU_TANH / GELU_ERF GeGLU, RELU ReGLU, NONE the
   * bilinear gate. C is m x n. Row-major only; beta 0; no aux. */
  CLFORGE_GEMM_GATE_INTERLEAVED = 1
} clforge_gemm_gate;

/** The fused weight of CLFORGE_GEMM_GATE_INTERLEAVED from a checkpoint's
 *  two (host memory): out row 2j = gate row j, out row 2j + 1 = up row j,
 *  each of row_bytes (any storage: f32, f16, bf16 rows, or q8_0 rows of
 *  k / 32 * 34 bytes). out holds 2 * rows * row_bytes and must not overlap
 *  gate or up. */
CLFORGE_API clforge_status clforge_gemm_gate_interleave(const void *gate, const void *up, size_t rows,
                                                        size_t row_bytes, void *out);

/** C = act(alpha * op(A) * op(B) + beta * C + bias), batched.
 *  Fill it with designated initializers; every field left out is 0, and 0
 *  means the usual thing: row-major, no transpose, f32 storage, tight
 *  leading dimensions, batch 1, no bias, no activation, alpha = 1 (see
 *  alpha_mode: an alpha of 0 must be asked for), beta = 0. Sizes and offsets
 *  count elements of each operand's storage type. With beta == 0, C is not
 *  read (NaN in C does not leak).
 *  q8_0 weights (b_type CLFORGE_Q8_0, llama.cpp's Q8_0): B is a weight W
 *  (n x k) stored as rows of k / 32 q8_0 blocks, op(B) = W^T, so trans_b
 *  must be CLFORGE_TRANS, k a multiple of 32, the call row-major, without
 *  aux; ldb, b_offset and stride_b count bytes (ldb 0 = k / 32 * 34). W
 *  is dequantized in the kernel (d * q, exact in f32), each block's 32
 *  products summed in f32, then scaled; every float epilogue and the gate
 *  apply; the arithmetic is f32 whatever compute_type allows. */
typedef struct clforge_gemm_desc {
  clforge_layout layout;
  clforge_transpose trans_a, trans_b;
  size_t m, n, k;           /* C is m x n; op(A) is m x k; op(B) is k x n */
  float alpha, beta;        /* alpha 0 (left out) = 1 unless alpha_mode = CLFORGE_ALPHA_AS_GIVEN */
  clforge_dtype a_type, b_type, c_type; /* 0 = f32; f16/bf16 storage accumulates in f32 */
  size_t lda, ldb, ldc;     /* 0 = tight (the stored matrix's row or column length) */
  size_t a_offset, b_offset, c_offset;
  size_t batch;             /* 0 or 1 = one multiply */
  size_t stride_a, stride_b, stride_c; /* elements between batch items; 0 for A or B
                                          broadcasts it; C's must not overlap */
  clforge_bias_mode bias_mode;
  clforge_dtype bias_type;  /* 0 = f32 */
  size_t bias_offset;       /* the same bias serves every batch item */
  clforge_activation activation;
  clforge_alpha_mode alpha_mode; /* 0: alpha = +0.0 means 1; CLFORGE_ALPHA_AS_GIVEN: as written */
  clforge_gemm_aux aux_mode;     /* 0: none; clforge_gemm_ex's aux buffer otherwise */
  clforge_dtype aux_type;        /* 0 = f32 */
  size_t aux_offset;
  clforge_compute_type compute_type; /* 0: the context's (strict f32 unless set) */
  /* A gated epilogue (clforge_gemm_gate; 0: none), in the room of the
   * reserved pointer it took (the same ABI). */
  union {
    clforge_gemm_gate gate;
    void *gate_room_;
  };
} clforge_gemm_desc;

/** Run `desc` on device buffers. `bias` may be NULL when bias_mode is NONE.
 *  m or n of 0 is a no-op needing no buffers (an event, if asked for, is a
 *  marker); k of 0 needs no A or B. Everything is checked before anything
 *  is enqueued: a bad descriptor or a buffer too small for it returns an
 *  error and leaves C untouched, and so does a kernel that fails to build.
 *  A call made of several launches that fails to enqueue a later one
 *  (CL_OUT_OF_RESOURCES, out of host memory) may have updated part of C. */
CLFORGE_API clforge_status clforge_gemm(clforge_context ctx, const clforge_gemm_desc *desc, cl_mem a, cl_mem b,
                                        cl_mem c, cl_mem bias, cl_uint num_events_in_wait_list,
                                        const cl_event *event_wait_list, cl_event *event);

/** clforge_gemm with an auxiliary buffer for desc->aux_mode (NULL when the
 *  mode needs none): the forward's pre-activation out, or the backward's
 *  activation input and bias gradient (see clforge_gemm_aux). aux must not
 *  overlap A, B or bias; in the backward it may be C exactly (same
 *  elements and type: each element is read before it is written). */
CLFORGE_API clforge_status clforge_gemm_ex(clforge_context ctx, const clforge_gemm_desc *desc, cl_mem a, cl_mem b,
                                           cl_mem c, cl_mem bias, cl_mem aux, cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list, cl_event *event);

/* ---------------------------------------------------------------- int8 GEMM */
/** The quantization of an int8 GEMM (clforge_gemm_quantized). With A and B
 *  of s8 or u8 (desc's a_type, b_type), every output starts as the exact
 *  integer acc = sum_k (op(A)[i][k] - a_zero_point) * (op(B)[k][j] - b_zero_point),
 *  then, by C's type:
 *  - s32: acc as it is (no scales, bias, activation; alpha 1, beta 0);
 *  - f32, f16, bf16: v = act(alpha * ((a_scale_i * b_scale_j) * acc) + beta * C + bias),
 *    each step one f32 operation in this order (beta's a fused multiply-add);
 *  - s8, u8: that v requantized, c = clamp(rint(v * (1 / c_scale)) + c_zero_point), halves to even
 *    (beta must be 0).
 *  Row and column are C's, in the layout the descriptor gives. */
typedef struct clforge_gemm_quant {
  clforge_quant_scheme a_scheme; /* PER_TENSOR, or PER_ROW: one scale per row of C (per token) */
  clforge_quant_scheme b_scheme; /* PER_TENSOR, or PER_COLUMN: one per column of C (per output channel) */
  cl_mem a_scale, b_scale;       /* f32 scales (1, m or n of them); NULL for an s32 C */
  size_t a_scale_offset, b_scale_offset;
  int32_t a_zero_point, b_zero_point; /* within A's and B's value ranges */
  float c_scale;                 /* s8/u8 C: the output's scale (> 0, finite) */
  int32_t c_zero_point;          /* s8/u8 C: within C's range */
  void *reserved[4];             /* leave zero (refused otherwise) */
} clforge_gemm_quant;

/** An int8 GEMM: desc as for clforge_gemm (layouts, transposes, batches,
 *  strides, offsets, bias, activation; aux_mode must be 0, compute_type is
 *  not used: the arithmetic is exact) with s8/u8 A and B and the
 *  quantization in quant. k is refused where k products of the largest
 *  |(a - a_zero_point)(b - b_zero_point)| could pass s32's range (k >
 *  33025 at worst, 131071 for u8 with zero point 128 times s8). The integer
 *  accumulation is exact (f32 multiply-adds of integers over k-blocks short
 *  enough to stay exact, added into s32; docs/inference-precision.md), so
 *  an s32 C equals clforge_ref_gemm_quantized's bit for bit, and so do s8/u8
 *  and float outputs without GELU (whose tanh/erf may differ in the last
 *  bit). Checked before anything is enqueued; C untouched on an error. */
CLFORGE_API clforge_status clforge_gemm_quantized(clforge_context ctx, const clforge_gemm_desc *desc,
                                                  const clforge_gemm_quant *quant, cl_mem a, cl_mem b, cl_mem c,
                                                  cl_mem bias, cl_uint num_events_in_wait_list,
                                                  const cl_event *event_wait_list, cl_event *event);

/* ------------------------------------------------- parameters and tuning */
/** Where a kernel's parameters for a call come from, in lookup order. */
typedef enum clforge_params_source {
  CLFORGE_PARAMS_FROM_API = 1,         /* clforge_context_set_params */
  CLFORGE_PARAMS_FROM_ENV = 2,         /* CLFORGE_PARAMS */
  CLFORGE_PARAMS_FROM_TUNED = 3,       /* tuning file: this device, this shape class */
  CLFORGE_PARAMS_FROM_NEAREST = 4,     /* tuning file: this device, nearest tuned shape */
  CLFORGE_PARAMS_FROM_DEVICE_DEFAULT = 5, /* built-in default of the device class */
  CLFORGE_PARAMS_FROM_GENERIC_DEFAULT = 6, /* built-in generic default */
  CLFORGE_PARAMS_FROM_TUNER = 7        /* a candidate the tuner is measuring */
} clforge_params_source;

/** "api", "env", "tuned", "nearest", "device-default", "generic-default", "tuner". */
CLFORGE_API const char *clforge_params_source_name(clforge_params_source source);

/** The library's lists of names, for tools and bindings that offer them
 *  (help texts, argument checks) without a copy of their own. */
typedef enum clforge_registry {
  CLFORGE_REGISTRY_FAMILIES = 0,         /* every kernel family (CLFORGE_PARAMS, clforge_kernel_choice.family) */
  CLFORGE_REGISTRY_TUNED_FAMILIES = 1,   /* the families clforge_tune searches */
  CLFORGE_REGISTRY_TUNE_OPS = 2,         /* clforge_tune_options.ops's names */
  CLFORGE_REGISTRY_CONV_ALGOS = 3,       /* clforge_conv_algo_name, by value: "auto" first */
  CLFORGE_REGISTRY_ATTENTION_ALGOS = 4,  /* clforge_attention_algo_name, by value */
  CLFORGE_REGISTRY_COUNT = 5
} clforge_registry;

/** How many names `list` holds; CLFORGE_INVALID_ARGUMENT for an unknown
 *  list or a NULL count. */
CLFORGE_API clforge_status clforge_registry_count(clforge_registry list, int *count);
/** The index-th name of `list` (a static string), 0 <= index < its count;
 *  CLFORGE_INVALID_ARGUMENT otherwise (or for a NULL name). */
CLFORGE_API clforge_status clforge_registry_name(clforge_registry list, int index, const char **name);

#define CLFORGE_MAX_KERNEL_PARAMS 16

/** One kernel (or peer library) a call uses, and why. */
typedef struct clforge_kernel_choice {
  char family[32];          /* kernel family, e.g. "gemm", "gemm_direct" */
  char provider[16];        /* "clforge", or "clblast" when CLBlast runs the call */
  char shape_class[32];     /* the call's shape class, e.g. "large" */
  char dtypes[32], layout[16]; /* the keys a tuning entry must match */
  clforge_params_source source;
  int tuned_ndims;          /* for TUNED/NEAREST: the shape the entry was tuned on */
  size_t tuned_shape[4];
  double tuned_gflops;      /* for TUNED/NEAREST: what the tuner measured */
  int nparams;
  char names[CLFORGE_MAX_KERNEL_PARAMS][16];
  int values[CLFORGE_MAX_KERNEL_PARAMS];
  char route[48];           /* why the call runs these kernels, e.g. "heuristic: CPU, >= 768^3, m and n >= 768"
                               or "tuned: packed 494 > tiled 460 GFLOP/s" (the same for every choice of a call) */
  clforge_compute_type compute_type; /* the arithmetic this kernel runs (0 where not applicable) */
  unsigned char reserved[12];  /* room to grow without breaking the ABI */
} clforge_kernel_choice;

/** Override kernel parameters for this context: the CLFORGE_PARAMS syntax,
 *  e.g. "gemm:MWG=64,NWG=64;gemm_direct:VW=4". Applied on top of
 *  CLFORGE_PARAMS (parameters neither names come from the tuning file or
 *  the defaults). Unknown families or parameters and values that are not
 *  candidates fail here (CLFORGE_INVALID_ARGUMENT, nothing changes); a
 *  combination that breaks a constraint on the device fails the call that
 *  uses it. NULL or "" clears the override. */
CLFORGE_API clforge_status clforge_context_set_params(clforge_context ctx, const char *params);

/** Forget the tuning entries read so far: the next call reads the tuning
 *  files again (after a tune in another process). */
CLFORGE_API clforge_status clforge_context_reload_tuning(clforge_context ctx);

/** Which kernels and parameters clforge_gemm(ctx, desc, ...) would use, and
 *  where each set comes from (the tuning file, an override, a default).
 *  Fills up to `capacity` choices, in launch order; *count gets how many the
 *  call uses (0 for an empty problem). Nothing is built or enqueued. */
CLFORGE_API clforge_status clforge_gemm_explain(clforge_context ctx, const clforge_gemm_desc *desc,
                                                clforge_kernel_choice *choices, int capacity, int *count);

typedef enum clforge_tune_strategy {
  CLFORGE_TUNE_AUTO = 0,       /* exhaustive when the space fits the budget, else random + local search */
  CLFORGE_TUNE_EXHAUSTIVE = 1,
  CLFORGE_TUNE_RANDOM = 2,     /* random sampling, then local search around the best */
  CLFORGE_TUNE_ANNEAL = 3      /* simulated annealing */
} clforge_tune_strategy;

typedef enum clforge_tune_event_kind {
  CLFORGE_TUNE_PROBLEM_START = 1, /* a (family, shape class, dtypes, layout) begins its search */
  CLFORGE_TUNE_CANDIDATE = 2,     /* one candidate measured, cut short or discarded */
  CLFORGE_TUNE_PROBLEM_DONE = 3,  /* the winner is known (and saved unless dry run) */
  /* The first, breadth-first pass over each class's heuristic family and its
   * main rival (rank 0 and 1) that the file has no entry for: the built-in
   * default measured and saved (default_gflops = tuned_gflops); the search
   * comes later, budget permitting. problem/problems count this pass. */
  CLFORGE_TUNE_BASELINE = 4,
  /* After the run, one per problem whose search did not run (budget spent,
   * stopped): default_gflops is its baseline's measurement, tuned_gflops and
   * params the entry it has (the baseline's or an earlier tune's); 0 and
   * NULL when neither exists. */
  CLFORGE_TUNE_NOT_REACHED = 5
} clforge_tune_event_kind;

typedef enum clforge_tune_outcome {
  CLFORGE_TUNE_OK = 0,
  CLFORGE_TUNE_SLOW = 1,         /* cut short: far slower than the best so far */
  CLFORGE_TUNE_BUILD_FAILED = 2, /* discarded */
  CLFORGE_TUNE_RUN_FAILED = 3,   /* discarded */
  CLFORGE_TUNE_WRONG = 4         /* discarded: differs from the CPU reference */
} clforge_tune_outcome;

/** What the tuner reports to the progress callback. Strings live until the
 *  callback returns. */
typedef struct clforge_tune_event {
  clforge_tune_event_kind kind;
  const char *op, *family, *shape_class, *dtypes, *layout;
  size_t shape[4];
  int ndims;
  int problem, problems;         /* this problem's index and how many the run has */
  size_t tried, total;           /* candidates evaluated / in the search space */
  double elapsed_s, left_s;      /* of the whole run's budget */
  /* CANDIDATE */
  clforge_tune_outcome outcome;
  const char *params;            /* "MWG=64 NWG=32 ..." */
  const char *message;           /* why it was discarded; PROBLEM_DONE: the paired confirmation's verdict
                                    against the default (NULL when none ran) */
  double gflops, build_s;
  double best_gflops;            /* best so far on this problem */
  /* PROBLEM_DONE: built-in default, tuned winner and CLBlast (0 when not
   * measured, e.g. CLBlast cannot do the dtypes) */
  double default_gflops, tuned_gflops, clblast_gflops;
  const char *provider;          /* "clforge" or "clblast" */
  int failures;                  /* candidates discarded on this problem */
  /* The family's place in its class for a call without a tuning file: 0 the
   * one it runs (the op's heuristic), 1 its main rival, 2 any other. */
  int rank;
} clforge_tune_event;

typedef struct clforge_tune_options {
  const char *ops;          /* "gemm", or "all" / NULL for every op */
  const char *shapes;       /* comma-separated shape classes, NULL = all */
  const char *dtypes;       /* comma-separated: "f32", "f16", "bf16"; NULL = all */
  const char *layouts;      /* comma-separated transposes "nn,nt,tn,tt"; NULL = all; "first": each op's first */
  clforge_tune_strategy strategy;
  double budget_s;          /* wall-clock budget for the whole run; 0 = 120 s */
  int max_evals;            /* per problem; 0 = unbounded (budget only) */
  unsigned seed;            /* 0 = a fixed default (runs are reproducible) */
  const char *space;        /* restrict the candidates, e.g. "gemm:MWG=64|128,VW=8|16;gemm_direct:KUD=1"
                               (a parameter not named keeps all its candidates); NULL = whole space */
  const char *file;         /* where to save; NULL = the user's tuning file */
  int dry_run;              /* measure and report, save nothing */
  int skip_peers;           /* do not time CLBlast */
  /* Called on the tuning thread; it must not call clforge functions on the
   * context being tuned. */
  void (*progress)(const clforge_tune_event *event, void *user);
  void *user;
  /* When it becomes nonzero (a signal handler may set it) the run ends after
   * the current candidate, keeping what it measured. */
  const volatile sig_atomic_t *stop;
  /* 0 or CLFORGE_COMPUTE_32F: tune strict calls (every family). 32F_FAST_16F
   * or 16F: tune the families with half variants (GEMM's, the fused
   * attention) for calls of that compute type, their f16 arithmetic among
   * the candidates, each checked with the compute type's tolerance; the
   * entries are keyed by it ("f16,f16,f16@16f") and only such calls read
   * them. Needs a device with cl_khr_fp16. (In a pointer's room: the ABI of
   * the reserved pointer it took.) */
  union {
    clforge_compute_type compute_type;
    void *compute_type_room_;
  };
  void *reserved[7];        /* room to grow without breaking the ABI; leave zero (refused otherwise) */
} clforge_tune_options;

/** Tune ctx's device: for each problem (op family x shape class x dtypes x
 *  layout) search the family's parameters, verify every candidate against
 *  the CPU reference, and save the winners to the tuning file (each problem
 *  as it finishes). The budget is split over the problems. While it runs,
 *  CLFORGE_PARAMS, CLFORGE_GEMM_PATH, clforge_context_set_params and the
 *  tuning files are not applied to ctx (the baseline is the built-in
 *  default). Returns CLFORGE_SUCCESS when the run finished or was stopped;
 *  ctx and contexts created afterwards use the new entries (others after
 *  clforge_context_reload_tuning). Options are checked before anything is
 *  measured. */
CLFORGE_API clforge_status clforge_tune(clforge_context ctx, const clforge_tune_options *options);

/* -------------------------------------------------------------- convolution */
typedef enum clforge_tensor_layout {
  CLFORGE_NCHW = 0, /* batch, channels, height, width (W contiguous) */
  CLFORGE_NHWC = 1  /* batch, height, width, channels (C contiguous) */
} clforge_tensor_layout;

typedef enum clforge_filter_layout {
  CLFORGE_KCRS = 0, /* output channel, input channel (of the group), filter row, column */
  CLFORGE_KRSC = 1  /* output channel, filter row, column, input channel */
} clforge_filter_layout;

/** Convolution algorithms. Each is its own kernel family; AUTO chooses by
 *  measurement (the tuning file) or by the documented heuristic. */
typedef enum clforge_conv_algo {
  CLFORGE_CONV_ALGO_AUTO = 0,
  CLFORGE_CONV_ALGO_DIRECT = 1,        /* any shape: the universal fallback */
  CLFORGE_CONV_ALGO_IMPLICIT_GEMM = 2, /* GEMM tiles gathering x on the fly; no workspace */
  CLFORGE_CONV_ALGO_GEMM_1X1 = 3,      /* 1x1, stride 1, no padding: clforge_gemm on x itself */
  CLFORGE_CONV_ALGO_IM2COL = 4,        /* im2col into the workspace + clforge_gemm */
  CLFORGE_CONV_ALGO_WINOGRAD_2X2 = 5,  /* F(2x2, 3x3): 3x3, stride 1, dilation 1 */
  CLFORGE_CONV_ALGO_WINOGRAD_4X4 = 6,  /* F(4x4, 3x3): 3x3, stride 1, dilation 1 */
  CLFORGE_CONV_ALGO_FFT = 7,           /* clFFT: large filters */
  CLFORGE_CONV_ALGO_DEPTHWISE = 8,     /* groups = C */
  CLFORGE_CONV_ALGO_COUNT = 9
} clforge_conv_algo;

/** "auto", "direct", "implicit_gemm", "gemm_1x1", "im2col", "winograd_2x2",
 *  "winograd_4x4", "fft", "depthwise" ("?" for other values). */
CLFORGE_API const char *clforge_conv_algo_name(clforge_conv_algo algo);
/** The algorithm named `name` (as above); CLFORGE_INVALID_ARGUMENT otherwise. */
CLFORGE_API clforge_status clforge_conv_algo_from_name(const char *name, clforge_conv_algo *algo);

/** What a convolution descriptor computes. Every kind describes the same
 *  forward problem (n, c, h, w, k, r, s, strides, padding, groups); the
 *  backward kinds read and write its gradients through the same fields:
 *    BACKWARD_DATA:   x_* describe dx (written), y_* dy, w_* the filter;
 *                     dx = alpha * conv_bwd_data(dy, w) + beta * dx.
 *                     This is also the forward pass of a transposed
 *                     convolution (ConvTranspose2d) whose input is "dy".
 *    BACKWARD_FILTER: x_* describe x, y_* dy, w_* dw (written), bias_*
 *                     dbias (written when a dbias buffer is given);
 *                     dw = alpha * conv_bwd_filter(x, dy) + beta * dw, and
 *                     dbias = alpha * sum of dy over N, P, Q + beta * dbias.
 *  The backward kinds take no activation (0). */
typedef enum clforge_conv_kind {
  CLFORGE_CONV_FORWARD = 0,
  CLFORGE_CONV_BACKWARD_DATA = 1,
  CLFORGE_CONV_BACKWARD_FILTER = 2
} clforge_conv_kind;

/** y = act(alpha * conv(x, w) + bias + beta * y): forward 2-D convolution
 *  (cross-correlation, as frameworks mean it) with a fused epilogue.
 *  Fill it with designated initializers; fields left out are 0 and 0 means
 *  the usual thing: forward, 2-D, NCHW x and y, KCRS filters, f32 storage,
 *  groups 1, stride 1, dilation 1, no padding, alpha 1 (see alpha_mode),
 *  beta 0 (y not read), no activation, the automatic algorithm.
 *  Output size: P = (H + pad_top + pad_bottom - dilation_h*(R-1) - 1) / stride_h + 1,
 *  Q likewise (clforge_conv2d_output_size). The filter holds K x (C/groups) x R x S
 *  values; group g maps input channels [g*C/G, (g+1)*C/G) to output channels
 *  [g*K/G, (g+1)*K/G). Offsets count elements of each buffer's storage type. */
typedef struct clforge_conv2d_desc {
  clforge_conv_kind kind;        /* 0 = forward; the backward kinds (above) for their calls */
  unsigned spatial_dims;         /* 0 or 2 */
  size_t n, c, h, w;             /* input: batch, channels, height, width */
  size_t k, r, s;                /* output channels; filter height, width */
  size_t groups;                 /* 0 = 1; groups = C is depthwise (K = C * multiplier) */
  size_t stride_h, stride_w;     /* 0 = 1 */
  size_t dilation_h, dilation_w; /* 0 = 1 */
  size_t pad_top, pad_bottom, pad_left, pad_right;
  clforge_tensor_layout x_layout, y_layout;
  clforge_filter_layout w_layout;
  clforge_dtype x_type, w_type, y_type, bias_type; /* 0 = f32; f32 accumulation always */
  size_t x_offset, w_offset, y_offset, bias_offset;
  float alpha, beta;             /* alpha 0 (left out) = 1 unless alpha_mode = CLFORGE_ALPHA_AS_GIVEN */
  clforge_alpha_mode alpha_mode;
  clforge_activation activation;
  clforge_conv_algo algo;        /* 0 = automatic; a forced algorithm that cannot do the
                                    shape fails with CLFORGE_UNSUPPORTED saying why */
  /* The arithmetic the forward's GEMM algorithms (1x1, im2col) may use
   * (clforge_compute_type; 0: the context's): f16 where the device has
   * cl_khr_fp16 and the GEMM families' half variants are chosen (tuned for
   * the compute type or forced). The other algorithms and the backward run
   * f32. In a size_t's room: the ABI of the reserved size it took. */
  union {
    clforge_compute_type compute_type;
    size_t compute_type_room_;
  };
  size_t reserved_sizes[7];      /* room for 3-D and transposed convolution; leave zero (refused otherwise) */
  /* The auxiliary tensor of clforge_conv2d_aux (AUX_STORE: y's shape and
   * layout) and clforge_conv2d_backward_data_aux (AUX_BACKWARD: dx's);
   * 0 (none) for every other call. */
  clforge_gemm_aux aux_mode;
  clforge_dtype aux_type;        /* 0 = f32 */
  size_t aux_offset;             /* elements of aux_type */
  void *reserved[2];             /* room to grow without breaking the ABI; leave zero (refused otherwise) */
} clforge_conv2d_desc;

/** The output's height P and width Q. CLFORGE_INVALID_ARGUMENT (with the
 *  numbers in clforge_last_error(NULL)) when either would be below 1. */
CLFORGE_API clforge_status clforge_conv2d_output_size(const clforge_conv2d_desc *desc, size_t *p, size_t *q);

/** Run `desc` on device buffers: x (N x C x H x W in x_layout), w (the
 *  filter), y (N x K x P x Q in y_layout; read when beta != 0), bias (K
 *  values, or NULL for none). Scratch memory comes from the context
 *  (allocated on demand, reused, freed with it; when the chosen algorithm's
 *  cannot be had the call falls back to one that needs less, else returns
 *  CLFORGE_OUT_OF_DEVICE_MEMORY). Everything is checked before anything is
 *  enqueued: y is untouched by any error. y must not overlap x, w or bias.
 *  n or k of 0 is a no-op needing no buffers (an event, if asked for, is a
 *  marker). */
CLFORGE_API clforge_status clforge_conv2d(clforge_context ctx, const clforge_conv2d_desc *desc, cl_mem x, cl_mem w,
                                          cl_mem bias, cl_mem y, cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event);

/** The quantization of an int8 convolution (clforge_conv2d_quantized):
 *  x per tensor, w per tensor or per output channel, y as
 *  clforge_gemm_quantized's C (s32 raw; float dequantized; s8/u8
 *  requantized with y_scale and y_zero_point). */
typedef struct clforge_conv_quant {
  clforge_quant_scheme w_scheme; /* PER_TENSOR, or PER_ROW: one scale per output channel k */
  cl_mem x_scale, w_scale;       /* f32 scales (1, and 1 or K); NULL for an s32 y */
  size_t x_scale_offset, w_scale_offset;
  int32_t x_zero_point, w_zero_point; /* within x's and w's value ranges; padding reads x_zero_point */
  float y_scale;                 /* s8/u8 y: the output's scale (> 0, finite) */
  int32_t y_zero_point;          /* s8/u8 y: within y's range */
  void *reserved[4];             /* leave zero (refused otherwise) */
} clforge_conv_quant;

/** An int8 convolution: desc as for clforge_conv2d (forward; NHWC x and y;
 *  KRSC or KCRS filters; any groups (one GEMM each; a depthwise layer,
 *  groups = C, runs a direct kernel); any stride, dilation and padding; bias,
 *  activation, alpha, beta as the int8 GEMM's epilogue) with s8/u8 x and w
 *  and the quantization in quant. Padding contributes nothing (it reads as
 *  x's zero point). Runs as the int8 GEMM: 1x1 filters at stride 1
 *  without padding read x in place; other shapes write the int8 column
 *  matrix (im2col, in passes that keep the context's workspace bounded)
 *  first. Exact as clforge_gemm_quantized is: equal to
 *  clforge_ref_conv2d_quantized bit for bit (GELU aside). Checked before
 *  anything is enqueued; y untouched on an error. n or k of 0 is a no-op. */
CLFORGE_API clforge_status clforge_conv2d_quantized(clforge_context ctx, const clforge_conv2d_desc *desc,
                                                    const clforge_conv_quant *quant, cl_mem x, cl_mem w,
                                                    cl_mem bias, cl_mem y, cl_uint num_events_in_wait_list,
                                                    const cl_event *event_wait_list, cl_event *event);

/** An int8 filter prepared once for clforge_conv2d_quantized_ex: transposed
 *  to the int8 GEMM's [R*S*C/groups][K] layout in a buffer of its own, so
 *  that a call neither transposes it again nor takes workspace for it. Tied
 *  to one context and to desc's filter (K, C/groups, R, S, w_type,
 *  w_layout); x, y, bias,
 *  N, H, W, strides, dilation, padding, the epilogue and the quantization
 *  may change between calls. The transpose is enqueued after the wait
 *  list; calls that use the weights are ordered after it on the context's
 *  queue, and w may be reused once it has run. The filter is K rows of
 *  R*S*C/groups: weights made with groups 1 and C/groups channels serve a
 *  grouped call of that filter. */
typedef struct clforge_conv2d_quantized_weights_s *clforge_conv2d_quantized_weights;
CLFORGE_API clforge_status clforge_conv2d_quantized_weights_create(clforge_context ctx,
                                                                   const clforge_conv2d_desc *desc, cl_mem w,
                                                                   cl_uint num_events_in_wait_list,
                                                                   const cl_event *event_wait_list,
                                                                   clforge_conv2d_quantized_weights *weights);
/** Free prepared int8 weights (NULL is fine). Waits for calls that use them. */
CLFORGE_API clforge_status clforge_conv2d_quantized_weights_release(clforge_conv2d_quantized_weights weights);
/** clforge_conv2d_quantized with prepared weights (w may then be NULL;
 *  weights NULL: clforge_conv2d_quantized). Weights made for another
 *  context or filter are refused. */
CLFORGE_API clforge_status clforge_conv2d_quantized_ex(clforge_context ctx, const clforge_conv2d_desc *desc,
                                                       const clforge_conv_quant *quant, cl_mem x, cl_mem w,
                                                       clforge_conv2d_quantized_weights weights, cl_mem bias,
                                                       cl_mem y, cl_uint num_events_in_wait_list,
                                                       const cl_event *event_wait_list, cl_event *event);

/** Filters transformed once for the algorithm a descriptor runs (Winograd
 *  tiles, FFT spectra, GEMM layouts) and reused across calls: inference
 *  runs one layer many times. Tied to one context and to the descriptor's
 *  shape, types, layouts and algorithm (only x, y, bias, offsets other than
 *  w_offset, alpha, beta and activation may change between calls). */
typedef struct clforge_conv2d_weights_s *clforge_conv2d_weights;

/** Transform w for desc's algorithm (desc->algo, or the one the automatic
 *  choice makes now for prepared weights, which may differ from the plain
 *  call's: see clforge_conv2d_weights_workspace_size). The transform is enqueued after the wait list; calls
 *  that use the weights are ordered after it on the context's queue. */
CLFORGE_API clforge_status clforge_conv2d_weights_create(clforge_context ctx, const clforge_conv2d_desc *desc,
                                                         cl_mem w, cl_uint num_events_in_wait_list,
                                                         const cl_event *event_wait_list,
                                                         clforge_conv2d_weights *weights);
/** The algorithm the weights were prepared for. */
CLFORGE_API clforge_status clforge_conv2d_weights_algo(clforge_conv2d_weights weights, clforge_conv_algo *algo);
/** Free prepared weights (NULL is fine). Waits for calls that use them. */
CLFORGE_API clforge_status clforge_conv2d_weights_release(clforge_conv2d_weights weights);

/** Bytes of scratch memory clforge_conv2d(desc) needs with the algorithm it
 *  would choose (0 for algorithms that need none): the size for
 *  clforge_conv2d_ex without prepared weights. */
CLFORGE_API clforge_status clforge_conv2d_workspace_size(clforge_context ctx, const clforge_conv2d_desc *desc,
                                                         size_t *bytes);
/** Bytes of scratch memory clforge_conv2d_ex needs with these prepared
 *  weights. Their algorithm was chosen knowing the filter transform is paid
 *  once, so it may differ from the plain call's and need another size than
 *  clforge_conv2d_workspace_size reports: size the workspace with this one
 *  when passing weights. */
CLFORGE_API clforge_status clforge_conv2d_weights_workspace_size(clforge_context ctx, clforge_conv2d_weights weights,
                                                                 size_t *bytes);

/** clforge_conv2d with the caller's choices: prepared weights (w may then be
 *  NULL; weights NULL uses w) and a workspace the caller owns (NULL: the
 *  context's). A workspace smaller than the algorithm needs returns
 *  CLFORGE_BUFFER_TOO_SMALL: size it with clforge_conv2d_workspace_size
 *  (weights NULL) or clforge_conv2d_weights_workspace_size (weights given). */
CLFORGE_API clforge_status clforge_conv2d_ex(clforge_context ctx, const clforge_conv2d_desc *desc, cl_mem x, cl_mem w,
                                             clforge_conv2d_weights weights, cl_mem bias, cl_mem y,
                                             cl_mem workspace, size_t workspace_size,
                                             cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                             cl_event *event);

/** Backward data of desc's convolution (desc->kind CLFORGE_CONV_BACKWARD_DATA):
 *  dx (N x C x H x W in x_layout) from dy (N x K x P x Q in y_layout) and
 *  the filter w. Algorithms: DIRECT gathers dx straight from dy (every
 *  shape); with stride 1 and padding <= dilation * (filter - 1), every
 *  forward algorithm runs it as a forward convolution on dy with the
 *  filter rotated by 180 degrees and its channels swapped (a transform into
 *  the context's scratch); AUTO picks. dx must not overlap dy or w; dx is
 *  read only when beta != 0; everything is checked before anything runs.
 *  n or c of 0 is a no-op. Deterministic (no atomics). */
CLFORGE_API clforge_status clforge_conv2d_backward_data(clforge_context ctx, const clforge_conv2d_desc *desc, cl_mem dy,
                                                        cl_mem w, cl_mem dx, cl_uint num_events_in_wait_list,
                                                        const cl_event *event_wait_list, cl_event *event);

/** The forward with its pre-activation kept (desc->aux_mode
 *  CLFORGE_GEMM_AUX_STORE, the GEMM's model): aux (aux_type, aux_offset;
 *  y's shape and layout) gets z = alpha * conv(x, w) + bias + beta * y as
 *  y's type holds it, and y gets act of that z (for 16-bit y it may differ
 *  in the last bit from clforge_conv2d's fused activation), for a backward
 *  that applies act' from aux (clforge_conv2d_backward_data_aux). Runs as
 *  the convolution (activation none) into y, then one pass copying z into
 *  aux and one applying the activation in place: not fused into the
 *  convolution's kernels (two passes over y more). aux must not overlap x,
 *  w, bias or y. Every argument (aux too) is checked before anything is
 *  enqueued; a later pass whose kernel fails to build leaves y holding z.
 *  Validation mode checks the convolution pass. */
CLFORGE_API clforge_status clforge_conv2d_aux(clforge_context ctx, const clforge_conv2d_desc *desc, cl_mem x,
                                              cl_mem w, cl_mem bias, cl_mem y, cl_mem aux,
                                              cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                              cl_event *event);

/** Backward data with the layer below's activation derivative and bias
 *  gradient in the same call (desc->kind CLFORGE_CONV_BACKWARD_DATA,
 *  desc->aux_mode CLFORGE_GEMM_AUX_BACKWARD; desc->activation names the
 *  activation whose output x was):
 *    dx = (alpha * conv_bwd_data(dy, w) + beta * dx) * act'(aux)
 *  with aux dx's shape and layout (aux_type, aux_offset; the forward's
 *  pre-activation, or for ReLU its output; not read for ACT_NONE), and,
 *  when dbias is given, dbias (C values, bias_type at bias_offset,
 *  overwritten) = dx summed over N, H and W in a fixed order. Runs as the
 *  backward data, then the derivative in place (clforge_activation_backward's
 *  kernel) and the channel sums: not fused into the convolution's kernels.
 *  aux must not overlap dx; dbias must overlap none of dx, dy, w, aux.
 *  Every argument is checked before anything is enqueued; a later pass
 *  whose kernel fails to build leaves dx partly done. Validation mode
 *  checks the convolution and the derivative's passes. */
CLFORGE_API clforge_status clforge_conv2d_backward_data_aux(clforge_context ctx, const clforge_conv2d_desc *desc,
                                                            cl_mem dy, cl_mem w, cl_mem dx, cl_mem aux, cl_mem dbias,
                                                            cl_uint num_events_in_wait_list,
                                                            const cl_event *event_wait_list, cl_event *event);

/** Backward filter of desc's convolution (desc->kind
 *  CLFORGE_CONV_BACKWARD_FILTER): dw (the filter's shape and w_layout) from
 *  x and dy, and dbias (K values; NULL: not computed) in the same call.
 *  Algorithms: DIRECT (every shape: the N*P*Q sum split across work-groups,
 *  the parts added in a fixed order; dbias fused), IM2COL (im2col of x in
 *  passes, GEMMs into an f32 sum, then one pass that applies alpha and beta
 *  and rounds), GEMM_1X1 (1x1, stride 1, no padding: the GEMMs on x
 *  itself); AUTO picks. Bit-for-bit deterministic on a device for a
 *  given algorithm. dw and dbias must not overlap x, dy or each other. */
CLFORGE_API clforge_status clforge_conv2d_backward_filter(clforge_context ctx, const clforge_conv2d_desc *desc,
                                                          cl_mem x, cl_mem dy, cl_mem dw, cl_mem dbias,
                                                          cl_uint num_events_in_wait_list,
                                                          const cl_event *event_wait_list, cl_event *event);

/** Where a convolution's algorithm comes from. */
typedef enum clforge_conv_algo_source {
  CLFORGE_CONV_ALGO_FROM_DESC = 1,      /* desc->algo */
  CLFORGE_CONV_ALGO_FROM_ENV = 2,       /* CLFORGE_CONV_ALGO (debugging) */
  CLFORGE_CONV_ALGO_FROM_TUNED = 3,     /* tuning file: fastest measured for this shape class */
  CLFORGE_CONV_ALGO_FROM_NEAREST = 4,   /* tuning file: fastest at the nearest tuned shape */
  CLFORGE_CONV_ALGO_FROM_HEURISTIC = 5, /* the built-in table (docs/tuning.md) */
  CLFORGE_CONV_ALGO_FROM_TUNER = 6,     /* the tuner is measuring it */
  CLFORGE_CONV_ALGO_FROM_WEIGHTS = 7,   /* the prepared weights' algorithm */
  CLFORGE_CONV_ALGO_FROM_FALLBACK = 8   /* the choice's workspace could not be had */
} clforge_conv_algo_source;

/** "desc", "env", "tuned", "nearest", "heuristic", "tuner", "weights", "fallback" ("?" otherwise). */
CLFORGE_API const char *clforge_conv_algo_source_name(clforge_conv_algo_source source);

/** Which algorithm, kernels and parameters a convolution uses, and why. */
typedef struct clforge_conv_choice {
  clforge_conv_algo algo;
  clforge_conv_algo_source source;
  char why[96];                  /* e.g. "tuned: winograd_4x4 812 > direct 301 GFLOP/s" */
  size_t workspace_bytes;        /* scratch memory the call needs */
  size_t p, q;                   /* output size */
  int nkernels;                  /* entries of kernels[] in use */
  clforge_kernel_choice kernels[4]; /* the algorithm's family first, then e.g. clforge_gemm's */
  unsigned char reserved[64];    /* room to grow without breaking the ABI */
} clforge_conv_choice;

/** What clforge_conv2d(ctx, desc, ...) would run (or, for a backward kind,
 *  clforge_conv2d_backward_data / _filter). Nothing is built or enqueued. */
CLFORGE_API clforge_status clforge_conv2d_explain(clforge_context ctx, const clforge_conv2d_desc *desc,
                                                  clforge_conv_choice *choice);

/* ------------------------------------------------------------------ softmax */
typedef enum clforge_softmax_kind {
  CLFORGE_SOFTMAX = 0,     /* exp(t - max) / sum exp(t - max) */
  CLFORGE_LOG_SOFTMAX = 1  /* t - max - log(sum exp(t - max)) */
} clforge_softmax_kind;

/** Softmax (or log-softmax) along the last axis of a [rows, n] tensor:
 *  y[r, i] = softmax_i(scale * x[r, i] + mask[r, i]), f32 arithmetic,
 *  max-subtracted. A row whose every t is -inf gives zeros (log-softmax:
 *  -inf); a NaN in a row makes the whole row NaN. The last axis is
 *  contiguous; rows are x_stride / y_stride / mask_stride elements apart
 *  (0 = n for x and y; mask_stride 0 broadcasts one mask row over every
 *  row). Fields left out are 0 and mean: softmax, f32, scale 1, tight rows.
 *  In place (x and y the same elements, same dtype and stride) is allowed;
 *  any other overlap of y with x or the mask is refused. */
typedef struct clforge_softmax_desc {
  clforge_softmax_kind kind;
  size_t rows, n;
  clforge_dtype x_type, y_type, mask_type; /* 0 = f32 */
  size_t x_offset, y_offset, mask_offset;
  size_t x_stride, y_stride, mask_stride;
  float scale;                             /* 0 = 1 (1/temperature) */
  /* clforge_softmax_backward's incoming gradient dy (the forward ignores
   * these three): 0 = f32, at offset 0, tight rows. */
  clforge_dtype dy_type;
  size_t dy_offset, dy_stride;
  void *reserved[2];                       /* room to grow without breaking the ABI; leave zero (refused otherwise) */
} clforge_softmax_desc;

/** Run `desc`; `mask` may be NULL (no mask). Checked before anything is
 *  enqueued: y is untouched by any error. rows or n of 0 is a no-op. */
CLFORGE_API clforge_status clforge_softmax(clforge_context ctx, const clforge_softmax_desc *desc, cl_mem x,
                                           cl_mem mask, cl_mem y, cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list, cl_event *event);

/** Which kernel and parameters clforge_softmax(desc) would use (one choice). */
CLFORGE_API clforge_status clforge_softmax_explain(clforge_context ctx, const clforge_softmax_desc *desc,
                                                   clforge_kernel_choice *choice);

/** The backward pass of the softmax `desc` describes: dx, the gradient of a
 *  loss with respect to x, from y (the forward's output, read through y_*)
 *  and dy (its gradient, read through dy_*), written through x_* (dx has
 *  x's type, offset and row stride). With t = scale * x + mask:
 *    softmax:      dx = scale * y * (dy - sum_j y_j dy_j)
 *    log-softmax:  dx = scale * (dy - exp(y) * sum_j dy_j)
 *  per row, f32 arithmetic (PyTorch's _softmax_backward_data and
 *  _log_softmax_backward_data, times the scale). The mask is not read: y
 *  holds it already (a masked element has y = 0, or -inf in log-softmax);
 *  the gradient with respect to an additive mask is dx with scale 1. A NaN
 *  in the row's sum (softmax: any y or dy; log-softmax: any dy) makes the
 *  row's dx NaN; a NaN y of log-softmax only its own dx. dx may be dy or y exactly (same
 *  buffer bytes, dtype and row stride: in place); any other overlap of dx
 *  with y or dy is refused. Checked before anything is enqueued: dx is
 *  untouched by any error. rows or n of 0 is a no-op. */
CLFORGE_API clforge_status clforge_softmax_backward(clforge_context ctx, const clforge_softmax_desc *desc, cl_mem y,
                                                    cl_mem dy, cl_mem dx, cl_uint num_events_in_wait_list,
                                                    const cl_event *event_wait_list, cl_event *event);

/** Which kernel and parameters clforge_softmax_backward(desc) would use. */
CLFORGE_API clforge_status clforge_softmax_backward_explain(clforge_context ctx, const clforge_softmax_desc *desc,
                                                            clforge_kernel_choice *choice);

/* ------------------------------------------------------------ cross-entropy */
/** How per-row losses become the loss (PyTorch's `reduction`). */
typedef enum clforge_reduction {
  CLFORGE_REDUCTION_MEAN = 0, /* the mean over the rows that count (not ignored) */
  CLFORGE_REDUCTION_SUM = 1,
  CLFORGE_REDUCTION_NONE = 2  /* one loss per row */
} clforge_reduction;

/** Softmax cross-entropy over rows of logits, and its gradient in the same
 *  call (the pass that computes the loss writes dlogits), f32 arithmetic.
 *  Row r has n logits z and the target class t = targets[r] (int32):
 *    lse = log sum_j exp(z_j),  p_j = exp(z_j - lse),  e = label_smoothing
 *    loss_r = lse - (1 - e) z_t - (e / n) sum_j z_j
 *    dlogits_rj = g * w_r * (p_j - (1 - e) [j == t] - e / n)
 *  (PyTorch's cross_entropy with label_smoothing), where g is the gradient
 *  scale (a loss scaler's scale: the grad_scale buffer's f32 at
 *  grad_scale_offset when one is given, else desc.grad_scale) and w_r is
 *  1 / (the number of rows that count) for MEAN, else 1. A row does not
 *  count when its target is negative (PyTorch's ignore_index -100) or, with
 *  use_ignore_index, equals ignore_index: its loss is 0 and its dlogits 0.
 *  A target >= n makes that row's loss and dlogits NaN (the device cannot
 *  raise an error; a NaN loss is the sign). The loss is f32: one value
 *  at loss_offset (MEAN: NaN when no row counts, as PyTorch; SUM), or one
 *  per row (NONE), unscaled by g; MEAN and SUM add the rows in a fixed
 *  order, so a call gives the same bits every time. Fields left out are 0
 *  and mean: f32, tight rows, MEAN, no smoothing, no ignore index but the
 *  negatives, g = 1. */
typedef struct clforge_cross_entropy_desc {
  size_t rows, n;                           /* N rows of C classes */
  clforge_dtype logits_type, dlogits_type;  /* 0 = f32 */
  size_t logits_offset, logits_stride;      /* elements; stride 0 = n */
  size_t dlogits_offset, dlogits_stride;    /* elements; stride 0 = n */
  size_t targets_offset;                    /* int32 elements */
  size_t loss_offset;                       /* f32 elements */
  size_t grad_scale_offset;                 /* f32 elements of the grad_scale buffer */
  clforge_reduction reduction;
  float label_smoothing;                    /* in [0, 1] */
  float grad_scale;                         /* 0 = 1; used when no grad_scale buffer is given */
  int use_ignore_index;                     /* 1: targets equal to ignore_index do not count either */
  int32_t ignore_index;
  void *reserved[4];                        /* room to grow without breaking the ABI; leave zero (refused otherwise) */
} clforge_cross_entropy_desc;

/** Run `desc`: logits (read), targets (int32), loss (f32 out; may be NULL:
 *  the gradient only), dlogits (out; may be NULL: the loss only; may be
 *  logits exactly: same bytes, dtype and row stride, in place), grad_scale
 *  (NULL: desc.grad_scale). Scratch (rows + 1 floats for MEAN and SUM)
 *  comes from the context. Checked before anything is enqueued: loss and
 *  dlogits are untouched by any error. rows = 0 writes MEAN's NaN or SUM's
 *  0 (nothing for NONE); n = 0 with rows > 0 is refused. */
CLFORGE_API clforge_status clforge_cross_entropy(clforge_context ctx, const clforge_cross_entropy_desc *desc,
                                                 cl_mem logits, cl_mem targets, cl_mem loss, cl_mem dlogits,
                                                 cl_mem grad_scale, cl_uint num_events_in_wait_list,
                                                 const cl_event *event_wait_list, cl_event *event);

/** Which kernel and parameters clforge_cross_entropy(desc) would use. */
CLFORGE_API clforge_status clforge_cross_entropy_explain(clforge_context ctx, const clforge_cross_entropy_desc *desc,
                                                         clforge_kernel_choice *choice);

/* --------------------------------------------------------------- normalization */
typedef enum clforge_norm_kind {
  CLFORGE_NORM_LAYER = 0, /* LayerNorm: (x - mean) / sqrt(var + eps) * weight + bias */
  CLFORGE_NORM_RMS = 1    /* RMSNorm: x / sqrt(mean(x^2) + eps) * weight (+ bias) */
} clforge_norm_kind;

/** Normalization over the last axis: `rows` rows of `n` features (PyTorch's
 *  F.layer_norm / F.rms_norm with normalized_shape (n,)), biased variance,
 *  f32 statistics and math whatever the storage. One descriptor serves the
 *  forward (x, weight, bias -> y, stats) and the backward (x, weight,
 *  stats, dy -> dx, dweight, dbias). stats: 2 f32 per row, the mean (0 for
 *  RMSNorm) and 1/sqrt(var + eps), written by the forward when asked and
 *  read by the backward when given (else recomputed). Offsets and strides
 *  count elements of each buffer's type; a stride of 0 is n. */
typedef struct clforge_norm_desc {
  clforge_norm_kind kind;
  size_t rows, n;
  float eps;                             /* 0 = 1e-5 */
  clforge_dtype x_type, y_type, param_type; /* weight, bias and their gradients; 0 = f32 */
  size_t x_offset, x_stride, y_offset, y_stride;
  size_t weight_offset, bias_offset, stats_offset;
  clforge_dtype dy_type, dx_type;        /* the backward's */
  size_t dy_offset, dy_stride, dx_offset, dx_stride;
  size_t dweight_offset, dbias_offset;
  void *reserved[4];                     /* room to grow without breaking the ABI; leave zero (refused otherwise) */
} clforge_norm_desc;

/** y = norm(x) * weight + bias; weight NULL: ones, bias NULL: zeros; stats
 *  NULL: not written. y may be x exactly (in place, same type and
 *  layout); nothing else may overlap y. rows 0 is a no-op. */
CLFORGE_API clforge_status clforge_norm(clforge_context ctx, const clforge_norm_desc *desc, cl_mem x, cl_mem weight,
                                        cl_mem bias, cl_mem y, cl_mem stats, cl_uint num_events_in_wait_list,
                                        const cl_event *event_wait_list, cl_event *event);

/** The backward: dx from dy (and x, weight, stats), and, when the buffers
 *  are given, dweight = sum over rows of dy * xhat and dbias = sum of dy
 *  (overwritten; fixed-order sums, the same bits every run). dx may be dy
 *  exactly. With stats NULL the statistics are recomputed from x (scratch
 *  from the context). */
CLFORGE_API clforge_status clforge_norm_backward(clforge_context ctx, const clforge_norm_desc *desc, cl_mem x,
                                                 cl_mem weight, cl_mem stats, cl_mem dy, cl_mem dx, cl_mem dweight,
                                                 cl_mem dbias, cl_uint num_events_in_wait_list,
                                                 const cl_event *event_wait_list, cl_event *event);

/* ------------------------------------------------------- KV cache append */
/** Appends new tokens' K and V rows to a paged KV cache (cache_layout:
 *  clforge_attention's tight [num_blocks, heads_kv, block_size, D], or
 *  FlashAttention's [num_blocks, block_size, heads_kv, D]; Dv for V), for
 *  the whole batch in one call: token t's row of head h goes to slot
 *  slots[t] (pool block slots[t] / block_size, position slots[t] %
 *  block_size: vLLM's slot mapping); a slot of -1 skips the token (padding).
 *  K and V are read from any strided source (a fused QKV projection's
 *  output: a token stride and a head stride, elements of a head
 *  contiguous). A q8_0 cache quantizes each row on the way, block by block
 *  as clforge_quantize's q8_0 does (bit for bit); other caches convert (one
 *  rounding). Sources may be token-outer ([T, H, D]) or head-outer. The
 *  call reads the slots back and refuses a slot outside [-1, num_blocks *
 *  block_size) or two tokens on one slot before anything runs: it blocks
 *  until the wait list has completed, and slots needs host reads. */
typedef enum clforge_kv_cache_layout {
  CLFORGE_KV_BLOCK_HEAD_SLOT = 0, /* [num_blocks, heads_kv, block_size, D]: clforge_attention's tight paged layout */
  CLFORGE_KV_BLOCK_SLOT_HEAD = 1  /* [num_blocks, block_size, heads_kv, D]: FlashAttention's and vLLM's (its strides
                                   * given to clforge_attention: flash_attn_with_kvcache in Python) */
} clforge_kv_cache_layout;

typedef struct clforge_kv_append_desc {
  size_t tokens, heads_kv, head_dim, head_dim_v; /* head_dim_v 0 = head_dim */
  size_t block_size, num_blocks;
  clforge_dtype src_type, cache_type;            /* src f32, f16, bf16; cache those or q8_0; 0 = f32 */
  size_t k_offset, k_token_stride, k_head_stride; /* the new K, elements; strides 0: dense [tokens, heads_kv, D] */
  size_t v_offset, v_token_stride, v_head_stride;
  size_t k_cache_offset, v_cache_offset;         /* elements (q8_0: bytes) */
  size_t slots_offset;                           /* int32 elements */
  clforge_kv_cache_layout cache_layout;          /* both caches' */
  void *reserved[4];                             /* room to grow without breaking the ABI; leave zero (refused otherwise) */
} clforge_kv_append_desc;

CLFORGE_API clforge_status clforge_kv_cache_append(clforge_context ctx, const clforge_kv_append_desc *desc, cl_mem k,
                                                   cl_mem v, cl_mem slots, cl_mem k_cache, cl_mem v_cache,
                                                   cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                                   cl_event *event);

/** Which kernel and parameters clforge_kv_cache_append(desc) would use. */
CLFORGE_API clforge_status clforge_kv_cache_append_explain(clforge_context ctx, const clforge_kv_append_desc *desc,
                                                           clforge_kernel_choice *choice);

/* -------------------------------------------------------------- embedding */
/** y[t] = table[ids[t]]: a row of dim per token (PyTorch's F.embedding),
 *  ids int32. table f32, f16, bf16, or q8_0 rows (dim a multiple of 32,
 *  each row dim / 32 blocks of 34 bytes, table_offset then in bytes),
 *  converted to y's type (f32, f16, bf16). The call reads the ids back and
 *  refuses an id outside [0, vocab), naming it, before anything runs: it
 *  blocks until the wait list has completed (an event the calling thread
 *  would complete later deadlocks), and ids needs host reads (not
 *  CL_MEM_HOST_NO_ACCESS or _HOST_WRITE_ONLY). */
typedef struct clforge_embedding_desc {
  size_t tokens, vocab, dim;
  clforge_dtype table_type, y_type; /* 0 = f32 */
  size_t table_offset;              /* elements (q8_0: bytes) */
  size_t ids_offset;                /* int32 elements */
  size_t y_offset, y_stride;        /* elements; y_stride between tokens' rows, 0 = dim */
  void *reserved[4];                /* room to grow without breaking the ABI; leave zero (refused otherwise) */
} clforge_embedding_desc;

CLFORGE_API clforge_status clforge_embedding(clforge_context ctx, const clforge_embedding_desc *desc, cl_mem table,
                                             cl_mem ids, cl_mem y, cl_uint num_events_in_wait_list,
                                             const cl_event *event_wait_list, cl_event *event);

/** Which kernel and parameters clforge_embedding(desc) would use. */
CLFORGE_API clforge_status clforge_embedding_explain(clforge_context ctx, const clforge_embedding_desc *desc,
                                                     clforge_kernel_choice *choice);

/* ------------------------------------------------------ rotary embedding */
typedef enum clforge_rope_style {
  CLFORGE_ROPE_NEOX = 0, /* split halves: element i pairs with i + R/2 (GPT-NeoX, Hugging Face's Llama) */
  CLFORGE_ROPE_GPTJ = 1  /* interleaved: element 2i pairs with 2i + 1 (GPT-J, llama.cpp's default) */
} clforge_rope_style;

/** Rotary position embedding of one tensor (Q or K: call it for each) of
 *  `tokens` rows of `heads` heads of head_dim elements, each token at its
 *  own position (an int32 per token: a paged batch's positions as they
 *  are). Pair i of the first rotary_dim elements (R) turns by the angle
 *  position * theta^(-2i/R), i < R/2: (a, b) -> (a cos - b sin, b cos + a
 *  sin); the elements past R pass through. The angle is computed in f32 (as
 *  PyTorch's and llama.cpp's RoPE are): its error grows with the position
 *  (docs/ARCHITECTURE.md, "Rotary embedding"). Strides count elements;
 *  elements of a head are contiguous; 0 strides: dense (head_dim,
 *  heads * head_dim); tokens may be the outer axis ([T, H, D], a packed
 *  QKV buffer) or heads ([H, T, D]). No frequency scaling (Llama 3's
 *  rope_scaling, YaRN) yet. */
typedef struct clforge_rope_desc {
  clforge_rope_style style;
  size_t tokens, heads, head_dim;
  size_t rotary_dim;              /* R: even, <= head_dim; 0 = head_dim */
  float theta;                    /* the base, >= 1; 0 = 10000 */
  clforge_dtype x_type, y_type;   /* 0 = f32 */
  size_t x_offset, x_token_stride, x_head_stride;
  size_t y_offset, y_token_stride, y_head_stride;
  size_t positions_offset;        /* int32 elements */
  void *reserved[4];              /* room to grow without breaking the ABI; leave zero (refused otherwise) */
} clforge_rope_desc;

/** y = rope(x, positions). y may be x exactly (in place: same buffer,
 *  offset, strides and type); no other overlap. tokens 0 is a no-op. */
CLFORGE_API clforge_status clforge_rope(clforge_context ctx, const clforge_rope_desc *desc, cl_mem x,
                                        cl_mem positions, cl_mem y, cl_uint num_events_in_wait_list,
                                        const cl_event *event_wait_list, cl_event *event);

/** Which kernel and parameters clforge_rope(desc) would use. */
CLFORGE_API clforge_status clforge_rope_explain(clforge_context ctx, const clforge_rope_desc *desc,
                                                clforge_kernel_choice *choice);

/* ------------------------------------------------------------- elementwise */
typedef enum clforge_binary_op {
  CLFORGE_BINARY_NONE = 0, /* unary: y = act(a); b is not read */
  CLFORGE_BINARY_ADD = 1,
  CLFORGE_BINARY_SUB = 2,  /* a - b */
  CLFORGE_BINARY_MUL = 3,
  CLFORGE_BINARY_DIV = 4,  /* a / b (IEEE: x/0 is +-inf or NaN) */
  CLFORGE_BINARY_MAX = 5,  /* a NaN on either side wins, as torch.maximum's */
  CLFORGE_BINARY_MIN = 6
} clforge_binary_op;

#define CLFORGE_MAX_DIMS 8

/** y = act(a op b) elementwise with NumPy's broadcasting: a and b are dense
 *  row-major tensors of ndims dimensions each (pad a shorter shape with
 *  leading 1s), every a_shape[i] equal to b_shape[i] or one of them 1; y
 *  (dense) has the larger of each pair. With op NONE, y = act(a) in a's
 *  shape (the standalone activations: ReLU, GELU, SiLU). A NaN stays NaN
 *  through every activation here, ReLU included (torch.relu's; the GEMM and
 *  convolution epilogues' ReLU maps NaN to 0). f32 math, one rounding to
 *  y's type. */
typedef struct clforge_elementwise_desc {
  clforge_binary_op op;
  clforge_activation activation;     /* applied to the result; NONE: none */
  size_t ndims;                      /* 1..CLFORGE_MAX_DIMS */
  size_t a_shape[CLFORGE_MAX_DIMS], b_shape[CLFORGE_MAX_DIMS];
  clforge_dtype a_type, b_type, y_type; /* 0 = f32 */
  size_t a_offset, b_offset, y_offset;  /* elements of each buffer's type */
  void *reserved[4];                 /* room to grow without breaking the ABI; leave zero (refused otherwise) */
} clforge_elementwise_desc;

/** Run desc. y may be a or b exactly (in place: same buffer, offset, type
 *  and y's shape); no other overlap of y with an input. An empty y is a
 *  no-op. Everything is checked before anything runs. */
CLFORGE_API clforge_status clforge_elementwise(clforge_context ctx, const clforge_elementwise_desc *desc, cl_mem a,
                                               cl_mem b, cl_mem y, cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list, cl_event *event);

/** Which kernel and parameters clforge_elementwise(desc) would use. */
CLFORGE_API clforge_status clforge_elementwise_explain(clforge_context ctx, const clforge_elementwise_desc *desc,
                                                       clforge_kernel_choice *choice);

/* ------------------------------------------------------ batch-norm folding */
/** Folds an inference batch norm that follows a convolution (per output
 *  channel k: y = gamma (x - mean) / sqrt(var + eps) + beta) into the
 *  convolution's filter and bias, prepared once as inference engines do:
 *  w'[k] = w[k] * s, b'[k] = (b[k] - mean[k]) * s + beta[k], s = gamma[k] /
 *  sqrt(var[k] + eps) (torch.nn.utils.fusion.fuse_conv_bn_weights). The
 *  filter's output channel is its outermost axis in both filter layouts
 *  (KCRS and KRSC), so it is read as k rows of per_k = (C / groups) R S
 *  elements. gamma, beta, mean, var: f32, k each, at bn_offset of their
 *  buffers. f32 math, one rounding to each output's type. */
typedef struct clforge_batchnorm_fold_desc {
  size_t k, per_k;
  float eps;                        /* 0 = 1e-5 (BatchNorm2d's default) */
  clforge_dtype w_type, w_out_type; /* 0 = f32 */
  clforge_dtype bias_type, bias_out_type;
  size_t w_offset, w_out_offset, bias_offset, bias_out_offset, bn_offset; /* elements */
  void *reserved[4];                /* room to grow without breaking the ABI; leave zero (refused otherwise) */
} clforge_batchnorm_fold_desc;

/** bias NULL: the convolution has none (b = 0). w_out may be w exactly and
 *  bias_out bias exactly (in place: same offset and type); no other overlap
 *  of an output with an input or the other output. */
CLFORGE_API clforge_status clforge_batchnorm_fold(clforge_context ctx, const clforge_batchnorm_fold_desc *desc,
                                                  cl_mem w, cl_mem bias, cl_mem gamma, cl_mem beta, cl_mem mean,
                                                  cl_mem var, cl_mem w_out, cl_mem bias_out,
                                                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                                  cl_event *event);

/** Which kernel and parameters clforge_batchnorm_fold(desc) would use. */
CLFORGE_API clforge_status clforge_batchnorm_fold_explain(clforge_context ctx, const clforge_batchnorm_fold_desc *desc,
                                                          clforge_kernel_choice *choice);

/* ------------------------------------------------------------------ pooling */
typedef enum clforge_pool_kind {
  CLFORGE_POOL_MAX = 0, /* the window's largest value; a NaN in the window wins (as PyTorch's) */
  CLFORGE_POOL_AVG = 1  /* the window's sum over its divisor (below) */
} clforge_pool_kind;

/** 2-D pooling of an N x C x H x W tensor, PyTorch's max_pool2d and
 *  avg_pool2d (and, with global_pool, adaptive_{avg,max}_pool2d(x, 1)), in
 *  NCHW or NHWC (x and y alike, dense). Output size per axis:
 *  floor((H + 2 pad - dilation (kernel - 1) - 1) / stride) + 1, rounded up
 *  instead with ceil_mode, whose last window must start inside the input
 *  or its left padding (else one fewer); padding at most half the kernel
 *  (as PyTorch requires). Max ignores padding: a dilated window with no tap
 *  inside the input gives -inf (as PyTorch's). Avg divides by
 *  divisor_override when set, else by the window clipped to the padded
 *  input (count_include_pad=True, PyTorch's default) or, with exclude_pad,
 *  by the window clipped to the input (0 where that is empty). With
 *  global_pool the window fields (kernel, stride, padding, dilation,
 *  ceil_mode) are ignored. f32 accumulation, one rounding to y's type. */
typedef struct clforge_pool_desc {
  clforge_pool_kind kind;
  clforge_tensor_layout layout;
  size_t n, c, h, w;
  size_t kernel_h, kernel_w;     /* ignored with global */
  size_t stride_h, stride_w;     /* 0: the kernel's (PyTorch's default) */
  size_t pad_h, pad_w;
  size_t dilation_h, dilation_w; /* 0 = 1; max only */
  int ceil_mode;
  int exclude_pad;               /* avg: count_include_pad=False */
  size_t divisor_override;       /* avg: 0 = none */
  int global_pool;               /* the whole H x W plane: output 1 x 1 */
  clforge_dtype x_type, y_type;  /* 0 = f32 */
  size_t x_offset, y_offset;     /* elements of each buffer's type */
  void *reserved[4];             /* room to grow without breaking the ABI; leave zero (refused otherwise) */
} clforge_pool_desc;

/** The output's height and width (checked as the call checks desc). */
CLFORGE_API clforge_status clforge_pool_output_size(const clforge_pool_desc *desc, size_t *out_h, size_t *out_w);

/** y = pool(x). y must not overlap x. n * c == 0 is a no-op. Everything is
 *  checked before anything runs. */
CLFORGE_API clforge_status clforge_pool(clforge_context ctx, const clforge_pool_desc *desc, cl_mem x, cl_mem y,
                                        cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                        cl_event *event);

/** Which kernel and parameters clforge_pool(desc) would use. */
CLFORGE_API clforge_status clforge_pool_explain(clforge_context ctx, const clforge_pool_desc *desc,
                                                clforge_kernel_choice *choice);

/* ------------------------------------------------------ activation backward */
/** dx = act'(z) * dy + beta * dx, elementwise: the backward of an activation
 *  a forward GEMM or convolution fused (clforge_activation), for the layer
 *  below. z is the pre-activation; for ReLU it may also be the forward's
 *  output (relu(z) > 0 exactly where z > 0; the derivative is 0 at z <= 0,
 *  as PyTorch's threshold_backward). ACT_NONE copies dy (times 1).
 *  GELU's derivatives: tanh form 0.5(1 + t) + 0.5 z (1 - t^2) sqrt(2/pi)
 *  (1 + 3 * 0.044715 z^2), t = tanh(sqrt(2/pi)(z + 0.044715 z^3)); erf form
 *  Phi(z) + z phi(z); SiLU's s (1 + z (1 - s)), s = 1 / (1 + exp(-z)). f32
 *  math, one rounding to dx's type. */
typedef struct clforge_activation_backward_desc {
  size_t count;                       /* elements */
  clforge_activation activation;
  clforge_dtype z_type, dy_type, dx_type; /* 0 = f32 */
  size_t z_offset, dy_offset, dx_offset;  /* elements of each buffer's type */
  float beta;                         /* 0: dx is not read */
  void *reserved[4];                  /* room to grow without breaking the ABI; leave zero (refused otherwise) */
} clforge_activation_backward_desc;

/** Run desc on device buffers. dx may be dy exactly (in place, same type
 *  and offset); no other overlap of dx with z or dy. count 0 is a no-op.
 *  Everything is checked before anything runs. */
CLFORGE_API clforge_status clforge_activation_backward(clforge_context ctx, const clforge_activation_backward_desc *desc,
                                                       cl_mem z, cl_mem dy, cl_mem dx, cl_uint num_events_in_wait_list,
                                                       const cl_event *event_wait_list, cl_event *event);

/** Which kernel and parameters clforge_activation_backward(desc) would use. */
CLFORGE_API clforge_status clforge_activation_backward_explain(clforge_context ctx,
                                                               const clforge_activation_backward_desc *desc,
                                                               clforge_kernel_choice *choice);

/* ---------------------------------------------------------------- optimizer */
/** The training state an optimizer step reads and updates on the device,
 *  16 bytes in a buffer of the caller's (write it once before training:
 *  e.g. {65536.0f, 0, 0, 0} for an f16 run with loss scaling, {1, 0, 0, 0}
 *  otherwise; the scale must be positive and finite; read it back to see
 *  the scale or whether a step was skipped). clforge_cross_entropy's
 *  grad_scale buffer can be this buffer, with grad_scale_offset =
 *  state_offset / 4 (an f32 index where state_offset counts bytes): the
 *  loss is then scaled by the current scale with no host round trip. */
typedef struct clforge_train_state {
  float scale;         /* the loss scale the gradients carry (1 without loss scaling) */
  int32_t good_steps;  /* steps applied since the scale last changed */
  int32_t skipped;     /* 1 when the last step found inf/NaN and was skipped, else 0 */
  int32_t step;        /* steps applied so far (AdamW's bias correction uses step + 1) */
} clforge_train_state;

typedef enum clforge_optimizer_kind {
  CLFORGE_OPTIMIZER_SGD = 0,  /* PyTorch's SGD: momentum, dampening, Nesterov, L2 weight decay */
  CLFORGE_OPTIMIZER_ADAMW = 1 /* PyTorch's AdamW: decoupled weight decay, bias correction */
} clforge_optimizer_kind;

/** One tensor of a model as an optimizer step sees it. param is the model's
 *  copy (param_type: f32, f16 or bf16), rewritten from the f32 master weights
 *  after each step; master may be NULL when param is f32 (it is then the
 *  master). grad has grad_type. m (SGD's momentum buffer; AdamW's first
 *  moment) and v (AdamW's second moment) are f32, NULL where the kind does
 *  not use them (SGD without momentum: m NULL). Offsets count elements of
 *  each buffer's type. */
typedef struct clforge_optimizer_tensor {
  size_t count;
  cl_mem param, master, grad, m, v;
  size_t param_offset, master_offset, grad_offset, m_offset, v_offset;
  clforge_dtype param_type, grad_type; /* 0 = f32 */
  void *reserved[2];                   /* leave NULL (refused otherwise) */
} clforge_optimizer_tensor;

/** An optimizer step over many tensors, PyTorch's formulas in f32 on the
 *  master weights, with the gradients divided by the state's scale first.
 *  With loss_scaling, every gradient is checked for inf and NaN before any
 *  tensor is touched: if one is found, no tensor changes, the state's
 *  skipped becomes 1 and its scale is multiplied by backoff_factor (good
 *  steps back to 0); otherwise the step is applied, step and good_steps grow
 *  by one, and after growth_interval good steps the scale is multiplied by
 *  growth_factor. Nothing waits on the host. Fields left out are 0 and mean:
 *  SGD without momentum, betas 0.9 and 0.999, eps 1e-8, no weight decay, no
 *  loss scaling, factors 2 and 0.5, an interval of 2000 (so a beta or eps
 *  of exactly 0 cannot be asked for: give 1e-30). lr 0 is refused. The
 *  scale grows only to a finite value. m and v start at zero (the first
 *  SGD step sets the momentum buffer to the gradient, as PyTorch). */
typedef struct clforge_optimizer_desc {
  clforge_optimizer_kind kind;
  float lr;
  float momentum, dampening;   /* SGD */
  int nesterov;                /* SGD: 1 for Nesterov momentum (needs momentum > 0, dampening 0) */
  float beta1, beta2, eps;     /* AdamW; 0 = 0.9, 0.999, 1e-8 */
  float weight_decay;          /* SGD: added to the gradient (L2); AdamW: decoupled, lr * wd * p */
  int loss_scaling;            /* 1: dynamic loss scaling (check, skip, back off, grow) */
  float growth_factor, backoff_factor; /* 0 = 2, 0.5 */
  int growth_interval;         /* 0 = 2000 */
  size_t state_offset;         /* bytes into the state buffer; a multiple of 4 */
  void *reserved[4];           /* leave NULL (refused otherwise) */
} clforge_optimizer_desc;

/** One step of `desc` over tensors[0 .. ntensors) (one call, one launch or
 *  two per tensor, no host round trip), reading and updating the
 *  clforge_train_state at desc->state_offset of `state`. Everything is
 *  checked and every kernel built before anything is enqueued: nothing
 *  changes on an error reported then (an enqueue refused by the driver
 *  part way can leave a partial step). No written buffer (params,
 *  masters, moments) may share bytes with another tensor's buffers or the
 *  state, but for a tensor's own param and master (the same elements, f32:
 *  allowed); gradients may share bytes with each other. */
CLFORGE_API clforge_status clforge_optimizer_step(clforge_context ctx, const clforge_optimizer_desc *desc,
                                                  size_t ntensors, const clforge_optimizer_tensor *tensors,
                                                  cl_mem state, cl_uint num_events_in_wait_list,
                                                  const cl_event *event_wait_list, cl_event *event);

/** Which kernel and parameters a step over a tensor of `count` elements
 *  with these types would use. */
CLFORGE_API clforge_status clforge_optimizer_explain(clforge_context ctx, const clforge_optimizer_desc *desc,
                                                     const clforge_optimizer_tensor *tensor,
                                                     clforge_kernel_choice *choice);

/* ---------------------------------------------------------------- attention */
/** Where the causal diagonal sits when Sq != Sk. */
typedef enum clforge_causal {
  CLFORGE_CAUSAL_NONE = 0,
  /* query i sees keys j <= i (PyTorch's is_causal) */
  CLFORGE_CAUSAL_TOP_LEFT = 1,
  /* query i sees keys j <= i + (kv_len - q_len): the last query sees every
   * key (FlashAttention's; what a KV-cache decoder needs) */
  CLFORGE_CAUSAL_BOTTOM_RIGHT = 2
} clforge_causal;

/** How an attention call is computed; AUTO chooses by shape (and the
 *  tuning file). Both keep softmax and accumulation in f32 and never hold
 *  the Sq x Sk scores in device memory. */
typedef enum clforge_attention_algo {
  CLFORGE_ATTENTION_ALGO_AUTO = 0,
  CLFORGE_ATTENTION_ALGO_FUSED = 1,    /* one pass: a work-group per query block streams K and V */
  CLFORGE_ATTENTION_ALGO_SPLIT_KV = 2, /* flash-decoding: key range split over work-groups, then an
                                          LSE-weighted combine (small Sq) */
  CLFORGE_ATTENTION_ALGO_COUNT = 3
} clforge_attention_algo;

/** "auto", "fused", "split_kv" ("?" for other values). */
CLFORGE_API const char *clforge_attention_algo_name(clforge_attention_algo algo);

/** What an attention descriptor computes: the forward (clforge_attention)
 *  or, with the same fields describing the same problem, its backward
 *  (clforge_attention_backward). */
typedef enum clforge_attention_kind {
  CLFORGE_ATTENTION_FORWARD = 0,
  CLFORGE_ATTENTION_BACKWARD = 1
} clforge_attention_kind;

/** O = softmax(scale * Q K^T (soft-capped) + mask) V for every batch item
 *  b and query head h, with key/value head h / (Hq / Hkv) (GQA; Hkv = 1 is
 *  MQA). Shapes: Q [B, Hq, Sq, D], K [B, Hkv, Sk, D], V [B, Hkv, Sk, Dv],
 *  O [B, Hq, Sq, Dv], mask [B, Hq, Sq, Sk], LSE [B, Hq, Sq]. Each tensor is
 *  an element offset plus element strides of its axes in that order
 *  (b, h, s, d); an all-zero stride array means tight in that order (BHSD),
 *  so BSHD and packed QKV are a matter of strides. An input's stride may be
 *  0 (broadcast: e.g. a mask {0, 0, Sk, 1} serves every batch item and
 *  head); O's and LSE's items must not overlap.
 *  Fields left out are 0 and mean: forward, f32 storage, scale 1/sqrt(D),
 *  no causal mask, no window, no soft cap, the automatic algorithm.
 *  Per-token semantics, with kv_len = kv_lens[b] (Sk without the buffer)
 *  and q_len = q_lens[b] (Sq without it), both clamped to [0, Sk] / [0, Sq]:
 *    s = scale * q.k;  s = cap * tanh(s / cap) when softcap > 0;  s += mask;
 *    key j is masked when j >= kv_len, when causal and j > diag(i), and
 *    when window > 0 and j <= diag(i) - window, where diag(i) = i
 *    (top-left) or i + kv_len - q_len (bottom-right);
 *  query rows i >= q_len are not written (O nor LSE); a row with no
 *  unmasked key (or every s = -inf) writes zeros and LSE = -inf.
 *  LSE is the natural log of sum_j exp(s_j) over the unmasked keys, in f32.
 *
 *  Quantized KV cache: kv_type CLFORGE_Q8_0 (forward only) stores each
 *  K / V row as D / 32 (Dv / 32) q8_0 blocks of 34 bytes, contiguous (D
 *  and Dv multiples of 32, d strides 0 or 1); K's and V's offsets and
 *  b, h, s strides then count bytes (all 0: tight rows of D / 32 * 34
 *  bytes). clforge_quantize with CLFORGE_QUANT_Q8_0 writes such rows.
 *
 *  Paged KV cache (vLLM's model; kv_block_size > 0, forward only): K and
 *  V live in a pool of kv_num_blocks blocks of kv_block_size keys each,
 *  and key j of batch item b is slot j % kv_block_size of pool block
 *  block_table[block_table_offset + b * block_table_stride +
 *  j / kv_block_size] (int32, extra->block_table). K's and V's strides
 *  then read (block, head, slot, d) instead of (b, h, s, d); all 0 is
 *  tight [kv_num_blocks, Hkv, kv_block_size, D]. Sk bounds every
 *  sequence's length (block_table_stride >= ceil(Sk / kv_block_size)),
 *  kv_lens gives each one's. The call reads the table and the lengths
 *  back (it waits for the wait list) and refuses a length outside
 *  [0, Sk] or a table entry of a block the sequence uses outside
 *  [0, kv_num_blocks): entries past a sequence's blocks are never read.
 *  Results equal the contiguous call's on the same keys bit for bit. */
typedef struct clforge_attention_desc {
  clforge_attention_kind kind;         /* 0 = forward */
  size_t batch, heads_q, heads_kv;     /* B (0 = 1), Hq, Hkv (0 = Hq); Hq a multiple of Hkv */
  size_t seq_q, seq_kv;                /* Sq, Sk */
  size_t head_dim, head_dim_v;         /* D (1..256), Dv (0 = D; 1..256) */
  clforge_dtype q_type, kv_type, o_type, mask_type; /* 0 = f32; K and V share kv_type */
  size_t q_offset, k_offset, v_offset, o_offset, mask_offset, lse_offset;
  size_t q_strides[4], k_strides[4], v_strides[4], o_strides[4]; /* b, h, s, d; all 0 = BHSD */
  size_t mask_strides[4];              /* b, h, sq, sk; all 0 = tight */
  size_t lse_strides[3];               /* b, h, sq; all 0 = tight */
  size_t kv_lens_offset, q_lens_offset; /* int32 elements */
  float scale;                         /* 0 = 1/sqrt(D) */
  float softcap;                       /* 0 = none; > 0: cap * tanh(s / cap) */
  clforge_causal causal;
  size_t window;                       /* 0 = none; > 0 (needs causal): the query sees the `window`
                                          keys ending at its diagonal */
  clforge_attention_algo algo;         /* 0 = automatic */
  /* Paged K and V (above); kv_block_size 0 = contiguous. */
  size_t kv_block_size;                /* keys per pool block */
  size_t kv_num_blocks;                /* blocks in the pool */
  size_t block_table_stride;           /* int32 entries between batch items' rows; 0 = ceil(Sk / kv_block_size) */
  size_t block_table_offset;           /* int32 elements */
  /* The arithmetic the forward may use (clforge_compute_type; 0: the
   * context's, strict f32 unless set): a call allowing f16 may run the fused
   * kernel's half variant where the device has cl_khr_fp16
   * (docs/inference-precision.md has its error bound). The backward and the
   * split-KV decode run f32. In a size_t's room: the ABI of the reserved
   * size it took. */
  union {
    clforge_compute_type compute_type;
    size_t compute_type_room_;
  };
  /* Room for ALiBi slopes and more without breaking the ABI; leave zero
   * (refused otherwise). */
  size_t reserved_sizes[3];
  void *reserved[4];
} clforge_attention_desc;

/** The optional buffers of an attention call; NULL members are not used. */
typedef struct clforge_attention_buffers {
  cl_mem mask;     /* additive, mask_type, [B, Hq, Sq, Sk] through mask_strides */
  cl_mem kv_lens;  /* B int32 key lengths (padding): keys at or past kv_lens[b] are masked */
  cl_mem q_lens;   /* B int32 query lengths: rows at or past q_lens[b] are not written */
  cl_mem lse;      /* f32 [B, Hq, Sq] output: log-sum-exp of each row's scores */
  cl_mem block_table; /* int32 block table of a paged KV cache (desc->kv_block_size > 0) */
  void *reserved[7]; /* leave NULL (refused otherwise) */
} clforge_attention_buffers;

/** Run `desc` on device buffers q, k, v and o; `extra` may be NULL. Scratch
 *  memory (the split-KV partial results: B*Hq*Sq*splits*(Dv+2) floats, never
 *  Sq*Sk) comes from the context. Everything is checked before anything is
 *  enqueued: o and lse are untouched by any error. o and lse must not
 *  overlap each other or any input. Sq = 0 is a no-op needing no buffers
 *  (an event, if asked for, is a marker). */
CLFORGE_API clforge_status clforge_attention(clforge_context ctx, const clforge_attention_desc *desc, cl_mem q,
                                             cl_mem k, cl_mem v, cl_mem o, const clforge_attention_buffers *extra,
                                             cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                             cl_event *event);

/** The gradients' tensors of clforge_attention_backward: dO in, dQ, dK and
 *  dV out, each an element offset plus (b, h, s, d) element strides (all
 *  0 = BHSD) of Q's, K's, V's and O's shapes. */
typedef struct clforge_attention_grads {
  clforge_dtype do_type, dq_type, dkv_type; /* 0 = f32; dK and dV share dkv_type */
  size_t do_offset, dq_offset, dk_offset, dv_offset;
  size_t do_strides[4], dq_strides[4], dk_strides[4], dv_strides[4];
  void *reserved[4];                        /* leave NULL (refused otherwise) */
} clforge_attention_grads;

/** The backward of clforge_attention (desc->kind CLFORGE_ATTENTION_BACKWARD;
 *  every other field as the forward had it): dQ, dK, dV from Q, K, V, the
 *  forward's O and LSE (extra->lse, required) and dO, FlashAttention-2's
 *  way: P = exp(S - LSE) recomputed per key, D = rowsum(dO * O), dS =
 *  P (dO V^T - D) (times the soft cap's derivative), dQ = scale dS K, dK =
 *  scale dS^T Q, dV = P^T dO; no Sq x Sk buffer. GQA/MQA: dK and dV sum
 *  their group's query heads in a fixed order (deterministic: each output
 *  element has one writer). Masking as the forward (causal alignments,
 *  window, key and query lengths, the additive mask, soft cap). Rows past
 *  q_len and keys past kv_len get zero gradients. Outputs must not overlap
 *  any input or each other. Scratch: B*Hq*Sq floats from the context. */
CLFORGE_API clforge_status clforge_attention_backward(clforge_context ctx, const clforge_attention_desc *desc,
                                                      const clforge_attention_grads *grads, cl_mem q, cl_mem k,
                                                      cl_mem v, cl_mem o, cl_mem d_o,
                                                      const clforge_attention_buffers *extra, cl_mem dq, cl_mem dk,
                                                      cl_mem dv, cl_uint num_events_in_wait_list,
                                                      const cl_event *event_wait_list, cl_event *event);

/** Bytes of device scratch memory clforge_attention(desc) needs (0 for the
 *  fused algorithm). */
CLFORGE_API clforge_status clforge_attention_workspace_size(clforge_context ctx, const clforge_attention_desc *desc,
                                                            size_t *bytes);

/** Which algorithm, kernels and parameters an attention call uses. */
typedef struct clforge_attention_choice {
  clforge_attention_algo algo;
  char why[96];                  /* e.g. "heuristic: Sq = 1 <= 16, split_kv" */
  int splits;                    /* key-range splits (split_kv), else 1 */
  size_t workspace_bytes;
  int nkernels;
  clforge_kernel_choice kernels[2]; /* the algorithm's kernel, then its combine */
  unsigned char reserved[64];
} clforge_attention_choice;

/** What clforge_attention(ctx, desc, ...) would run. Nothing is enqueued. */
CLFORGE_API clforge_status clforge_attention_explain(clforge_context ctx, const clforge_attention_desc *desc,
                                                     clforge_attention_choice *choice);

/* ----------------------------------------------------------- communicators */
/** A communicator: N ranks, each on its own clforge context, that exchange
 *  cl_mem ranges through host memory (docs/collectives.md). Every rank calls
 *  the same collectives in the same order; the k-th call of each rank is one
 *  collective. A call only enqueues: one thread may call ranks 0..N-1 in turn.
 *  Each rank's collectives run on two queues of the communicator's own (on
 *  its context's device), so the context's queue keeps running kernels: a
 *  collective starts after its wait list and everything enqueued on the
 *  context's queue before the call; what comes after it on that queue waits
 *  for it only through *event (with event NULL the context's queue gets a
 *  barrier on it). A rank's context is used by that rank's calls only. */
typedef struct clforge_comm_s *clforge_comm;

typedef enum clforge_reduce_op {
  CLFORGE_REDUCE_SUM = 0,
  CLFORGE_REDUCE_MEAN = 1, /* the sum, then divided by the number of ranks (in f32) */
  CLFORGE_REDUCE_MAX = 2,  /* NaN wins (the lowest rank's); max(+0, -0) = +0 */
  CLFORGE_REDUCE_MIN = 3   /* NaN wins (the lowest rank's); min(+0, -0) = -0 */
} clforge_reduce_op;

/** All-reduce's algorithm (docs/collectives.md). Both give the same bits:
 *  each sums in the one defined order below. */
typedef enum clforge_comm_algo {
  CLFORGE_COMM_ALGO_AUTO = 0,   /* by message size: gather below the crossover, owner above */
  CLFORGE_COMM_ALGO_OWNER = 1,  /* rank r sums the r-th part of each piece, then sends it to all:
                                   bandwidth-optimal (2(N-1)/N of the message per rank) */
  CLFORGE_COMM_ALGO_GATHER = 2  /* every rank gets every contribution and sums all of them:
                                   latency-optimal (one exchange) */
} clforge_comm_algo;

/** "sum", "mean", "max", "min"; "?" for another value. */
CLFORGE_API const char *clforge_reduce_op_name(clforge_reduce_op op);

typedef struct clforge_comm_options {
  /* A collective that a rank has not called this long after the first
   * rank's call, or whose inputs (wait lists, earlier work on the contexts'
   * queues, copies to the host) are not ready this long after the last
   * rank's call, fails with CLFORGE_COMM_TIMEOUT naming the rank
   * (clforge_comm_status); 0: CLFORGE_COMM_TIMEOUT_MS, else 60000. */
  uint32_t timeout_ms;
  /* Bytes of each pipelined piece (copies to the host, the sum, copies back
   * overlap piece by piece); 0: 1 MiB. Rounded to whole elements. */
  size_t chunk_bytes;
  /* All-reduce's algorithm; AUTO: CLFORGE_COMM_ALGO (owner or gather),
   * else by size. Over MPI every rank must give the same. */
  clforge_comm_algo algo;
  uint32_t reserved[7]; /* zero */
} clforge_comm_options;

/** N communicators, comms[r] of rank r on ctxs[r], in one process (devices
 *  of one machine, sub-devices, contexts of one device). opts may be NULL.
 *  The contexts must be distinct; each must outlive its communicator. */
CLFORGE_API clforge_status clforge_comm_create_local(int n, const clforge_context *ctxs,
                                                     const clforge_comm_options *opts, clforge_comm *comms);
/** This process's rank of an MPI communicator, given by its Fortran handle
 *  (MPI_Comm_c2f; mpi4py's comm.py2f()), so that this header needs no
 *  mpi.h: clforge_comm_create_mpi (clforge/clforge_mpi.h) takes the
 *  MPI_Comm itself, and documents both. CLFORGE_UNSUPPORTED in a clforge
 *  built without MPI (clforge_comm_mpi_library reports which MPI). */
CLFORGE_API clforge_status clforge_comm_create_mpi_fint(int32_t fortran_comm, clforge_context ctx,
                                                        const clforge_comm_options *opts, clforge_comm *comm);
/** The MPI library clforge was built with ("Open MPI v4.1.4, ..."), or ""
 *  without MPI: a caller that loads MPI through another binding (mpi4py)
 *  checks that both are one. */
CLFORGE_API const char *clforge_comm_mpi_library(void);
/** The context the rank's collectives use (the one it was created on, or
 *  the one clforge_comm_create_mpi made for it). */
CLFORGE_API clforge_status clforge_comm_context(clforge_comm comm, clforge_context *ctx);
/** Wait for the rank's collectives and release it; NULL is a no-op. A
 *  pending collective it never called fails at once (the other ranks are
 *  not kept waiting); one it called waits for the others at most the
 *  timeout, and for its own wait list. */
CLFORGE_API void clforge_comm_destroy(clforge_comm comm);
CLFORGE_API clforge_status clforge_comm_rank(clforge_comm comm, int *rank);
CLFORGE_API clforge_status clforge_comm_size(clforge_comm comm, int *size);
/** CLFORGE_SUCCESS while the communicator works, else its failure
 *  (CLFORGE_COMM_TIMEOUT, _MISMATCH, _BROKEN, an OpenCL error of a copy).
 *  A failure found after the calls returned (a rank that never calls, a
 *  copy that fails) does not fail the collectives' events: they complete,
 *  every rank's recv holds NaN where the result was not computed, and the
 *  communicator refuses every later call; check this after waiting where
 *  a silent failure matters. */
CLFORGE_API clforge_status clforge_comm_status(clforge_comm comm);
/** The message of the communicator's failure, naming the rank, or "" while
 *  it works (valid until the group's last communicator is destroyed).
 *  Errors of a call's own arguments go to its context (clforge_last_error). */
CLFORGE_API const char *clforge_comm_last_error(clforge_comm comm);

/** Which all-reduce a call of `bytes` on an MPI communicator runs: the
 *  options' or CLFORGE_COMM_ALGO's algorithm, else OWNER from the crossover
 *  on and GATHER below it. *crossover_bytes and *source (either may be NULL)
 *  tell the crossover and where it came from: "built-in" (64 KiB), "tuned"
 *  (the tuning file's entry for this many ranks), "nearest" (another rank
 *  count's), "rank 0's" (every rank takes rank 0's), "clforge_comm_tune",
 *  or "options" when an algorithm was named. Ranks of one process have one
 *  all-reduce: CLFORGE_UNSUPPORTED. */
CLFORGE_API clforge_status clforge_comm_allreduce_algo(clforge_comm comm, size_t bytes, clforge_comm_algo *algo,
                                                       size_t *crossover_bytes, const char **source);

/** What clforge_comm_tune measured: per message size (1 KiB to 4 MiB, x2),
 *  the median over 15 runs of the slowest rank's time of each algorithm, and
 *  the crossover chosen from them: of the sizes (and twice the largest, for
 *  gathering everywhere) the one whose choice costs least summed over the
 *  sizes, each size's cost its time over the faster algorithm's there. */
typedef struct clforge_comm_tune_result {
  size_t crossover_bytes;           /* gather below, the owners from */
  int sizes;
  size_t bytes[16];
  double owner_s[16], gather_s[16];
  double seconds;                   /* the whole sweep */
} clforge_comm_tune_result;

/** Measure all-reduce's crossover on this MPI job's ranks and links, every
 *  rank calling it (collective; in-process ranks: CLFORGE_UNSUPPORTED): both
 *  algorithms alternating run by run at each size, every rank deciding
 *  alike from the slowest rank's times. The communicator uses the result
 *  from then on, and rank 0 saves it as a tuning-file entry (family
 *  "allreduce", class "ranks_<N>") into options->file or the user's tuning
 *  file; communicators created later on contexts that read that file (the
 *  user's, or CLFORGE_TUNING_FILE's) find it. options may be NULL; only its
 *  file, dry_run (measure and report; change and save nothing; the same on
 *  every rank) and ops (NULL or "allreduce") apply, the others must be zero.
 *  Every rank returns the same outcome: a refusal on any rank (bad options,
 *  result NULL, rank 0 without a file) refuses on all, with nothing changed;
 *  a rank that does not call it within the communicator's timeout fails the
 *  others with CLFORGE_COMM_TIMEOUT (the communicator is then broken). Where
 *  rank 0 cannot save, nothing is applied. `mpirun -np N clforge tune --op
 *  allreduce`. */
CLFORGE_API clforge_status clforge_comm_tune(clforge_comm comm, const clforge_tune_options *options,
                                             clforge_comm_tune_result *result);

/** What a collective computes; offsets and counts are in elements.
 *  Reductions are in one defined order whatever the sizes and pieces: per
 *  element, s = x_0, then s = s + x_1, ..., s + x_(N-1) (x_r rank r's value
 *  widened to f32, f32 sums), MEAN's division last, rounded once to dtype;
 *  every rank gets the same bits (clforge_ref_allreduce is that order). */
typedef struct clforge_collective_desc {
  clforge_dtype dtype;  /* CLFORGE_F32, F16 or BF16 */
  clforge_reduce_op op; /* all-reduce and reduce-scatter */
  /* all-reduce, broadcast: elements of each rank's buffers; reduce-scatter:
   * of each rank's result (its send holds N * count); all-gather: of each
   * rank's contribution (its recv holds N * count, rank r's at r * count) */
  size_t count;
  int root;             /* broadcast: the rank whose send is copied */
  uint32_t reserved[8]; /* zero */
} clforge_collective_desc;

/** recv = the reduction over the ranks of send; send == recv at the same
 *  offset works in place, any other overlap is refused. */
CLFORGE_API clforge_status clforge_allreduce(clforge_comm comm, const clforge_collective_desc *desc, cl_mem send,
                                             size_t send_offset, cl_mem recv, size_t recv_offset,
                                             cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                             cl_event *event);
/** recv = the root's send on every rank (send is read on the root only and
 *  may be NULL elsewhere; the root's recv may be its send). */
CLFORGE_API clforge_status clforge_broadcast(clforge_comm comm, const clforge_collective_desc *desc, cl_mem send,
                                             size_t send_offset, cl_mem recv, size_t recv_offset,
                                             cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                             cl_event *event);
/** recv (count elements) = block r (elements r*count ..) of the reduction
 *  of the ranks' send (N * count elements each). */
CLFORGE_API clforge_status clforge_reduce_scatter(clforge_comm comm, const clforge_collective_desc *desc,
                                                  cl_mem send, size_t send_offset, cl_mem recv, size_t recv_offset,
                                                  cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                                  cl_event *event);
/** recv (N * count elements) = every rank's send (count elements), rank
 *  order; send may be recv's own block r (in place). */
CLFORGE_API clforge_status clforge_all_gather(clforge_comm comm, const clforge_collective_desc *desc, cl_mem send,
                                              size_t send_offset, cl_mem recv, size_t recv_offset,
                                              cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                              cl_event *event);
/** *event completes when every rank's barrier call has arrived (its wait
 *  list and earlier work on its context's queue complete). */
CLFORGE_API clforge_status clforge_comm_barrier(clforge_comm comm, cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list, cl_event *event);

/* ------------------------------------------------------ CPU reference path */
/** Reference twin of clforge_convert on host arrays; same semantics, bit for
 *  bit (NaN payloads aside). */
CLFORGE_API clforge_status clforge_ref_convert(size_t n, const void *src, clforge_dtype src_type,
                                               void *dst, clforge_dtype dst_type);

/** Reference twin of clforge_gemm_quantized on host arrays (desc's offsets
 *  apply; a_scale / b_scale hold the scales from their offsets). */
CLFORGE_API clforge_status clforge_ref_gemm_quantized(const clforge_gemm_desc *desc, const clforge_gemm_quant *quant,
                                                      const void *a, const void *b, void *c, const void *bias,
                                                      const float *a_scale, const float *b_scale);
/** Reference twins of clforge_quantize / clforge_dequantize on host arrays
 *  (the desc's offsets apply to them; scale and zero_point as in the device
 *  calls: written by ref_quantize with SCALES_COMPUTE). */
CLFORGE_API clforge_status clforge_ref_quantize(const clforge_quant_desc *desc, const void *x, void *q, float *scale,
                                                int32_t *zero_point);
CLFORGE_API clforge_status clforge_ref_dequantize(const clforge_quant_desc *desc, const void *q, const float *scale,
                                                  const int32_t *zero_point, void *x);
/** Reference twin of clforge_gemm on host arrays (double accumulation, the
 *  result rounded once to C's storage type). Pointers are the starts of the
 *  arrays: desc's offsets apply as on the device. */
CLFORGE_API clforge_status clforge_ref_gemm(const clforge_gemm_desc *desc, const void *a, const void *b, void *c,
                                            const void *bias);
/** ... and of clforge_gemm_ex (aux written or read as desc->aux_mode says;
 *  the backward's bias gradient sums C as stored, in double). */
CLFORGE_API clforge_status clforge_ref_gemm_ex(const clforge_gemm_desc *desc, const void *a, const void *b, void *c,
                                               void *bias, void *aux);

/** Reference twin of clforge_conv2d on host arrays (plain loops, double
 *  accumulation, the result rounded once to y's storage type); bias may be
 *  NULL. Pointers are the starts of the arrays: desc's offsets apply. */
CLFORGE_API clforge_status clforge_ref_conv2d(const clforge_conv2d_desc *desc, const void *x, const void *w,
                                              const void *bias, void *y);

/** Reference twins of clforge_conv2d_backward_data and _filter on host
 *  arrays (double accumulation, one rounding to the output's type); dbias
 *  may be NULL. */
CLFORGE_API clforge_status clforge_ref_conv2d_backward_data(const clforge_conv2d_desc *desc, const void *dy,
                                                            const void *w, void *dx);
CLFORGE_API clforge_status clforge_ref_conv2d_backward_filter(const clforge_conv2d_desc *desc, const void *x,
                                                              const void *dy, void *dw, void *dbias);

/** Reference twin of clforge_softmax on host arrays (double arithmetic,
 *  rounded once to y's type); mask may be NULL; x == y works in place. */
CLFORGE_API clforge_status clforge_ref_softmax(const clforge_softmax_desc *desc, const void *x, const void *mask,
                                               void *y);

/** Reference twin of clforge_softmax_backward on host arrays (double
 *  arithmetic, rounded once to dx's type); dx may be y or dy (in place). */
CLFORGE_API clforge_status clforge_ref_softmax_backward(const clforge_softmax_desc *desc, const void *y,
                                                        const void *dy, void *dx);

/** Reference twin of clforge_cross_entropy on host arrays (double
 *  arithmetic, the loss rounded once to f32, dlogits once to its type);
 *  loss or dlogits may be NULL (not both), grad_scale NULL reads
 *  desc.grad_scale. Pointers are the starts of the arrays. */
CLFORGE_API clforge_status clforge_ref_cross_entropy(const clforge_cross_entropy_desc *desc, const void *logits,
                                                     const int32_t *targets, float *loss, void *dlogits,
                                                     const float *grad_scale);

/** Reference twins of clforge_norm and clforge_norm_backward (double
 *  arithmetic, one rounding per output); NULL as on the device. */
CLFORGE_API clforge_status clforge_ref_norm(const clforge_norm_desc *desc, const void *x, const void *weight,
                                            const void *bias, void *y, float *stats);
CLFORGE_API clforge_status clforge_ref_norm_backward(const clforge_norm_desc *desc, const void *x, const void *weight,
                                                     const void *dy, void *dx, void *dweight, void *dbias);

/** Reference twin of clforge_kv_cache_append on host arrays (q8_0 rows
 *  bit for bit as the device writes them); refuses what the call refuses. */
CLFORGE_API clforge_status clforge_ref_kv_cache_append(const clforge_kv_append_desc *desc, const void *k, const void *v,
                                                       const int32_t *slots, void *k_cache, void *v_cache);

/** Reference twin of clforge_embedding (q8_0 values as the kernels read
 *  them: the block's f16 scale times the s8, exact in f32); refuses an id
 *  outside [0, vocab). */
CLFORGE_API clforge_status clforge_ref_embedding(const clforge_embedding_desc *desc, const void *table,
                                                 const int32_t *ids, void *y);

/** Reference twin of clforge_rope (the angle and the rotation in double);
 *  y may be x. */
CLFORGE_API clforge_status clforge_ref_rope(const clforge_rope_desc *desc, const void *x, const int32_t *positions,
                                            void *y);

/** Reference twin of clforge_elementwise (double arithmetic, one rounding
 *  per output); y may be a or b as on the device. */
CLFORGE_API clforge_status clforge_ref_elementwise(const clforge_elementwise_desc *desc, const void *a, const void *b,
                                                   void *y);

/** Reference twin of clforge_batchnorm_fold (double arithmetic, one
 *  rounding per output); bias NULL is zeros; outputs may be their inputs. */
CLFORGE_API clforge_status clforge_ref_batchnorm_fold(const clforge_batchnorm_fold_desc *desc, const void *w,
                                                      const void *bias, const float *gamma, const float *beta,
                                                      const float *mean, const float *var, void *w_out,
                                                      void *bias_out);

/** Reference twin of clforge_pool (double sums, one rounding per output). */
CLFORGE_API clforge_status clforge_ref_pool(const clforge_pool_desc *desc, const void *x, void *y);

/** Reference twin of clforge_activation_backward on host arrays (double
 *  arithmetic, rounded once); dx may be dy. Pointers are the starts of the
 *  arrays: desc's offsets apply. */
CLFORGE_API clforge_status clforge_ref_activation_backward(const clforge_activation_backward_desc *desc, const void *z,
                                                           const void *dy, void *dx);

/** A tensor of clforge_ref_optimizer_step: host arrays, each pointing at
 *  the tensor's first element (NULL as in clforge_optimizer_tensor). */
typedef struct clforge_ref_optimizer_tensor {
  size_t count;
  void *param;
  float *master;
  const void *grad;
  float *m, *v;
  clforge_dtype param_type, grad_type;
} clforge_ref_optimizer_tensor;

/** Reference twin of clforge_optimizer_step (double arithmetic per
 *  element, stored as the device stores). state is the host copy. */
CLFORGE_API clforge_status clforge_ref_optimizer_step(const clforge_optimizer_desc *desc, size_t ntensors,
                                                      const clforge_ref_optimizer_tensor *tensors,
                                                      clforge_train_state *state);

/** Reference twin of clforge_attention on host arrays (double accumulation,
 *  exact softmax, same semantics); mask, kv_lens, q_lens and lse may be NULL.
 *  Pointers are the starts of the arrays: desc's offsets apply. */
CLFORGE_API clforge_status clforge_ref_attention(const clforge_attention_desc *desc, const void *q, const void *k,
                                                 const void *v, const void *mask, const int32_t *kv_lens,
                                                 const int32_t *q_lens, void *o, float *lse);

/** Reference twin of clforge_conv2d_quantized on host arrays (the exact
 *  integer sums, then the int8 GEMM's epilogue in its order); x_scale and
 *  w_scale are the host copies of quant's scales (unused for an s32 y). */
CLFORGE_API clforge_status clforge_ref_conv2d_quantized(const clforge_conv2d_desc *desc,
                                                        const clforge_conv_quant *quant, const void *x, const void *w,
                                                        const void *bias, void *y, const float *x_scale,
                                                        const float *w_scale);

/** clforge_ref_attention for a paged KV cache: block_table is the host
 *  copy of the int32 table (desc's block_table_offset applies); NULL for
 *  a contiguous desc. */
CLFORGE_API clforge_status clforge_ref_attention_paged(const clforge_attention_desc *desc, const void *q,
                                                       const void *k, const void *v, const void *mask,
                                                       const int32_t *kv_lens, const int32_t *q_lens,
                                                       const int32_t *block_table, void *o, float *lse);

/** Reference twin of clforge_attention_backward (double; the softmax, O
 *  and D recomputed exactly from Q, K, V: no O or LSE needed). */
CLFORGE_API clforge_status clforge_ref_attention_backward(const clforge_attention_desc *desc,
                                                          const clforge_attention_grads *grads, const void *q,
                                                          const void *k, const void *v, const void *mask,
                                                          const int32_t *kv_lens, const int32_t *q_lens,
                                                          const void *d_o, void *dq, void *dk, void *dv);

/** Reference twin of the reductions (clforge_allreduce, clforge_reduce_scatter):
 *  recv[i] = the desc->op reduction of send[0][i] .. send[nranks-1][i] in
 *  the documented order, i < desc->count; recv may be one of the sends. */
CLFORGE_API clforge_status clforge_ref_allreduce(const clforge_collective_desc *desc, int nranks,
                                                 const void *const *send, void *recv);

/** Scalar conversions used by the reference path (round to nearest even). */
CLFORGE_API uint16_t clforge_ref_f32_to_f16(float value);
CLFORGE_API float clforge_ref_f16_to_f32(uint16_t bits);
CLFORGE_API uint16_t clforge_ref_f32_to_bf16(float value);
CLFORGE_API float clforge_ref_bf16_to_f32(uint16_t bits);

#ifdef __cplusplus
}
#endif
#endif /* CLFORGE_CLFORGE_H */
