/* Device enumeration, selection and the device fingerprint. */
#include "device.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

enum { MAX_PLATFORMS = 32, MAX_DEVICES = 64 };

/* Device enumeration and queries run one at a time in a process (see
 * enumerate()). */
static pthread_mutex_t driver_lock = PTHREAD_MUTEX_INITIALIZER;

static void get_string(cl_device_id d, cl_device_info what, char *buf, size_t cap) {
  buf[0] = '\0';
  size_t need = 0;
  if (clGetDeviceInfo(d, what, 0, NULL, &need) != CL_SUCCESS || need == 0) return;
  if (need <= cap) {
    if (clGetDeviceInfo(d, what, cap, buf, NULL) != CL_SUCCESS) buf[0] = '\0';
    buf[cap - 1] = '\0';
    return;
  }
  char *tmp = malloc(need); /* longer than the field: keep the start */
  if (tmp && clGetDeviceInfo(d, what, need, tmp, NULL) == CL_SUCCESS)
    snprintf(buf, cap, "%s", tmp);
  free(tmp);
}

static void platform_string(cl_platform_id p, cl_platform_info what, char *buf, size_t cap) {
  buf[0] = '\0';
  if (clGetPlatformInfo(p, what, cap, buf, NULL) != CL_SUCCESS) {
    size_t need = 0;
    if (clGetPlatformInfo(p, what, 0, NULL, &need) == CL_SUCCESS && need > cap) {
      char *tmp = malloc(need);
      if (tmp && clGetPlatformInfo(p, what, need, tmp, NULL) == CL_SUCCESS) snprintf(buf, cap, "%s", tmp);
      free(tmp);
    }
  }
  buf[cap - 1] = '\0';
}

/* Case-insensitive substring test. */
static int contains_ci(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  if (n == 0) return 1;
  for (; *hay; ++hay) {
    size_t i = 0;
    while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) ++i;
    if (i == n) return 1;
  }
  return 0;
}

/* Whole-word test in a space-separated extension list. */
static int has_extension(const char *list, const char *ext) {
  size_t n = strlen(ext);
  for (const char *p = strstr(list, ext); p; p = strstr(p + 1, ext))
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
  return 0;
}

static clforge_device_class classify(const clforge_device_info *i) {
  if (i->type & CL_DEVICE_TYPE_CPU) return CLFORGE_DEVICE_CLASS_CPU;
  if (contains_ci(i->vendor, "nvidia")) return CLFORGE_DEVICE_CLASS_NVIDIA;
  if (contains_ci(i->name, "mali")) return CLFORGE_DEVICE_CLASS_MALI;
  if (contains_ci(i->name, "adreno") || contains_ci(i->vendor, "qualcomm")) return CLFORGE_DEVICE_CLASS_ADRENO;
  if (i->type & CL_DEVICE_TYPE_GPU) {
    if (contains_ci(i->vendor, "advanced micro devices") || contains_ci(i->vendor, "amd"))
      return CLFORGE_DEVICE_CLASS_AMD;
    if (contains_ci(i->vendor, "intel")) return CLFORGE_DEVICE_CLASS_INTEL_GPU;
  }
  return CLFORGE_DEVICE_CLASS_GENERIC;
}

/* By platform name: Intel's GPU runtime names its platform "Intel(R) OpenCL
 * Graphics" and runs GPUs (their class has its own rows), so the CPU type
 * decides; PoCL ("Portable Computing Language") is the CPU class's own. */
clforge__driver clforge__device_driver(const clforge_device_info *info) {
  if ((info->type & CL_DEVICE_TYPE_CPU) && contains_ci(info->platform_name, "intel(r) opencl") &&
      !contains_ci(info->platform_name, "graphics"))
    return CLFORGE__DRIVER_INTEL_CPU;
  return CLFORGE__DRIVER_OTHER;
}

const char *clforge__driver_name(clforge__driver driver) {
  return driver == CLFORGE__DRIVER_INTEL_CPU ? "intel-cpu" : "other";
}

const char *clforge_device_class_name(clforge_device_class cls) {
  static const char *const names[CLFORGE_DEVICE_CLASS_COUNT] = {"generic", "cpu", "nvidia", "amd",
                                                                "intel-gpu", "mali", "adreno"};
  return ((unsigned)cls < CLFORGE_DEVICE_CLASS_COUNT) ? names[cls] : NULL;
}

static clforge_status query_locked(cl_device_id d, clforge_device_info *info);

/* Under the enumeration lock: an application's threads may query devices
 * while PoCL is still initializing them (see enumerate below). */
clforge_status clforge_device_query(cl_device_id d, clforge_device_info *info) {
  clforge__clear_error(NULL);
  if (!d || !info) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "device or info is NULL");
  if (pthread_mutex_lock(&driver_lock) != 0)
    return clforge__fail(NULL, CLFORGE_INTERNAL_ERROR, "device query: locking failed");
  clforge_status st = query_locked(d, info);
  pthread_mutex_unlock(&driver_lock);
  return st;
}

static clforge_status query_locked(cl_device_id d, clforge_device_info *info) {
  clforge_device_info i;
  memset(&i, 0, sizeof i);
  cl_platform_id p;
  cl_int err = clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof p, &p, NULL);
  if (err != CL_SUCCESS) return clforge__fail_cl(NULL, err, "clGetDeviceInfo(CL_DEVICE_PLATFORM)");
  platform_string(p, CL_PLATFORM_NAME, i.platform_name, sizeof i.platform_name);
  platform_string(p, CL_PLATFORM_VERSION, i.platform_version, sizeof i.platform_version);
  get_string(d, CL_DEVICE_VENDOR, i.vendor, sizeof i.vendor);
  get_string(d, CL_DEVICE_NAME, i.name, sizeof i.name);
  get_string(d, CL_DRIVER_VERSION, i.driver_version, sizeof i.driver_version);
  get_string(d, CL_DEVICE_VERSION, i.opencl_version, sizeof i.opencl_version);
  get_string(d, CL_DEVICE_OPENCL_C_VERSION, i.opencl_c_version, sizeof i.opencl_c_version);
  /* Numeric fields: a driver that refuses one leaves it 0 rather than failing. */
  clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof i.type, &i.type, NULL);
  clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof i.compute_units, &i.compute_units, NULL);
  clGetDeviceInfo(d, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof i.max_clock_mhz, &i.max_clock_mhz, NULL);
  clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof i.global_mem_bytes, &i.global_mem_bytes, NULL);
  clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof i.max_alloc_bytes, &i.max_alloc_bytes, NULL);
  clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof i.local_mem_bytes, &i.local_mem_bytes, NULL);
  clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof i.max_work_group_size, &i.max_work_group_size, NULL);

  size_t ext_size = 0;
  char *ext = NULL;
  if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size) == CL_SUCCESS && ext_size &&
      (ext = malloc(ext_size + 1)) != NULL &&
      clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, ext_size, ext, NULL) == CL_SUCCESS) {
    ext[ext_size] = '\0';
    if (has_extension(ext, "cl_khr_fp16")) i.caps |= CLFORGE_CAP_FP16;
    if (has_extension(ext, "cl_khr_fp64")) i.caps |= CLFORGE_CAP_FP64;
    if (has_extension(ext, "cl_khr_subgroups")) i.caps |= CLFORGE_CAP_SUBGROUPS_KHR;
    if (has_extension(ext, "cl_intel_subgroups")) i.caps |= CLFORGE_CAP_SUBGROUPS_INTEL;
    /* the packed 4 x 8-bit form is the one the int8 GEMM's DOT=1 calls
     * (CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR, 0x1073: bit 0) */
    cl_bitfield dot = 0;
    if (has_extension(ext, "cl_khr_integer_dot_product") &&
        clGetDeviceInfo(d, 0x1073, sizeof dot, &dot, NULL) == CL_SUCCESS && (dot & 1u))
      i.caps |= CLFORGE_CAP_INTEGER_DOT;
  }
  free(ext);
  i.caps |= CLFORGE_CAP_HALF_STORAGE; /* vload_half/vstore_half are core OpenCL */
  i.device_class = classify(&i);
  *info = i;
  return CLFORGE_SUCCESS;
}

typedef struct {
  cl_platform_id platform;
  cl_device_id device;
  cl_uint pi, di;
  cl_device_type type;
  char name[256], platform_name[256], platform_vendor[256];
} candidate;

/* All devices of all platforms, in the order the ICD loader gives them.
 * Enumerations run one at a time in a process: PoCL 3.1 initializes its
 * devices on the first clGetPlatformIDs/clGetDeviceIDs/clGetDeviceInfo, and
 * threads that race through that first pass crash or find no device (the
 * documented one-context-per-thread use, e.g. a thread pool starting up).
 * Once the first pass is done under the lock the driver is initialized;
 * later passes stay serialized too, which costs microseconds. */
static clforge_status enumerate_locked(candidate *out, size_t cap, size_t *count);

static clforge_status enumerate(candidate *out, size_t cap, size_t *count) {
  if (pthread_mutex_lock(&driver_lock) != 0)
    return clforge__fail(NULL, CLFORGE_INTERNAL_ERROR, "device enumeration: locking failed");
  clforge_status st = enumerate_locked(out, cap, count);
  pthread_mutex_unlock(&driver_lock);
  return st;
}

static clforge_status enumerate_locked(candidate *out, size_t cap, size_t *count) {
  cl_platform_id platforms[MAX_PLATFORMS];
  cl_uint np = 0;
  cl_int err = clGetPlatformIDs(MAX_PLATFORMS, platforms, &np);
  if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && np == 0))
    return clforge__fail(NULL, CLFORGE_DEVICE_NOT_FOUND, "no OpenCL platform found: %s", CLFORGE_INSTALL_HINT);
  if (err != CL_SUCCESS) return clforge__fail_cl(NULL, err, "clGetPlatformIDs");
  if (np > MAX_PLATFORMS) np = MAX_PLATFORMS;
  size_t n = 0;
  for (cl_uint p = 0; p < np; ++p) {
    cl_device_id devs[MAX_DEVICES];
    cl_uint nd = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd) != CL_SUCCESS) continue;
    if (nd > MAX_DEVICES) nd = MAX_DEVICES;
    for (cl_uint d = 0; d < nd && n < cap; ++d) {
      candidate *c = &out[n++];
      c->platform = platforms[p];
      c->device = devs[d];
      c->pi = p;
      c->di = d;
      c->type = 0;
      clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof c->type, &c->type, NULL);
      get_string(devs[d], CL_DEVICE_NAME, c->name, sizeof c->name);
      platform_string(platforms[p], CL_PLATFORM_NAME, c->platform_name, sizeof c->platform_name);
      platform_string(platforms[p], CL_PLATFORM_VENDOR, c->platform_vendor, sizeof c->platform_vendor);
    }
  }
  if (n == 0)
    return clforge__fail(NULL, CLFORGE_DEVICE_NOT_FOUND, "OpenCL platforms found, but no device: %s",
                         CLFORGE_INSTALL_HINT);
  *count = n;
  return CLFORGE_SUCCESS;
}

/* PoCL by its platform's vendor ("The pocl project") or name. */
static int is_pocl(const candidate *c) {
  return contains_ci(c->platform_vendor, "pocl") || contains_ci(c->platform_name, "Portable Computing Language");
}

static void list_devices(const candidate *c, size_t n, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < n && used < cap; ++i) {
    int w = snprintf(buf + used, cap - used, "\n  %u:%u  %s (%s)", c[i].pi, c[i].di, c[i].name, c[i].platform_name);
    if (w < 0) break;
    used += (size_t)w;
  }
}

/* "P:D" with decimal indices. 1 = parsed, 0 = not index-shaped (a name, and
 * digits alone such as "4090" are part of names), -1 = index-shaped (digits
 * around a colon) but malformed. */
static int parse_indices(const char *s, unsigned long *p, unsigned long *d) {
  if (!strchr(s, ':')) return 0;
  for (const char *c = s; *c; ++c)
    if (!isdigit((unsigned char)*c) && *c != ':' && *c != '-' && *c != '+' && !isspace((unsigned char)*c))
      return 0;
  const char *q = s;
  while (isspace((unsigned char)*q)) ++q;
  if (!isdigit((unsigned char)*q)) return -1;
  char *end;
  *p = strtoul(q, &end, 10);
  if (*end != ':' || !isdigit((unsigned char)end[1])) return -1;
  *d = strtoul(end + 1, &end, 10);
  while (isspace((unsigned char)*end)) ++end;
  return *end ? -1 : 1;
}

/* First GPU, else accelerator, else CPU; among CPUs PoCL's first (the
 * driver clforge's built-in defaults and published figures come from, so
 * that installing a second CPU driver changes no result and no figure:
 * CLFORGE_DEVICE picks the other), then the loader's order. With nth, the
 * (nth mod count)-th GPU or accelerator of that kind: one per local rank of
 * an MPI job (a CPU is one device, shared). */
static clforge_status default_device(const candidate *c, size_t n, int nth, cl_platform_id *platform,
                                     cl_device_id *device) {
  static const cl_device_type order[] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CPU};
  for (size_t t = 0; t < sizeof order / sizeof order[0]; ++t) {
    size_t count = 0;
    for (size_t i = 0; i < n; ++i) count += (c[i].type & order[t]) != 0;
    const size_t want = order[t] == CL_DEVICE_TYPE_CPU || !count ? 0 : (size_t)nth % count;
    for (int pocl_pass = order[t] == CL_DEVICE_TYPE_CPU; pocl_pass >= 0; --pocl_pass)
      for (size_t i = 0, k = 0; i < n; ++i)
        if ((c[i].type & order[t]) && (!pocl_pass || is_pocl(&c[i])) && k++ == want) {
          *platform = c[i].platform;
          *device = c[i].device;
          return CLFORGE_SUCCESS;
        }
  }
  *platform = c[0].platform; /* e.g. only CL_DEVICE_TYPE_CUSTOM devices */
  *device = c[0].device;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__device_select_nth(int nth, cl_platform_id *platform, cl_device_id *device) {
  candidate c[MAX_PLATFORMS * 4];
  size_t n = 0;
  clforge_status st = enumerate(c, sizeof c / sizeof c[0], &n);
  return st == CLFORGE_SUCCESS ? default_device(c, n, nth < 0 ? 0 : nth, platform, device) : st;
}

clforge_status clforge__device_select(const char *selector, const char *origin, cl_platform_id *platform,
                                      cl_device_id *device) {
  candidate c[MAX_PLATFORMS * 4];
  size_t n = 0;
  clforge_status st = enumerate(c, sizeof c / sizeof c[0], &n);
  if (st != CLFORGE_SUCCESS) return st;
  char listing[2048];

  const char *sel = selector;
  while (sel && isspace((unsigned char)*sel)) ++sel;
  if (!sel || !*sel) return default_device(c, n, 0, platform, device);

  list_devices(c, n, listing, sizeof listing);
  clforge_status bad = strcmp(origin, "CLFORGE_DEVICE") ? CLFORGE_INVALID_ARGUMENT : CLFORGE_INVALID_ENVIRONMENT;
  unsigned long pi, di;
  int shape = parse_indices(sel, &pi, &di);
  if (shape < 0)
    return clforge__fail(NULL, bad,
                         "%s \"%s\" is neither \"P:D\" (platform and device index) nor a device name; devices:%s",
                         origin, sel, listing);
  if (shape > 0) {
    for (size_t i = 0; i < n; ++i)
      if (c[i].pi == pi && c[i].di == di) {
        *platform = c[i].platform;
        *device = c[i].device;
        return CLFORGE_SUCCESS;
      }
    return clforge__fail(NULL, CLFORGE_DEVICE_NOT_FOUND, "%s \"%s\": no device %lu on platform %lu; devices:%s",
                         origin, sel, di, pi, listing);
  }
  /* A driver's name first ("pocl", "intel": the platform's name or
   * vendor), since two CPU drivers name the same CPU alike; then part of
   * a device's name. */
  for (int by_platform = 1; by_platform >= 0; --by_platform)
    for (size_t i = 0; i < n; ++i)
      if (by_platform ? contains_ci(c[i].platform_name, sel) || contains_ci(c[i].platform_vendor, sel)
                      : contains_ci(c[i].name, sel)) {
        *platform = c[i].platform;
        *device = c[i].device;
        return CLFORGE_SUCCESS;
      }
  return clforge__fail(NULL, CLFORGE_DEVICE_NOT_FOUND,
                       "%s \"%s\" matches no platform or device name (give \"P:D\" or part of a name); devices:%s",
                       origin, sel, listing);
}
