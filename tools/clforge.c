/* The clforge command: subcommands over the public API.
 *
 *   clforge info [--json] [--no-bandwidth] [--bytes N]
 *   clforge bench <op> [options]      (bench/: the benchmark library)
 *
 * Subcommands are entries of `commands[]` below (name, summary, function,
 * help); adding one (tune) means adding a function and a table row. `bench`
 * dispatches to the ops of bench/ through its own table, `bench_ops[]`.
 * The tool uses only the public header, OpenCL, cJSON and bench/. */
#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT */
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS /* clGetExtensionFunctionAddress */
#include <clforge/clforge.h>

#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "explain.h"
#include "tune.h"

#include "gemm_bench.h" /* bench/ */

/* ------------------------------------------------------------------ helpers */

enum { EXIT_USAGE = 2 };

/* Copy a driver string for display: control characters and invalid UTF-8
 * become '?', surrounding blanks (some drivers pad names) are trimmed. */
static const char *clean(const char *in, char *out, size_t cap) {
  size_t o = 0;
  if (!in) in = "";
  while (*in == ' ' || *in == '\t') ++in;
  const unsigned char *s = (const unsigned char *)in;
  while (*s && o + 1 < cap) {
    unsigned c = *s;
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    int ok = len > 0 && !(len == 1 && (c < 0x20 || c == 0x7F)) && !(len == 2 && c < 0xC2);
    for (size_t k = 1; ok && k < len; ++k)
      if ((s[k] & 0xC0) != 0x80) ok = 0;
    if (!ok || o + len >= cap) {
      if (!ok) out[o++] = '?';
      s += ok ? len : 1;
      if (ok) break; /* a multi-byte character that does not fit */
      continue;
    }
    memcpy(out + o, s, len);
    o += len;
    s += len;
  }
  while (o > 0 && (out[o - 1] == ' ' || out[o - 1] == '\t')) --o;
  out[o] = '\0';
  return out;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "64 MiB", "7.63 GiB", "512 KiB", "100 B". */
static const char *human_bytes(unsigned long long b, char *buf, size_t cap) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = (double)b;
  int u = 0;
  while (v >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  if (u == 0) snprintf(buf, cap, "%llu B", b);
  else if (v == (double)(unsigned long long)v) snprintf(buf, cap, "%.0f %s", v, unit[u]);
  else snprintf(buf, cap, "%.2f %s", v, unit[u]);
  return buf;
}

static const char *type_string(cl_device_type t, char *buf, size_t cap) {
  static const struct {
    cl_device_type bit;
    const char *name;
  } names[] = {{CL_DEVICE_TYPE_CPU, "CPU"},
               {CL_DEVICE_TYPE_GPU, "GPU"},
               {CL_DEVICE_TYPE_ACCELERATOR, "accelerator"},
               {CL_DEVICE_TYPE_CUSTOM, "custom"},
               {CL_DEVICE_TYPE_DEFAULT, "default"}};
  buf[0] = '\0';
  size_t used = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    if (!(t & names[i].bit)) continue;
    int w = snprintf(buf + used, cap - used, "%s%s", used ? "|" : "", names[i].name);
    if (w < 0 || (size_t)w >= cap - used) break;
    used += (size_t)w;
  }
  if (!buf[0]) snprintf(buf, cap, "unknown");
  return buf;
}

/* Parse "N", "N K", "NM", "NG" (binary multiples; optional "iB"/"B"). */
static int parse_size(const char *s, unsigned long long *out) {
  if (!s || *s < '0' || *s > '9') return -1;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno) return -1;
  unsigned shift = 0;
  switch (*end) {
    case 'k': case 'K': shift = 10; ++end; break;
    case 'm': case 'M': shift = 20; ++end; break;
    case 'g': case 'G': shift = 30; ++end; break;
    default: break;
  }
  if (shift && *end == 'i') ++end;
  if (*end == 'B' || *end == 'b') ++end;
  if (*end) return -1;
  if (shift && v > (ULLONG_MAX >> shift)) return -1;
  v <<= shift;
  if (v == 0) return -1;
  *out = v;
  return 0;
}

/* ------------------------------------------------------ ICD loader, paths */

#define CLFORGE_CL_ICDL_OCL_VERSION 1 /* values of ocl-icd's cl_icdl_info */
#define CLFORGE_CL_ICDL_VERSION 2
#define CLFORGE_CL_ICDL_NAME 3
#define CLFORGE_CL_ICDL_VENDOR 4

typedef cl_int (*icdl_info_fn)(cl_uint, size_t, void *, size_t *);

typedef struct {
  char name[128], version[128], vendor[128], ocl_version[128]; /* "" = unknown */
  char library[4096];
} loader_info;

static void icdl_string(icdl_info_fn fn, cl_uint what, char *buf, size_t cap) {
  char tmp[512];
  buf[0] = '\0';
  size_t got = 0;
  memset(tmp, 0, sizeof tmp);
  if (fn(what, sizeof tmp - 1, tmp, &got) == CL_SUCCESS) clean(tmp, buf, cap);
}

static void query_loader(loader_info *li) {
  memset(li, 0, sizeof *li);
  /* ocl-icd's loader-info entry point; the Khronos loader has the same one. */
  static const char *const names[] = {"clGetICDLoaderInfoOCLICD", "clGetICDLoaderInfoOCLICDLoader"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    void *p = clGetExtensionFunctionAddress(names[i]);
    if (!p) p = dlsym(RTLD_DEFAULT, names[i]);
    if (!p) continue;
    icdl_info_fn fn;
    memcpy(&fn, &p, sizeof fn); /* object to function pointer without a pedantic cast */
    icdl_string(fn, CLFORGE_CL_ICDL_NAME, li->name, sizeof li->name);
    icdl_string(fn, CLFORGE_CL_ICDL_VERSION, li->version, sizeof li->version);
    icdl_string(fn, CLFORGE_CL_ICDL_VENDOR, li->vendor, sizeof li->vendor);
    icdl_string(fn, CLFORGE_CL_ICDL_OCL_VERSION, li->ocl_version, sizeof li->ocl_version);
    break;
  }
  void *sym = dlsym(RTLD_DEFAULT, "clGetPlatformIDs");
  Dl_info dl;
  if (sym && dladdr(sym, &dl) && dl.dli_fname && dl.dli_fname[0]) {
    char *real = realpath(dl.dli_fname, NULL);
    snprintf(li->library, sizeof li->library, "%s", real ? real : dl.dli_fname);
    free(real);
  }
}

typedef struct {
  const char *key;   /* JSON key */
  const char *label; /* human label */
  clforge_path_kind kind;
  int is_dir;
  char path[4096];
  int ok;            /* clforge_path succeeded */
  const char *state; /* "exists", "not found", "disabled", ... */
  int exists;
} path_entry;

static void query_paths(path_entry *p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    p[i].ok = clforge_path(p[i].kind, p[i].path, sizeof p[i].path) == CLFORGE_SUCCESS;
    p[i].exists = 0;
    if (!p[i].ok) {
      snprintf(p[i].path, sizeof p[i].path, "%s", clforge_last_error(NULL));
      p[i].state = "unavailable";
      continue;
    }
    if (!strcmp(p[i].path, "off")) {
      p[i].state = "disabled";
      continue;
    }
    struct stat st;
    if (stat(p[i].path, &st) != 0) p[i].state = "not found";
    else if (p[i].is_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)) {
      p[i].state = "exists";
      p[i].exists = 1;
    } else p[i].state = p[i].is_dir ? "exists, not a directory" : "exists, not a regular file";
  }
}

static const char *const clforge_env_vars[] = {"CLFORGE_DEVICE", "CLFORGE_CACHE_DIR", "CLFORGE_TUNING_FILE",
                                               "CLFORGE_SYSTEM_TUNING_FILE",
                                               "CLFORGE_LOG",      "CLFORGE_VALIDATE",  "CLFORGE_PARAMS"};
static const char *const loader_env_vars[] = {"OCL_ICD_VENDORS", "OCL_ICD_FILENAMES"};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

#define INSTALL_HINT                                                                             \
  "Install an OpenCL driver (ICD): on Debian/Ubuntu `apt-get install pocl-opencl-icd` for the " \
  "CPU, or your GPU vendor's OpenCL ICD (nvidia-opencl-icd, mesa-opencl-icd, intel-opencl-icd); " \
  "check with `clinfo -l`, which lists what the ICD loader finds."

/* ---------------------------------------------------------------- bandwidth */

enum { BW_MIN_REPS = 5, BW_MAX_REPS = 15 };
#define BW_TIME_BUDGET_S 0.25 /* after BW_MIN_REPS, stop once this much was spent */
#define BW_DEFAULT_BYTES (64ull << 20)

typedef struct {
  int ok;
  double gbps;
  char why[160];
} bw_number;

typedef struct {
  int measured;
  unsigned long long bytes;
  bw_number pageable_h2d, pageable_d2h, pinned_h2d, pinned_d2h;
} bw_report;

static void bw_fail(bw_number *n, cl_int err, const char *what) {
  n->ok = 0;
  snprintf(n->why, sizeof n->why, "%s in %s", clforge_status_name(err), what);
}

static void bw_fail_msg(bw_number *n, const char *msg) {
  n->ok = 0;
  snprintf(n->why, sizeof n->why, "%s", msg);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One warm-up, then BW_MIN_REPS..BW_MAX_REPS blocking transfers; median. */
static void time_transfers(cl_command_queue q, cl_mem dbuf, void *host, size_t bytes, int to_device,
                           bw_number *out) {
  double t[BW_MAX_REPS];
  int n = 0;
  double total = 0;
  for (int i = -1; i < BW_MAX_REPS; ++i) {
    double t0 = now_seconds();
    cl_int err = to_device ? clEnqueueWriteBuffer(q, dbuf, CL_TRUE, 0, bytes, host, 0, NULL, NULL)
                           : clEnqueueReadBuffer(q, dbuf, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    double dt = now_seconds() - t0;
    if (err != CL_SUCCESS) {
      bw_fail(out, err, to_device ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer");
      return;
    }
    if (i < 0) continue; /* warm-up */
    t[n++] = dt;
    total += dt;
    if (n >= BW_MIN_REPS && total > BW_TIME_BUDGET_S) break;
  }
  qsort(t, (size_t)n, sizeof t[0], cmp_double);
  double median = (n % 2) ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  if (median < 1e-9) median = 1e-9;
  out->ok = 1;
  out->gbps = (double)bytes / median / 1e9;
}

static void measure_bandwidth(cl_device_id dev, const clforge_device_info *info, unsigned long long requested,
                              bw_report *r) {
  memset(r, 0, sizeof *r);
  r->measured = 1;
  unsigned long long bytes = requested;
  if (info && info->max_alloc_bytes / 2 > 0 && bytes > info->max_alloc_bytes / 2) bytes = info->max_alloc_bytes / 2;
  if (bytes > (unsigned long long)SIZE_MAX / 2) bytes = (unsigned long long)SIZE_MAX / 2;
  r->bytes = bytes;
  size_t n = (size_t)bytes;
  bw_number *all[] = {&r->pageable_h2d, &r->pageable_d2h, &r->pinned_h2d, &r->pinned_d2h};

  cl_int err = CL_SUCCESS;
  cl_platform_id platform = NULL;
  cl_context ctx = NULL;
  cl_command_queue q = NULL;
  cl_mem dbuf = NULL, pinned = NULL;
  const char *what = "clGetDeviceInfo(CL_DEVICE_PLATFORM)";
  err = clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
  if (err == CL_SUCCESS) {
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    what = "clCreateContext";
    ctx = clCreateContext(props, 1, &dev, NULL, NULL, &err);
    if (err == CL_SUCCESS && !ctx) err = CL_INVALID_CONTEXT;
  }
  if (err == CL_SUCCESS) {
    what = "clCreateCommandQueue";
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    if (err == CL_SUCCESS && !q) err = CL_INVALID_COMMAND_QUEUE;
  }
  if (err == CL_SUCCESS) {
    what = "clCreateBuffer";
    dbuf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
    if (err == CL_SUCCESS && !dbuf) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
  }
  if (err != CL_SUCCESS) {
    for (size_t i = 0; i < COUNT(all); ++i) bw_fail(all[i], err, what);
    goto done;
  }

  /* Pageable: an ordinary malloc'd buffer, touched so its pages exist. */
  {
    void *host = malloc(n);
    if (!host) {
      bw_fail_msg(&r->pageable_h2d, "no host memory");
      bw_fail_msg(&r->pageable_d2h, "no host memory");
    } else {
      memset(host, 0x5A, n);
      time_transfers(q, dbuf, host, n, 1, &r->pageable_h2d);
      time_transfers(q, dbuf, host, n, 0, &r->pageable_d2h);
      free(host);
    }
  }

  /* Pinned: a CL_MEM_ALLOC_HOST_PTR buffer, mapped; its pointer is the host side. */
  pinned = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, n, NULL, &err);
  if (err == CL_SUCCESS && !pinned) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
  if (err != CL_SUCCESS) {
    bw_fail(&r->pinned_h2d, err, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
    bw_fail(&r->pinned_d2h, err, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
    goto done;
  }
  {
    void *p = clEnqueueMapBuffer(q, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, NULL, NULL, &err);
    if (err == CL_SUCCESS && !p) err = CL_MAP_FAILURE;
    if (err != CL_SUCCESS) {
      bw_fail(&r->pinned_h2d, err, "clEnqueueMapBuffer");
      bw_fail(&r->pinned_d2h, err, "clEnqueueMapBuffer");
      goto done;
    }
    memset(p, 0xA5, n);
    time_transfers(q, dbuf, p, n, 1, &r->pinned_h2d);
    time_transfers(q, dbuf, p, n, 0, &r->pinned_d2h);
    clEnqueueUnmapMemObject(q, pinned, p, 0, NULL, NULL);
    clFinish(q);
  }

done:
  if (pinned) clReleaseMemObject(pinned);
  if (dbuf) clReleaseMemObject(dbuf);
  if (q) clReleaseCommandQueue(q);
  if (ctx) clReleaseContext(ctx);
}

/* ------------------------------------------------------------ enumeration */

typedef struct {
  cl_device_id id;
  cl_uint index;
  int query_ok;
  char query_error[512];
  clforge_device_info info;
  bw_report bw;
} device_entry;

typedef struct {
  cl_platform_id id;
  cl_uint index;
  char name[256], vendor[256], version[256];
  cl_int devices_err; /* clGetDeviceIDs failure other than "none" */
  cl_uint ndevices;
  device_entry *devices;
} platform_entry;

typedef struct {
  cl_int err; /* clGetPlatformIDs */
  cl_uint nplatforms;
  platform_entry *platforms;
  size_t total_devices;
  cl_device_id default_device; /* NULL if none */
  char default_error[1024];
} system_info;

static void platform_string(cl_platform_id p, cl_platform_info what, char *buf, size_t cap) {
  buf[0] = '\0';
  size_t need = 0;
  if (clGetPlatformInfo(p, what, 0, NULL, &need) != CL_SUCCESS || need == 0) return;
  char *tmp = calloc(need + 1, 1);
  if (tmp && clGetPlatformInfo(p, what, need, tmp, NULL) == CL_SUCCESS) clean(tmp, buf, cap);
  free(tmp);
}

static int enumerate(system_info *s) {
  memset(s, 0, sizeof *s);
  cl_uint np = 0;
  s->err = clGetPlatformIDs(0, NULL, &np);
  if (s->err != CL_SUCCESS || np == 0) {
    s->nplatforms = 0;
    return 0;
  }
  cl_platform_id *ids = calloc(np, sizeof *ids);
  s->platforms = calloc(np, sizeof *s->platforms);
  if (!ids || !s->platforms) {
    free(ids);
    s->err = CL_OUT_OF_HOST_MEMORY;
    return -1;
  }
  cl_uint got = 0;
  s->err = clGetPlatformIDs(np, ids, &got);
  if (s->err != CL_SUCCESS) {
    free(ids);
    return 0;
  }
  if (got < np) np = got;
  s->nplatforms = np;
  for (cl_uint p = 0; p < np; ++p) {
    platform_entry *pe = &s->platforms[p];
    pe->id = ids[p];
    pe->index = p;
    platform_string(ids[p], CL_PLATFORM_NAME, pe->name, sizeof pe->name);
    platform_string(ids[p], CL_PLATFORM_VENDOR, pe->vendor, sizeof pe->vendor);
    platform_string(ids[p], CL_PLATFORM_VERSION, pe->version, sizeof pe->version);
    cl_uint nd = 0;
    cl_int err = clGetDeviceIDs(ids[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
    if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && nd == 0)) continue;
    if (err != CL_SUCCESS) {
      pe->devices_err = err;
      continue;
    }
    cl_device_id *dids = calloc(nd, sizeof *dids);
    pe->devices = calloc(nd, sizeof *pe->devices);
    if (!dids || !pe->devices) {
      free(dids);
      pe->devices_err = CL_OUT_OF_HOST_MEMORY;
      continue;
    }
    cl_uint dgot = 0;
    err = clGetDeviceIDs(ids[p], CL_DEVICE_TYPE_ALL, nd, dids, &dgot);
    if (err != CL_SUCCESS) {
      free(dids);
      pe->devices_err = err;
      continue;
    }
    if (dgot < nd) nd = dgot;
    pe->ndevices = nd;
    s->total_devices += nd;
    for (cl_uint d = 0; d < nd; ++d) {
      device_entry *de = &pe->devices[d];
      de->id = dids[d];
      de->index = d;
      clforge_status st = clforge_device_query(dids[d], &de->info);
      de->query_ok = st == CLFORGE_SUCCESS;
      if (!de->query_ok)
        snprintf(de->query_error, sizeof de->query_error, "%s: %s", clforge_status_name(st),
                 clforge_last_error(NULL));
    }
    free(dids);
  }
  free(ids);

  /* Which device clforge itself would take (honours CLFORGE_DEVICE). */
  if (s->total_devices > 0) {
    clforge_context ctx = NULL;
    clforge_status st = clforge_context_create(NULL, &ctx);
    cl_device_id dev = NULL;
    if (st == CLFORGE_SUCCESS) st = clforge_context_device(ctx, &dev);
    if (st == CLFORGE_SUCCESS) s->default_device = dev;
    else {
      /* One line: the message may list devices on lines of their own. */
      const char *m = clforge_last_error(ctx);
      char flat[1024];
      size_t o = 0;
      for (; m && *m && o + 1 < sizeof flat; ++m) {
        char c = (*m == '\n' || *m == '\t' || *m == '\r') ? ' ' : *m;
        if (c == ' ' && (o == 0 || flat[o - 1] == ' ')) continue;
        flat[o++] = c;
      }
      flat[o] = '\0';
      clean(flat[0] ? flat : clforge_status_name(st), s->default_error, sizeof s->default_error);
    }
    clforge_context_destroy(ctx);
  }
  return 0;
}

static void free_system(system_info *s) {
  for (cl_uint p = 0; p < s->nplatforms; ++p) free(s->platforms[p].devices);
  free(s->platforms);
}

/* The error message when nothing usable is found, or NULL. */
static const char *no_device_message(const system_info *s, char *buf, size_t cap) {
  if (s->err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (s->err == CL_SUCCESS && s->nplatforms == 0))
    snprintf(buf, cap, "no OpenCL platform found. %s", INSTALL_HINT);
  else if (s->err != CL_SUCCESS)
    snprintf(buf, cap, "clGetPlatformIDs failed (%s). %s", clforge_status_name(s->err), INSTALL_HINT);
  else if (s->total_devices == 0)
    snprintf(buf, cap, "OpenCL platforms found, but no device. %s", INSTALL_HINT);
  else
    return NULL;
  const char *v = getenv("OCL_ICD_VENDORS");
  size_t used = strlen(buf);
  if (v && used < cap)
    snprintf(buf + used, cap - used, " Note: OCL_ICD_VENDORS=%s tells the ICD loader where to look for drivers.", v);
  return buf;
}

/* ------------------------------------------------------------------- info */

typedef struct {
  int json;
  int bandwidth;
  unsigned long long bytes;
} info_options;

static const struct {
  unsigned bit;
  const char *json;
  const char *label;
} cap_names[] = {{CLFORGE_CAP_HALF_STORAGE, "half_storage", "half storage"},
                 {CLFORGE_CAP_FP16, "cl_khr_fp16", "cl_khr_fp16"},
                 {CLFORGE_CAP_FP64, "cl_khr_fp64", "fp64"},
                 {CLFORGE_CAP_SUBGROUPS_KHR, "cl_khr_subgroups", "cl_khr_subgroups"},
                 {CLFORGE_CAP_SUBGROUPS_INTEL, "cl_intel_subgroups", "cl_intel_subgroups"},
                 {CLFORGE_CAP_INTEGER_DOT, "cl_khr_integer_dot_product", "cl_khr_integer_dot_product"}};

static void help_info(FILE *f) {
  fprintf(f,
          "usage: clforge info [--json] [--no-bandwidth] [--bytes N]\n"
          "\n"
          "List every OpenCL platform and device with clforge's fingerprint of it,\n"
          "mark the device clforge picks by default, and show the ICD loader,\n"
          "clforge's files and environment, and host<->device transfer bandwidth.\n"
          "\n"
          "Options:\n"
          "  --json          print one JSON object instead of the listing\n"
          "  --no-bandwidth  skip the bandwidth measurement\n"
          "  --bytes N       bytes per transfer (default 64M; suffixes K, M, G);\n"
          "                  clamped to half the device's largest allocation\n"
          "  -h, --help      show this help\n"
          "\n"
          "Device indices are shown as P:D, the form CLFORGE_DEVICE accepts.\n"
          "Exit status: 0 on success, 1 when no OpenCL platform or device is found,\n"
          "2 on a usage error.\n");
}

/* --- human output --- */

/* Values start in one column whatever the indent of their label. */
#define VALUE_COL 32

static void line(const char *indent, const char *label, const char *value) {
  int w = VALUE_COL - (int)strlen(indent);
  if (!value || !value[0]) printf("%s%s\n", indent, label);
  else printf("%s%-*s %s\n", indent, w > 0 ? w : 0, label, value);
}

static void print_bw_cell(const bw_number *n, char *buf, size_t cap) {
  if (n->ok) snprintf(buf, cap, "%.2f GB/s", n->gbps);
  else snprintf(buf, cap, "n/a (%s)", n->why);
}

static void print_header(const loader_info *li, const path_entry *paths, size_t npaths) {
  char buf[8192];
  printf("clforge %s\n\n", clforge_version());
  if (li->name[0] || li->version[0]) {
    snprintf(buf, sizeof buf, "%s %s", li->name[0] ? li->name : "unknown", li->version[0] ? li->version : "");
    line("", "ICD loader", buf);
    line("", "  vendor", li->vendor[0] ? li->vendor : "unknown");
    line("", "  supports", li->ocl_version[0] ? li->ocl_version : "unknown");
  } else
    line("", "ICD loader", "unknown");
  line("", "  library", li->library[0] ? li->library : "unknown");
  for (size_t i = 0; i < COUNT(loader_env_vars); ++i) {
    const char *v = getenv(loader_env_vars[i]);
    if (v) {
      snprintf(buf, sizeof buf, "  %s", loader_env_vars[i]);
      line("", buf, v);
    }
  }
  for (size_t i = 0; i < npaths; ++i) {
    snprintf(buf, sizeof buf, "%s (%s)", paths[i].path, paths[i].state);
    line("", paths[i].label, buf);
  }
  int any = 0;
  for (size_t i = 0; i < COUNT(clforge_env_vars); ++i) {
    const char *v = getenv(clforge_env_vars[i]);
    if (!v) continue;
    snprintf(buf, sizeof buf, "%s=%s", clforge_env_vars[i], v);
    line("", any ? "" : "Environment", buf);
    any = 1;
  }
  if (!any) line("", "Environment", "(no CLFORGE_* variable set)");
  fflush(stdout);
}

static void print_device(const system_info *s, const platform_entry *pe, device_entry *de, const info_options *o) {
  char buf[1024], a[300];
  const clforge_device_info *i = &de->info;
  int is_default = s->default_device && de->id == s->default_device;
  if (!de->query_ok) {
    printf("\n  Device %u:%u%s  (fingerprint unavailable: %s)\n", pe->index, de->index,
           is_default ? "  [default]" : "", de->query_error);
  } else {
    printf("\n  Device %u:%u  %s%s\n", pe->index, de->index, clean(i->name, a, sizeof a),
           is_default ? "  [default]" : "");
    const char *in = "    ";
    line(in, "Vendor", clean(i->vendor, a, sizeof a));
    const char *cls = clforge_device_class_name(i->device_class);
    line(in, "Class", cls ? cls : "unknown");
    line(in, "Type", type_string(i->type, a, sizeof a));
    line(in, "Driver version", clean(i->driver_version, a, sizeof a));
    line(in, "OpenCL version", clean(i->opencl_version, a, sizeof a));
    line(in, "OpenCL C version", clean(i->opencl_c_version, a, sizeof a));
    snprintf(buf, sizeof buf, "%u", i->compute_units);
    line(in, "Compute units", buf);
    snprintf(buf, sizeof buf, "%u MHz", i->max_clock_mhz);
    line(in, "Clock", buf);
    snprintf(buf, sizeof buf, "%s (%llu bytes)", human_bytes(i->global_mem_bytes, a, sizeof a),
             (unsigned long long)i->global_mem_bytes);
    line(in, "Global memory", buf);
    snprintf(buf, sizeof buf, "%s (%llu bytes)", human_bytes(i->max_alloc_bytes, a, sizeof a),
             (unsigned long long)i->max_alloc_bytes);
    line(in, "Max allocation", buf);
    snprintf(buf, sizeof buf, "%s (%llu bytes)", human_bytes(i->local_mem_bytes, a, sizeof a),
             (unsigned long long)i->local_mem_bytes);
    line(in, "Local memory", buf);
    snprintf(buf, sizeof buf, "%zu", i->max_work_group_size);
    line(in, "Max work-group size", buf);
    line(in, "Capabilities", "");
    for (size_t k = 0; k < COUNT(cap_names); ++k)
      line("      ", cap_names[k].label, (i->caps & cap_names[k].bit) ? "yes" : "no");
  }
  fflush(stdout);
  if (!o->bandwidth) return;
  measure_bandwidth(de->id, de->query_ok ? &de->info : NULL, o->bytes, &de->bw);
  char c1[256], c2[256];
  snprintf(buf, sizeof buf, "Bandwidth (%s)", human_bytes(de->bw.bytes, a, sizeof a));
  line("    ", buf, "");
  print_bw_cell(&de->bw.pageable_h2d, c1, sizeof c1);
  print_bw_cell(&de->bw.pageable_d2h, c2, sizeof c2);
  snprintf(buf, sizeof buf, "host->device %-14s device->host %s", c1, c2);
  line("      ", "pageable", buf);
  print_bw_cell(&de->bw.pinned_h2d, c1, sizeof c1);
  print_bw_cell(&de->bw.pinned_d2h, c2, sizeof c2);
  snprintf(buf, sizeof buf, "host->device %-14s device->host %s", c1, c2);
  line("      ", "pinned", buf);
  fflush(stdout);
}

/* --- JSON output --- */

static cJSON *json_str_or_null(const char *s) {
  char buf[4096];
  return (s && s[0]) ? cJSON_CreateString(clean(s, buf, sizeof buf)) : cJSON_CreateNull();
}

static void json_add_str(cJSON *obj, const char *key, const char *s) {
  cJSON_AddItemToObject(obj, key, json_str_or_null(s));
}

static cJSON *json_header(const loader_info *li, const path_entry *paths, size_t npaths) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "clforge_version", clforge_version());
  cJSON *l = cJSON_AddObjectToObject(root, "icd_loader");
  json_add_str(l, "name", li->name);
  json_add_str(l, "version", li->version);
  json_add_str(l, "vendor", li->vendor);
  json_add_str(l, "opencl_version", li->ocl_version);
  json_add_str(l, "library", li->library);
  cJSON *le = cJSON_AddObjectToObject(l, "environment");
  for (size_t i = 0; i < COUNT(loader_env_vars); ++i)
    cJSON_AddItemToObject(le, loader_env_vars[i], getenv(loader_env_vars[i])
                                                      ? cJSON_CreateString(getenv(loader_env_vars[i]))
                                                      : cJSON_CreateNull());
  cJSON *p = cJSON_AddObjectToObject(root, "paths");
  for (size_t i = 0; i < npaths; ++i) {
    cJSON *e = cJSON_AddObjectToObject(p, paths[i].key);
    cJSON_AddStringToObject(e, "path", paths[i].path);
    cJSON_AddBoolToObject(e, "exists", paths[i].exists);
    cJSON_AddStringToObject(e, "state", paths[i].state);
  }
  cJSON *env = cJSON_AddObjectToObject(root, "environment");
  for (size_t i = 0; i < COUNT(clforge_env_vars); ++i) {
    const char *v = getenv(clforge_env_vars[i]);
    cJSON_AddItemToObject(env, clforge_env_vars[i], v ? cJSON_CreateString(v) : cJSON_CreateNull());
  }
  return root;
}

static void json_bw_number(cJSON *obj, cJSON *errors, const char *key, const bw_number *n, int measured) {
  if (measured && n->ok) cJSON_AddNumberToObject(obj, key, n->gbps);
  else cJSON_AddNullToObject(obj, key);
  if (measured && !n->ok) cJSON_AddStringToObject(errors, key, n->why);
}

static cJSON *json_device(const system_info *s, const platform_entry *pe, const device_entry *de) {
  char buf[300];
  const clforge_device_info *i = &de->info;
  cJSON *d = cJSON_CreateObject();
  snprintf(buf, sizeof buf, "%u:%u", pe->index, de->index);
  cJSON_AddStringToObject(d, "index", buf);
  cJSON_AddNumberToObject(d, "platform_index", pe->index);
  cJSON_AddNumberToObject(d, "device_index", de->index);
  cJSON_AddBoolToObject(d, "default", s->default_device && de->id == s->default_device);
  if (!de->query_ok) {
    cJSON_AddStringToObject(d, "error", de->query_error);
  } else {
    json_add_str(d, "name", i->name);
    json_add_str(d, "vendor", i->vendor);
    json_add_str(d, "platform_name", i->platform_name);
    json_add_str(d, "platform_version", i->platform_version);
    json_add_str(d, "device_class", clforge_device_class_name(i->device_class));
    cJSON_AddStringToObject(d, "type", type_string(i->type, buf, sizeof buf));
    json_add_str(d, "driver_version", i->driver_version);
    json_add_str(d, "opencl_version", i->opencl_version);
    json_add_str(d, "opencl_c_version", i->opencl_c_version);
    cJSON_AddNumberToObject(d, "compute_units", i->compute_units);
    cJSON_AddNumberToObject(d, "max_clock_mhz", i->max_clock_mhz);
    cJSON_AddNumberToObject(d, "global_mem_bytes", (double)i->global_mem_bytes);
    cJSON_AddNumberToObject(d, "max_alloc_bytes", (double)i->max_alloc_bytes);
    cJSON_AddNumberToObject(d, "local_mem_bytes", (double)i->local_mem_bytes);
    cJSON_AddNumberToObject(d, "max_work_group_size", (double)i->max_work_group_size);
    cJSON *caps = cJSON_AddObjectToObject(d, "capabilities");
    for (size_t k = 0; k < COUNT(cap_names); ++k)
      cJSON_AddBoolToObject(caps, cap_names[k].json, (i->caps & cap_names[k].bit) != 0);
  }
  const bw_report *r = &de->bw;
  cJSON *bw = cJSON_AddObjectToObject(d, "bandwidth");
  if (r->measured) cJSON_AddNumberToObject(bw, "bytes", (double)r->bytes);
  else cJSON_AddNullToObject(bw, "bytes");
  cJSON *errors = cJSON_CreateObject();
  json_bw_number(bw, errors, "pageable_host_to_device_gbps", &r->pageable_h2d, r->measured);
  json_bw_number(bw, errors, "pageable_device_to_host_gbps", &r->pageable_d2h, r->measured);
  json_bw_number(bw, errors, "pinned_host_to_device_gbps", &r->pinned_h2d, r->measured);
  json_bw_number(bw, errors, "pinned_device_to_host_gbps", &r->pinned_d2h, r->measured);
  if (cJSON_GetArraySize(errors) > 0) cJSON_AddItemToObject(bw, "errors", errors);
  else cJSON_Delete(errors);
  return d;
}

static int print_json(cJSON *root) {
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  if (!text) {
    fprintf(stderr, "clforge: out of memory while writing JSON\n");
    return 1;
  }
  fputs(text, stdout);
  fputc('\n', stdout);
  cJSON_free(text);
  return fflush(stdout) == 0 ? 0 : 1;
}

static int cmd_info(int argc, char **argv) {
  info_options o = {0, 1, BW_DEFAULT_BYTES};
  for (int a = 1; a < argc; ++a) {
    const char *arg = argv[a];
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      help_info(stdout);
      return 0;
    } else if (!strcmp(arg, "--json")) {
      o.json = 1;
    } else if (!strcmp(arg, "--no-bandwidth")) {
      o.bandwidth = 0;
    } else if (!strcmp(arg, "--bytes") || !strncmp(arg, "--bytes=", 8)) {
      const char *v = arg[7] == '=' ? arg + 8 : (a + 1 < argc ? argv[++a] : NULL);
      if (!v) {
        fprintf(stderr, "clforge info: --bytes needs a value\nRun 'clforge info --help' for usage.\n");
        return EXIT_USAGE;
      }
      if (parse_size(v, &o.bytes)) {
        fprintf(stderr,
                "clforge info: --bytes \"%s\" is not a positive size (e.g. 4194304, 4M, 1G)\n"
                "Run 'clforge info --help' for usage.\n",
                v);
        return EXIT_USAGE;
      }
    } else {
      fprintf(stderr, "clforge info: unknown %s '%s'\nRun 'clforge info --help' for usage.\n",
              arg[0] == '-' ? "option" : "argument", arg);
      return EXIT_USAGE;
    }
  }

  loader_info li;
  query_loader(&li);
  path_entry paths[] = {
      {"binary_cache", "Binary cache", CLFORGE_PATH_BINARY_CACHE, 1, "", 0, "", 0},
      {"tuning_file", "User tuning file", CLFORGE_PATH_TUNING_FILE, 0, "", 0, "", 0},
      {"system_tuning_file", "System tuning file", CLFORGE_PATH_SYSTEM_TUNING_FILE, 0, "", 0, "", 0},
  };
  query_paths(paths, COUNT(paths));

  system_info s;
  if (enumerate(&s) < 0) {
    fprintf(stderr, "clforge: out of host memory\n");
    free_system(&s);
    return 1;
  }
  char errbuf[1024];
  const char *fatal = no_device_message(&s, errbuf, sizeof errbuf);
  int rc = fatal ? 1 : 0;

  if (o.json) {
    cJSON *root = json_header(&li, paths, COUNT(paths));
    cJSON *def = cJSON_CreateNull();
    cJSON *plats = cJSON_CreateArray();
    for (cl_uint p = 0; p < s.nplatforms; ++p) {
      platform_entry *pe = &s.platforms[p];
      cJSON *pj = cJSON_CreateObject();
      cJSON_AddNumberToObject(pj, "index", pe->index);
      json_add_str(pj, "name", pe->name);
      json_add_str(pj, "vendor", pe->vendor);
      json_add_str(pj, "version", pe->version);
      if (pe->devices_err != CL_SUCCESS)
        cJSON_AddStringToObject(pj, "error", clforge_status_name(pe->devices_err));
      cJSON *devs = cJSON_AddArrayToObject(pj, "devices");
      for (cl_uint d = 0; d < pe->ndevices; ++d) {
        device_entry *de = &pe->devices[d];
        if (o.bandwidth) measure_bandwidth(de->id, de->query_ok ? &de->info : NULL, o.bytes, &de->bw);
        if (s.default_device && de->id == s.default_device) {
          snprintf(errbuf, sizeof errbuf, "%u:%u", pe->index, de->index);
          cJSON_Delete(def);
          def = cJSON_CreateString(errbuf);
        }
        cJSON_AddItemToArray(devs, json_device(&s, pe, de));
      }
      cJSON_AddItemToArray(plats, pj);
    }
    cJSON_AddItemToObject(root, "default_device", def);
    if (s.default_error[0]) cJSON_AddStringToObject(root, "default_device_error", s.default_error);
    if (o.bandwidth) cJSON_AddNumberToObject(root, "bandwidth_bytes_requested", (double)o.bytes);
    else cJSON_AddNullToObject(root, "bandwidth_bytes_requested");
    cJSON_AddItemToObject(root, "platforms", plats);
    if (fatal) cJSON_AddStringToObject(root, "error", fatal);
    if (print_json(root)) rc = 1;
    if (fatal) fprintf(stderr, "clforge: %s\n", fatal);
    free_system(&s);
    return rc;
  }

  print_header(&li, paths, COUNT(paths));
  if (fatal) {
    fflush(stdout);
    fprintf(stderr, "\nclforge: %s\n", fatal);
    free_system(&s);
    return rc;
  }
  {
    char buf[1400], a[300];
    buf[0] = '\0';
    for (cl_uint p = 0; p < s.nplatforms && !buf[0]; ++p)
      for (cl_uint d = 0; d < s.platforms[p].ndevices; ++d)
        if (s.default_device && s.platforms[p].devices[d].id == s.default_device) {
          snprintf(buf, sizeof buf, "%u:%u  %s", p, d, clean(s.platforms[p].devices[d].info.name, a, sizeof a));
          break;
        }
    if (!buf[0]) snprintf(buf, sizeof buf, "none (%s)", s.default_error[0] ? s.default_error : "unknown");
    line("", "Default device", buf);
  }
  for (cl_uint p = 0; p < s.nplatforms; ++p) {
    platform_entry *pe = &s.platforms[p];
    printf("\nPlatform %u  %s\n", pe->index, pe->name[0] ? pe->name : "(unnamed)");
    line("  ", "Vendor", pe->vendor[0] ? pe->vendor : "unknown");
    line("  ", "Version", pe->version[0] ? pe->version : "unknown");
    if (pe->devices_err != CL_SUCCESS) {
      char buf[256];
      snprintf(buf, sizeof buf, "none (clGetDeviceIDs: %s)", clforge_status_name(pe->devices_err));
      line("  ", "Devices", buf);
    } else if (pe->ndevices == 0)
      line("  ", "Devices", "none");
    for (cl_uint d = 0; d < pe->ndevices; ++d) print_device(&s, pe, &pe->devices[d], &o);
  }
  free_system(&s);
  return rc;
}

/* ------------------------------------------------------------------ bench */

/* The benchmarks, one per op; each parses its own options (argv[0] is the op). */
static const struct {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv);
} bench_ops[] = {
    {"gemm", "clforge_gemm vs CLBlast and OpenBLAS: f32, f16, bf16; squares and transformer shapes",
     clforge_bench_gemm_main},
};

static void help_bench(FILE *f) {
  fprintf(f,
          "usage: clforge bench <op> [options]\n"
          "\n"
          "Time an op on the default device (CLFORGE_DEVICE) with OpenCL profiling events,\n"
          "next to other libraries on the same data, and print a table or JSON lines.\n"
          "\n"
          "Ops:\n");
  for (size_t i = 0; i < COUNT(bench_ops); ++i) fprintf(f, "  %-10s %s\n", bench_ops[i].name, bench_ops[i].summary);
  fprintf(f,
          "\n"
          "Options:\n"
          "  -h, --help     show this help\n"
          "\n"
          "Run 'clforge bench <op> --help' for an op's options.\n"
          "Exit status: 0 on success, 1 when a measurement failed or no device was found,\n"
          "2 on a usage error.\n");
}

static int cmd_bench(int argc, char **argv) {
  if (argc < 2) {
    help_bench(stderr);
    return EXIT_USAGE;
  }
  const char *op = argv[1];
  if (!strcmp(op, "-h") || !strcmp(op, "--help")) {
    help_bench(stdout);
    return 0;
  }
  for (size_t i = 0; i < COUNT(bench_ops); ++i)
    if (!strcmp(bench_ops[i].name, op)) return bench_ops[i].run(argc - 1, argv + 1);
  fprintf(stderr, "clforge bench: unknown %s '%s'\nRun 'clforge bench --help' for the list of ops.\n",
          op[0] == '-' ? "option" : "op", op);
  return EXIT_USAGE;
}

/* ------------------------------------------------------------- dispatcher */

typedef struct {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv); /* argv[0] is the command name */
  void (*help)(FILE *out);
} command;

static const command commands[] = {
    {"info", "list OpenCL platforms and devices, clforge's setup, transfer bandwidth", cmd_info, help_info},
    {"tune", "tune kernel parameters for this device and save the tuning file", clforge_cli_tune,
     clforge_cli_tune_help},
    {"explain", "show which kernels and parameters a call uses, and why", clforge_cli_explain,
     clforge_cli_explain_help},
    {"bench", "benchmark an op against other libraries (gemm)", cmd_bench, help_bench},
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: clforge <command> [options]\n"
          "       clforge help [command]\n"
          "\n"
          "Commands:\n");
  for (size_t i = 0; i < COUNT(commands); ++i) fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "  %-10s %s\n", "help", "show this help, or a command's help");
  fprintf(f,
          "\n"
          "Options:\n"
          "  -h, --help     show this help\n"
          "  --version      print the clforge version\n"
          "\n"
          "Run 'clforge <command> --help' for a command's options.\n");
}

static const command *find_command(const char *name) {
  for (size_t i = 0; i < COUNT(commands); ++i)
    if (!strcmp(commands[i].name, name)) return &commands[i];
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return EXIT_USAGE;
  }
  const char *arg = argv[1];
  if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(arg, "--version")) {
    printf("clforge %s\n", clforge_version());
    return 0;
  }
  if (!strcmp(arg, "help")) {
    if (argc < 3) {
      usage(stdout);
      return 0;
    }
    const command *c = find_command(argv[2]);
    if (!c) {
      fprintf(stderr, "clforge: unknown command '%s'\nRun 'clforge --help' for usage.\n", argv[2]);
      return EXIT_USAGE;
    }
    c->help(stdout);
    return 0;
  }
  const command *c = find_command(arg);
  if (!c) {
    fprintf(stderr, "clforge: unknown %s '%s'\nRun 'clforge --help' for usage.\n",
            arg[0] == '-' ? "option" : "command", arg);
    return EXIT_USAGE;
  }
  return c->run(argc - 1, argv + 1);
}
