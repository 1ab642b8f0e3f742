// An optimizer step, element-wise (the formulas: clforge_optimizer_step in
// include/clforge/clforge.h; PyTorch's SGD and AdamW). Four kernels, each
// launch waiting for the one before (src/ops/optimizer.c):
//   clforge_opt_reset  one work-item zeroes the state's `skipped`, then
//   clforge_opt_check  (loss scaling) per tensor: any inf/NaN gradient ORs
//                      1 into `skipped` (an integer: the same result in any order)
//   clforge_opt_update per tensor: nothing when `skipped`; else the update
//                      of master weights (or f32 params), moments, params
//   clforge_opt_finish one work-item: the step count and the loss scale
// The state (clforge_train_state): float scale, int good_steps, int
// skipped, int step, at int index so of `state`.
// Family parameters (-D), declared in src/families/optimizer.c: WG
// work-items per work-group, EPI elements per work-item (a work-group owns
// WG*EPI consecutive elements; item l takes l, l + WG, ...: adjacent items,
// adjacent memory).
// Problem parameters: P_T, G_T storage codes; MASTER 1 with f32 master
// weights apart from the params; KIND 0 SGD, 1 AdamW; MOM 1 with SGD
// momentum; NESTEROV; WD 1 with weight decay.

typedef CLFORGE_CAT(CLFORGE_STORAGE_, P_T) p_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, G_T) g_t;

// A work-group's WG * EPI elements start at group * WG * EPI; item l takes
// l, l + WG, ... (every first element of the items, then every second: the
// items of a group read adjacent memory at each k).
#define FIRST_ELEMENT() (get_group_id(0) * (ulong)(WG * EPI) + get_local_id(0))

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_opt_check(
    const global g_t *g, const ulong g_off, const ulong count, global int *state, const ulong so) {
  int bad = 0;
  const ulong first = FIRST_ELEMENT();
  for (int k = 0; k < EPI; ++k) {
    const ulong e = first + (ulong)k * WG;
    if (e < count) {
      const float v = LOAD1(G_T, g + g_off, e);
      bad |= isinf(v) || isnan(v);
    }
  }
  if (bad) atomic_or(&state[so + 2], 1);
}

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_opt_update(
    global p_t *p, const ulong p_off, global float *master, const ulong w_off, const global g_t *g, const ulong g_off,
    global float *m, const ulong m_off, global float *v, const ulong v_off, const ulong count,
    const global int *state, const ulong so, const float lr, const float mom, const float damp, const float wd,
    const float b1, const float b2, const float eps) {
  if (state[so + 2]) return; // skipped: nothing changes
  const float inv = 1.0f / as_float(state[so]);
  const int t = state[so + 3] + 1;
#if KIND == 1
  const float bc1 = 1.0f - pow(b1, (float)t), bc2s = sqrt(1.0f - pow(b2, (float)t));
  const float step = lr / bc1, decay = 1.0f - lr * wd;
#endif
  const ulong first = FIRST_ELEMENT();
  for (int k = 0; k < EPI; ++k) {
    const ulong e = first + (ulong)k * WG;
    if (e >= count) break;
    float gv = LOAD1(G_T, g + g_off, e) * inv;
#if MASTER
    float w = master[w_off + e];
#else
    float w = LOAD1(P_T, p + p_off, e);
#endif
#if KIND == 0
#if WD
    gv = fma(wd, w, gv);
#endif
#if MOM
    const float buf = t == 1 ? gv : fma(mom, m[m_off + e], (1.0f - damp) * gv);
    m[m_off + e] = buf;
#if NESTEROV
    gv = fma(mom, buf, gv);
#else
    gv = buf;
#endif
#endif
    w = fma(-lr, gv, w);
#else
    w *= decay;
    const float mm = fma(b1, m[m_off + e], (1.0f - b1) * gv);
    const float vv = fma(b2, v[v_off + e], (1.0f - b2) * gv * gv);
    m[m_off + e] = mm;
    v[v_off + e] = vv;
    w -= step * mm / (sqrt(vv) / bc2s + eps);
#endif
#if MASTER
    master[w_off + e] = w;
#endif
    STORE1(P_T, w, p + p_off, e);
  }
}

kernel void clforge_opt_reset(global int *state, const ulong so) {
  if (get_global_id(0) == 0) state[so + 2] = 0;
}

kernel void clforge_opt_finish(global int *state, const ulong so, const int scaling, const float growth,
                               const float backoff, const int interval) {
  if (get_global_id(0) != 0) return;
  if (state[so + 2]) {
    state[so] = as_int(as_float(state[so]) * backoff);
    state[so + 1] = 0;
    return;
  }
  state[so + 3] += 1;
  if (scaling && ++state[so + 1] >= interval) {
    const float grown = as_float(state[so]) * growth;
    if (isfinite(grown)) state[so] = as_int(grown); // an infinite scale would skip every step after it
    state[so + 1] = 0;
  }
}
