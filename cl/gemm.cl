// GEMM, tiled: each work-group computes an MWG x NWG tile of C, each
// work-item an MWI x NWI register tile (rows and VW-wide column vectors
// interleaved across the work-group, so neighbouring work-items touch
// neighbouring memory). Only full tiles: src/ops/gemm.c hands the edges to
// gemm_direct.cl, so there is no bounds check here.
// Tuned parameters (-D), declared in src/families/gemm.c:
//   MWG, NWG   work-group tile           MWI, NWI   work-item tile
//   KWG        k-block: the unit of local staging and of KSYNC
//   VW         vector width along n (loads of B, stores of C)
//   SA, SB     stage the A / B block in local memory
//   KU         k values per step of the inner loop (A read KU at a time)
//   KSYNC      barrier after each k-block without staging: on CPUs (PoCL) it
//              makes the whole work-group finish one k-block before the
//              next, so the block of A and B stays in cache (cache blocking)
//   HALF       f16 arithmetic (cl/gemm_common.cl); with HALF 2 each k-block
//              (KWG <= 32) is summed in f16, then added into f32

#define MDIM (MWG / MWI)
#define NDIM (NWG / NWI)
#define NV (NWI / VW)
#define WGS (MDIM * NDIM)

// KU consecutive elements of row `row` of op(A), from column p, as f32.
static inline void load_a_run(const global a_t *A, uint lda, idx_t row, uint p, float *out) {
#if TA == 0 && KU > 1 && A_T == CLFORGE_DT_F32
  CLFORGE_CAT(vstore, KU)(CLFORGE_CAT(vload, KU)(0, A + A_AT(row, p)), 0, out);
#elif TA == 0 && KU > 1 && A_T == CLFORGE_DT_F16
  CLFORGE_CAT(vstore, KU)(CLFORGE_CAT(clforge_f32_from_f16_bits_uint, KU)(CLFORGE_CAT(convert_uint, KU)(CLFORGE_CAT(vload, KU)(0, A + A_AT(row, p)))), 0, out);
#elif TA == 0 && KU > 1 && A_T == CLFORGE_DT_BF16
  CLFORGE_CAT(vstore, KU)(CLFORGE_CAT(as_float, KU)(CLFORGE_CAT(convert_uint, KU)(CLFORGE_CAT(vload, KU)(0, A + A_AT(row, p))) << 16), 0, out);
#else
  UNROLL(KU)
  for (int q = 0; q < KU; ++q) out[q] = LOAD1(A_T, A, A_AT(row, p + q));
#endif
}

#if GATE && VW % 2 // a gated pair's two columns must share a vector (src/ops/gemm.c, gate_vectors)
#error "clforge: a gated GEMM needs an even VW"
#endif

kernel __attribute__((reqd_work_group_size(NDIM, MDIM, 1)))
void clforge_gemm_tiled(GEMM_OPERAND_ARGS) {
  const uint lx = get_local_id(0), ly = get_local_id(1);
  GEMM_SELECT_BATCH();
  const idx_t row0 = (idx_t)get_group_id(1) * MWG, col0 = (idx_t)get_group_id(0) * NWG;

#if SA
  local float As[KWG * MWG];
#endif
#if SB
  local float Bs[KWG * NWG];
#endif
#if SA || SB
  const uint lid = ly * NDIM + lx;
#endif

  floatv acc[MWI][NV];
  UNROLL(MWI)
  for (int s = 0; s < MWI; ++s) {
    UNROLL(NV)
    for (int t = 0; t < NV; ++t) acc[s][t] = (floatv)0.0f;
  }

  for (uint kb = 0; kb < k; kb += KWG) {
    const uint kl = min((uint)KWG, k - kb);
#if HALF
    halfv hacc[MWI][NV]; // this k-block's f16 sums (cl/gemm_common.cl)
    UNROLL(MWI)
    for (int s = 0; s < MWI; ++s) {
      UNROLL(NV)
      for (int t = 0; t < NV; ++t) hacc[s][t] = (halfv)0;
    }
#endif
#if SA || SB
    barrier(CLK_LOCAL_MEM_FENCE); // the previous block is consumed
#endif
#if SA
    // k fastest when A is not transposed (then k is contiguous), m otherwise.
    for (uint i = lid; i < KWG * MWG; i += WGS) {
#if TA
      const uint kk = i / MWG, mm = i % MWG;
#else
      const uint kk = i % KWG, mm = i / KWG;
#endif
      As[kk * MWG + mm] = kk < kl ? LOAD1(A_T, A, A_AT(row0 + mm, kb + kk)) : 0.0f;
    }
#endif
#if SB && !TB
    // B's rows are contiguous: copy (and widen) VW at a time.
    for (uint i = lid; i < KWG * (NWG / VW); i += WGS) {
      const uint kk = i / (NWG / VW), nn = (i % (NWG / VW)) * VW;
      const floatv x = kk < kl ? load_b_vec(B, ldb, kb + kk, col0 + nn) : (floatv)0.0f;
      VSTOREF(x, Bs + kk * NWG + nn);
    }
#elif SB
    for (uint i = lid; i < KWG * NWG; i += WGS) {
      const uint kk = i % KWG, nn = i / KWG; // k fastest: contiguous in a transposed B
      Bs[kk * NWG + nn] = kk < kl ? LOAD1(B_T, B, B_AT(kb + kk, col0 + nn)) : 0.0f;
    }
#endif
#if SA || SB
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    // KU consecutive k at a time: A's values for them come in one vector
    // load per row (contiguous when A is not transposed), which matters most
    // for 16-bit storage, where every load is also a conversion.
    uint p = 0;
    for (; p + KU <= kl; p += KU) {
      floatv bv[KU][NV];
      UNROLL(KU)
      for (int q = 0; q < KU; ++q) {
        UNROLL(NV)
        for (int t = 0; t < NV; ++t) {
          const uint cidx = (t * NDIM + lx) * VW;
#if SB
          bv[q][t] = VLOADF(Bs + (p + q) * NWG + cidx);
#else
          bv[q][t] = load_b_vec(B, ldb, kb + p + q, col0 + cidx);
#endif
        }
      }
#if HALF
      halfv bh[KU][NV];
      UNROLL(KU)
      for (int q = 0; q < KU; ++q) {
        UNROLL(NV)
        for (int t = 0; t < NV; ++t) bh[q][t] = HALFV(bv[q][t]);
      }
#endif
      UNROLL(MWI)
      for (int s = 0; s < MWI; ++s) {
        const uint rl = s * MDIM + ly;
        float av[KU];
#if SA
        UNROLL(KU)
        for (int q = 0; q < KU; ++q) av[q] = As[(p + q) * MWG + rl];
#else
        load_a_run(A, lda, row0 + rl, kb + p, av);
#endif
        UNROLL(KU)
        for (int q = 0; q < KU; ++q) {
#if HALF
          const half1_t ah = HALF1(av[q]);
          UNROLL(NV)
          for (int t = 0; t < NV; ++t) GEMM_HMAC(acc[s][t], hacc[s][t], ah, bh[q][t]);
#else
          UNROLL(NV)
          for (int t = 0; t < NV; ++t) acc[s][t] = fma((floatv)av[q], bv[q][t], acc[s][t]);
#endif
        }
      }
    }
    for (; p < kl; ++p) { // the k-block's last kl % KU values
      floatv bv[NV];
      UNROLL(NV)
      for (int t = 0; t < NV; ++t) {
        const uint cidx = (t * NDIM + lx) * VW;
#if SB
        bv[t] = VLOADF(Bs + p * NWG + cidx);
#else
        bv[t] = load_b_vec(B, ldb, kb + p, col0 + cidx);
#endif
      }
      UNROLL(MWI)
      for (int s = 0; s < MWI; ++s) {
        const uint rl = s * MDIM + ly;
#if SA
        const float av = As[p * MWG + rl];
#else
        const float av = LOAD1(A_T, A, A_AT(row0 + rl, kb + p));
#endif
#if HALF
        const half1_t ah = HALF1(av);
        UNROLL(NV)
        for (int t = 0; t < NV; ++t) GEMM_HMAC(acc[s][t], hacc[s][t], ah, HALFV(bv[t]));
#else
        UNROLL(NV)
        for (int t = 0; t < NV; ++t) acc[s][t] = fma((floatv)av, bv[t], acc[s][t]);
#endif
      }
    }
#if HALF
    UNROLL(MWI)
    for (int s = 0; s < MWI; ++s) {
      UNROLL(NV)
      for (int t = 0; t < NV; ++t) GEMM_HFLUSH(acc[s][t], hacc[s][t]);
    }
#endif
#if KSYNC && !(SA || SB)
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
  }

  UNROLL(MWI)
  for (int s = 0; s < MWI; ++s) {
    const idx_t row = row0 + s * MDIM + ly;
    UNROLL(NV)
    for (int t = 0; t < NV; ++t) {
      const idx_t col = col0 + (t * NDIM + lx) * VW;
      store_c_vec(epilogue_vec(acc[s][t], alpha, beta, C, ldc, row, col, bias, bias_off, AUXP), C, ldc, row, col);
    }
  }
}
