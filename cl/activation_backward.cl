// clforge_activation_backward (src/ops/activation_backward.c): dx = act'(z)
// * dy + beta * dx, EPI consecutive elements per work-item (work-items of a
// group interleave by element: item i of group g handles g*WG*EPI + e*WG + i,
// so neighbouring items touch neighbouring memory on GPUs, and PoCL's vector
// loop over the group's items runs along memory too).
// Tuned parameters (src/families/activation_backward.c): WG, EPI.
// Problem options: Z_T DY_T DX_T (storage codes), ACT, BETA (0/1), FWD (1:
// dx = act(dy), the forward, for src/ops/conv_aux.c).

typedef CLFORGE_CAT(CLFORGE_STORAGE_, Z_T) z_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, DY_T) dy_t;
typedef CLFORGE_CAT(CLFORGE_STORAGE_, DX_T) dx_t;

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_activation_backward(
    const global z_t *restrict Z, const ulong z_off, const global dy_t *DY, const ulong dy_off, global dx_t *DX,
    const ulong dx_off, const ulong n, const float beta) {
  const ulong base = (ulong)get_group_id(0) * (WG * EPI) + get_local_id(0);
  for (int e = 0; e < EPI; ++e) {
    const ulong i = base + (ulong)e * WG;
    if (i >= n) return;
    const float g = LOAD1(DY_T, DY, dy_off + i);
#if FWD
    float v = ACTIVATE(g); // the forward activation itself (clforge_conv2d_aux's last pass)
#elif ACT == 0
    float v = g;
#else
    float v = DACTIVATE(LOAD1(Z_T, Z, z_off + i)) * g; // cl/common.cl
#endif
#if BETA
    v = fma(beta, LOAD1(DX_T, DX, dx_off + i), v);
#endif
    STORE1(DX_T, v, DX, dx_off + i);
  }
}
