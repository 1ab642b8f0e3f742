// clforge_kv_cache_append (src/ops/kv_append.c): new tokens' K and V rows
// into a paged cache, [blocks, heads, block_size, D] (clforge_attention's
// paged layout) or, SLOT_HEAD, [blocks, block_size, heads, D]. One work-item per (token, head, unit): a unit is an element
// (f32/f16/bf16 caches) or a 32-value q8_0 block (CLFORGE_Q8_0_BLOCK,
// cl/common.cl: clforge_quantize's arithmetic, bit for bit); K's units first,
// then V's. A slot of -1 skips the token. The host has refused slots outside
// the pool and two tokens on one slot already.
// Tuned parameters (src/families/kv_append.c): WG.
// Problem options: S_T (the source's storage code), C_T (the cache's; 7:
// q8_0), SLOT_HEAD (the layout). (Remainders as x - q * y: the compiler's div/rem pairing would
// emit an LLVM `freeze`, which Oclgrind cannot run.)

typedef CLFORGE_CAT(CLFORGE_STORAGE_, S_T) s_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, C_T) c_t;

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_kv_append(
    const global s_t *K, const ulong k_off, const ulong k_ts, const ulong k_hs, const global s_t *V, const ulong v_off,
    const ulong v_ts, const ulong v_hs, const global int *S, const ulong s_off, global c_t *KC, const ulong kc_off,
    const ulong k_row, global c_t *VC, const ulong vc_off, const ulong v_row, const uint tokens, const uint heads,
    const uint bs, const uint uk, const uint uv) {
  const ulong g = get_global_id(0), per = (ulong)heads * (uk + uv);
  if (g >= (ulong)tokens * per) return;
  const ulong t = g / per, r = g - t * per, h = r / (uk + uv);
  const uint u = (uint)(r - h * (uk + uv));
  const int slot = S[s_off + t];
  if (slot < 0) return; // padding
  const ulong blk = (ulong)slot / bs, pos = (ulong)slot - blk * bs;
#if SLOT_HEAD
  const ulong row = (blk * bs + pos) * heads + h; // [blocks, block_size, heads, D]
#else
  const ulong row = (blk * heads + h) * bs + pos; // [blocks, heads, block_size, D]
#endif
  const int is_k = u < uk;
  const uint e = is_k ? u : u - uk;
  const global s_t *src = is_k ? K + k_off + t * k_ts + h * k_hs : V + v_off + t * v_ts + h * v_hs;
  global c_t *dst = is_k ? KC + kc_off + row * k_row : VC + vc_off + row * v_row;
#if C_T == CLFORGE_DT_Q8_0
  const global s_t *x = src + (ulong)e * 32;
  global uchar *q = dst + (ulong)e * 34;
#define XV(i) LOAD1(S_T, x, (i))
  CLFORGE_Q8_0_BLOCK(XV, q);
#undef XV
#else
  STORE1(C_T, LOAD1(S_T, src, e), dst, e);
#endif
}
