/* Tuning files written by hand, for the tests of what a call does with
 * one (tests/test_conv_select.c, test_attention_tune.c, test_tuning_file.c):
 * an entry as JSON, a family's built-in parameters as an entry's params,
 * a whole file around entries. */
#ifndef CLFORGE_TESTS_TUNING_ENTRIES_H
#define CLFORGE_TESTS_TUNING_ENTRIES_H

#include "../src/families/family.h"
#include "test_util.h"

/* One entry for device dev (its fingerprint as the file keeps it): family,
 * keys, the shape as "8,64,56,64,3,1,1,1", params as "\"NAME\":v,...", the
 * provider and the measured rate. Exits when buf is too small (tests only). */
static inline void tu_tuning_entry(char *buf, size_t cap, const clforge_device_info *dev, const char *family,
                                   const char *dtypes, const char *layout, const char *cls, const char *shape,
                                   const char *provider, const char *params, double gflops) {
  char v[300], nm[300], dr[300];
  tu_json_escape(dev->vendor, v, sizeof v);
  tu_json_escape(dev->name, nm, sizeof nm);
  tu_json_escape(dev->driver_version, dr, sizeof dr);
  int len = snprintf(buf, cap,
                     "{\"device\":{\"vendor\":\"%s\",\"name\":\"%s\",\"driver\":\"%s\",\"compute_units\":%u},"
                     "\"family\":\"%s\",\"dtypes\":\"%s\",\"layout\":\"%s\",\"shape_class\":\"%s\",\"shape\":[%s],"
                     "\"provider\":\"%s\",\"params\":{%s},\"median_ms\":1.5,\"gflops\":%.1f,"
                     "\"date\":\"2026-12-01T00:00:00Z\"}",
                     v, nm, dr, dev->compute_units, family, dtypes, layout, cls, shape, provider, params, gflops);
  if (len < 0 || (size_t)len >= cap) {
    fprintf(stderr, "test tuning entry too long\n");
    exit(1);
  }
}

/* Family f's built-in parameters on dev's class (variant 0) as an entry's
 * params: valid there by construction. */
static inline void tu_default_params(const clforge__family *f, const clforge_device_info *dev, char *buf, size_t cap) {
  int vals[CLFORGE_MAX_PARAMS];
  clforge__family_default(f, dev->device_class, 0, vals);
  size_t o = 0;
  buf[0] = '\0';
  for (int i = 0; i < f->nparams && o < cap; ++i)
    o += (size_t)snprintf(buf + o, cap - o, "%s\"%s\":%d", i ? "," : "", f->params[i].name, vals[i]);
}

/* A whole tuning file at path around n entries. */
static inline void tu_write_tuning_file(const char *path, const char *const *entries, int n) {
  FILE *fp = fopen(path, "wb");
  if (!fp) {
    perror(path);
    exit(1);
  }
  fputs("{\"format\":\"clforge-tuning\",\"format_version\":1,\"library_version\":\"0.1.0\",\"entries\":[", fp);
  for (int i = 0; i < n; ++i) fprintf(fp, "%s%s", i ? "," : "", entries[i]);
  fputs("]}", fp);
  fclose(fp);
}

#endif
