// The int8 GEMM's B packed for DOT 2 (src/ops/gemm_quantized.c): op(B)'s
// columns copied k-contiguous, column c of batch item i at P[i * cols * k +
// c * k + p], so that the kernel's k loop reads unit-stride bytes. A
// program of its own (gemm_base.cl + this file): the bytes are copied as
// they are, whatever their signedness.
//   IDX64  1 when B spans 2^32 elements or more

#define PK 16 // k values per work-item

// Global size (cols rounded up to 16, ceil(k / PK), batch): 16 work-items
// along B's row read 16 consecutive bytes.
kernel __attribute__((reqd_work_group_size(16, 1, 1)))
void clforge_gemm_int8_pack_b(const uint k, const uint cols, const global uchar *restrict B, const ulong off,
                              const uint ldb, const ulong stride, global uchar *restrict P) {
  const uint c = get_global_id(0), p0 = get_global_id(1) * PK;
  if (c >= cols) return;
  const ulong batch = get_global_id(2);
  B += off + batch * stride;
  P += (batch * cols + c) * (ulong)k;
  const uint pn = min((uint)PK, k - p0);
  for (uint i = 0; i < pn; ++i) P[p0 + i] = B[(idx_t)(p0 + i) * ldb + c];
}
