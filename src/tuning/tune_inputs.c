/* What the ops' tuner hooks share: their keys' storage types, and inputs
 * (values in [-1, 1) from a fixed LCG, in a storage type, so that every
 * run measures and checks the same problem). */
#include <stdlib.h>
#include <string.h>

#include "tune_op.h"

void *clforge__random_storage(size_t n, clforge_dtype t, uint32_t seed) {
  float *f = malloc((n ? n : 1) * sizeof *f);
  void *out = malloc((n ? n : 1) * clforge_dtype_size(t));
  if (f && out) {
    for (size_t i = 0; i < n; ++i) {
      seed = seed * 1664525u + 1013904223u;
      f[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
    clforge_ref_convert(n, f, CLFORGE_F32, out, t);
  }
  free(f);
  if (!f) {
    free(out);
    out = NULL;
  }
  return out;
}

/* "a,b,c" storage types; each name is copied out for clforge_dtype_from_name. */
clforge_compute_type clforge__tune_compute_type(const char *dtypes) {
  const char *at = strchr(dtypes, '@');
  if (!at) return CLFORGE_COMPUTE_32F;
  for (int t = CLFORGE_COMPUTE_32F_FAST_16F; t <= CLFORGE_COMPUTE_16F; ++t)
    if (!strcmp(at + 1, clforge_compute_type_name((clforge_compute_type)t))) return (clforge_compute_type)t;
  return CLFORGE_COMPUTE_DEFAULT;
}

int clforge__tune_parse_dtypes(const char *s, clforge_dtype t[3]) {
  if (clforge__tune_compute_type(s) == CLFORGE_COMPUTE_DEFAULT) return -1;
  for (int i = 0; i < 3; ++i) {
    const char *end = strchr(s, ',');
    size_t len = end ? (size_t)(end - s) : strcspn(s, "@");
    char name[8] = ""; /* zero-filled: the copied token stays terminated */
    if (len >= sizeof name || (i < 2) != (end != NULL)) return -1;
    memcpy(name, s, len);
    if (clforge_dtype_from_name(name, &t[i]) != CLFORGE_SUCCESS) return -1;
    s = end ? end + 1 : s;
  }
  return 0;
}
