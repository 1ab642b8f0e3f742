// clforge_quantize / clforge_dequantize (src/ops/quantize.c): f32/f16/bf16
// <-> s8/u8 with per-tensor, per-row or per-column scales and zero points,
// and ggml's q8_0 blocks. The arithmetic is src/ref/quantize.c's, operation
// for operation, so integer results and computed scales match it bit for
// bit (the program is built with -cl-fp32-correctly-rounded-divide-sqrt
// where the device has it: 1 / scale and the scales are divisions).
// Parameter (src/families/quantize.c): WG, the work-group size.
// Problem options: X_T (float storage code), Q_T (4 = s8, 5 = u8).

typedef CLFORGE_CAT(CLFORGE_STORAGE_, X_T) x_t;

#if Q_T == 4
#define QMIN (-128L)
#define QMAX 127L
#define QLOAD(b) ((int)as_char(b))
#else
#define QMIN 0L
#define QMAX 255L
#define QLOAD(b) ((int)(b))
#endif

static inline float clforge_quant_inv(float scale) { return scale != 0.0f ? 1.0f / scale : 0.0f; }


// One row's range [lo, hi] (both around 0, NaN passed over) per work-group,
// stored as range[2 r], range[2 r + 1]. (Scalars, not float2: Oclgrind's
// uninitialized-value check reports a vector built from scalars as undefined.)
kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_quant_range_rows(
    const global x_t *X, const ulong x_off, const ulong ldx, const ulong cols, global float *range) {
  const ulong r = get_group_id(0);
  const int l = (int)get_local_id(0);
  local float plo[WG], phi[WG];
  float lo = 0.0f, hi = 0.0f;
  for (ulong c = (ulong)l; c < cols; c += WG) {
    const float v = LOAD1(X_T, X, x_off + r * ldx + c);
    lo = fmin(lo, v);
    hi = fmax(hi, v);
  }
  plo[l] = lo;
  phi[l] = hi;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = WG / 2; s > 0; s >>= 1) {
    if (l < s) {
      plo[l] = fmin(plo[l], plo[l + s]);
      phi[l] = fmax(phi[l], phi[l + s]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) {
    range[2 * r] = plo[0];
    range[2 * r + 1] = phi[0];
  }
}

// One column's range per work-item (neighbouring items read neighbouring
// elements of each row).
kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_quant_range_cols(
    const global x_t *X, const ulong x_off, const ulong ldx, const ulong rows, const ulong cols, global float *range) {
  const ulong c = get_global_id(0);
  if (c >= cols) return;
  float lo = 0.0f, hi = 0.0f;
  for (ulong r = 0; r < rows; ++r) {
    const float v = LOAD1(X_T, X, x_off + r * ldx + c);
    lo = fmin(lo, v);
    hi = fmax(hi, v);
  }
  range[2 * c] = lo;
  range[2 * c + 1] = hi;
}

// Channel c's scale (and zero point) from its `parts` ranges.
kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_quant_params(
    const global float *range, const ulong parts, const ulong nchan, global float *scale, const ulong s_off,
    global int *zp, const ulong z_off, const int has_zp) {
  const ulong c = get_global_id(0);
  if (c >= nchan) return;
  float lo = 0.0f, hi = 0.0f;
  for (ulong p = 0; p < parts; ++p) {
    lo = fmin(lo, range[2 * (c * parts + p)]);
    hi = fmax(hi, range[2 * (c * parts + p) + 1]);
  }
#if Q_T == 4
  const float s = fmax(-lo, hi) / 127.0f + 0.0f; // + 0: an all-zero channel's scale is +0 whatever fmax returns
  const int z = 0;
#else
  const float s = (hi - lo) / 255.0f + 0.0f;
  float zf = s != 0.0f ? rint(-lo / s) : 0.0f;
  zf = isnan(zf) ? 0.0f : clamp(zf, 0.0f, 255.0f);
  const int z = (int)zf;
#endif
  scale[s_off + c] = s;
  if (has_zp) zp[z_off + c] = z;
}

// q = quantize(x); the scale of (r, c) is scale[s_off + r * srow + c * scol].
kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_quantize(
    const global x_t *X, const ulong x_off, const ulong ldx, global uchar *Q, const ulong q_off, const ulong ldq,
    const ulong cols, const global float *scale, const ulong s_off, const global int *zp, const ulong z_off,
    const int has_zp, const int srow, const int scol) {
  const ulong c = get_global_id(0), r = get_global_id(1);
  if (c >= cols) return;
  const ulong s = r * (ulong)srow + c * (ulong)scol;
  const float inv = clforge_quant_inv(scale[s_off + s]);
  const int z = has_zp ? zp[z_off + s] : 0;
  Q[q_off + r * ldq + c] = clforge_quant_one(LOAD1(X_T, X, x_off + r * ldx + c), inv, z, QMIN, QMAX);
}

// x = scale * (q - zp) in f32, stored as X_T.
kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_dequantize(
    const global uchar *Q, const ulong q_off, const ulong ldq, global x_t *X, const ulong x_off, const ulong ldx,
    const ulong cols, const global float *scale, const ulong s_off, const global int *zp, const ulong z_off,
    const int has_zp, const int srow, const int scol) {
  const ulong c = get_global_id(0), r = get_global_id(1);
  if (c >= cols) return;
  const ulong s = r * (ulong)srow + c * (ulong)scol;
  const long z = has_zp ? zp[z_off + s] : 0;
  const float v = convert_float((long)QLOAD(Q[q_off + r * ldq + c]) - z) * scale[s_off + s];
  STORE1(X_T, v, X, x_off + r * ldx + c);
}

// q8_0: a work-item per block of 32 values; the block is d (f16, little-
// endian) then 32 s8, d = max|x| / 127, q = round(x * (1 / d)).
kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_q8_0_quantize(
    const global x_t *X, const ulong x_off, const ulong ldx, global uchar *Q, const ulong q_off, const ulong ldq,
    const ulong nblocks) {
  const ulong b = get_global_id(0), r = get_global_id(1);
  if (b >= nblocks) return;
  const ulong x0 = x_off + r * ldx + b * 32;
  global uchar *blk = Q + q_off + r * ldq + b * 34;
#define XV(i) LOAD1(X_T, X, x0 + (i))
  CLFORGE_Q8_0_BLOCK(XV, blk); // cl/common.cl
#undef XV
}

kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void clforge_q8_0_dequantize(
    const global uchar *Q, const ulong q_off, const ulong ldq, global x_t *X, const ulong x_off, const ulong ldx,
    const ulong cols) {
  const ulong c = get_global_id(0), r = get_global_id(1);
  if (c >= cols) return;
  const global uchar *blk = Q + q_off + r * ldq + c / 32 * 34;
  const float d = clforge_f32_from_f16_bits_uint((uint)blk[0] | (uint)blk[1] << 8);
  STORE1(X_T, d * (float)as_char(blk[2 + c % 32]), X, x_off + r * ldx + c);
}
