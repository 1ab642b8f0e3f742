/* The benchmarks' data and comparisons. */
#include "data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void clforge_bench_fill_random(float *x, size_t n, uint32_t seed, float range) {
  uint32_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = ((float)(s >> 8) * (2.0f / 16777216.0f) - 1.0f) * range;
  }
}

double clforge_bench_unit_roundoff(clforge_dtype d) {
  return d == CLFORGE_F16 ? 0x1p-11 : d == CLFORGE_BF16 ? 0x1p-8 : 0x1p-24;
}

int clforge_bench_round_to_dtype(float *v, size_t n, clforge_dtype d) {
  if (d == CLFORGE_F32) return 0;
  uint16_t *tmp = malloc(n * sizeof *tmp);
  if (!tmp) return -1;
  int rc = clforge_ref_convert(n, v, CLFORGE_F32, tmp, d) == CLFORGE_SUCCESS &&
                   clforge_ref_convert(n, tmp, d, v, CLFORGE_F32) == CLFORGE_SUCCESS
               ? 0
               : -1;
  free(tmp);
  return rc;
}

int clforge_bench_read_f32(cl_command_queue queue, cl_mem buf, const char *what, clforge_dtype t, size_t offset,
                           size_t n, float *out, char *err, size_t cap) {
  const size_t es = clforge_dtype_size(t);
  void *raw = t == CLFORGE_F32 ? (void *)out : malloc(n * es);
  if (!raw) {
    snprintf(err, cap, "out of host memory reading %s back", what);
    return -1;
  }
  cl_int e = clEnqueueReadBuffer(queue, buf, CL_TRUE, offset * es, n * es, raw, 0, NULL, NULL);
  int rc = 0;
  if (e != CL_SUCCESS) {
    snprintf(err, cap, "clEnqueueReadBuffer of %s failed (%s)", what, clforge_status_name(e));
    rc = -1;
  } else if (raw != out && clforge_ref_convert(n, raw, t, out, CLFORGE_F32) != CLFORGE_SUCCESS) {
    snprintf(err, cap, "clforge_ref_convert of %s failed: %s", what, clforge_last_error(NULL));
    rc = -1;
  }
  if (raw != out) free(raw);
  return rc;
}

double clforge_bench_max_rel_diff(const float *x, const float *ref, size_t n) {
  double maxref = 0, maxdiff = 0;
  for (size_t i = 0; i < n; ++i) {
    double r = fabs((double)ref[i]), d = fabs((double)x[i] - (double)ref[i]);
    if (!(r <= maxref)) maxref = isnan(r) ? INFINITY : r;
    if (!(d <= maxdiff)) maxdiff = isnan(d) ? INFINITY : d;
  }
  if (isinf(maxdiff) || isinf(maxref)) return INFINITY;
  return maxref > 0 ? maxdiff / maxref : maxdiff;
}

int clforge_bench_operands_fit(const clforge_device_info *info, const size_t sizes[3], const char *const names[3],
                               char *err, size_t cap) {
  unsigned long long total = 0;
  for (int i = 0; i < 3; ++i) {
    total += sizes[i];
    if (sizes[i] > info->max_alloc_bytes) {
      snprintf(err, cap, "%s needs %zu bytes, more than the device's largest allocation (%llu bytes)", names[i],
               sizes[i], (unsigned long long)info->max_alloc_bytes);
      return -1;
    }
  }
  if (total > info->global_mem_bytes) {
    snprintf(err, cap, "%s, %s and %s need %llu bytes, more than the device's memory (%llu bytes)", names[0], names[1],
             names[2], total, (unsigned long long)info->global_mem_bytes);
    return -1;
  }
  return 0;
}
