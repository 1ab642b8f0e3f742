// Softmax cross-entropy over rows, fused with its gradient (the formulas:
// clforge_cross_entropy in include/clforge/clforge.h). Three kernels:
//   clforge_ce_count   (MEAN only) one work-group counts the rows whose
//                      target counts into scratch[0] (as uint)
//   clforge_cross_entropy  a row per WG work-items: pass 1 reads the row
//                      once for its running (max, sum of exp) and the sum
//                      of the logits (label smoothing), pass 2 writes
//                      dlogits; the row's loss goes to loss[row] (NONE) or
//                      to scratch[1 + row]
//   clforge_ce_reduce  (MEAN, SUM) one work-group adds scratch[1 ..] in a
//                      fixed order: the same bits every run
// Family parameters (-D), declared in src/families/cross_entropy.c: EXP
// (clforge's exp), WG (work-items per row), RPW (rows per work-group), VW;
// RPI (rows per work-item, one after the other) is the host's: the kernel
// takes the count as its argument rpi.
// Problem parameters, set by src/ops/cross_entropy.c: Z_T, DZ_T storage
// codes; HAS_DZ 1 when dlogits are written; MEAN 1 for the mean's weight.
// In place (dlogits over logits): every read of a row (the target's logit
// too) comes before the barrier that ends pass 1, every write after it.

#define IDX64 0
#define RWG 64 // the count's and the reduction's work-group (src/ops/cross_entropy.c)

typedef CLFORGE_CAT(CLFORGE_STORAGE_, Z_T) z_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, DZ_T) dz_t;

static inline int ce_counts(int t, int use_ignore, int ignore) { return t >= 0 && !(use_ignore && t == ignore); }

kernel __attribute__((reqd_work_group_size(RWG, 1, 1))) void clforge_ce_count(
    const global int *targets, const ulong t_off, const ulong rows, const int use_ignore, const int ignore,
    global uint *scratch) {
  local uint part[RWG];
  const int w = get_local_id(0);
  uint c = 0;
  for (ulong r = w; r < rows; r += RWG) c += ce_counts(targets[t_off + r], use_ignore, ignore);
  part[w] = c;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = RWG / 2; s > 0; s >>= 1) {
    if (w < s) part[w] += part[w + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (w == 0) scratch[0] = part[0];
}

kernel __attribute__((reqd_work_group_size(RWG, 1, 1))) void clforge_ce_reduce(
    global float *scratch, const ulong rows, const int mean, global float *loss, const ulong loss_off) {
  local float part[RWG];
  const int w = get_local_id(0);
  float s = 0.0f;
  for (ulong r = w; r < rows; r += RWG) s += scratch[1 + r];
  part[w] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = RWG / 2; k > 0; k >>= 1) {
    if (w < k) part[w] += part[w + k];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (w == 0) loss[loss_off] = mean ? part[0] / (float)((global uint *)scratch)[0] : part[0];
}

kernel __attribute__((reqd_work_group_size(WG, RPW, 1))) void clforge_cross_entropy(
    const global z_t *z, const ulong z_off, const ulong z_stride, const global int *targets, const ulong t_off,
    global dz_t *dz, const ulong dz_off, const ulong dz_stride, global float *loss, const ulong loss_off,
    const global uint *count, const global float *gscale, const ulong gs_off, const float g_host, const ulong rows,
    const uint n, const float smoothing, const int use_ignore, const int ignore, const uint rpi) {
  const int w = get_local_id(0);
#if WG > 1
  local float red_m[RPW][WG], red_l[RPW][WG];
  local float *rm = red_m[get_local_id(1)], *rl = red_l[get_local_id(1)];
#endif
  // rpi rows per item, one after the other (the host's RPI, at most)
  for (uint kk = 0; kk < rpi; ++kk) {
    const ulong row = get_global_id(1) * rpi + kk;
    const int here = row < rows; // rows past the end join the barriers, nothing else
    const uint nv = n / VW, tail = nv * VW, nvr = here ? nv : 0, len = here ? n : 0;
    const global z_t *zr = z + z_off + (here ? row : 0) * z_stride;
    const int t = here ? targets[t_off + row] : -1;
    const int counted = ce_counts(t, use_ignore, ignore), bad = counted && (uint)t >= n;
    const float zt = counted && !bad ? LOAD1(Z_T, zr, t) : 0.0f;

    floatv mv = (floatv)(-INFINITY), lv = (floatv)0.0f, sv = (floatv)0.0f;
    float m = -INFINITY, l = 0.0f, zs = 0.0f;
    for (uint i = w; i < nvr; i += WG) {
      const floatv v = LOADV(Z_T, zr + i * VW);
      stepv(&mv, &lv, v);
      sv += v;
    }
    for (uint e = tail + w; e < len; e += WG) {
      const float v = LOAD1(Z_T, zr, e);
      step1(&m, &l, v);
      zs += v;
    }
    join_lanes(&m, &l, mv, lv);
    zs += hsum(sv);
#if WG > 1
    group_reduce(rm, rl, 2, &m, &l);
    group_reduce(rm, NULL, 1, &zs, NULL);
#if HAS_DZ
    // Every item read the target's logit above; in place, its owner writes
    // it below: a global fence orders the two (the reductions fence local
    // memory only).
    barrier(CLK_GLOBAL_MEM_FENCE);
#endif
#endif
    const float lse = safe1(m) + log(l); // every logit -inf: -inf
    const float e1 = 1.0f - smoothing, en = smoothing / (float)n;
    float row_loss = counted ? lse - e1 * zt - (smoothing > 0.0f ? en * zs : 0.0f) : 0.0f;
    if (bad) row_loss = NAN;
    if (here && w == 0 && loss) loss[loss_off + row] = row_loss;

#if HAS_DZ
    global dz_t *dr = dz + dz_off + (here ? row : 0) * dz_stride;
    if (!counted) {
      for (uint i = w; i < nvr; i += WG) STOREV(DZ_T, (floatv)0.0f, dr + i * VW);
      for (uint e = tail + w; e < len; e += WG) STORE1(DZ_T, 0.0f, dr, e);
      continue;
    }
    const float g = gscale ? gscale[gs_off] : g_host;
#if MEAN
    const float k = bad ? NAN : g / (float)count[0];
#else
    const float k = bad ? NAN : g;
#endif
    const floatv lsev = (floatv)lse, env = (floatv)en, kv = (floatv)k;
    for (uint i = w; i < nvr; i += WG)
      STOREV(DZ_T, kv * (EXPV(LOADV(Z_T, zr + i * VW) - lsev) - env), dr + i * VW);
    for (uint e = tail + w; e < len; e += WG) STORE1(DZ_T, k * (EXP1(LOAD1(Z_T, zr, e) - lse) - en), dr, e);
    // The target's element, again by the item that wrote it (from zt, read
    // before any write: in place, the logit is gone by now).
    if (!bad && here) {
      const uint tu = (uint)t;
      const int owner = tu < tail ? (int)((tu / VW) % WG) : (int)((tu - tail) % WG);
      if (w == owner) STORE1(DZ_T, k * (EXP1(zt - lse) - en - e1), dr, tu);
    }
#endif
  }
}
