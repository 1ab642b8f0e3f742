// clforge_embedding (src/ops/embedding.c): y[t] = table[ids[t]], one
// work-item per output element (neighbouring items, neighbouring elements of
// a row). The host has refused ids outside [0, vocab) already; the kernel
// still never reads outside the table (such a row would be zeros).
// Tuned parameters (src/families/embedding.c): WG.
// Problem options: T_T Y_T (storage codes; T_T 7: q8_0 rows of 34-byte
// blocks, the f16 scale read as two bytes since blocks are not 2-byte
// aligned, d * q exact in f32 as in the reference).
// (Remainders as x - q * y: the compiler's div/rem pairing would emit an
// LLVM `freeze`, which Oclgrind cannot run.)

typedef CLFORGE_CAT(CLFORGE_STORAGE_, T_T) t_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, Y_T) y_t;

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_embedding(
    const global t_t *T, const ulong t_off, const ulong row, const global int *I, const ulong i_off, global y_t *Y,
    const ulong y_off, const ulong y_stride, const uint tokens, const uint dim, const uint vocab) {
  const ulong g = get_global_id(0);
  if (g >= (ulong)tokens * dim) return;
  const ulong t = g / dim;
  const uint e = (uint)(g - t * dim);
  const int id = I[i_off + t];
  float v = 0.0f;
  if (id >= 0 && (uint)id < vocab) {
#if T_T == CLFORGE_DT_Q8_0
    const global uchar *blk = T + t_off + (ulong)id * row + (e >> 5) * 34;
    v = (float)((const global char *)blk)[2 + (e & 31)] * clforge_f32_from_f16_bits_uint((uint)blk[0] | (uint)blk[1] << 8);
#else
    v = LOAD1(T_T, T, t_off + (ulong)id * row + e);
#endif
  }
  STORE1(Y_T, v, Y, y_off + t * y_stride + e);
}
