#include "binary_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/* File layout (little-endian host order; a foreign-endian file fails the
 * magic check and is rebuilt):
 *   0  magic "CLFGBIN\0"   8  u32 format version   12 u32 header size
 *   16 key (hi, lo)        32 u64 payload length   40 u64 XXH64(payload)
 *   48 payload */
static const char magic[8] = {'C', 'L', 'F', 'G', 'B', 'I', 'N', '\0'};
enum { FORMAT_VERSION = 1, HEADER_SIZE = 48 };

typedef struct {
  char magic[8];
  uint32_t version, header_size;
  uint64_t key_hi, key_lo, length, checksum;
} file_header;
_Static_assert(sizeof(file_header) == HEADER_SIZE, "header layout");

static void hash_field(XXH3_state_t *st, const void *data, size_t len) {
  uint64_t n = len; /* length prefix: ("ab","c") and ("a","bc") differ */
  XXH3_128bits_update(st, &n, sizeof n);
  XXH3_128bits_update(st, data, len);
}

clforge__cache_key clforge__binary_cache_key(const char *const *sources, const size_t *lengths,
                                             size_t nsources, const char *options,
                                             const clforge_device_info *info) {
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  for (size_t i = 0; i < nsources; ++i) hash_field(&st, sources[i], lengths[i]);
  const char *fields[] = {options, info->name, info->vendor, info->driver_version,
                          info->platform_version, info->opencl_version, CLFORGE_VERSION_STRING};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i)
    hash_field(&st, fields[i], strlen(fields[i]));
  XXH128_hash_t h = XXH3_128bits_digest(&st);
  clforge__cache_key k = {h.high64, h.low64};
  return k;
}

static int file_path(char *buf, size_t cap, const char *dir, clforge__cache_key key) {
  int n = snprintf(buf, cap, "%s/%016llx%016llx.clbin", dir, (unsigned long long)key.hi,
                   (unsigned long long)key.lo);
  return (n < 0 || (size_t)n >= cap) ? -1 : 0;
}

int clforge__binary_cache_deferred(const clforge_device_info *info) {
  const char *dir = getenv("CLFORGE_CACHE_DIR"), *pocl_cache = getenv("POCL_KERNEL_CACHE");
  if (dir && *dir) return 0;
  if (pocl_cache && !strcmp(pocl_cache, "0")) return 0;
  return strstr(info->platform_name, "Portable Computing Language") != NULL;
}

int clforge__binary_cache_prepare(const char *dir, char *why, size_t why_cap) {
  char path[4096];
  int n = snprintf(path, sizeof path, "%s", dir);
  if (n <= 0 || (size_t)n >= sizeof path) {
    snprintf(why, why_cap, "cache directory path is empty or too long");
    return -1;
  }
  /* mkdir -p */
  for (char *p = path + 1; *p; ++p) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(path, 0755) && errno != EEXIST) {
      snprintf(why, why_cap, "cannot create %s: %s", path, strerror(errno));
      return -1;
    }
    *p = '/';
  }
  if (mkdir(path, 0755) && errno != EEXIST) {
    snprintf(why, why_cap, "cannot create %s: %s", path, strerror(errno));
    return -1;
  }
  struct stat sb;
  if (stat(path, &sb) || !S_ISDIR(sb.st_mode)) {
    snprintf(why, why_cap, "%s is not a directory", path);
    return -1;
  }
  if (access(path, W_OK | X_OK)) {
    snprintf(why, why_cap, "%s is not writable: %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

static clforge__cache_lookup reject(const char *path, FILE *f, void *buf) {
  if (f) fclose(f);
  free(buf);
  unlink(path);
  return CLFORGE_CACHE_REJECTED;
}

clforge__cache_lookup clforge__binary_cache_load(const char *dir, clforge__cache_key key,
                                                 unsigned char **data, size_t *len) {
  char path[4200];
  *data = NULL;
  *len = 0;
  if (file_path(path, sizeof path, dir, key)) return CLFORGE_CACHE_MISS;
  FILE *f = fopen(path, "rb");
  if (!f) return CLFORGE_CACHE_MISS;
  file_header h;
  struct stat sb;
  if (fstat(fileno(f), &sb) || fread(&h, sizeof h, 1, f) != 1) return reject(path, f, NULL);
  if (memcmp(h.magic, magic, sizeof magic) || h.version != FORMAT_VERSION ||
      h.header_size != HEADER_SIZE || h.key_hi != key.hi || h.key_lo != key.lo ||
      (uint64_t)sb.st_size < HEADER_SIZE || h.length != (uint64_t)sb.st_size - HEADER_SIZE ||
      h.length == 0 || h.length > SIZE_MAX)
    return reject(path, f, NULL);
  unsigned char *buf = malloc((size_t)h.length);
  if (!buf) {
    fclose(f);
    return CLFORGE_CACHE_MISS; /* no memory: rebuild, keep the file */
  }
  if (fread(buf, 1, (size_t)h.length, f) != h.length || XXH64(buf, (size_t)h.length, 0) != h.checksum)
    return reject(path, f, buf);
  fclose(f);
  *data = buf;
  *len = (size_t)h.length;
  return CLFORGE_CACHE_HIT;
}

void clforge__binary_cache_remove(const char *dir, clforge__cache_key key) {
  char path[4200];
  if (!file_path(path, sizeof path, dir, key)) unlink(path);
}

int clforge__binary_cache_store(const char *dir, clforge__cache_key key, const unsigned char *data,
                                size_t len, char *why, size_t why_cap) {
  char path[4200], tmp[4300];
  if (file_path(path, sizeof path, dir, key)) {
    snprintf(why, why_cap, "cache path too long");
    return -1;
  }
  snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(why, why_cap, "cannot create %s: %s", tmp, strerror(errno));
    return -1;
  }
  file_header h;
  memcpy(h.magic, magic, sizeof magic);
  h.version = FORMAT_VERSION;
  h.header_size = HEADER_SIZE;
  h.key_hi = key.hi;
  h.key_lo = key.lo;
  h.length = len;
  h.checksum = XXH64(data, len, 0);
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    snprintf(why, why_cap, "cannot open %s: %s", tmp, strerror(errno));
    close(fd);
    unlink(tmp);
    return -1;
  }
  int ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(data, 1, len, f) == len && fflush(f) == 0;
  int saved = errno;
  /* fchmod: mkstemp makes 0600; cache files are as readable as the directory */
  if (ok) fchmod(fd, 0644);
  if (fclose(f) != 0 && ok) {
    ok = 0;
    saved = errno;
  }
  if (!ok || rename(tmp, path) != 0) {
    if (ok) saved = errno;
    snprintf(why, why_cap, "cannot write %s: %s", path, strerror(saved));
    unlink(tmp);
    return -1;
  }
  return 0;
}
