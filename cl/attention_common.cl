// What the attention kernels share (compiled after common.cl, before each
// kernel's own file): the masking rules of src/desc/attention_desc.c
// (clforge__attn_key_visible), the soft cap, the arguments every kernel
// ends with, and the problem options that src/ops/attention_common.c passes
// (Q_T KV_T O_T MASK_T HEAD_D HEAD_DV HAS_MASK SOFTCAP CAUSAL IDX64).
// Whether key lengths, query lengths and LSE are given is the argument
// `has` (ATTN_HAS_*), not an option: each is read once per work-item, in
// no inner loop, so it costs nothing at run time and a program less.

#if IDX64
typedef ulong aidx;
#else
typedef uint aidx;
#endif

// Bits of `has` (src/ops/attention_algo.h's CLFORGE__ATTN_HAS_*).
#define ATTN_HAS_KV_LENS 1u
#define ATTN_HAS_Q_LENS 2u
#define ATTN_HAS_LSE 4u

// The arguments every attention kernel takes after its tensors
// (clforge__attn_common_args): absent length buffers are never read, nor
// the block table unless PAGED.
#define ATTN_COMMON_ARGS                                                                            \
  __global const int *kv_lens, const ulong kvl_off, __global const int *q_lens, const ulong ql_off, \
      __global const int *bt, const ulong bt_off, const uint bt_stride, const uint bsz,              \
      const uint B, const uint Hq, const uint Hkv, const uint group, const uint Sq, const uint Sk,   \
      const uint window, const uint has, const float scale, const float softcap

// Where key j's K or V row starts, relative to the tensor's offset plus
// its head's: item b's row j (contiguous), or slot j % bsz of the pool
// block the table names for j (PAGED; the host checked every entry a
// sequence uses). s0 and ss are the tensor's first and third strides.
static inline ulong attn_kv_row(__global const int *bt, ulong bt_row, uint bsz, uint b, uint j, ulong s0, ulong ss) {
#if PAGED
  const uint pg = j / bsz, sl = j - pg * bsz; // (x - q*y: no div/rem pair, see attention_split_kv.cl)
  (void)b;
  return (ulong)(uint)bt[bt_row + pg] * s0 + (ulong)sl * ss;
#else
  (void)bt, (void)bt_row, (void)bsz;
  return (ulong)b * s0 + (ulong)j * ss;
#endif
}

#if KV_T == CLFORGE_DT_Q8_0
// q8_0 rows: 32-value blocks of 34 bytes, the f16 scale d (little-endian,
// read as two bytes: blocks are not 2-byte aligned in general) then 32 s8.
// d * q is exact in f32 (11 + 8 significant bits), as in the reference.
static inline float attn_q8_scale(const __global uchar *blk) {
  return clforge_f32_from_f16_bits_uint((uint)blk[0] | (uint)blk[1] << 8);
}
// 16 values [e, e + 16) of a row (e a multiple of 16).
static inline float16 attn_q8_16(const __global uchar *row, int e) {
  const __global uchar *blk = row + (e >> 5) * 34;
  return convert_float16(vload16(0, (const __global char *)(blk + 2 + (e & 31)))) * attn_q8_scale(blk);
}
// Value e of a row.
static inline float attn_q8_1(const __global uchar *row, int e) {
  const __global uchar *blk = row + (e >> 5) * 34;
  return (float)((const __global char *)blk)[2 + (e & 31)] * attn_q8_scale(blk);
}
#endif

// The key and query lengths of batch item b: the buffers' values clamped to
// [0, Sk] and [0, Sq], or Sk and Sq without them.
static inline int attn_kv_len(__global const int *kv_lens, ulong off, uint b, uint sk, uint has) {
  return has & ATTN_HAS_KV_LENS ? clamp(kv_lens[off + b], 0, (int)sk) : (int)sk;
}

static inline int attn_q_len(__global const int *q_lens, ulong off, uint b, uint sq, uint has) {
  return has & ATTN_HAS_Q_LENS ? clamp(q_lens[off + b], 0, (int)sq) : (int)sq;
}

// The last key query i may see (keys j <= diag), as a signed number: -1
// or below means none. Without causal masking every key up to kv_len - 1.
static inline long attn_diag(int i, int kv_len, int q_len) {
#if CAUSAL == 1
  return (long)i;
#elif CAUSAL == 2
  return (long)i + (long)kv_len - (long)q_len;
#else
  (void)q_len;
  return (long)kv_len - 1 + (long)i * 0;
#endif
}

// Query i's visible keys as the half-open range [lo, hi): j < kv_len,
// j <= diag when causal, j > diag - window when a window is given.
static inline void attn_key_range(int i, int kv_len, int q_len, uint window, int *lo, int *hi) {
  long h = kv_len;
#if CAUSAL
  const long dg = attn_diag(i, kv_len, q_len);
  h = min(h, dg + 1);
  long l = window ? dg - (long)window + 1 : 0;
  l = max(l, 0L);
#else
  const long l = 0;
  (void)window, (void)q_len;
#endif
  h = max(h, 0L);
  *lo = (int)min(l, h);
  *hi = (int)h;
}

// cap * tanh(s / cap) when soft capping, else s.
static inline float attn_softcap(float s, float cap) {
#if SOFTCAP
  return cap * tanh(s / cap);
#else
  (void)cap;
  return s;
#endif
}

// (floatv, intv and their loads and stores VLOADF / VSTOREF for the
// families with a VW parameter, the fused forward's and the backward's rows
// per vector and split-KV's elements along D: cl/common.cl.)
