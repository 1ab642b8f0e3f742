// Prelude compiled ahead of every kernel family (see src/core/program.c).
// OpenCL C 1.2; nothing here needs an extension.

#define CLFORGE_CAT_(a, b) a##b
#define CLFORGE_CAT(a, b) CLFORGE_CAT_(a, b)

// Tensor indices: uint, or ulong where an operand spans 2^32 elements or
// more (-DIDX64=1, set by the op; unset = uint).
#if IDX64
typedef ulong idx_t;
#else
typedef uint idx_t;
#endif

// UNROLL(n) ahead of a loop: #pragma unroll n, n a macro's value.
#define CLFORGE_UNROLL_(x) _Pragma(#x)
#define UNROLL(n) CLFORGE_UNROLL_(unroll n)

// Storage type codes, equal to the values of clforge_dtype.
#define CLFORGE_DT_F32 1
#define CLFORGE_DT_F16 2
#define CLFORGE_DT_BF16 3
#define CLFORGE_DT_S8 4
#define CLFORGE_DT_U8 5
#define CLFORGE_DT_Q8_0 7 // ggml's q8_0 blocks (32 values: f16 scale, 32 s8), read as bytes

// Conversions between f32 and the 16-bit storage formats, all on bit
// patterns with integer operations, mirroring src/ref/half.c bit for bit.
//
// f32 -> f16 / bf16 on bit patterns, round to nearest even, NaN kept (quiet),
// overflow to Inf. Integer-only, for three reasons: a device that flushes
// denormals cannot change them; results are bit-identical on every driver
// (vstore_half_rte has been seen wrong); and Oclgrind's uninitialized-value
// checker does not model the half builtins (it reports false positives).
// Written with select() only, because a comparison yields 1 in a scalar but
// -1 in a vector lane. One function per vector type.
#define CLFORGE_DEFINE_NARROWING(ut)                                                     \
  static inline ut clforge_f16_bits_##ut(ut b) {                                              \
    ut a = b & (ut)0x7FFFFFFFu, sign = (b >> 16) & (ut)0x8000u;                          \
    /* normal f16: rebias the exponent and round the 13 dropped bits */                 \
    ut h = (a >> 13) - (ut)0x1C000u, rem = a & (ut)0x1FFFu;                             \
    h += select((ut)0, (ut)1, (rem > (ut)0x1000u) | ((rem == (ut)0x1000u) & ((h & (ut)1) == (ut)1))); \
    /* subnormal f16: count 2^-24 units, shift 14..24 (clamped: 25 gives 0) */         \
    ut m = (a & (ut)0x7FFFFFu) | (ut)0x800000u;                                          \
    ut s = min((ut)126u - min(a >> 23, (ut)126u), (ut)25u);                             \
    ut r = m >> s, rs = m & ((((ut)1) << s) - (ut)1), tie = ((ut)1) << (s - (ut)1);      \
    r += select((ut)0, (ut)1, (rs > tie) | ((rs == tie) & ((r & (ut)1) == (ut)1)));   \
    h = select(h, r, a < (ut)0x38800000u);                                               \
    h = select(h, (ut)0x7C00u, a >= (ut)0x477FF000u);                                    \
    h = select(h, (ut)0x7E00u | ((a >> 13) & (ut)0x3FFu), a > (ut)0x7F800000u);        \
    return sign | h;                                                                     \
  }                                                                                      \
  static inline ut clforge_bf16_bits_##ut(ut b) {                                             \
    return select((b + (ut)0x7FFFu + ((b >> 16) & (ut)1u)) >> 16, (b >> 16) | (ut)0x40u, \
                  (b & (ut)0x7FFFFFFFu) > (ut)0x7F800000u);                              \
  }

// f16 -> f32 from bit patterns (zero-extended to uint), exact. Placing the
// f16 exponent and mantissa in an f32 and scaling by 2^112 rebias the
// exponent and normalizes f16 subnormals in one multiply; Inf/NaN get their
// exponent back with a select. The multiply needs f32 denormals (the scaled
// f16 subnormals are f32 denormals before it), so devices that flush them
// (CLFORGE_F32_DENORMS=0, set by src/core/program.c from CL_DEVICE_SINGLE_FP_CONFIG)
// take the integer route, where m * 2^-24 is computed on normal floats.
// Both beat vload_half, a slow software routine on some CPU drivers.
#if CLFORGE_F32_DENORMS
#define CLFORGE_DEFINE_WIDENING(ut, ft)                                                  \
  static inline ft clforge_f32_from_f16_bits_##ut(ut h) {                              \
    ut bits = CLFORGE_CAT(as_, ut)(CLFORGE_CAT(as_, ft)((h & (ut)0x7FFFu) << 13) * 0x1p112f); \
    bits = select(bits, bits | (ut)0x7F800000u, (h & (ut)0x7C00u) == (ut)0x7C00u);     \
    return CLFORGE_CAT(as_, ft)(bits | ((h & (ut)0x8000u) << 16));                       \
  }
#else
#define CLFORGE_DEFINE_WIDENING(ut, ft)                                                  \
  static inline ft clforge_f32_from_f16_bits_##ut(ut h) {                              \
    ut e = h & (ut)0x7C00u, m = h & (ut)0x3FFu;                                          \
    ut bits = ((h & (ut)0x7FFFu) << 13) + (ut)0x38000000u;                              \
    bits = select(bits, (m << 13) | (ut)0x7F800000u, e == (ut)0x7C00u);                  \
    bits = select(bits, CLFORGE_CAT(as_, ut)(CLFORGE_CAT(convert_, ft)(m) * 0x1p-24f), e == (ut)0); \
    return CLFORGE_CAT(as_, ft)(bits | ((h & (ut)0x8000u) << 16));                       \
  }
#endif

CLFORGE_DEFINE_NARROWING(uint)
CLFORGE_DEFINE_NARROWING(uint2)
CLFORGE_DEFINE_NARROWING(uint4)
CLFORGE_DEFINE_NARROWING(uint8)
CLFORGE_DEFINE_NARROWING(uint16)
CLFORGE_DEFINE_WIDENING(uint, float)
CLFORGE_DEFINE_WIDENING(uint2, float2)
CLFORGE_DEFINE_WIDENING(uint4, float4)
CLFORGE_DEFINE_WIDENING(uint8, float8)
CLFORGE_DEFINE_WIDENING(uint16, float16)

// f32 values rounded to the nearest f16 value and kept in f32 (sfx: the
// vector width, empty for a scalar): the emulated arithmetic of the HALF
// variants on devices without cl_khr_fp16 (tests only; cl/gemm_common.cl).
#define CLFORGE_F16_ROUND(sfx, x)                                                        \
  CLFORGE_CAT(clforge_f32_from_f16_bits_uint, sfx)(CLFORGE_CAT(clforge_f16_bits_uint, sfx)(CLFORGE_CAT(as_uint, sfx)(x)))

// What every op's kernels share on top: one storage type per code (f32 as
// float, f16 and bf16 as their bits in a ushort), scalar loads and stores
// through the conversions above, and the activation of the fused epilogue
// (-DACT: 0 none, 1 ReLU, 2 GELU tanh form, 3 GELU erf form; unset = 0).
#define CLFORGE_STORAGE_1 float
#define CLFORGE_STORAGE_2 ushort
#define CLFORGE_STORAGE_3 ushort
#define CLFORGE_STORAGE_4 char  // s8 (quantized data: the int8 kernels' own loads)
#define CLFORGE_STORAGE_5 uchar // u8
#define CLFORGE_STORAGE_6 int   // s32
#define CLFORGE_STORAGE_7 uchar // q8_0 (bytes of 34-byte blocks)

// Scalar load of element i as f32, for each storage code.
#define CLFORGE_LD1_1(p, i) ((p)[i])
#define CLFORGE_LD1_2(p, i) clforge_f32_from_f16_bits_uint((uint)((p)[i]))
#define CLFORGE_LD1_3(p, i) as_float((uint)((p)[i]) << 16)
#define LOAD1(T, p, i) CLFORGE_CAT(CLFORGE_LD1_, T)(p, i)

// Scalar store of f32 v at element i (narrowing rounds to nearest even).
#define CLFORGE_ST1_1(v, p, i) ((p)[i] = (v))
#define CLFORGE_ST1_2(v, p, i) ((p)[i] = (ushort)clforge_f16_bits_uint(as_uint(v)))
#define CLFORGE_ST1_3(v, p, i) ((p)[i] = (ushort)clforge_bf16_bits_uint(as_uint(v)))
#define STORE1(T, v, p, i) CLFORGE_CAT(CLFORGE_ST1_, T)(v, p, i)

// VW-wide vectors, for the families with a VW parameter (-DVW: elements a
// vector, 1 for scalars): VSUF their type suffix, VLOADF / VSTOREF a vector
// from / to consecutive elements of any type, and LOADV / STOREV VW
// consecutive elements of storage code T (f32, f16, bf16; all in bounds)
// as an f32 vector, through the conversions above.
#ifdef VW
#if VW == 1
#define VSUF
#define VLOADF(p) (*(p))
#define VSTOREF(x, p) (*(p) = (x))
#else
#define VSUF VW
#define VLOADF(p) CLFORGE_CAT(vload, VW)(0, p)
#define VSTOREF(x, p) CLFORGE_CAT(vstore, VW)(x, 0, p)
#endif
typedef CLFORGE_CAT(float, VSUF) floatv;
typedef CLFORGE_CAT(int, VSUF) intv;
typedef CLFORGE_CAT(uint, VSUF) uintv;

#if VW > 1
#define CLFORGE_LDV_1(p) CLFORGE_CAT(vload, VW)(0, p)
#define CLFORGE_LDV_2(p) CLFORGE_CAT(clforge_f32_from_f16_bits_uint, VW)(CLFORGE_CAT(convert_uint, VW)(CLFORGE_CAT(vload, VW)(0, p)))
#define CLFORGE_LDV_3(p) CLFORGE_CAT(as_float, VW)(CLFORGE_CAT(convert_uint, VW)(CLFORGE_CAT(vload, VW)(0, p)) << 16)
#define CLFORGE_STV_1(v, p) CLFORGE_CAT(vstore, VW)(v, 0, p)
#define CLFORGE_STV_2(v, p) \
  CLFORGE_CAT(vstore, VW)(CLFORGE_CAT(convert_ushort, VW)(CLFORGE_CAT(clforge_f16_bits_uint, VW)(CLFORGE_CAT(as_uint, VW)(v))), 0, p)
#define CLFORGE_STV_3(v, p) \
  CLFORGE_CAT(vstore, VW)(CLFORGE_CAT(convert_ushort, VW)(CLFORGE_CAT(clforge_bf16_bits_uint, VW)(CLFORGE_CAT(as_uint, VW)(v))), 0, p)
#define LOADV(T, p) CLFORGE_CAT(CLFORGE_LDV_, T)(p)
#define STOREV(T, v, p) CLFORGE_CAT(CLFORGE_STV_, T)(v, p)
#else
#define LOADV(T, p) LOAD1(T, p, 0)
#define STOREV(T, v, p) STORE1(T, v, p, 0)
#endif
#endif

// The activation, on scalars or vectors (the epilogues: alpha*acc + beta*c,
// c read only when beta != 0 so NaN in an unread C does not leak, + bias, act).
#if ACT == 0
#define ACTIVATE(v) (v)
#elif ACT == 1
#define ACTIVATE(v) fmax(v, 0.0f)
#elif ACT == 2
#define ACTIVATE(v) (0.5f * (v) * (1.0f + tanh(0.7978845608028654f * ((v) + 0.044715f * (v) * (v) * (v)))))
#elif ACT == 3
#define ACTIVATE(v) (0.5f * (v) * (1.0f + erf((v) * 0.7071067811865476f)))
#elif ACT == 4
#define ACTIVATE(v) ((v) / (1.0f + exp(-(v)))) // SiLU: -0 for very negative v (exp overflows to inf)
#else
#error "ACT must be 0..4"
#endif

// The activation's derivative at z, for the backward passes (the GEMM's
// backward epilogue, clforge_activation_backward): ReLU's is 0 at z <= 0.
#if ACT == 0
#define DACTIVATE(z) 1.0f
#elif ACT == 1
#define DACTIVATE(z) ((z) > 0.0f ? 1.0f : 0.0f)
#elif ACT == 2
static inline float clforge_dgelu_tanh(float z) {
  const float c = 0.7978845608028654f, t = tanh(c * (z + 0.044715f * z * z * z));
  return 0.5f * (1.0f + t) + 0.5f * z * (1.0f - t * t) * c * (1.0f + 3.0f * 0.044715f * z * z);
}
#define DACTIVATE(z) clforge_dgelu_tanh(z)
#elif ACT == 4
static inline float clforge_dsilu(float z) {
  const float s = 1.0f / (1.0f + exp(-z));
  return s * (1.0f + z * (1.0f - s));
}
#define DACTIVATE(z) clforge_dsilu(z)
#else
static inline float clforge_dgelu_erf(float z) {
  return 0.5f * (1.0f + erf(z * 0.7071067811865476f)) + z * exp(-0.5f * z * z) * 0.3989422804014327f;
}
#define DACTIVATE(z) clforge_dgelu_erf(z)
#endif

// Quantization's rounding (clforge_quantize, the int8 GEMM's requantized
// output; src/ref/quant_round.h is its twin): clamp(round-half-even(x * inv)
// + zp) to [qmin, qmax], NaN counting as 0; the byte stored.
static inline uchar clforge_quant_one(float x, float inv, int zp, long qmin, long qmax) {
  float f = rint(x * inv);
  f = isnan(f) ? 0.0f : clamp(f, -1024.0f, 1024.0f);
  return (uchar)(clamp((long)f + zp, qmin, qmax) & 0xFF);
}

// ggml's q8_0 block: 32 values V(i) (an expression of i) into 34 bytes at
// blk: d = max|v| / 127 as f16 (little-endian), then round-half-even(v *
// (1 / d)) as s8; src/ref/quant_round.h's clforge__q8_0_block is its twin
// (the program is built with -cl-fp32-correctly-rounded-divide-sqrt where
// the device has it: d and 1 / d are divisions). clforge_quantize's q8_0
// and clforge_kv_cache_append's q8_0 caches.
#define CLFORGE_Q8_0_BLOCK(V, blk)                                                                                  \
  do {                                                                                                              \
    float amax_ = 0.0f;                                                                                             \
    for (int i = 0; i < 32; ++i) amax_ = fmax(amax_, fabs(V(i)));                                                   \
    const float d_ = amax_ / 127.0f, inv_ = d_ != 0.0f ? 1.0f / d_ : 0.0f;                                          \
    const uint h_ = clforge_f16_bits_uint(as_uint(d_));                                                             \
    (blk)[0] = (uchar)(h_ & 0xFFu);                                                                                 \
    (blk)[1] = (uchar)(h_ >> 8);                                                                                    \
    for (int i = 0; i < 32; ++i) (blk)[2 + i] = clforge_quant_one(V(i), inv_, 0, -128L, 127L);                      \
  } while (0)
