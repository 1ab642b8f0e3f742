/* The device's peak kept between benchmark runs (peak_store.h). */
#include "peak_store.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

/* The measurement's version, in the key and the file: a peak kept by an
 * older kernel is measured again, not reused. 2: CPU devices measure a
 * one-lane shape beside the vector one (Intel's CPU runtime ran the old
 * float4 kernel at half the machine's rate). */
#define PEAK_METHOD "2"

/* "<cache dir>/peak-<key>.json"; 0, or -1 with no directory to keep it in.
 * The key separates drivers on the same CPU: their platforms, driver
 * versions and often device names differ. */
static int peak_path(const clforge_device_info *info, char *buf, size_t cap, char *dir, size_t dcap) {
  if (clforge_path(CLFORGE_PATH_BINARY_CACHE, dir, dcap) != CLFORGE_SUCCESS || !strcmp(dir, "off")) return -1;
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  const char *fields[] = {info->name,           info->vendor,         info->driver_version,
                          info->platform_name,  info->platform_version, info->opencl_version,
                          clforge_version(),    PEAK_METHOD};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) XXH3_64bits_update(&st, fields[i], strlen(fields[i]) + 1);
  const int n = snprintf(buf, cap, "%s/peak-%016llx.json", dir, (unsigned long long)XXH3_64bits_digest(&st));
  return n > 0 && (size_t)n < cap ? 0 : -1;
}

static double number(const cJSON *o, const char *name) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  return cJSON_IsNumber(v) ? v->valuedouble : -1.0;
}

int clforge_bench_peak_load(const clforge_device_info *info, clforge_bench_peaks *out, double *age_s) {
  char path[4200], dir[4096];
  if (peak_path(info, path, sizeof path, dir, sizeof dir)) return -1;
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char text[1024];
  const size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  cJSON *o = cJSON_Parse(text);
  if (!o) return -1;
  const double g = number(o, "gflops"), b = number(o, "gbps"), h = number(o, "host_gflops"),
               c = number(o, "cache_bytes"), at = number(o, "measured_unix"), f16 = number(o, "f16_gflops");
  const cJSON *dev = cJSON_GetObjectItemCaseSensitive(o, "device"),
              *plat = cJSON_GetObjectItemCaseSensitive(o, "platform"),
              *method = cJSON_GetObjectItemCaseSensitive(o, "method");
  const int same = cJSON_IsString(dev) && !strcmp(dev->valuestring, info->name) && cJSON_IsString(plat) &&
                   !strcmp(plat->valuestring, info->platform_name) && cJSON_IsString(method) &&
                   !strcmp(method->valuestring, PEAK_METHOD); /* the key's hash aside */
  cJSON_Delete(o);
  const double age = difftime(time(NULL), (time_t)at);
  if (!same || !(g > 0) || !(b > 0) || h < 0 || c < 0 || at < 0 || age < 0 || age > CLFORGE_BENCH_PEAK_KEEP_S)
    return -1;
  *out = (clforge_bench_peaks){g, b, h, (unsigned long long)c, f16 > 0 ? f16 : 0}; /* (older files have no f16) */
  *age_s = age;
  return 0;
}

/* mkdir -p (the cache directory may not exist yet). */
static int make_dirs(char *dir) {
  for (char *p = dir + 1;; ++p) {
    const char c = *p;
    if (c != '/' && c != '\0') continue;
    *p = '\0';
    const int bad = mkdir(dir, 0755) != 0 && errno != EEXIST;
    *p = c;
    if (bad) return -1;
    if (c == '\0') return 0;
  }
}

void clforge_bench_peak_save(const clforge_device_info *info, const clforge_bench_peaks *p) {
  char path[4200], dir[4096], tmp[4300];
  if (peak_path(info, path, sizeof path, dir, sizeof dir) || make_dirs(dir)) return;
  cJSON *o = cJSON_CreateObject();
  if (!o) return;
  cJSON_AddStringToObject(o, "device", info->name);
  cJSON_AddStringToObject(o, "platform", info->platform_name);
  cJSON_AddStringToObject(o, "method", PEAK_METHOD);
  cJSON_AddNumberToObject(o, "gflops", p->gflops);
  cJSON_AddNumberToObject(o, "gbps", p->gbps);
  cJSON_AddNumberToObject(o, "host_gflops", p->host_gflops);
  cJSON_AddNumberToObject(o, "f16_gflops", p->f16_gflops);
  cJSON_AddNumberToObject(o, "cache_bytes", (double)p->cache_bytes);
  cJSON_AddNumberToObject(o, "measured_unix", (double)time(NULL));
  char *text = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  if (!text) return;
  /* Written aside and renamed: a concurrent reader sees the old or the new. */
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  int ok = f && fputs(text, f) >= 0;
  if (f && fclose(f) != 0) ok = 0;
  if (ok && rename(tmp, path) == 0) ok = 2;
  if (ok != 2) unlink(tmp);
  cJSON_free(text);
}
