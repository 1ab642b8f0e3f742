/* The tuning cache file (JSON, read and written with cJSON): parse, load the
 * user and system files once per context, look up with fallback, merge and
 * save atomically under a lock. Format: docs/tuning.md. */
#ifndef CLFORGE_SRC_CORE_TUNING_FILE_H
#define CLFORGE_SRC_CORE_TUNING_FILE_H

#include <stddef.h>

#include "clforge/clforge.h"
#include "tuning_view.h"

#define CLFORGE_TUNING_FORMAT 1

enum { CLFORGE_TUNING_MAX_PARAMS = 16, CLFORGE_TUNING_MAX_DIMS = 8 };

typedef struct clforge__tuning_entry {
  /* device fingerprint */
  char vendor[128], device[256], driver[128];
  unsigned compute_units;
  /* what was tuned */
  char family[32];       /* kernel family, e.g. "gemm" */
  char dtypes[32];       /* storage types of the operands, e.g. "f32,f32,f32" */
  char layout[16];       /* op-specific layout key, e.g. "nn" (transposes) */
  char shape_class[32];  /* e.g. "large" */
  int ndims;
  size_t shape[CLFORGE_TUNING_MAX_DIMS]; /* the exact shape tuned, e.g. m, n, k (conv: 8 dims) */
  char provider[16];     /* "clforge", or a peer library that won ("clblast") */
  int nparams;
  char names[CLFORGE_TUNING_MAX_PARAMS][16];
  int values[CLFORGE_TUNING_MAX_PARAMS];
  double median_s, gflops;
  char date[32];         /* ISO 8601, UTC */
  char library_version[32];
} clforge__tuning_entry;

/* clforge__tuning_db, a list of entries, and clforge__tuning_view, a
 * context's: src/core/tuning_view.h. */

/* Parse a whole file's text. On success appends its entries to db and
 * returns 0; on any defect (not JSON, another format version, wrong types,
 * missing fields) returns -1 (-2 when the format version is newer than this
 * library's) with the reason in why and leaves db as it was. Never reads
 * beyond len; text need not be NUL-terminated. */
int clforge__tuning_parse(const char *text, size_t len, clforge__tuning_db *db, char *why, size_t why_cap);

/* Read and parse a file. 0 on success, 1 when it does not exist (or is
 * "off"); with why and db unchanged: -1 damaged, -2 of a newer format
 * version, -3 unreadable (permissions, I/O, not a regular file, too big). */
int clforge__tuning_load_file(const char *path, clforge__tuning_db *db, char *why, size_t why_cap);

/* Append or replace (same device, family, dtypes, layout, shape class). */
int clforge__tuning_put(clforge__tuning_db *db, const clforge__tuning_entry *e);

/* The whole file's text for db (malloc'd, NULL when out of memory); parsing
 * it gives back the same entries (median time rounded to 1 ns, GFLOP/s to
 * 0.1). */
char *clforge__tuning_serialize(const clforge__tuning_db *db);

/* Merge `add` into the file at path under an exclusive lock (re-reading what
 * other writers saved meanwhile), then write a temporary file and rename it
 * over. A damaged file is moved to "<path>.bad" and replaced (return 1, why
 * says so); a newer format's or an unreadable file is left alone, and I/O
 * or lock failures, return -1 with why. */
int clforge__tuning_save(const char *path, const clforge__tuning_db *add, char *why, size_t why_cap);

/* 1 when an entry was made on the device described by info. */
int clforge__tuning_same_device(const clforge__tuning_entry *e, const clforge_device_info *info);

/* Fill an entry's fingerprint from info and date/library version from now. */
void clforge__tuning_stamp(clforge__tuning_entry *e, const clforge_device_info *info);

typedef enum {
  CLFORGE__TUNING_NONE = 0,
  CLFORGE__TUNING_EXACT = 1,   /* this device, this shape class */
  CLFORGE__TUNING_NEAREST = 2  /* this device, nearest tuned shape */
} clforge__tuning_match;

typedef struct clforge__tuning_query {
  const char *family, *dtypes, *layout, *shape_class;
  const size_t *shape;
  int ndims;
  /* Optional: 1 when an entry can be used (its parameters fit the family);
   * entries that do not are passed over, so the order goes on to the next. */
  int (*fits)(const clforge__tuning_entry *e, void *user);
  void *user;
} clforge__tuning_query;

/* Look up q on ctx's device: an entry of the class itself, else (NEAREST)
 * the one with the smallest log-distance between shapes. User entries win
 * over system ones, except that a system entry of the class beats a user
 * entry that is only nearest. Returns the match kind and *out (NULL for
 * NONE). */
clforge__tuning_match clforge__tuning_lookup(clforge_context ctx, const clforge__tuning_query *q,
                                             const clforge__tuning_entry **out);

#endif
