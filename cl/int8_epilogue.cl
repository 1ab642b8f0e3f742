// The int8 GEMM's epilogue for one output (cl/gemm_int8.cl; also the int8
// depthwise convolution, cl/conv_depthwise_int8.cl): the exact sum e, then
// C_T 6 stores it as s32; float C (1-3) gets act(alpha*(sc*e) + beta*C +
// bias), one f32 rounding a step, in that order (the reference's); s8/u8 C
// (4/5) that value requantized, halves to even (clforge_quant_one). sc is
// the product of the row's and the column's scales; nonempty 0 (k = 0)
// leaves the product term out; bias is this output's (read only when BIAS).
// Problem options: C_T, BIAS, ACT.

#pragma OPENCL FP_CONTRACT OFF // the epilogue's f32 steps are the reference's, one rounding each

#if C_T == 4
#define INT8_QMIN (-128L)
#define INT8_QMAX 127L
#elif C_T == 5
#define INT8_QMIN 0L
#define INT8_QMAX 255L
#endif

static inline void int8_store(global CLFORGE_CAT(CLFORGE_STORAGE_, C_T) *C, const ulong ci, const int e,
                              const float sc, const int nonempty, const float alpha, const float beta,
                              const float bias, const float inv_c, const int zpc) {
#if C_T == 6
  (void)sc, (void)nonempty, (void)alpha, (void)beta, (void)bias, (void)inv_c, (void)zpc;
  C[ci] = e;
#else
  float x = nonempty ? alpha * ((float)e * sc) : 0.0f; // (the reference's: no product term for k = 0)
#if C_T <= 3
  if (beta != 0.0f) x = fma(beta, LOAD1(C_T, C, ci), x);
#else
  (void)beta;
#endif
#if BIAS
  x += bias;
#else
  (void)bias;
#endif
  x = ACTIVATE(x);
#if C_T <= 3
  (void)inv_c, (void)zpc;
  STORE1(C_T, x, C, ci);
#elif C_T == 4
  C[ci] = as_char(clforge_quant_one(x, inv_c, zpc, INT8_QMIN, INT8_QMAX));
#else
  C[ci] = clforge_quant_one(x, inv_c, zpc, INT8_QMIN, INT8_QMAX);
#endif
#endif
}
