/* The ICD loader, clforge's paths, platforms and devices (inventory.h). */
#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT */
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS /* clGetExtensionFunctionAddress */
#include "inventory.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"

#define CLFORGE_CL_ICDL_OCL_VERSION 1 /* values of ocl-icd's cl_icdl_info */
#define CLFORGE_CL_ICDL_VERSION 2
#define CLFORGE_CL_ICDL_NAME 3
#define CLFORGE_CL_ICDL_VENDOR 4

#define INSTALL_HINT                                                                             \
  "Install an OpenCL driver (ICD): on Debian/Ubuntu `apt-get install pocl-opencl-icd` for the " \
  "CPU, or your GPU vendor's OpenCL ICD (nvidia-opencl-icd, mesa-opencl-icd, intel-opencl-icd); " \
  "check with `clinfo -l`, which lists what the ICD loader finds."

typedef cl_int (*icdl_info_fn)(cl_uint, size_t, void *, size_t *);

static void icdl_string(icdl_info_fn fn, cl_uint what, char *buf, size_t cap) {
  char tmp[512];
  buf[0] = '\0';
  size_t got = 0;
  memset(tmp, 0, sizeof tmp);
  if (fn(what, sizeof tmp - 1, tmp, &got) == CL_SUCCESS) clforge_cli_clean(tmp, buf, cap);
}

void inventory_loader(loader_info *li) {
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

void inventory_paths(path_entry *p, size_t n) {
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

static void platform_string(cl_platform_id p, cl_platform_info what, char *buf, size_t cap) {
  buf[0] = '\0';
  size_t need = 0;
  if (clGetPlatformInfo(p, what, 0, NULL, &need) != CL_SUCCESS || need == 0) return;
  char *tmp = calloc(need + 1, 1);
  if (tmp && clGetPlatformInfo(p, what, need, tmp, NULL) == CL_SUCCESS) clforge_cli_clean(tmp, buf, cap);
  free(tmp);
}

int inventory_scan(system_info *s) {
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
      clforge_cli_clean(flat[0] ? flat : clforge_status_name(st), s->default_error, sizeof s->default_error);
    }
    clforge_context_destroy(ctx);
  }
  return 0;
}

void inventory_free(system_info *s) {
  for (cl_uint p = 0; p < s->nplatforms; ++p) free(s->platforms[p].devices);
  free(s->platforms);
}

const char *inventory_no_device_message(const system_info *s, char *buf, size_t cap) {
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
