/* The on-disk cache of program binaries: one file per key, written atomically,
 * verified (magic, version, key, length, checksum) before use. */
#ifndef CLFORGE_SRC_BINARY_CACHE_H
#define CLFORGE_SRC_BINARY_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "clforge/clforge.h"

typedef struct clforge__cache_key {
  uint64_t hi, lo;
} clforge__cache_key;

/* Hash of everything that decides the binary: the sources, the build options,
 * the device name, driver and platform versions, and the library version. */
clforge__cache_key clforge__binary_cache_key(const char *const *sources, const size_t *lengths,
                                             size_t nsources, const char *options,
                                             const clforge_device_info *info);

/* 1 when clforge's cache should stand aside on this device by default:
 * PoCL keeps its own cache of compiled kernels (keyed by source and options,
 * POCL_CACHE_DIR), and asking it for CL_PROGRAM_BINARIES compiles every
 * kernel of the program a second time, for a generic work-group size, which
 * nearly doubled every first build (docs/performance.md) to save nothing on later runs. An explicit CLFORGE_CACHE_DIR, or PoCL's
 * cache turned off (POCL_KERNEL_CACHE=0), keeps clforge's. */
int clforge__binary_cache_deferred(const clforge_device_info *info);

/* Make `dir` exist and check it is a writable directory. 0 when usable,
 * else -1 with the reason in why. */
int clforge__binary_cache_prepare(const char *dir, char *why, size_t why_cap);

typedef enum {
  CLFORGE_CACHE_MISS = 0,     /* no file */
  CLFORGE_CACHE_HIT = 1,      /* *data holds the verified payload (free() it) */
  CLFORGE_CACHE_REJECTED = 2  /* a file was there but did not verify: deleted */
} clforge__cache_lookup;

clforge__cache_lookup clforge__binary_cache_load(const char *dir, clforge__cache_key key,
                                                 unsigned char **data, size_t *len);

/* Delete the file for key (after a verified binary still failed to load). */
void clforge__binary_cache_remove(const char *dir, clforge__cache_key key);

/* Write atomically (temp file + rename). 0 on success, -1 with why. */
int clforge__binary_cache_store(const char *dir, clforge__cache_key key, const unsigned char *data,
                                size_t len, char *why, size_t why_cap);

#endif
