/* The tuning cache file: see tuning_file.h and docs/tuning.md. */
#include "tuning_file.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "context.h"
#include "log.h"
#include "paths.h"

#define FORMAT_NAME "clforge-tuning"
/* A tuning file larger than this is not one of ours. */
#define MAX_FILE_BYTES (64u << 20)

static int copy_str(char *dst, size_t cap, const cJSON *item) {
  if (!cJSON_IsString(item) || !item->valuestring || strlen(item->valuestring) >= cap) return -1;
  memcpy(dst, item->valuestring, strlen(item->valuestring) + 1);
  return 0;
}

/* A JSON number that is an integer in [lo, hi]. */
static int get_int(const cJSON *item, double lo, double hi, double *out) {
  if (!cJSON_IsNumber(item)) return -1;
  double v = item->valuedouble;
  if (!(v >= lo && v <= hi) || v != floor(v)) return -1;
  *out = v;
  return 0;
}

static int parse_entry(const cJSON *o, clforge__tuning_entry *e, char *why, size_t why_cap) {
  memset(e, 0, sizeof *e);
  const char *bad = NULL;
  const cJSON *dev = cJSON_GetObjectItemCaseSensitive(o, "device");
  double d;
  if (!cJSON_IsObject(o)) bad = "an entry is not an object";
  else if (!cJSON_IsObject(dev)) bad = "device is not an object";
  else if (copy_str(e->vendor, sizeof e->vendor, cJSON_GetObjectItemCaseSensitive(dev, "vendor")) ||
           copy_str(e->device, sizeof e->device, cJSON_GetObjectItemCaseSensitive(dev, "name")) ||
           copy_str(e->driver, sizeof e->driver, cJSON_GetObjectItemCaseSensitive(dev, "driver")))
    bad = "device vendor, name or driver is not a string (or too long)";
  else if (get_int(cJSON_GetObjectItemCaseSensitive(dev, "compute_units"), 0, 1e9, &d))
    bad = "device compute_units is not a non-negative integer";
  else if ((e->compute_units = (unsigned)d, 0)) {
  } else if (copy_str(e->family, sizeof e->family, cJSON_GetObjectItemCaseSensitive(o, "family")) ||
             copy_str(e->dtypes, sizeof e->dtypes, cJSON_GetObjectItemCaseSensitive(o, "dtypes")) ||
             copy_str(e->layout, sizeof e->layout, cJSON_GetObjectItemCaseSensitive(o, "layout")) ||
             copy_str(e->shape_class, sizeof e->shape_class, cJSON_GetObjectItemCaseSensitive(o, "shape_class")) ||
             copy_str(e->provider, sizeof e->provider, cJSON_GetObjectItemCaseSensitive(o, "provider")))
    bad = "family, dtypes, layout, shape_class or provider is not a string (or too long)";
  if (bad) goto fail;

  const cJSON *shape = cJSON_GetObjectItemCaseSensitive(o, "shape");
  if (!cJSON_IsArray(shape) || cJSON_GetArraySize(shape) < 1 || cJSON_GetArraySize(shape) > CLFORGE_TUNING_MAX_DIMS) {
    bad = "shape is not an array of 1 to 8 sizes";
    goto fail;
  }
  const cJSON *it;
  cJSON_ArrayForEach(it, shape) {
    /* Bounded so that cJSON writes it back exactly (15 significant digits);
     * 0 is a size too (a convolution without padding). */
    if (get_int(it, 0, 1099511627776.0, &d)) {
      bad = "a shape dimension is not an integer in [0, 2^40]";
      goto fail;
    }
    e->shape[e->ndims++] = (size_t)d;
  }
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(o, "params");
  if (!cJSON_IsObject(params)) {
    bad = "params is not an object";
    goto fail;
  }
  cJSON_ArrayForEach(it, params) {
    if (e->nparams == CLFORGE_TUNING_MAX_PARAMS || !it->string || strlen(it->string) >= sizeof e->names[0] ||
        get_int(it, -2147483648.0, 2147483647.0, &d)) {
      bad = "params holds more than 16 values, a long name or a non-integer value";
      goto fail;
    }
    strcpy(e->names[e->nparams], it->string);
    e->values[e->nparams++] = (int)d;
  }
  const cJSON *ms = cJSON_GetObjectItemCaseSensitive(o, "median_ms");
  const cJSON *gf = cJSON_GetObjectItemCaseSensitive(o, "gflops");
  /* Bounded: an infinite or huge value would be written back as null. */
  if (!cJSON_IsNumber(ms) || !cJSON_IsNumber(gf) || !(ms->valuedouble >= 0 && ms->valuedouble <= 1e9) ||
      !(gf->valuedouble >= 0 && gf->valuedouble <= 1e9)) {
    bad = "median_ms or gflops is not a number in [0, 1e9]";
    goto fail;
  }
  e->median_s = ms->valuedouble / 1e3;
  e->gflops = gf->valuedouble;
  /* Informational fields: kept when present and well-formed. */
  copy_str(e->date, sizeof e->date, cJSON_GetObjectItemCaseSensitive(o, "date"));
  copy_str(e->library_version, sizeof e->library_version, cJSON_GetObjectItemCaseSensitive(o, "library_version"));
  return 0;
fail:
  snprintf(why, why_cap, "%s", bad);
  return -1;
}

static pthread_mutex_t parse_lock = PTHREAD_MUTEX_INITIALIZER;

int clforge__tuning_parse(const char *text, size_t len, clforge__tuning_db *db, char *why, size_t why_cap) {
  if (len == 0) {
    snprintf(why, why_cap, "the file is empty");
    return -1;
  }
  /* cJSON's parser records where it failed in a process-wide pointer:
   * contexts of several threads reading their files at once would race on it. */
  pthread_mutex_lock(&parse_lock);
  cJSON *root = cJSON_ParseWithLength(text, len);
  pthread_mutex_unlock(&parse_lock);
  if (!root) {
    snprintf(why, why_cap, "not valid JSON (corrupt or truncated)");
    return -1;
  }
  clforge__tuning_db add = {NULL, 0, 0};
  int rc = -1;
  double ver;
  const cJSON *entries = cJSON_GetObjectItemCaseSensitive(root, "entries");
  const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
  if (!cJSON_IsObject(root) || !cJSON_IsString(fmt) || strcmp(fmt->valuestring, FORMAT_NAME)) {
    snprintf(why, why_cap, "not a clforge tuning file (no \"format\": \"" FORMAT_NAME "\")");
  } else if (get_int(cJSON_GetObjectItemCaseSensitive(root, "format_version"), 0, 1e9, &ver)) {
    snprintf(why, why_cap, "format_version is missing or not an integer");
  } else if (ver != CLFORGE_TUNING_FORMAT) {
    snprintf(why, why_cap, "format_version %.0f, this library reads %d", ver, CLFORGE_TUNING_FORMAT);
    if (ver > CLFORGE_TUNING_FORMAT) rc = -2;
  } else if (!cJSON_IsArray(entries)) {
    snprintf(why, why_cap, "entries is not an array");
  } else {
    rc = 0;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, entries) {
      clforge__tuning_entry e;
      char ewhy[160] = "out of memory";
      if (parse_entry(it, &e, ewhy, sizeof ewhy) || clforge__tuning_put(&add, &e)) {
        snprintf(why, why_cap, "entry %d: %s", i, ewhy);
        rc = -1;
        break;
      }
      ++i;
    }
  }
  cJSON_Delete(root);
  for (size_t i = 0; rc == 0 && i < add.count; ++i)
    if (clforge__tuning_put(db, &add.entries[i])) {
      snprintf(why, why_cap, "out of memory");
      rc = -1;
    }
  clforge__tuning_free(&add);
  return rc;
}

static int same_key(const clforge__tuning_entry *a, const clforge__tuning_entry *b) {
  return !strcmp(a->vendor, b->vendor) && !strcmp(a->device, b->device) && !strcmp(a->driver, b->driver) &&
         a->compute_units == b->compute_units && !strcmp(a->family, b->family) && !strcmp(a->dtypes, b->dtypes) &&
         !strcmp(a->layout, b->layout) && !strcmp(a->shape_class, b->shape_class);
}

int clforge__tuning_put(clforge__tuning_db *db, const clforge__tuning_entry *e) {
  for (size_t i = 0; i < db->count; ++i)
    if (same_key(&db->entries[i], e)) {
      db->entries[i] = *e;
      return 0;
    }
  if (db->count == db->cap) {
    size_t cap = db->cap ? db->cap * 2 : 16;
    void *p = realloc(db->entries, cap * sizeof *db->entries);
    if (!p) return -1;
    db->entries = p;
    db->cap = cap;
  }
  db->entries[db->count++] = *e;
  return 0;
}

/* Whole file into memory; 1 when absent, -1 with why on failure. */
static int read_all(int fd, const char *path, char **out, size_t *len, char *why, size_t why_cap) {
  struct stat st;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
    snprintf(why, why_cap, "%s is not a regular file", path);
    return -1;
  }
  if ((unsigned long long)st.st_size > MAX_FILE_BYTES) {
    snprintf(why, why_cap, "%s is larger than %u bytes", path, MAX_FILE_BYTES);
    return -1;
  }
  char *buf = malloc((size_t)st.st_size + 1);
  if (!buf) {
    snprintf(why, why_cap, "out of memory reading %s", path);
    return -1;
  }
  size_t got = 0;
  while (got < (size_t)st.st_size) {
    ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  *out = buf;
  *len = got;
  return 0;
}

int clforge__tuning_load_file(const char *path, clforge__tuning_db *db, char *why, size_t why_cap) {
  if (!path || !*path || !strcmp(path, "off")) return 1;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return 1;
    snprintf(why, why_cap, "cannot open %s: %s", path, strerror(errno));
    return -3;
  }
  char *text = NULL;
  size_t len = 0;
  int rc = read_all(fd, path, &text, &len, why, why_cap) ? -3 : 0;
  close(fd);
  if (rc == 0) {
    char pwhy[200];
    rc = clforge__tuning_parse(text, len, db, pwhy, sizeof pwhy);
    if (rc) snprintf(why, why_cap, "%s: %s", path, pwhy);
  }
  free(text);
  return rc;
}

static cJSON *entry_json(const clforge__tuning_entry *e) {
  cJSON *o = cJSON_CreateObject(), *dev = cJSON_CreateObject(), *params = cJSON_CreateObject();
  double shape[CLFORGE_TUNING_MAX_DIMS];
  for (int i = 0; i < e->ndims; ++i) shape[i] = (double)e->shape[i];
  cJSON_AddStringToObject(dev, "vendor", e->vendor);
  cJSON_AddStringToObject(dev, "name", e->device);
  cJSON_AddStringToObject(dev, "driver", e->driver);
  cJSON_AddNumberToObject(dev, "compute_units", e->compute_units);
  cJSON_AddItemToObject(o, "device", dev);
  cJSON_AddStringToObject(o, "family", e->family);
  cJSON_AddStringToObject(o, "dtypes", e->dtypes);
  cJSON_AddStringToObject(o, "layout", e->layout);
  cJSON_AddStringToObject(o, "shape_class", e->shape_class);
  cJSON_AddItemToObject(o, "shape", cJSON_CreateDoubleArray(shape, e->ndims));
  cJSON_AddStringToObject(o, "provider", e->provider);
  for (int i = 0; i < e->nparams; ++i) cJSON_AddNumberToObject(params, e->names[i], e->values[i]);
  cJSON_AddItemToObject(o, "params", params);
  cJSON_AddNumberToObject(o, "median_ms", round(e->median_s * 1e9) / 1e6);
  cJSON_AddNumberToObject(o, "gflops", round(e->gflops * 10) / 10);
  cJSON_AddStringToObject(o, "date", e->date);
  cJSON_AddStringToObject(o, "library_version", e->library_version);
  return o;
}

char *clforge__tuning_serialize(const clforge__tuning_db *db) {
  cJSON *root = cJSON_CreateObject(), *arr = cJSON_CreateArray();
  cJSON_AddStringToObject(root, "format", FORMAT_NAME);
  cJSON_AddNumberToObject(root, "format_version", CLFORGE_TUNING_FORMAT);
  cJSON_AddStringToObject(root, "library_version", CLFORGE_VERSION_STRING);
  for (size_t i = 0; i < db->count; ++i) cJSON_AddItemToArray(arr, entry_json(&db->entries[i]));
  cJSON_AddItemToObject(root, "entries", arr);
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  return text;
}

/* mkdir -p of path's directory. */
static void make_parent_dirs(const char *path) {
  char dir[4096];
  if (strlen(path) >= sizeof dir) return;
  strcpy(dir, path);
  for (char *p = dir + 1; *p; ++p)
    if (*p == '/') {
      *p = '\0';
      mkdir(dir, 0755);
      *p = '/';
    }
}

int clforge__tuning_save(const char *path, const clforge__tuning_db *add, char *why, size_t why_cap) {
  if (!path || !*path || !strcmp(path, "off")) {
    snprintf(why, why_cap, "no tuning file to write (path is \"%s\")", path ? path : "");
    return -1;
  }
  make_parent_dirs(path);
  char lock_path[4200], tmp_path[4200];
  snprintf(lock_path, sizeof lock_path, "%s.lock", path);
  snprintf(tmp_path, sizeof tmp_path, "%s.XXXXXX", path);
  /* The lock lives in its own file: the data file is replaced by rename, so a
   * lock on it would guard a file that is no longer there. */
  int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0) {
    snprintf(why, why_cap, "cannot open the lock file %s: %s", lock_path, strerror(errno));
    return -1;
  }
  int locked;
  while ((locked = flock(lock, LOCK_EX)) != 0 && errno == EINTR) {
  }
  if (locked != 0) { /* e.g. ENOLCK on some network file systems: never write unlocked */
    snprintf(why, why_cap, "cannot lock %s: %s", lock_path, strerror(errno));
    close(lock);
    return -1;
  }
  clforge__tuning_db merged = {NULL, 0, 0};
  char lwhy[300] = "";
  int rc = 0, loaded = clforge__tuning_load_file(path, &merged, lwhy, sizeof lwhy), backed_up = 0;
  char bad_path[4200];
  snprintf(bad_path, sizeof bad_path, "%s.bad", path);
  if (loaded == -2 || loaded == -3) { /* a newer clforge's file, or one we cannot read: leave it alone */
    snprintf(why, why_cap, "not replacing %s", lwhy);
    rc = -1;
  } else if (loaded == -1) { /* damaged: kept aside, not lost */
    backed_up = rename(path, bad_path) == 0;
  }
  for (size_t i = 0; i < add->count && rc == 0; ++i)
    if (clforge__tuning_put(&merged, &add->entries[i])) rc = -1, snprintf(why, why_cap, "out of memory");
  char *text = rc == 0 ? clforge__tuning_serialize(&merged) : NULL;
  if (rc == 0 && !text) rc = -1, snprintf(why, why_cap, "out of memory");
  if (rc == 0) {
    int fd = mkstemp(tmp_path), err = fd < 0 ? errno : 0;
    size_t len = strlen(text), done = 0;
    while (fd >= 0 && !err && done < len) {
      ssize_t w = write(fd, text + done, len - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) err = w < 0 ? errno : EIO;
      else done += (size_t)w;
    }
    if (fd >= 0 && !err && (write(fd, "\n", 1) != 1 || fchmod(fd, 0644) || fsync(fd))) err = errno ? errno : EIO;
    if (fd >= 0 && close(fd) && !err) err = errno;
    if (!err && rename(tmp_path, path)) err = errno;
    if (err) {
      snprintf(why, why_cap, "cannot write %s: %s", path, strerror(err));
      if (fd >= 0) unlink(tmp_path);
      rc = -1;
    }
  }
  free(text);
  clforge__tuning_free(&merged);
  flock(lock, LOCK_UN);
  close(lock);
  if (rc == 0 && loaded == -1) {
    snprintf(why, why_cap, "replaced an unreadable file (%s)%s%s", lwhy, backed_up ? "; the old one is " : "",
             backed_up ? bad_path : "");
    rc = 1;
  }
  return rc;
}

int clforge__tuning_same_device(const clforge__tuning_entry *e, const clforge_device_info *info) {
  return !strcmp(e->vendor, info->vendor) && !strcmp(e->device, info->name) &&
         !strcmp(e->driver, info->driver_version) && e->compute_units == info->compute_units;
}

void clforge__tuning_stamp(clforge__tuning_entry *e, const clforge_device_info *info) {
  snprintf(e->vendor, sizeof e->vendor, "%s", info->vendor);
  snprintf(e->device, sizeof e->device, "%s", info->name);
  snprintf(e->driver, sizeof e->driver, "%s", info->driver_version);
  e->compute_units = info->compute_units;
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(e->date, sizeof e->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  snprintf(e->library_version, sizeof e->library_version, "%s", CLFORGE_VERSION_STRING);
}

/* Keep only this device's entries from a file; a defect is logged (once per
 * context: the view is loaded once) and the file ignored. */
static void load_for_device(clforge_path_kind kind, const clforge_device_info *info, clforge__tuning_db *out) {
  char path[4096];
  size_t need;
  if (clforge__path(kind, path, sizeof path, &need)) return;
  clforge__tuning_db all = {NULL, 0, 0};
  char why[512];
  int rc = clforge__tuning_load_file(path, &all, why, sizeof why);
  if (rc < 0)
    clforge__log(CLFORGE_LOG_WARN, "ignoring the tuning file %s; built-in defaults are used instead", why);
  for (size_t i = 0; rc == 0 && i < all.count; ++i)
    if (clforge__tuning_same_device(&all.entries[i], info) && clforge__tuning_put(out, &all.entries[i])) break;
  if (rc == 0)
    clforge__log(CLFORGE_LOG_DEBUG, "tuning file %s: %zu entries, %zu for this device", path, all.count, out->count);
  clforge__tuning_free(&all);
}

static double log_distance(const size_t *a, const size_t *b, int n) {
  double d = 0;
  for (int i = 0; i < n; ++i) {
    /* a 0 (no padding) counts as 1 */
    double t = log(a[i] ? (double)a[i] : 1.0) - log(b[i] ? (double)b[i] : 1.0);
    d += t * t;
  }
  return d;
}

/* The best entry of db for the key that `fits`: one of the class itself
 * (distance -1), else the one whose shape is nearest. */
static const clforge__tuning_entry *find(const clforge__tuning_db *db, const clforge__tuning_query *q, double *best_d) {
  const clforge__tuning_entry *best = NULL;
  for (size_t i = 0; i < db->count; ++i) {
    const clforge__tuning_entry *e = &db->entries[i];
    if (strcmp(e->family, q->family) || strcmp(e->dtypes, q->dtypes) || strcmp(e->layout, q->layout) ||
        e->ndims != q->ndims)
      continue;
    double d = q->shape_class && !strcmp(e->shape_class, q->shape_class) ? -1.0 : log_distance(e->shape, q->shape, q->ndims);
    if ((!best || d < *best_d) && (!q->fits || q->fits(e, q->user))) best = e, *best_d = d;
  }
  return best;
}

clforge__tuning_match clforge__tuning_lookup(clforge_context ctx, const clforge__tuning_query *q,
                                             const clforge__tuning_entry **out) {
  clforge__tuning_view *v = &ctx->tuning;
  if (!v->loaded) {
    load_for_device(CLFORGE_PATH_TUNING_FILE, &ctx->info, &v->user);
    load_for_device(CLFORGE_PATH_SYSTEM_TUNING_FILE, &ctx->info, &v->system);
    v->loaded = 1;
  }
  double du = 0, ds = 0;
  const clforge__tuning_entry *u = find(&v->user, q, &du);
  const clforge__tuning_entry *s = find(&v->system, q, &ds);
  /* The user's entry wins unless only the system has this very class. */
  const clforge__tuning_entry *e = u && (!s || du < 0 || ds >= 0) ? u : s;
  double d = e == u ? du : ds;
  *out = e;
  return !e ? CLFORGE__TUNING_NONE : d < 0 ? CLFORGE__TUNING_EXACT : CLFORGE__TUNING_NEAREST;
}
