// GEMM, packed path: the pack kernel, which copies panels of op(A) or op(B)
// into the f32 panels the micro-kernel (gemm_packed.cl) reads. It is a
// program of its own (gemm_base.cl + this file), built with only what it
// reads (src/ops/gemm_packed.c), so that one build serves A and B alike (a
// panel of op(A)'s rows and one of op(B)'s columns are the same copy), every
// C type, epilogue and blocking:
//   W      panel width: MR for A's panels, NR for B's
//   X_T    storage code (CLFORGE_DT_*) of the matrix packed
//   ALONG  1 when its rows of the panel are contiguous along k (A not
//          transposed, B transposed), else 0 (contiguous along the panel)
//   IDX64  1 when an operand spans 2^32 elements or more
// Packed layout: element (r, p) of panel i (rows first + i*W + r, k index p)
// at i*W*k + p*W + r; rows past `count` are zeros (the host pads to MC or NC).

typedef CLFORGE_CAT(CLFORGE_STORAGE_, X_T) x_t; // idx_t, UNROLL: common.cl

#define PK 16 // k values per work-item (src/ops/gemm_packed.c)
// A work-group of 64 work-items along the matrix's contiguous direction:
// k-chunks of one panel (ALONG), else the same k-chunk of 64 panels (so its
// reads of a row of X are contiguous). Fixed, so that a program compiles
// for one shape whatever the problem.
#if ALONG
#define PACK_WG 64, 1, 1
#else
#define PACK_WG 1, 64, 1
#endif

// Widening vector loads of n consecutive elements (n a literal 2..16).
#define WLOAD_1(n, p) CLFORGE_CAT(vload, n)(0, p)
#define WLOAD_2(n, p) CLFORGE_CAT(clforge_f32_from_f16_bits_uint, n)(CLFORGE_CAT(convert_uint, n)(CLFORGE_CAT(vload, n)(0, p)))
#define WLOAD_3(n, p) CLFORGE_CAT(as_float, n)(CLFORGE_CAT(convert_uint, n)(CLFORGE_CAT(vload, n)(0, p)) << 16)
#define WLOAD(T, n, p) CLFORGE_CAT(WLOAD_, T)(n, p)

// The widest vector (as a literal) that divides the panel width (MR is
// even, NR a multiple of 8: src/families/gemm_packed.c).
#if W % 16 == 0
#define CH 16
#elif W % 8 == 0
#define CH 8
#elif W % 4 == 0
#define CH 4
#else
#define CH 2
#endif

// PK values of k (from p0) of panel `panel` of a matrix X whose element
// (i, p) is X[i * SI + p * SP] (ALONG: SP = 1, else SI = 1), rows from
// `first`, `count` of them valid, `panels` panels (padded rows / W); global
// size (ceil(k / PK), panels, batch), the first two rounded up to the
// work-group. Packed batch items are p_stride floats apart.
kernel __attribute__((reqd_work_group_size(PACK_WG)))
void clforge_gemm_pack(const uint first, const uint count, const uint k, const global x_t *restrict X,
                       const ulong x_off, const uint ld, const ulong stride, global float *restrict P,
                       const ulong p_off, const ulong p_stride, const uint panels) {
  const uint p0 = get_global_id(0) * PK, panel = get_global_id(1);
  const ulong batch = get_global_id(2);
  if (p0 >= k || panel >= panels) return;
  X += x_off + batch * stride + (ALONG ? (idx_t)first * ld : (idx_t)first);
  global float *out = P + p_off + batch * p_stride + (ulong)panel * W * k + (ulong)p0 * W;
  const uint r0 = panel * W, nq = min((uint)PK, k - p0);
#if ALONG
  if (nq == PK) {
    for (uint r = 0; r < W; ++r) {
      float t[PK];
      if (r0 + r < count) {
        vstore16(WLOAD(X_T, 16, X + ((idx_t)(r0 + r) * ld + p0)), 0, t);
      } else {
        UNROLL(PK)
        for (int q = 0; q < PK; ++q) t[q] = 0.0f;
      }
      UNROLL(PK)
      for (int q = 0; q < PK; ++q) out[q * W + r] = t[q];
    }
    return;
  }
#else
  if (r0 + W <= count) {
    for (uint q = 0; q < nq; ++q) {
      UNROLL(W / CH)
      for (uint c = 0; c < W / CH; ++c)
        CLFORGE_CAT(vstore, CH)(WLOAD(X_T, CH, X + ((idx_t)(p0 + q) * ld + r0 + c * CH)), 0, out + q * W + c * CH);
    }
    return;
  }
#endif
  // the last k values, or rows past the end: element by element
  for (uint q = 0; q < nq; ++q)
    for (uint r = 0; r < W; ++r)
      out[q * W + r] = r0 + r < count
                           ? LOAD1(X_T, X, ALONG ? (idx_t)(r0 + r) * ld + (idx_t)(p0 + q) : (idx_t)(p0 + q) * ld + r0 + r)
                           : 0.0f;
}
