// Shared by the GEMM families' kernels that read A and B or write C
// (gemm.cl, gemm_direct.cl, gemm_packed.cl; after gemm_base.cl): storage
// types of the operands, scalar loads and stores, and the fused epilogue.
// Problem parameters (-D), set by src/ops/gemm.c, not tuned:
//   A_T, B_T, C_T, BIAS_T   storage codes (CLFORGE_DT_*) of A, B, C and bias
//   TA, TB                  1 when op(A) / op(B) is a transpose (row-major view)
//   BIAS                    0 none, 1 one value per row of C, 2 one per column
//   ACT                     0 none, 1 ReLU, 2 GELU (tanh form), 3 GELU (erf form)
//   AUX, AUX_T              0 none; 1 store the pre-activation into aux;
//                           2 multiply by act'(aux) (the backward), no activation
//                           (clforge_gemm_aux); aux's storage code
//   GATE                    1: the gated epilogue (CLFORGE_GEMM_GATE_INTERLEAVED):
//                           product columns 2j and 2j+1 give C's column j,
//                           act(z[2j]) * z[2j+1] (no AUX, beta 0)
//   IDX64                   1 when an operand spans 2^32 elements or more
// Layout: the host turns column-major problems into row-major ones, so the
// kernels only see row-major C.

// (cl/gemm_operands.cl ahead: a_t, b_t, c_t, bias_t, A_AT, B_AT.)
#ifndef AUX
#define AUX 0
#endif
#ifndef GATE
#define GATE 0
#endif
// The activation of the value the epilogue returns: a gated call's pairs
// are activated and multiplied when they are stored (gemm_store1,
// store_c_vec), so its epilogue returns z itself.
#if GATE
#define EPILOGUE_ACT(v) (v)
#else
#define EPILOGUE_ACT(v) ACTIVATE(v)
#endif
#if AUX
typedef CLFORGE_CAT(CLFORGE_STORAGE_, AUX_T) aux_t;
#else
typedef float aux_t;
#endif



// The operand arguments both GEMM kernels take after their own (in this
// order: src/ops/gemm.c sets them once for either kernel), and the move of
// A, B and C to this work-item's batch item.
#define GEMM_OPERAND_ARGS                                                                         \
  const uint k, const float alpha, const float beta,                                              \
      const global a_t *restrict A, const ulong a_off, const uint lda, const ulong stride_a,      \
      const global b_t *restrict B, const ulong b_off, const uint ldb, const ulong stride_b,      \
      global c_t *restrict C, const ulong c_off, const uint ldc, const ulong stride_c,            \
      const global bias_t *restrict bias, const ulong bias_off, global aux_t *AUXP, const ulong aux_off
#define GEMM_SELECT_BATCH()                \
  const ulong batch = get_global_id(2);    \
  A += a_off + batch * stride_a;           \
  B += b_off + batch * stride_b;           \
  C += c_off + batch * stride_c;           \
  AUXP += aux_off + batch * stride_c

// (VW-wide vectors along n, floatv and their loads: cl/common.cl.)

// Half arithmetic (family parameter HALF, gated by the call's compute type
// in src/ops/gemm.c): inputs rounded to f16, products in f16; HALF 1 adds
// each product into the f32 accumulator, HALF 2 sums them in an f16
// accumulator that the kernel adds into the f32 one after at most 32
// products (GEMM_HFLUSH). Native half types where the device has
// cl_khr_fp16 (CLFORGE_HALF_NATIVE, src/core/program.c); elsewhere (tests only:
// the op needs the extension) the same steps on f32 values rounded to f16
// after each operation, so the kernels' logic runs on every device (an
// emulated f16 multiply-add rounds twice where a fused one rounds once).
#ifndef HALF
#define HALF 0
#endif
#if HALF && CLFORGE_HALF_NATIVE
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half half1_t;
typedef CLFORGE_CAT(half, VSUF) halfv;
#define HALF1(x) ((half)(x))
#define HALFV(x) CLFORGE_CAT(convert_half, VSUF)(x)
#define FLOATV_OF(x) CLFORGE_CAT(convert_float, VSUF)(x)
#if HALF == 1
#define GEMM_HMAC(acc, hacc, a, bh) ((acc) += FLOATV_OF((halfv)(a) * (bh)))
#else
#define GEMM_HMAC(acc, hacc, a, bh) ((hacc) = fma((halfv)(a), (bh), (hacc)))
#endif
#elif HALF
typedef float half1_t;
typedef floatv halfv;
#define HALF1(x) CLFORGE_F16_ROUND(, (float)(x))
#define HALFV(x) CLFORGE_F16_ROUND(VSUF, x)
#define FLOATV_OF(x) (x)
#if HALF == 1
#define GEMM_HMAC(acc, hacc, a, bh) ((acc) += HALFV((floatv)(a) * (bh)))
#else
#define GEMM_HMAC(acc, hacc, a, bh) ((hacc) = HALFV(fma((floatv)(a), (bh), (hacc))))
#endif
#endif
#if HALF
#define GEMM_HFLUSH(acc, hacc) ((acc) += FLOATV_OF(hacc), (hacc) = (halfv)0)
#endif

#if B_T != CLFORGE_DT_Q8_0 // (the q8_0 family reads its blocks itself: cl/gemm_q8_0.cl)
// VW consecutive elements of op(B) in row p, as f32.
static inline floatv load_b_vec(const global b_t *B, uint ldb, uint p, idx_t col) {
#if TB == 0 && VW > 1
  return LOADV(B_T, B + B_AT(p, col));
#else
  float t[VW];
  UNROLL(VW)
  for (int v = 0; v < VW; ++v) t[v] = LOAD1(B_T, B, B_AT(p, col + v));
  return VLOADF(t);
#endif
}
#endif


// VW consecutive elements of row `row` of C, as f32 (for beta != 0).
static inline floatv load_c_vec(const global c_t *C, uint ldc, idx_t row, idx_t col) {
  float t[VW];
  UNROLL(VW)
  for (int v = 0; v < VW; ++v) t[v] = LOAD1(C_T, C, row * ldc + col + v);
  return VLOADF(t);
}

// GATE: x holds VW product columns from col (even; VW even, the host sees
// to it), stored as VW / 2 gated values from C's column col / 2.
static inline void store_c_vec(floatv x, global c_t *C, uint ldc, idx_t row, idx_t col) {
#if GATE
  float t[VW];
  VSTOREF(x, t);
#if VW > 1 // (VW 1: the q8_0 family's, which stores through gemm_store1)
  UNROLL(VW / 2)
#endif
  for (int e = 0; e < VW / 2; ++e) STORE1(C_T, ACTIVATE(t[2 * e]) * t[2 * e + 1], C, row * ldc + col / 2 + e);
#elif VW > 1
  STOREV(C_T, x, C + row * ldc + col);
#else
  STORE1(C_T, x, C, row * ldc + col);
#endif
}

// One element's epilogue result z stored at product column col; GATE: an
// even column's z waits in *gate for the odd one (the same work-item's
// next element), which stores the pair's act(gate) * up.
static inline void gemm_store1(float z, global c_t *C, uint ldc, idx_t row, idx_t col, float *gate) {
#if GATE
  if (col & 1) STORE1(C_T, ACTIVATE(*gate) * z, C, row * ldc + col / 2);
  else *gate = z;
#else
  (void)gate;
  STORE1(C_T, z, C, row * ldc + col);
#endif
}

// The fused epilogue of VW consecutive elements of C at (row, col):
// act(alpha*acc + beta*C + bias). alpha == 0: A and B do not count (BLAS),
// not even their Inf/NaN; C is read only when beta != 0. AUX 1: the value
// before the activation also goes to aux (same place, aux's type); AUX 2:
// it is multiplied by act'(aux) instead of activated. aux lies like C (ldc).
static inline floatv epilogue_vec(floatv acc, float alpha, float beta, const global c_t *C, uint ldc, idx_t row,
                                  idx_t col, const global bias_t *bias, ulong bias_off, global aux_t *aux) {
  floatv v = alpha != 0.0f ? alpha * acc : (floatv)0.0f;
  if (beta != 0.0f) v = fma((floatv)beta, load_c_vec(C, ldc, row, col), v);
#if BIAS == 1
  v += LOAD1(BIAS_T, bias, bias_off + row);
#elif BIAS == 2
  float tb[VW];
  UNROLL(VW)
  for (int e = 0; e < VW; ++e) tb[e] = LOAD1(BIAS_T, bias, bias_off + col + e);
  v += VLOADF(tb);
#endif
#if AUX == 0
  (void)aux;
  return EPILOGUE_ACT(v);
#else
  float ta[VW];
  VSTOREF(v, ta);
  UNROLL(VW)
  for (int e = 0; e < VW; ++e) {
#if AUX == 1
    STORE1(AUX_T, ta[e], aux, row * ldc + col + e);
#else
    ta[e] *= DACTIVATE(LOAD1(AUX_T, aux, row * ldc + col + e));
#endif
  }
#if AUX == 1
  return ACTIVATE(v);
#else
  return VLOADF(ta);
#endif
#endif
}

// The same for one element.
static inline float epilogue1(float acc, float alpha, float beta, const global c_t *C, uint ldc, idx_t row, idx_t col,
                              const global bias_t *bias, ulong bias_off, global aux_t *aux) {
  float x = alpha != 0.0f ? alpha * acc : 0.0f;
  if (beta != 0.0f) x = fma(beta, LOAD1(C_T, C, row * ldc + col), x);
#if BIAS == 1
  x += LOAD1(BIAS_T, bias, bias_off + row);
#elif BIAS == 2
  x += LOAD1(BIAS_T, bias, bias_off + col);
#endif
#if AUX == 1
  STORE1(AUX_T, x, aux, row * ldc + col);
#elif AUX == 2
  return x * DACTIVATE(LOAD1(AUX_T, aux, row * ldc + col));
#else
  (void)aux;
#endif
  return EPILOGUE_ACT(x);
}
